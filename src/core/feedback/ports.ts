/** Relevance feedback in storage (src/store/pg/feedback-store.ts). */

export interface NewFeedback {
  id: string;
  accountId: string;
  keyId: string;
  requestId: string;
  productId: string;
  relevant: boolean;
  /** After the account's PII policy. */
  reason: string | null;
  userClicked: boolean | null;
  query: string;
  model: string | null;
  queryVector: Float32Array | null;
  createdAt: Date;
}

/** One stored vote as ranking reads it. */
export interface FeedbackVote {
  /** The feedback row's id. */
  id: string;
  requestId: string;
  productId: string;
  relevant: boolean;
  queryVector: Float32Array;
  createdAt: Date;
}

export interface FeedbackStore {
  /** The search's stored (redacted) query and the products it returned, or null if not this account's. */
  findSearch(accountId: string, requestId: string): Promise<{ query: string; productIds: string[] } | null>;
  insert(feedback: NewFeedback): Promise<void>;
  /** Changes whenever the account's feedback changes (in any process); cheap. */
  version(accountId: string): Promise<string>;
  /**
   * The account's newest `limit` votes with a vector built by `model` (created at or after
   * `since` when given), newest first by created_at then id. Every row, a repeated vote on the
   * same search and product included: the caller keeps the latest of each.
   */
  votes(accountId: string, model: string, limit: number, since?: Date): Promise<FeedbackVote[]>;
}
