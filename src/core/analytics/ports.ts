/** The request log and the analytics read side (src/store/pg/request-log-store.ts, analytics-store.ts). */

/** One authenticated API request as the request log keeps it (GET /usage and GET /analytics/performance; docs/analytics.md). */
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

/**
 * One leaf category's figures over a range: impressions made in it, billable clicks made in it on
 * impressions of the category, conversions recorded in it on them (by currency, never converted).
 */
export interface CategoryFigures {
  /** The taxonomy category the product had when shown; null: unplaced. */
  categoryId: number | null;
  impressions: number;
  clicks: number;
  conversions: number;
  /** Σ commission_amount per conversion currency; only currencies with conversions. */
  revenueByCurrency: { currency: string; revenue: DecimalString }[];
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
 * The analytics read side (docs/analytics.md): figures derived from committed rows of one account. `now` tells the
 * store which hours and days are settled (it may roll those up and read them from rollups).
 */
export interface AnalyticsStore {
  /** Non-empty buckets only, plus requests per key over the whole range. */
  usage(
    accountId: string,
    range: BucketedRange,
    now: Date,
  ): Promise<{ buckets: UsageBucket[]; byKey: { keyId: string; name: string | null; requests: number }[] }>;
  /** Non-empty buckets only. */
  business(accountId: string, range: BucketedRange, now: Date): Promise<BusinessBucket[]>;
  /** Ordered clicks desc, impressions desc, revenue desc, product_id asc. */
  topProducts(accountId: string, start: Date, end: Date, limit: number, now: Date): Promise<ProductFigures[]>;
  /** Ordered searches desc, clicks desc, query asc. */
  topQueries(accountId: string, start: Date, end: Date, limit: number, now: Date): Promise<QueryFigures[]>;
  /** Every leaf category (and unplaced) with an impression, click or conversion in [start, end), in no particular order. */
  categoryFigures(accountId: string, start: Date, end: Date, now: Date): Promise<CategoryFigures[]>;
  /** All-time revenue per currency and the counts of [since, now). */
  dashboard(
    accountId: string,
    since: Date,
    now: Date,
  ): Promise<{
    revenueByCurrency: { currency: string; revenue: DecimalString; conversions: number }[];
    activeKeys: number;
    searches: number;
    impressions: number;
    clicks: number;
  }>;
  /** Latencies are the recorded (grid) values; percentiles are exact over them. */
  performance(accountId: string, range: BucketedRange, now: Date): Promise<PerformanceFigures>;
}
