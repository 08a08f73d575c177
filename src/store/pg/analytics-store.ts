import { weightedPercentile } from '../../core/analytics/latency.js';
import type {
  AnalyticsStore,
  BucketedRange,
  BusinessBucket,
  CategoryFigures,
  LatencySummary,
  PerformanceFigures,
  ProductFigures,
  QueryFigures,
  UsageBucket,
} from '../../core/analytics/ports.js';
import type { Db, Queryable } from './db.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/**
 * A closed hour is rolled up only once it is this old: rows are stamped when written, and the
 * request log reaches the table within its flush interval (≤ 60 s), so nothing lands later.
 */
export const SETTLE_MS = 5 * 60_000;

/** Bucket start as a timestamptz. date_bin works on the absolute instant, so no TimeZone setting can shift a day. */
const bin = (column: string, widthParam: string) => `date_bin(${widthParam}::interval, ${column}, TIMESTAMPTZ '1970-01-01 00:00:00+00')`;
const interval = (ms: number) => `${ms} milliseconds`;

const floorTo = (t: number, grain: number) => Math.floor(t / grain) * grain;
const ceilTo = (t: number, grain: number) => Math.ceil(t / grain) * grain;

/**
 * Splits [start, end) into whole grains that are rolled up, [a, b), and the raw rest:
 * [start, a) and [b, end). Parameters for `rawIn` come out as four timestamps.
 */
function split(range: { start: Date; end: Date }, grain: number, rolledUntil: Date | null) {
  const start = range.start.getTime();
  const end = range.end.getTime();
  const a = Math.min(ceilTo(start, grain), end);
  const b = Math.max(a, Math.min(floorTo(end, grain), rolledUntil?.getTime() ?? Number.NEGATIVE_INFINITY));
  const d = (t: number) => new Date(t);
  return { rolled: [d(a), d(b)] as const, raw: [d(start), d(a), d(b), d(end)] as const };
}

/** The raw part of a split: `$2..$5` are [start, a) and [b, end). */
const rawIn = (column: string) => `account_id = $1 AND ((${column} >= $2 AND ${column} < $3) OR (${column} >= $4 AND ${column} < $5))`;

/** How far each rollup reaches: every complete hour (day) before it is rolled up; null before the first. */
interface RolledUntil {
  hoursUntil: Date | null;
  daysUntil: Date | null;
  categoryDaysUntil: Date | null;
}

interface CountRow {
  bucket: Date;
  searches: number;
  results: number;
  impressions: number;
  displayed: number;
  clicks: number;
  conversions: number;
  revenue: string;
  feedback: number;
  requests: number;
  errors: number;
}
interface LatencyRow {
  by_bucket: number;
  bucket: Date | null;
  method: string | null;
  route: string | null;
  status: number | null;
  latency_ms: number;
  n: number;
}

/**
 * Analytics figures (docs/analytics.md) from committed rows. Counts and latencies of settled hours and days come from
 * rollups made on first read (see migration 006); the rest of a range, from the raw rows.
 */
export class PgAnalyticsStore implements AnalyticsStore {
  constructor(private readonly db: Db) {}

