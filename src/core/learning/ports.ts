/** What learning reads and writes: the event log and the learned models (src/store/pg/learning-store.ts, ranking-model-store.ts). */
import type { RankingModel } from '../ranking/ranking.js';

/** What learning reads from the event log (billable clicks only: bots and link previews never train). */
export interface LearningStore {
  /** One query's shown results since `since`, newest searches first, at most `limit` of them. */
  queryEvents(accountId: string, normalizedQuery: string, since: Date, limit: number): Promise<QueryEvent[]>;
  /** The account's shown results since `since`, newest first, at most `limit`: position-bias estimation. */
  shownResults(accountId: string, since: Date, limit: number): Promise<ShownResult[]>;
}

type RankingModelStatus = 'candidate' | 'serving' | 'retired' | 'rejected';

/** A learned ranking model and where it stands (global learning, src/core/learning/ranking-learner.ts). */
export interface StoredRankingModel {
  id: string;
  /** What it applies to: the catalog's embedding model, as the catalog's calibration is keyed. */
  scope: string;
  source: string;
  model: RankingModel;
  status: RankingModelStatus;
  /** What it was fitted from (the fit's report). */
  trained: Record<string, unknown>;
  /** The interleaving evidence it was promoted or rejected on. */
  evidence: Record<string, unknown> | null;
  createdAt: Date;
  decidedAt: Date | null;
}

type RankingAction = 'propose' | 'promote' | 'reject' | 'rollback';

export interface RankingDecision {
  id: number;
  scope: string;
  action: RankingAction;
  modelId: string | null;
  previousId: string | null;
  evidence: Record<string, unknown>;
  /** Who decided: `learner` or `operator`. */
  actor: string;
  createdAt: Date;
}

/** Learned ranking models, their decision log, and the event log they learn from. */
export interface RankingModelStore {
  /** The serving and the candidate model of the scope (each null when none). */
  active(scope: string): Promise<{ serving: StoredRankingModel | null; candidate: StoredRankingModel | null }>;
  list(scope: string, limit: number): Promise<StoredRankingModel[]>;
  decisions(scope: string, limit: number): Promise<RankingDecision[]>;
  /** Inserts a candidate and its `propose` decision; false when the scope already has a candidate. */
  propose(model: Omit<StoredRankingModel, 'status' | 'evidence' | 'decidedAt'>, actor: string): Promise<boolean>;
  /**
   * Ends the candidate's test: `promote` retires the serving model and serves the candidate,
   * `reject` rejects it; both log the decision with its evidence. False when `candidateId` is no
   * longer the candidate (another process decided first).
   */
  decide(scope: string, candidateId: string, action: 'promote' | 'reject', evidence: Record<string, unknown>, actor: string, at: Date): Promise<boolean>;
  /**
   * The serving model stops serving (status rejected) and the one it replaced serves again (the
   * catalog's own model when there was none); a candidate under test is rejected with it.
   * Null when no learned model serves.
   */
  rollback(scope: string, actor: string, at: Date): Promise<{ from: string; to: string | null } | null>;
  /** Results of the newest `limit` searches since `since` whose features were logged, newest first. */
  trainingLog(since: Date, limit: number): Promise<LoggedResult[]>;
  /** Billable clicks per team of the searches interleaved with `candidateId`, one outcome per (session, query). */
  interleavedOutcomes(candidateId: string): Promise<InterleavedOutcome[]>;
}

/** One shown result: the query it answered, the product, its 1-based position, and whether it was clicked. */
export interface ShownResult {
  query: string;
  productId: string;
  position: number;
  clicked: boolean;
}

/** One result shown for the query: who saw it (session), where, and what they did with it. */
export interface QueryEvent {
  sessionId: string;
  productId: string;
  position: number;
  /** A billable click: bots, link previews and duplicates are already left out by the store. */
  clicked: boolean;
  converted: boolean;
}

/** One result of a logged search, with what happened to it. */
export interface LoggedResult {
  requestId: string;
  sessionId: string;
  /** The normalised query. */
  query: string;
  productId: string;
  position: number;
  /** Features in FEATURE_NAMES order as ranked; results logged by another feature set are left out. */
  features: readonly number[];
  /** A billable click: bots, link previews and duplicates never train. */
  clicked: boolean;
  converted: boolean;
  /** The newest feedback vote on this result: true relevant, false not relevant. */
  vote: boolean | null;
}

/** Clicks per team in one unit of evidence (a person's searches of one query). */
export interface InterleavedOutcome {
  serving: number;
  candidate: number;
}
