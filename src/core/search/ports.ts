/** Searches, their impressions and sessions in storage (src/store/pg/search-store.ts). */

/** What a session remembers between searches (docs/search.md); bounded lists, newest last. */
export interface SessionState {
  queries: string[];
  shownProductIds: string[];
  clickedProductIds: string[];
  /** Answers with products so far (a publisher's session cap, docs/policy.md); absent in sessions written before it was counted. */
  productAnswers?: number;
}

export interface RecordedSearch {
  requestId: string;
  accountId: string;
  keyId: string;
  sessionId: string;
  query: string;
  normalizedQuery: string;
  filters: Record<string, unknown>;
  totalMatches: number;
  tookMs: number;
  createdAt: Date;
  /**
   * Returned results in rank order: each becomes an impression, with the features it was ranked
   * on and, when the search was interleaved, the team that placed it (null: both rankings agreed).
   * `categoryId`: the product's taxonomy category when it was shown (null or absent: unplaced), for
   * analytics by category (docs/analytics.md).
   */
  impressions: {
    impressionId: string;
    productId: string;
    position: number;
    categoryId?: number | null;
    features?: readonly number[];
    team?: 0 | 1 | null;
  }[];
  /** The ranking model that served (a learned model's id, else the catalog model's source). */
  rankingModel?: string;
  /** The candidate model id when the results interleave the serving model and a candidate. */
  interleavedWith?: string;
  /** The session after this search. */
  session: SessionState;
}

export interface SearchStore {
  /** The session's state if it exists and was used within `ttlMs`; null otherwise. */
  loadSession(accountId: string, sessionId: string, now: Date, ttlMs: number): Promise<SessionState | null>;
  /** The search, its impressions, the session update and the `search` webhook event, in one transaction. */
  recordSearch(search: RecordedSearch): Promise<void>;
  /** Deletes up to `limit` sessions last used before `unusedSince`; returns how many. Impressions keep their session id. */
  pruneSessions(unusedSince: Date, limit: number): Promise<number>;
}