  async usage(
    accountId: string,
    range: BucketedRange,
    now: Date,
  ): Promise<{ buckets: UsageBucket[]; byKey: { keyId: string; name: string | null; requests: number }[] }> {
    const { hoursUntil } = await this.rollUp(accountId, now);
    const { rolled, raw } = split(range, HOUR_MS, hoursUntil);
    const params = [accountId, ...raw, ...rolled, interval(range.bucketMs)];
    const [rows, keys] = await Promise.all([
      this.db.query<CountRow>(
        `SELECT bucket, sum(searches)::int AS searches, sum(results)::int AS results, sum(clicks)::int AS clicks, sum(feedback)::int AS feedback,
                sum(requests)::int AS requests, sum(errors)::int AS errors, 0 AS impressions, 0 AS displayed, 0 AS conversions, '0' AS revenue
           FROM (
             SELECT ${bin('hour', '$8')} AS bucket, searches, results, clicks, feedback, 0 AS requests, 0 AS errors
               FROM activity_hourly WHERE account_id = $1 AND hour >= $6 AND hour < $7
             UNION ALL
             SELECT ${bin('hour', '$8')}, 0, 0, 0, 0, requests, errors FROM requests_hourly WHERE account_id = $1 AND hour >= $6 AND hour < $7
             UNION ALL
             SELECT ${bin('created_at', '$8')}, 0, 0, 0, 0, 1, (status >= 400)::int FROM request_log WHERE ${rawIn('created_at')}
             UNION ALL
             SELECT ${bin('created_at', '$8')}, 1, result_count, 0, 0, 0, 0 FROM search_requests WHERE ${rawIn('created_at')}
             UNION ALL
             SELECT ${bin('clicked_at', '$8')}, 0, 0, 1, 0, 0, 0 FROM clicks WHERE ${rawIn('clicked_at')} AND billable
             UNION ALL
             SELECT ${bin('created_at', '$8')}, 0, 0, 0, 1, 0, 0 FROM feedback WHERE ${rawIn('created_at')}
           ) x GROUP BY bucket`,
        params,
      ),
      this.db.query<{ key_id: string; name: string | null; requests: number }>(
        `SELECT l.key_id, k.name, l.requests FROM (
           SELECT key_id, sum(n)::int AS requests FROM (
             SELECT key_id, requests AS n FROM requests_hourly WHERE account_id = $1 AND hour >= $6 AND hour < $7
             UNION ALL
             SELECT key_id, 1 FROM request_log WHERE ${rawIn('created_at')}
           ) x GROUP BY key_id
         ) l LEFT JOIN api_keys k ON k.id = l.key_id
         ORDER BY l.requests DESC, l.key_id`,
        params.slice(0, 7),
      ),
    ]);
    return {
      buckets: rows.map((r) => ({
        bucket: r.bucket.getTime(),
        requests: r.requests,
        searches: r.searches,
        resultsReturned: r.results,
        clicks: r.clicks,
        feedback: r.feedback,
        errors: r.errors,
      })),
      byKey: keys.map((k) => ({ keyId: k.key_id, name: k.name, requests: k.requests })),
    };
  }

  async business(accountId: string, range: BucketedRange, now: Date): Promise<BusinessBucket[]> {
    const { hoursUntil } = await this.rollUp(accountId, now);
    const { rolled, raw } = split(range, HOUR_MS, hoursUntil);
    const rows = await this.db.query<CountRow>(
      `SELECT bucket, sum(impressions)::int AS impressions, sum(displayed)::int AS displayed, sum(clicks)::int AS clicks, sum(conversions)::int AS conversions,
              sum(revenue)::numeric(24, 4)::text AS revenue
         FROM (
           SELECT ${bin('hour', '$8')} AS bucket, impressions, displayed, clicks, conversions, revenue FROM activity_hourly WHERE account_id = $1 AND hour >= $6 AND hour < $7
           UNION ALL
           SELECT ${bin('created_at', '$8')}, count(*), 0, 0, 0, 0 FROM impressions WHERE ${rawIn('created_at')} GROUP BY 1
           UNION ALL
           SELECT ${bin('displayed_at', '$8')}, 0, count(*), 0, 0, 0 FROM impressions WHERE ${rawIn('displayed_at')} GROUP BY 1
           UNION ALL
           SELECT ${bin('clicked_at', '$8')}, 0, 0, count(*), 0, 0 FROM clicks WHERE ${rawIn('clicked_at')} AND billable GROUP BY 1
           UNION ALL
           SELECT ${bin('created_at', '$8')}, 0, 0, 0, count(*), sum(commission_amount) FROM conversions WHERE ${rawIn('created_at')} GROUP BY 1
         ) x GROUP BY bucket`,
      [accountId, ...raw, ...rolled, interval(range.bucketMs)],
    );
    return rows.map((r) => ({
      bucket: r.bucket.getTime(),
      impressions: r.impressions,
      displayed: r.displayed,
      clicks: r.clicks,
      conversions: r.conversions,
      revenue: r.revenue,
    }));
  }

