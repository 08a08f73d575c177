import type {
  AnalyticsStore,
  BucketedRange,
  BusinessBucket,
  LatencySummary,
  PerformanceFigures,
  ProductFigures,
  QueryFigures,
  UsageBucket,
} from '../../core/ports.js';
import type { Db } from './db.js';

/**
 * Bucket start in ms since the epoch, aligned to the bucket width from the epoch. Computed from the
 * epoch rather than with date_trunc so the session's TimeZone can never shift a day boundary.
 */
const bucketOf = (column: string, widthParam: string) => `(floor(extract(epoch FROM ${column}) * 1000 / ${widthParam}::float8) * ${widthParam}::float8)::float8`;

/** [start, end) of one account; `$1` account, `$2` start, `$3` end. */
const inRange = (timeColumn: string) => `account_id = $1 AND ${timeColumn} >= $2 AND ${timeColumn} < $3`;

const PERCENTILES = 'percentile_disc(ARRAY[0.5, 0.9, 0.95, 0.99]) WITHIN GROUP (ORDER BY latency_ms)';

interface UsageRow { kind: 'r' | 's' | 'c' | 'f'; bucket: number; a: number; b: number }
interface BusinessRow { kind: 'i' | 'c' | 'v'; bucket: number; n: number; revenue: string | null }
interface LatencyRow {
  g_status: number;
  g_endpoint: number;
  g_bucket: number;
  status: number | null;
  method: string | null;
  route: string | null;
  bucket: number | null;
  requests: number;
  errors: number;
  p: number[] | null;
  max: number | null;
}

/** CONTRACT §7 figures, each read from committed rows with the (account_id, time) indexes. */
export class PgAnalyticsStore implements AnalyticsStore {
  constructor(private readonly db: Db) {}

  async usage(accountId: string, range: BucketedRange): Promise<{ buckets: UsageBucket[]; byKey: { keyId: string; name: string | null; requests: number }[] }> {
    const params = [accountId, range.start, range.end, range.bucketMs];
    const [rows, keys] = await Promise.all([
      this.db.query<UsageRow>(
        `SELECT 'r' AS kind, ${bucketOf('created_at', '$4')} AS bucket, count(*)::int AS a, (count(*) FILTER (WHERE status >= 400))::int AS b
           FROM request_log WHERE ${inRange('created_at')} GROUP BY 2
         UNION ALL
         SELECT 's', ${bucketOf('created_at', '$4')}, count(*)::int, COALESCE(sum(result_count), 0)::int
           FROM search_requests WHERE ${inRange('created_at')} GROUP BY 2
         UNION ALL
         SELECT 'c', ${bucketOf('clicked_at', '$4')}, count(*)::int, 0 FROM clicks WHERE ${inRange('clicked_at')} AND billable GROUP BY 2
         UNION ALL
         SELECT 'f', ${bucketOf('created_at', '$4')}, count(*)::int, 0 FROM feedback WHERE ${inRange('created_at')} GROUP BY 2`,
        params,
      ),
      this.db.query<{ key_id: string; name: string | null; requests: number }>(
        `SELECT l.key_id, k.name, l.requests FROM (
           SELECT key_id, count(*)::int AS requests FROM request_log WHERE ${inRange('created_at')} GROUP BY key_id
         ) l LEFT JOIN api_keys k ON k.id = l.key_id
         ORDER BY l.requests DESC, l.key_id`,
        params.slice(0, 3),
      ),
    ]);
    const buckets = new Map<number, UsageBucket>();
    for (const r of rows) {
      let b = buckets.get(r.bucket);
      if (!b) buckets.set(r.bucket, (b = { bucket: r.bucket, requests: 0, searches: 0, resultsReturned: 0, clicks: 0, feedback: 0, errors: 0 }));
      if (r.kind === 'r') [b.requests, b.errors] = [r.a, r.b];
      else if (r.kind === 's') [b.searches, b.resultsReturned] = [r.a, r.b];
      else if (r.kind === 'c') b.clicks = r.a;
      else b.feedback = r.a;
    }
    return { buckets: [...buckets.values()], byKey: keys.map((k) => ({ keyId: k.key_id, name: k.name, requests: k.requests })) };
  }

