import type { CatalogProduct } from './catalog/product.js';
import type { RankingModel } from './search/ranking.js';
import type { Scope } from './keys/scopes.js';
import type { ShownResult } from './learning/position-bias.js';
import type { QueryEvent } from './learning/query-boosts.js';
import type { LoggedResult } from './learning/global-fit.js';
import type { InterleavedOutcome } from './learning/interleaving.js';
import type { EventType } from './webhooks/events.js';
import type { NextStep } from './webhooks/retry-policy.js';

/** The subset of pino the core logs through; keeps the core free of a logging dependency. */
export interface Logger {
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

export type StoredKeyStatus = 'active' | 'disabled' | 'revoked' | 'expired';

export interface StoredKey {
  id: string;
  accountId: string;
  name: string;
  hint: string;
  scopes: Scope[];
  status: StoredKeyStatus;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  /** Set by rotation: the key stays usable until then, and is revoked from then on. */
  revokeAt: Date | null;
  rateLimitPerMinute: number;
  rotatedFrom: string | null;
  /** The owning account's PII policy; filled by findBySecretHash (authentication) only. */
  piiPolicy?: 'redact' | 'reject';
}

export interface NewKey {
  id: string;
  accountId: string;
  name: string;
  secretHash: string;
  hint: string;
  scopes: Scope[];
  createdAt: Date;
  expiresAt: Date | null;
  rateLimitPerMinute: number;
  rotatedFrom: string | null;
}

export interface KeyCursor {
  createdAt: Date;
  id: string;
}

/** Key reads and writes scoped to one account; inside `KeyStore.inAccountTransaction` they are serialised per account. */
export interface KeyRepository {
  findById(accountId: string, id: string): Promise<StoredKey | null>;
  list(accountId: string, limit: number, after: KeyCursor | null): Promise<StoredKey[]>;
  insert(key: NewKey): Promise<void>;
  setStatus(accountId: string, id: string, status: StoredKeyStatus, revokeAt?: Date | null): Promise<void>;
  delete(accountId: string, id: string): Promise<void>;
  /** Keys that are active or disabled and not past their revocation or expiry time. */
  countLiveKeys(accountId: string, now: Date): Promise<number>;
  /** Active keys holding `keys:manage` with no pending revocation, other than `excludeId`. */
  countOtherDurableAdmins(accountId: string, excludeId: string, now: Date): Promise<number>;
}

export interface KeyStore extends KeyRepository {
  findBySecretHash(secretHash: string): Promise<StoredKey | null>;
  /** Writes last_used_at unless another write happened within the last minute (any process). */
  touchLastUsed(id: string, now: Date): Promise<void>;
  /** Persists a status the clock has already made effective (grace over, expiry reached). */
  settleStatus(id: string, status: 'revoked' | 'expired'): Promise<void>;
  inAccountTransaction<T>(accountId: string, fn: (repo: KeyRepository) => Promise<T>): Promise<T>;
}

export interface Account {
  id: string;
  name: string;
  piiPolicy: 'redact' | 'reject';
  createdAt: Date;
}

export interface AccountStore {
  findById(id: string): Promise<Account | null>;
  /** Inserts the account and its first key atomically. */
  insertWithFirstKey(account: Account, key: NewKey): Promise<void>;
  /** Like insertWithFirstKey, but only when no account exists yet; safe when processes race. */
  insertIfNoAccounts(account: Account, key: NewKey): Promise<boolean>;
}

export interface RateLimitStore {
  /**
   * GCRA step for one bucket, atomic across processes. Advances the theoretical arrival time
   * by `incrementMs` unless that would put it more than `windowMs` ahead of `nowMs`.
   * Returns whether it did, and the stored arrival time (ms since epoch) after the call.
   */
  consume(bucket: string, nowMs: number, incrementMs: number, windowMs: number): Promise<{ allowed: boolean; tatMs: number }>;
  /** The bucket's stored theoretical arrival time (ms since epoch), or null when it has none. */
  peek(bucket: string): Promise<number | null>;
}

export interface HealthProbe {
  /** Throws when the database is unreachable; returns whether all migrations are applied. */
  migrationsCurrent(): Promise<boolean>;
}

export interface Stores {
  searches: SearchStore;
  clicks: ClickStore;
  feedback: FeedbackStore;
  secrets: SecretStore;
  keys: KeyStore;
  accounts: AccountStore;
  rateLimits: RateLimitStore;
  webhooks: WebhookStore;
  analytics: AnalyticsStore;
  requestLog: RequestLogStore;
  consoleSessions: ConsoleSessionStore;
  learning: LearningStore;
  rankingModels: RankingModelStore;
  health: HealthProbe;
}

/** What learning reads from the event log (billable clicks only: bots and link previews never train). */
export interface LearningStore {
  /** One query's shown results since `since`, newest searches first, at most `limit` of them. */
  queryEvents(accountId: string, normalizedQuery: string, since: Date, limit: number): Promise<QueryEvent[]>;
  /** The account's shown results since `since`, newest first, at most `limit`: position-bias estimation. */
  shownResults(accountId: string, since: Date, limit: number): Promise<ShownResult[]>;
}

export type RankingModelStatus = 'candidate' | 'serving' | 'retired' | 'rejected';

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

export type RankingAction = 'propose' | 'promote' | 'reject' | 'rollback';

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

export interface NewConsoleSession {
  tokenHash: string;
  accountId: string;
  keyId: string;
  csrfToken: string;
  createdAt: Date;
  expiresAt: Date;
}

/** A console session with the key that opened it, as it is now (status, scopes, PII policy). */
export interface StoredConsoleSession {
  csrfToken: string;
  expiresAt: Date;
  key: StoredKey;
}

export interface ConsoleSessionStore {
  insert(session: NewConsoleSession): Promise<void>;
  /** The session and its key, or null when there is no such session. */
  find(tokenHash: string): Promise<StoredConsoleSession | null>;
  delete(tokenHash: string): Promise<void>;
  /** Deletes sessions expired before `now`; returns how many. */
  deleteExpired(now: Date): Promise<number>;
}

/** Who is calling: resolved from an API key by the core, then passed to every operation. */
export interface Principal {
  accountId: string;
  keyId: string;
  scopes: readonly Scope[];
  rateLimitPerMinute: number;
  /** The account's PII policy (CONTRACT §4); `redact` when absent. */
  piiPolicy?: 'redact' | 'reject';
}

/** Text → unit-length vectors. Implemented in src/embed (local ONNX, OpenAI-compatible, transformers.js). */
export interface Embedder {
  readonly model: string;
  readonly dimensions: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}

export type AnnIndexKind = 'none' | 'ivf_hnsw_sq' | 'ivf_pq';

/** What the serving catalog version is and which model built it. */
export interface CatalogInfo {
  model: string;
  dimensions: number;
  productCount: number;
  version: number;
  updatedAt: Date;
  annIndex: AnnIndexKind;
  /** Recall@100 of the ANN path against exact search, measured on probe queries when the index was built or updated; null without an index. */
  annRecall: number | null;
}

/** Hard constraints pushed down into every retrieval (never applied after a top-k cut). */
export interface CatalogFilter {
  minPrice?: number;
  maxPrice?: number;
  merchant?: string;
  brand?: string;
  /** Matches the category or any ancestor, case-insensitively. */
  category?: string;
  /** Every word must occur in title, description, brand, category or attributes. */
  keywords?: readonly string[];
  excludeProductIds?: readonly string[];
}

export interface ScoredProduct {
  product: CatalogProduct;
  /** Vector search: cosine distance (0 = same direction). Text search: BM25 score (higher is better). */
  score: number;
  vector?: Float32Array;
}

export interface CatalogRow {
  product: CatalogProduct;
  vector: Float32Array;
}

/**
 * One import. Rows written are invisible to readers until commit(); abort() (or a crash) leaves
 * the previous catalog version serving.
 */
export interface CatalogWriter {
  write(rows: readonly CatalogRow[]): Promise<{ inserted: number; updated: number }>;
  commit(): Promise<CatalogInfo>;
  abort(): Promise<void>;
}

export interface CatalogStore {
  /** The serving version, or null for an empty catalog. */
  info(): Promise<CatalogInfo | null>;
  /**
   * Re-reads the serving pointer (a new import by another process); true when it moved. With
   * `accept`, a new version it rejects is not served: the current one keeps serving.
   */
  refresh(accept?: (info: CatalogInfo) => boolean): Promise<boolean>;
  /**
   * Loads what the store keeps in memory for searching (optional; searches work without it),
   * calling `prepare` on each product it keeps so derived data is computed ahead too.
   */
  warm?(prepare?: (product: CatalogProduct) => unknown): Promise<void>;
  /**
   * Starts an import. `replace` drops the current products on commit; otherwise rows upsert by
   * product id. Throws CatalogModelMismatchError when the model differs and `replace` is false.
   */
  openWriter(options: { model: string; dimensions: number; replace: boolean }): Promise<CatalogWriter>;
  getByIds(productIds: readonly string[]): Promise<CatalogProduct[]>;
  /** `withVectors` returns each result's vector too (the ranking's pseudo-relevance feedback uses them). */
  vectorSearch(vector: Float32Array, options: { limit: number; filter?: CatalogFilter; exact?: boolean; withVectors?: boolean }): Promise<ScoredProduct[]>;
  /** Full text over the canonical search text (measures as canonicalText writes them). */
  textSearch(query: string, options: { limit: number; filter?: CatalogFilter; withVectors?: boolean }): Promise<ScoredProduct[]>;
  /**
   * Products that pass `filter` and have a price, cheapest first (dearest with `descending`), the
   * first `limit`, and how many pass: a search whose query names only a price ("under $50").
   */
  byPrice(filter: CatalogFilter, options: { limit: number; descending: boolean }): Promise<{ products: CatalogProduct[]; total: number }>;
  /** The relevance calibration fitted for `model` (npm run calibrate), or null. */
  readCalibration(model: string): Promise<RankingModel | null>;
  writeCalibration(model: string, calibration: RankingModel): Promise<void>;
  /** Every product of the serving version, in batches (re-index). */
  scanProducts(): AsyncIterable<CatalogProduct[]>;
  /** Every product id and vector of the serving version (re-index, ANN evaluation). */
  scanVectors(): AsyncIterable<{ productId: string; vector: Float32Array }[]>;
  close(): Promise<void>;
}

/** What a session remembers between searches (CONTRACT §4); bounded lists, newest last. */
export interface SessionState {
  queries: string[];
  shownProductIds: string[];
  clickedProductIds: string[];
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
   */
  impressions: { impressionId: string; productId: string; position: number; features?: readonly number[]; team?: 0 | 1 | null }[];
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

/** An impression as clicks see it, with the click of the asked-for kind it already has. */
export interface ClickableImpression {
  id: string;
  accountId: string;
  requestId: string;
  productId: string;
  createdAt: Date;
  existingClick: StoredClick | null;
}

export interface StoredClick {
  id: string;
  impressionId: string;
  accountId: string;
  requestId: string;
  productId: string;
  billable: boolean;
  destinationUrl: string | null;
  clickedAt: Date;
  /** Whether the impression had a display receipt when the click was recorded (set by the store). */
  impressionDisplayed: boolean;
}

export interface NewClick extends Omit<StoredClick, 'impressionDisplayed'> {
  keyId: string | null;
  source: 'api' | 'link';
  userAgentClass: 'api' | 'browser' | 'bot';
}

export interface StoredConversion {
  id: string;
  accountId: string;
  clickId: string;
  impressionId: string;
  productId: string;
  keyId: string;
  orderId: string;
  saleAmount: number;
  commissionAmount: number;
  currency: string;
  createdAt: Date;
}

export interface ClickStore {
  /** The impression (any account) and its existing click with this `billable` value, or null. */
  findImpression(impressionId: string, billable: boolean): Promise<ClickableImpression | null>;
  /**
   * Inserts the click unless its impression already has one with the same `billable` value (a
   * unique constraint decides, so concurrent calls agree); returns the row that holds.
   */
  recordClick(click: NewClick): Promise<{ click: StoredClick; inserted: boolean }>;
  findClick(accountId: string, clickId: string): Promise<StoredClick | null>;
  findConversionByOrder(accountId: string, orderId: string): Promise<StoredConversion | null>;
  /** Inserts unless the account already has this order_id; returns the row that holds. */
  recordConversion(conversion: StoredConversion): Promise<{ conversion: StoredConversion; inserted: boolean }>;
  /**
   * Display receipts: sets `displayed_at = at` on those of `impressionIds` (bare UUIDs) of the
   * account that have none yet, unless one of them is not the account's (then nothing changes and
   * the missing ids come back). Answers each impression's `displayed_at` and whether this call set it.
   */
  recordDisplays(accountId: string, impressionIds: readonly string[], at: Date): Promise<{ missing: string[] } | { displays: StoredDisplay[] }>;
}

export interface StoredDisplay {
  impressionId: string;
  displayedAt: Date;
  /** True when this receipt set `displayed_at`; false when an earlier one had. */
  first: boolean;
}

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

export interface SecretStore {
  /** The named secret; created with `generate()` by the first process to ask, then shared. */
  getOrCreate(name: string, generate: () => string, now: Date): Promise<string>;
}

export type WebhookStatus = 'enabled' | 'disabled';
export type DeliveryStatus = 'pending' | 'delivering' | 'succeeded' | 'failed';

export interface WebhookEndpoint {
  id: string;
  accountId: string;
  url: string;
  events: EventType[];
  description: string | null;
  status: WebhookStatus;
  /** `failing` when the worker disabled it after 5 days of failures; `manual` when a caller did. */
  disabledReason: 'manual' | 'failing' | null;
  /** `whsec_…`, kept as issued: signing needs the key itself. Never logged. */
  secret: string;
  /** The secret before the last rotation; it signs alongside `secret` until it expires. */
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  /** Start of the current run of failed attempts; null after any success. */
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface WebhookDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastDurationMs: number | null;
  lastError: string | null;
  lastResponseBody: string | null;
  createdAt: Date;
}

/** Endpoint reads and writes inside one account's serialised transaction (limit checks). */
export interface WebhookRepository {
  countEndpoints(accountId: string): Promise<number>;
  findEndpoint(accountId: string, id: string): Promise<WebhookEndpoint | null>;
  insertEndpoint(endpoint: WebhookEndpoint): Promise<void>;
  /** Writes every mutable field of the endpoint. */
  saveEndpoint(endpoint: WebhookEndpoint): Promise<void>;
}

export interface WebhookStore extends WebhookRepository {
  inAccountTransaction<T>(accountId: string, fn: (repo: WebhookRepository) => Promise<T>): Promise<T>;
  listEndpoints(accountId: string, limit: number, after: KeyCursor | null): Promise<WebhookEndpoint[]>;
  /** False when there was no such endpoint. Its deliveries go with it. */
  deleteEndpoint(accountId: string, id: string): Promise<boolean>;
  listDeliveries(accountId: string, endpointId: string, status: DeliveryStatus | null, limit: number, after: KeyCursor | null): Promise<WebhookDelivery[]>;
  findDelivery(accountId: string, endpointId: string, deliveryId: string): Promise<WebhookDelivery | null>;
  /** Makes a delivery due now (a manual retry or replay); false when a worker holds it. */
  requeueDelivery(accountId: string, endpointId: string, deliveryId: string, now: Date): Promise<boolean>;
  /** Writes an event and one delivery of it to this endpoint only (test events). */
  enqueueForEndpoint(endpoint: WebhookEndpoint, event: { id: string; type: EventType; payload: string; createdAt: Date }): Promise<WebhookDelivery>;
  /**
   * Deletes up to `limit` deliveries (with their attempts) that are finished and last tried before
   * `before`, or parked on a disabled endpoint and created before it; never a delivery that is
   * due or leased. Returns how many.
   */
  pruneDeliveries(before: Date, limit: number): Promise<number>;
  /** Deletes up to `limit` events created before `before` that have no delivery left; returns how many. */
  pruneEvents(before: Date, limit: number): Promise<number>;
}

/** A delivery a worker holds under lease, with everything needed to send it. */
export interface ClaimedDelivery {
  id: string;
  leaseToken: string;
  eventId: string;
  payload: string;
  endpointId: string;
  url: string;
  secrets: string[];
  /** Attempts made before this one. */
  attemptCount: number;
}

export interface AttemptRecord {
  startedAt: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
  ok: boolean;
  next: NextStep;
}

export interface CompletedAttempt {
  claim: ClaimedDelivery;
  attempt: AttemptRecord;
  disableIfFailingSince: Date;
}

/** The worker's side of the outbox: SKIP LOCKED claims under a lease. */
export interface DeliveryQueue {
  /** Claims up to `limit` due deliveries of enabled endpoints, leasing them until `leaseUntil`. */
  claim(now: Date, limit: number, leaseUntil: Date): Promise<ClaimedDelivery[]>;
  /**
   * Records the attempt and moves the delivery on, in one transaction; updates the endpoint's
   * failure run and disables it when `disableIfFailingSince` is reached. False when the lease
   * was lost (another worker took over): nothing is written.
   */
  complete(claim: ClaimedDelivery, attempt: AttemptRecord, disableIfFailingSince: Date): Promise<boolean>;
  /** complete() for several deliveries in one transaction (one commit); a result per item. */
  completeMany(items: readonly CompletedAttempt[]): Promise<boolean[]>;
}

/** One authenticated API request as the request log keeps it (CONTRACT §7 usage and performance). */
export interface RequestLogEntry {
  accountId: string;
  keyId: string;
  method: string;
  /** The route template (`/v1/clicks/:impression_id`), never the raw path. */
  route: string;
  status: number;
  latencyMs: number;
  createdAt: Date;
}

export interface RequestLogStore {
  /** Appends the entries in one statement. */
  insertMany(entries: readonly RequestLogEntry[]): Promise<void>;
  /** Deletes up to `limit` entries older than `cutoff`; returns how many it deleted. */
  pruneBefore(cutoff: Date, limit: number): Promise<number>;
}

/** A half-open time range [start, end) and the bucket width of its series, in ms. */
export interface BucketedRange {
  start: Date;
  end: Date;
  bucketMs: number;
}

/** Money as the store sums it: an exact decimal string (numeric), never a float sum. */
export type DecimalString = string;

export interface UsageBucket {
  /** Bucket start, ms since epoch, aligned to `bucketMs` from the epoch (UTC). */
  bucket: number;
  requests: number;
  searches: number;
  resultsReturned: number;
  clicks: number;
  feedback: number;
  errors: number;
}

export interface BusinessBucket {
  bucket: number;
  impressions: number;
  /** Impressions whose first display receipt arrived in the bucket. */
  displayed: number;
  clicks: number;
  conversions: number;
  revenue: DecimalString;
}

export interface ProductFigures {
  productId: string;
  impressions: number;
  clicks: number;
  conversions: number;
  revenue: DecimalString;
}

export interface QueryFigures {
  query: string;
  searches: number;
  resultsReturned: number;
  clicks: number;
}

export interface LatencySummary {
  requests: number;
  /** Exact nearest-rank percentiles (percentile_disc). */
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
  errors: number;
}

export interface PerformanceFigures {
  overall: LatencySummary;
  byStatus: (LatencySummary & { status: number })[];
  byEndpoint: (LatencySummary & { method: string; route: string })[];
  series: { bucket: number; requests: number; p95: number }[];
}

/**
 * Read side of CONTRACT §7: figures derived from committed rows of one account. `now` tells the
 * store which hours and days are settled (it may roll those up and read them from rollups).
 */
export interface AnalyticsStore {
  /** Non-empty buckets only, plus requests per key over the whole range. */
  usage(accountId: string, range: BucketedRange, now: Date): Promise<{ buckets: UsageBucket[]; byKey: { keyId: string; name: string | null; requests: number }[] }>;
  /** Non-empty buckets only. */
  business(accountId: string, range: BucketedRange, now: Date): Promise<BusinessBucket[]>;
  /** Ordered clicks desc, impressions desc, revenue desc, product_id asc. */
  topProducts(accountId: string, start: Date, end: Date, limit: number, now: Date): Promise<ProductFigures[]>;
  /** Ordered searches desc, clicks desc, query asc. */
  topQueries(accountId: string, start: Date, end: Date, limit: number, now: Date): Promise<QueryFigures[]>;
  /** All-time revenue per currency and the counts of [since, now). */
  dashboard(accountId: string, since: Date, now: Date): Promise<{
    revenueByCurrency: { currency: string; revenue: DecimalString; conversions: number }[];
    activeKeys: number;
    searches: number;
    impressions: number;
    clicks: number;
  }>;
  /** Latencies are the recorded (grid) values; percentiles are exact over them. */
  performance(accountId: string, range: BucketedRange, now: Date): Promise<PerformanceFigures>;
}