  async topProducts(accountId: string, start: Date, end: Date, limit: number, now: Date): Promise<ProductFigures[]> {
    const { daysUntil } = await this.rollUp(accountId, now);
    const { rolled, raw } = split({ start, end }, DAY_MS, daysUntil);
    const rows = await this.db.query<{ product_id: string; impressions: number; clicks: number; conversions: number; revenue: string }>(
      `SELECT product_id, sum(impressions)::int AS impressions, sum(clicks)::int AS clicks, sum(conversions)::int AS conversions,
              sum(revenue)::numeric(24, 4)::text AS revenue
         FROM (
           SELECT product_id, impressions, clicks, conversions, revenue FROM product_daily WHERE account_id = $1 AND day >= $6 AND day < $7
           UNION ALL
           SELECT product_id, count(*), 0, 0, 0 FROM impressions WHERE ${rawIn('created_at')} GROUP BY product_id
           UNION ALL
           SELECT product_id, 0, count(*), 0, 0 FROM clicks WHERE ${rawIn('clicked_at')} AND billable GROUP BY product_id
           UNION ALL
           SELECT product_id, 0, 0, count(*), sum(commission_amount) FROM conversions WHERE ${rawIn('created_at')} GROUP BY product_id
         ) x
        GROUP BY product_id
        ORDER BY sum(clicks) DESC, sum(impressions) DESC, sum(revenue) DESC, product_id
        LIMIT $8`,
      [accountId, ...raw, ...rolled, limit],
    );
    return rows.map((r) => ({ productId: r.product_id, impressions: r.impressions, clicks: r.clicks, conversions: r.conversions, revenue: r.revenue }));
  }

  async topQueries(accountId: string, start: Date, end: Date, limit: number, now: Date): Promise<QueryFigures[]> {
    const { daysUntil } = await this.rollUp(accountId, now);
    const { rolled, raw } = split({ start, end }, DAY_MS, daysUntil);
    // COLLATE "C": the tie-break is by code point, the same on every server whatever its locale.
    const rows = await this.db.query<{ query: string; searches: number; results: number; clicks: number }>(
      `SELECT query, sum(searches)::int AS searches, sum(results)::int AS results, sum(clicks)::int AS clicks
         FROM (
           SELECT query, searches, results, clicks FROM query_daily WHERE account_id = $1 AND day >= $6 AND day < $7
           UNION ALL
           SELECT normalized_query, count(*), sum(result_count), 0 FROM search_requests WHERE ${rawIn('created_at')} GROUP BY 1
           UNION ALL
           SELECT r.normalized_query, 0, 0, count(*) FROM clicks k JOIN search_requests r ON r.id = k.request_id
            WHERE k.account_id = $1 AND ((k.clicked_at >= $2 AND k.clicked_at < $3) OR (k.clicked_at >= $4 AND k.clicked_at < $5)) AND k.billable GROUP BY 1
         ) x
        GROUP BY query HAVING sum(searches) > 0
        ORDER BY sum(searches) DESC, sum(clicks) DESC, query COLLATE "C"
        LIMIT $8`,
      [accountId, ...raw, ...rolled, limit],
    );
    return rows.map((r) => ({ query: r.query, searches: r.searches, resultsReturned: r.results, clicks: r.clicks }));
  }