  async business(accountId: string, range: BucketedRange): Promise<BusinessBucket[]> {
    const rows = await this.db.query<BusinessRow>(
      `SELECT 'i' AS kind, ${bucketOf('created_at', '$4')} AS bucket, count(*)::int AS n, NULL::text AS revenue
         FROM impressions WHERE ${inRange('created_at')} GROUP BY 2
       UNION ALL
       SELECT 'c', ${bucketOf('clicked_at', '$4')}, count(*)::int, NULL FROM clicks WHERE ${inRange('clicked_at')} AND billable GROUP BY 2
       UNION ALL
       SELECT 'v', ${bucketOf('created_at', '$4')}, count(*)::int, sum(commission_amount)::text FROM conversions WHERE ${inRange('created_at')} GROUP BY 2`,
      [accountId, range.start, range.end, range.bucketMs],
    );
    const buckets = new Map<number, BusinessBucket>();
    for (const r of rows) {
      let b = buckets.get(r.bucket);
      if (!b) buckets.set(r.bucket, (b = { bucket: r.bucket, impressions: 0, clicks: 0, conversions: 0, revenue: '0' }));
      if (r.kind === 'i') b.impressions = r.n;
      else if (r.kind === 'c') b.clicks = r.n;
      else [b.conversions, b.revenue] = [r.n, r.revenue ?? '0'];
    }
    return [...buckets.values()];
  }

  async topProducts(accountId: string, start: Date, end: Date, limit: number): Promise<ProductFigures[]> {
    const rows = await this.db.query<{ product_id: string; impressions: number; clicks: number; conversions: number; revenue: string }>(
      `WITH imp AS (SELECT product_id, count(*)::int AS n FROM impressions WHERE ${inRange('created_at')} GROUP BY product_id),
            clk AS (SELECT product_id, count(*)::int AS n FROM clicks WHERE ${inRange('clicked_at')} AND billable GROUP BY product_id),
            cnv AS (SELECT product_id, count(*)::int AS n, sum(commission_amount) AS revenue FROM conversions WHERE ${inRange('created_at')} GROUP BY product_id),
            p AS (SELECT product_id FROM imp UNION SELECT product_id FROM clk UNION SELECT product_id FROM cnv)
       SELECT p.product_id, COALESCE(imp.n, 0) AS impressions, COALESCE(clk.n, 0) AS clicks, COALESCE(cnv.n, 0) AS conversions,
              COALESCE(cnv.revenue, 0)::text AS revenue
         FROM p LEFT JOIN imp USING (product_id) LEFT JOIN clk USING (product_id) LEFT JOIN cnv USING (product_id)
        ORDER BY COALESCE(clk.n, 0) DESC, COALESCE(imp.n, 0) DESC, COALESCE(cnv.revenue, 0) DESC, p.product_id
        LIMIT $4`,
      [accountId, start, end, limit],
    );
    return rows.map((r) => ({ productId: r.product_id, impressions: r.impressions, clicks: r.clicks, conversions: r.conversions, revenue: r.revenue }));
  }

  async topQueries(accountId: string, start: Date, end: Date, limit: number): Promise<QueryFigures[]> {
    // COLLATE "C": the tie-break is by code point, the same on every server whatever its locale.
    const rows = await this.db.query<{ query: string; searches: number; results: number; clicks: number }>(
      `WITH s AS (SELECT normalized_query AS query, count(*)::int AS searches, sum(result_count)::int AS results
                    FROM search_requests WHERE ${inRange('created_at')} GROUP BY 1),
            c AS (SELECT r.normalized_query AS query, count(*)::int AS clicks
                    FROM clicks k JOIN search_requests r ON r.id = k.request_id
                   WHERE k.account_id = $1 AND k.clicked_at >= $2 AND k.clicked_at < $3 AND k.billable GROUP BY 1)
       SELECT s.query, s.searches, s.results, COALESCE(c.clicks, 0) AS clicks
         FROM s LEFT JOIN c USING (query)
        ORDER BY s.searches DESC, COALESCE(c.clicks, 0) DESC, s.query COLLATE "C"
        LIMIT $4`,
      [accountId, start, end, limit],
    );
    return rows.map((r) => ({ query: r.query, searches: r.searches, resultsReturned: r.results, clicks: r.clicks }));
  }