  async categoryFigures(accountId: string, start: Date, end: Date, now: Date): Promise<CategoryFigures[]> {
    const { categoryDaysUntil } = await this.rollUp(accountId, now);
    const { rolled, raw } = split({ start, end }, DAY_MS, categoryDaysUntil);
    // The raw part of the split, as rawIn: [start, a) and [b, end).
    const events = categoryEvents(
      () => 'NULL::timestamptz',
      (t, column) => `${t}account_id = $1 AND ((${t}${column} >= $2 AND ${t}${column} < $3) OR (${t}${column} >= $4 AND ${t}${column} < $5))`,
    );
    // Per leaf category and currency: at most the taxonomy's 5,600 categories per currency.
    const rows = await this.db.query<{ category_id: number; currency: string; impressions: number; clicks: number; conversions: number; revenue: string }>(
      `SELECT category_id, currency, sum(impressions)::int AS impressions, sum(clicks)::int AS clicks, sum(conversions)::int AS conversions,
              sum(revenue)::numeric(24, 4)::text AS revenue
         FROM (
           SELECT day, category_id, currency, impressions, clicks, conversions, revenue FROM category_daily WHERE account_id = $1 AND day >= $6 AND day < $7
           UNION ALL ${events}
         ) x
        GROUP BY category_id, currency`,
      [accountId, ...raw, ...rolled],
    );
    const byCategory = new Map<number, CategoryFigures>();
    for (const r of rows) {
      const figures = getOr(byCategory, r.category_id, () => ({
        categoryId: r.category_id === UNPLACED ? null : r.category_id,
        impressions: 0,
        clicks: 0,
        conversions: 0,
        revenueByCurrency: [],
      }));
      figures.impressions += r.impressions;
      figures.clicks += r.clicks;
      figures.conversions += r.conversions;
      if (r.currency !== '') figures.revenueByCurrency.push({ currency: r.currency, revenue: r.revenue });
    }
    return [...byCategory.values()];
  }

  async dashboard(accountId: string, since: Date, now: Date) {
    const inRange = (column: string) => `account_id = $1 AND ${column} >= $2 AND ${column} < $3`;
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

  async performance(accountId: string, range: BucketedRange, now: Date): Promise<PerformanceFigures> {
    // Daily series can use the daily latency rollups; finer series read the raw rows of their (≤ 24 h) window.
    const daysUntil = range.bucketMs % DAY_MS === 0 ? (await this.rollUp(accountId, now)).daysUntil : null;
    const { rolled, raw } = split(range, DAY_MS, daysUntil);
    // (value, count) pairs per endpoint and status, and per bucket; percentiles are taken from them.
    const rows = await this.db.query<LatencyRow>(
      `SELECT GROUPING(bucket)::int AS by_bucket, bucket, method, route, status, latency_ms, sum(n)::int AS n
         FROM (
           SELECT ${bin('day', '$8')} AS bucket, method, route, status, latency_ms, requests AS n
             FROM latency_daily WHERE account_id = $1 AND day >= $6 AND day < $7
           UNION ALL
           SELECT ${bin('created_at', '$8')}, method, route, status, latency_ms, count(*) FROM request_log WHERE ${rawIn('created_at')} GROUP BY 1, 2, 3, 4, 5
         ) x
        GROUP BY GROUPING SETS ((method, route, status, latency_ms), (bucket, latency_ms))
        ORDER BY latency_ms`,
      [accountId, ...raw, ...rolled, interval(range.bucketMs)],
    );
    const overall = new Summary();
    const byStatus = new Map<number, Summary>();
    const byEndpoint = new Map<string, Summary & { method: string; route: string }>();
    const byBucket = new Map<number, Summary>();
    for (const r of rows) {
      if (r.by_bucket === 0) {
        getOr(byBucket, r.bucket!.getTime(), () => new Summary()).add(r.latency_ms, r.n, false);
        continue;
      }
      const error = (r.status ?? 0) >= 400;
      overall.add(r.latency_ms, r.n, error);
      getOr(byStatus, Number(r.status), () => new Summary()).add(r.latency_ms, r.n, error);
      getOr(byEndpoint, `${r.method} ${r.route}`, () => Object.assign(new Summary(), { method: String(r.method), route: String(r.route) })).add(
        r.latency_ms,
        r.n,
        error,
      );
    }
    return {
      overall: overall.result(),
      byStatus: [...byStatus.entries()].map(([status, s]) => ({ ...s.result(), status })).sort((a, b) => a.status - b.status),
      byEndpoint: [...byEndpoint.values()]
        .map((s) => ({ ...s.result(), method: s.method, route: s.route }))
        .sort((a, b) => b.requests - a.requests || cmp(a.route, b.route) || cmp(a.method, b.method)),
      series: [...byBucket.entries()].map(([bucket, s]) => ({ bucket, requests: s.total, p95: s.result().p95 })),
    };
  }

  /**
   * Rolls up every hour (day) that closed at least SETTLE_MS ago and is not rolled up yet, once per
   * account whatever the concurrency (the state row is locked), and answers how far rollups reach.
   * Maintenance work: the first read of an account with a month of history rolls it all up (5 s
   * for the volumes in docs/analytics.md), past the request path's statement bound.
   */
  private async rollUp(accountId: string, now: Date): Promise<RolledUntil> {
    const settled = now.getTime() - SETTLE_MS;
    const hourTarget = new Date(floorTo(settled, HOUR_MS));
    const dayTarget = new Date(floorTo(settled, DAY_MS));
    type State = { hours_until: Date | null; days_until: Date | null; category_days_until: Date | null };
    const reached = (until: Date | null, target: Date): until is Date => until !== null && until >= target;
    const current = (
      await this.db.query<State>('SELECT hours_until, days_until, category_days_until FROM analytics_rollup_state WHERE account_id = $1', [accountId])
    )[0];
    if (current && reached(current.hours_until, hourTarget) && reached(current.days_until, dayTarget) && reached(current.category_days_until, dayTarget)) {
      return { hoursUntil: current.hours_until, daysUntil: current.days_until, categoryDaysUntil: current.category_days_until };
    }
    return this.db.transaction(
      async (tx) => {
        await tx.query('INSERT INTO analytics_rollup_state (account_id, hours_until, days_until) VALUES ($1, NULL, NULL) ON CONFLICT DO NOTHING', [accountId]);
        const state = (
          await tx.query<State>('SELECT hours_until, days_until, category_days_until FROM analytics_rollup_state WHERE account_id = $1 FOR UPDATE', [accountId])
        )[0]!;
        let { hours_until: hoursUntil, days_until: daysUntil, category_days_until: categoryDaysUntil } = state;
        if (hoursUntil === null || hoursUntil < hourTarget) {
          await rollHours(tx, accountId, hoursUntil, hourTarget);
          hoursUntil = hourTarget;
        }
        if (daysUntil === null || daysUntil < dayTarget) {
          await rollDays(tx, accountId, daysUntil, dayTarget);
          daysUntil = dayTarget;
        }
        if (!reached(categoryDaysUntil, dayTarget)) {
          await rollCategoryDays(tx, accountId, categoryDaysUntil, dayTarget);
          categoryDaysUntil = dayTarget;
        }
        await tx.query('UPDATE analytics_rollup_state SET hours_until = $2, days_until = $3, category_days_until = $4 WHERE account_id = $1', [
          accountId,
          hoursUntil,
          daysUntil,
          categoryDaysUntil,
        ]);
        return { hoursUntil, daysUntil, categoryDaysUntil };
      },
      { maintenance: true },
    );
  }
}

/** `$2` from (null: from the beginning), `$3` to. */
const between = (column: string) => `account_id = $1 AND ($2::timestamptz IS NULL OR ${column} >= $2) AND ${column} < $3`;
const HOUR = `'${interval(HOUR_MS)}'`;

async function rollHours(tx: Queryable, accountId: string, from: Date | null, to: Date): Promise<void> {
  await tx.query(
    `INSERT INTO activity_hourly (account_id, hour, searches, results, impressions, displayed, clicks, conversions, revenue, feedback)
     SELECT $1, hour, sum(searches), sum(results), sum(impressions), sum(displayed), sum(clicks), sum(conversions), sum(revenue), sum(feedback)
       FROM (
         SELECT ${bin('created_at', HOUR)} AS hour, count(*) AS searches, sum(result_count) AS results, 0 AS impressions, 0 AS displayed, 0 AS clicks, 0 AS conversions,
                0 AS revenue, 0 AS feedback
           FROM search_requests WHERE ${between('created_at')} GROUP BY 1
         UNION ALL
         SELECT ${bin('created_at', HOUR)}, 0, 0, count(*), 0, 0, 0, 0, 0 FROM impressions WHERE ${between('created_at')} GROUP BY 1
         UNION ALL
         -- displayed_at is stamped with the receipt's own time, so a settled hour gets no later receipts.
         SELECT ${bin('displayed_at', HOUR)}, 0, 0, 0, count(*), 0, 0, 0, 0 FROM impressions WHERE ${between('displayed_at')} GROUP BY 1
         UNION ALL
         SELECT ${bin('clicked_at', HOUR)}, 0, 0, 0, 0, count(*), 0, 0, 0 FROM clicks WHERE ${between('clicked_at')} AND billable GROUP BY 1
         UNION ALL
         SELECT ${bin('created_at', HOUR)}, 0, 0, 0, 0, 0, count(*), sum(commission_amount), 0 FROM conversions WHERE ${between('created_at')} GROUP BY 1
         UNION ALL
         SELECT ${bin('created_at', HOUR)}, 0, 0, 0, 0, 0, 0, 0, count(*) FROM feedback WHERE ${between('created_at')} GROUP BY 1
       ) x GROUP BY hour`,
    [accountId, from, to],
  );
  await tx.query(
    `INSERT INTO requests_hourly (account_id, hour, key_id, requests, errors)
     SELECT $1, ${bin('created_at', HOUR)}, key_id, count(*), count(*) FILTER (WHERE status >= 400)
       FROM request_log WHERE ${between('created_at')} GROUP BY 2, 3`,
    [accountId, from, to],
  );
}

const DAY = `'${interval(DAY_MS)}'`;

async function rollDays(tx: Queryable, accountId: string, from: Date | null, to: Date): Promise<void> {
  const params = [accountId, from, to];
  await tx.query(
    `INSERT INTO latency_daily (account_id, day, method, route, status, latency_ms, requests)
     SELECT $1, ${bin('created_at', DAY)}, method, route, status, latency_ms, count(*)
       FROM request_log WHERE ${between('created_at')} GROUP BY 2, 3, 4, 5, 6`,
    params,
  );
  await tx.query(
    `INSERT INTO product_daily (account_id, day, product_id, impressions, clicks, conversions, revenue)
     SELECT $1, day, product_id, sum(impressions), sum(clicks), sum(conversions), sum(revenue)
       FROM (
         SELECT ${bin('created_at', DAY)} AS day, product_id, count(*) AS impressions, 0 AS clicks, 0 AS conversions, 0 AS revenue
           FROM impressions WHERE ${between('created_at')} GROUP BY 1, 2
         UNION ALL
         SELECT ${bin('clicked_at', DAY)}, product_id, 0, count(*), 0, 0 FROM clicks WHERE ${between('clicked_at')} AND billable GROUP BY 1, 2
         UNION ALL
         SELECT ${bin('created_at', DAY)}, product_id, 0, 0, count(*), sum(commission_amount) FROM conversions WHERE ${between('created_at')} GROUP BY 1, 2
       ) x GROUP BY day, product_id`,
    params,
  );
  await tx.query(
    `INSERT INTO query_daily (account_id, day, query, searches, results, clicks)
     SELECT $1, day, query, sum(searches), sum(results), sum(clicks)
       FROM (
         SELECT ${bin('created_at', DAY)} AS day, normalized_query AS query, count(*) AS searches, sum(result_count) AS results, 0 AS clicks
           FROM search_requests WHERE ${between('created_at')} GROUP BY 1, 2
         UNION ALL
         SELECT ${bin('k.clicked_at', DAY)}, r.normalized_query, 0, 0, count(*) FROM clicks k JOIN search_requests r ON r.id = k.request_id
          WHERE k.account_id = $1 AND ($2::timestamptz IS NULL OR k.clicked_at >= $2) AND k.clicked_at < $3 AND k.billable GROUP BY 1, 2
       ) x GROUP BY day, query`,
    params,
  );
}

/** category_daily's stand-in for an unplaced impression's NULL category (a key column; Google's ids start at 1). */
const UNPLACED = 0;

/**
 * The three event sources of the category figures, grouped by `day` (an expression), category and
 * currency: impressions by when they were made; billable clicks and conversions by when they were
 * recorded, in the category their impression was shown in. A conversion whose impression is gone
 * counts as unplaced.
 */
const categoryEvents = (day: (column: string) => string, where: (alias: string, column: string) => string) => `
  SELECT ${day('created_at')} AS day, coalesce(category_id, ${UNPLACED}) AS category_id, ''::text AS currency, count(*) AS impressions,
         0 AS clicks, 0 AS conversions, 0 AS revenue
    FROM impressions WHERE ${where('', 'created_at')} GROUP BY 1, 2
  UNION ALL
  SELECT ${day('k.clicked_at')}, coalesce(i.category_id, ${UNPLACED}), '', 0, count(*), 0, 0
    FROM clicks k JOIN impressions i ON i.id = k.impression_id WHERE ${where('k.', 'clicked_at')} AND k.billable GROUP BY 1, 2
  UNION ALL
  SELECT ${day('v.created_at')}, coalesce(i.category_id, ${UNPLACED}), v.currency::text, 0, 0, count(*), sum(v.commission_amount)
    FROM conversions v LEFT JOIN impressions i ON i.id = v.impression_id WHERE ${where('v.', 'created_at')} GROUP BY 1, 2, 3`;

async function rollCategoryDays(tx: Queryable, accountId: string, from: Date | null, to: Date): Promise<void> {
  const events = categoryEvents(
    (column) => bin(column, DAY),
    (t, column) => `${t}account_id = $1 AND ($2::timestamptz IS NULL OR ${t}${column} >= $2) AND ${t}${column} < $3`,
  );
  await tx.query(
    `INSERT INTO category_daily (account_id, day, category_id, currency, impressions, clicks, conversions, revenue)
     SELECT $1, day, category_id, currency, sum(impressions), sum(clicks), sum(conversions), sum(revenue)
       FROM (${events}) x GROUP BY day, category_id, currency`,
    [accountId, from, to],
  );
}

/** Latency (value, count) pairs arriving in ascending value order. */
class Summary {
  total = 0;
  errors = 0;
  private readonly values: { value: number; count: number }[] = [];

  add(value: number, count: number, error: boolean): void {
    this.total += count;
    if (error) this.errors += count;
    const last = this.values.at(-1);
    if (last?.value === value) last.count += count;
    else this.values.push({ value, count });
  }

  result(): LatencySummary {
    const p = (q: number) => weightedPercentile(this.values, this.total, q);
    return { requests: this.total, errors: this.errors, p50: p(0.5), p90: p(0.9), p95: p(0.95), p99: p(0.99), max: this.values.at(-1)?.value ?? 0 };
  }
}

function getOr<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  const known = map.get(key);
  if (known !== undefined) return known;
  const made = make();
  map.set(key, made);
  return made;
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