  async dashboard(accountId: string, since: Date, now: Date) {
    const [revenue, counts] = await Promise.all([
      this.db.query<{ currency: string; revenue: string; conversions: number }>(
        `SELECT currency, sum(commission_amount)::text AS revenue, count(*)::int AS conversions
           FROM conversions WHERE account_id = $1 GROUP BY currency ORDER BY currency`,
        [accountId],
      ),
      this.db.query<{ keys: number; searches: number; impressions: number; clicks: number }>(
        `SELECT (SELECT count(*)::int FROM api_keys WHERE account_id = $1 AND status = 'active'
                   AND (expires_at IS NULL OR expires_at > $3) AND (revoke_at IS NULL OR revoke_at > $3)) AS keys,
                (SELECT count(*)::int FROM search_requests WHERE ${inRange('created_at')}) AS searches,
                (SELECT count(*)::int FROM impressions WHERE ${inRange('created_at')}) AS impressions,
                (SELECT count(*)::int FROM clicks WHERE ${inRange('clicked_at')} AND billable) AS clicks`,
        [accountId, since, now],
      ),
    ]);
    const c = counts[0] ?? { keys: 0, searches: 0, impressions: 0, clicks: 0 };
    return { revenueByCurrency: revenue, activeKeys: c.keys, searches: c.searches, impressions: c.impressions, clicks: c.clicks };
  }

  async performance(accountId: string, range: BucketedRange): Promise<PerformanceFigures> {
    // One scan, four groupings; percentile_disc is exact (nearest rank: the smallest latency whose
    // cumulative share reaches p).
    const rows = await this.db.query<LatencyRow>(
      `SELECT GROUPING(status)::int AS g_status, GROUPING(method)::int AS g_endpoint, GROUPING(bucket)::int AS g_bucket,
              status, method, route, bucket, count(*)::int AS requests, (count(*) FILTER (WHERE status >= 400))::int AS errors,
              ${PERCENTILES} AS p, max(latency_ms) AS max
         FROM (SELECT status, method, route, latency_ms, ${bucketOf('created_at', '$4')} AS bucket
                 FROM request_log WHERE ${inRange('created_at')}) l
        GROUP BY GROUPING SETS ((), (status), (method, route), (bucket))`,
      [accountId, range.start, range.end, range.bucketMs],
    );
    const summary = (r: LatencyRow): LatencySummary => ({
      requests: r.requests,
      errors: r.errors,
      p50: r.p?.[0] ?? 0,
      p90: r.p?.[1] ?? 0,
      p95: r.p?.[2] ?? 0,
      p99: r.p?.[3] ?? 0,
      max: r.max ?? 0,
    });
    const empty: LatencySummary = { requests: 0, errors: 0, p50: 0, p90: 0, p95: 0, p99: 0, max: 0 };
    const overall = rows.find((r) => r.g_status === 1 && r.g_endpoint === 1 && r.g_bucket === 1);
    return {
      overall: overall && overall.requests > 0 ? summary(overall) : empty,
      byStatus: rows.filter((r) => r.g_status === 0).map((r) => ({ ...summary(r), status: Number(r.status) })).sort((a, b) => a.status - b.status),
      byEndpoint: rows
        .filter((r) => r.g_endpoint === 0)
        .map((r) => ({ ...summary(r), method: String(r.method), route: String(r.route) }))
        .sort((a, b) => b.requests - a.requests || cmp(a.route, b.route) || cmp(a.method, b.method)),
      series: rows.filter((r) => r.g_bucket === 0).map((r) => ({ bucket: Number(r.bucket), requests: r.requests, p95: r.p?.[2] ?? 0 })),
    };
  }
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
