import type { CatalogStore } from '../catalog/ports.js';
import type { Clock } from '../clock.js';
import type { Taxonomy } from '../knowledge/taxonomy.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import type {
  Analytics,
  AnalyticsQuery,
  AnalyticsSummary,
  DashboardStats,
  Performance,
  PerformanceQuery,
  SeriesMetric,
  Timeframe,
  Usage,
  UsageQuery,
} from '../schemas/analytics.js';
import type { ConsoleOverview, ConsoleRange } from '../schemas/console.js';
import type { Principal } from '../shared-ports.js';
import { type CategoryRanking, DEFAULT_CATEGORY_RANKING, rankCategories } from './categories.js';
import { parseAmount, sumAmounts, toCents } from './money.js';
import type { AnalyticsStore, BusinessBucket, ProductFigures, QueryFigures } from './ports.js';
import type { RequestLog } from './request-log.js';
import { DAY_MS, fillSeries, HOUR_MS, MINUTE_MS, type ResolvedRange, ratio, resolveRange } from './time-range.js';

const TOP_LIMIT = 10;

const TIMEFRAMES: Record<Timeframe, { ms: number; granularity: 'minute' | 'hour' | 'day'; bucketMs: number }> = {
  '1h': { ms: HOUR_MS, granularity: 'minute', bucketMs: MINUTE_MS },
  '24h': { ms: DAY_MS, granularity: 'hour', bucketMs: HOUR_MS },
  // Daily from 7 days on: whole days come from the daily latency rollups.
  '7d': { ms: 7 * DAY_MS, granularity: 'day', bucketMs: DAY_MS },
  '30d': { ms: 30 * DAY_MS, granularity: 'day', bucketMs: DAY_MS },
};

export interface AnalyticsServiceDeps {
  store: AnalyticsStore;
  clock: Clock;
  rateLimiter: RateLimiter;
  requestLog: RequestLog;
  /** Product titles for top_products; without it titles are null. */
  catalog?: CatalogStore;
  /** The live account's test account, if it has one: `livemode=false` reads it (docs/commerce.md, "Test mode"). */
  findTestAccount?: (liveAccountId: string) => Promise<string | null>;
  /** The Google product taxonomy, to roll leaf categories up to a level; without it top_categories lists leaves without paths. */
  taxonomy?: Taxonomy;
}

/** Stands for a test account that does not exist yet: no row carries it, so every figure is zero. */
const NO_TEST_ACCOUNT = '00000000-0000-0000-0000-000000000000';

/**
 * Analytics (docs/analytics.md). Every figure is read from committed rows of the principal's account, never from
 * in-memory counters, so every process and every restart agrees. Definitions live in
 * schemas/analytics.ts (they are the API reference).
 */
export class AnalyticsService {
  constructor(private readonly deps: AnalyticsServiceDeps) {}

  /** GET /usage. 400 validation_failed for a bad range (see resolveRange). */
  /**
   * Whose figures a request reads: a live key asking `livemode=false` reads its test account's
   * (all zero while it has none); a test key always reads its own, which are test data.
   */
  private async view(principal: Principal, livemode: boolean | undefined): Promise<Principal> {
    if (livemode !== false || principal.livemode === false) return principal;
    const testAccount = (await this.deps.findTestAccount?.(principal.accountId)) ?? null;
    return { ...principal, accountId: testAccount ?? NO_TEST_ACCOUNT, livemode: false };
  }

  async usage(caller: Principal, query: UsageQuery): Promise<Usage> {
    const principal = await this.view(caller, query.livemode);
    const range = resolveRange(query, this.deps.clock.now());
    // This process's queued entries first: a caller sees its own requests counted, and the store
    // never rolls up an hour some of whose entries are still queued here.
    await this.deps.requestLog.flush();
    const [{ buckets, byKey }, limit] = await Promise.all([
      this.deps.store.usage(principal.accountId, range, this.deps.clock.now()),
      this.deps.rateLimiter.status(principal),
    ]);
    const zero = { requests: 0, searches: 0, results_returned: 0, clicks: 0, feedback: 0, errors: 0 };
    const totals = { ...zero };
    const series = fillSeries(
      range,
      buckets,
      (b) => ({ requests: b.requests, searches: b.searches, results_returned: b.resultsReturned, clicks: b.clicks, feedback: b.feedback, errors: b.errors }),
      () => ({ ...zero }),
    );
    for (const { value } of series) for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += value[k];
    return {
      ...rangeOut(range),
      granularity: range.granularity,
      totals,
      series: series.map(({ periodStart, value }) => ({ period_start: periodStart, ...value })),
      by_key: byKey.map((k) => ({ key_id: k.keyId, name: k.name, requests: k.requests })),
      rate_limit: { limit: limit.limit, remaining: limit.remaining, reset_at: limit.resetAt.toISOString(), window_seconds: limit.windowSeconds },
    };
  }

  /** GET /analytics: the summary without `metric`, else that metric. 400 validation_failed for a bad range. */
  async analytics(caller: Principal, query: AnalyticsQuery): Promise<Analytics> {
    const principal = await this.view(caller, query.livemode);
    const range = resolveRange(query, this.deps.clock.now());
    const accountId = principal.accountId;
    const categories = categoryRanking(query);
    // The store may roll settled hours up; nothing of them may still wait in this process's queue.
    await this.deps.requestLog.flush();
    switch (query.metric) {
      case 'top_products':
        return { metric: 'top_products', ...rangeOut(range), items: await this.topProducts(accountId, range) };
      case 'top_queries':
        return { metric: 'top_queries', ...rangeOut(range), items: await this.topQueries(accountId, range) };
      case 'top_categories':
        return {
          metric: 'top_categories',
          ...rangeOut(range),
          category_level: categories.level,
          category_order: categories.orderBy,
          items: await this.topCategories(accountId, range, categories),
        };
      case 'ctr':
      case 'conversion_rate':
      case 'revenue':
      case 'display_rate':
        return this.metricSeries(accountId, range, query.metric);
      case undefined:
        return this.summary(accountId, range, { categories });
    }
  }

  /** GET /dashboard/stats: all-time revenue and the last 24 hours. */
  async dashboardStats(caller: Principal, livemode?: boolean): Promise<DashboardStats> {
    const principal = await this.view(caller, livemode);
    const now = this.deps.clock.now();
    const d = await this.deps.store.dashboard(principal.accountId, new Date(now.getTime() - DAY_MS), now);
    const byCurrency = Object.fromEntries(d.revenueByCurrency.map((r) => [r.currency, toCents(parseAmount(r.revenue))]));
    // The currency most conversions were in; ties alphabetically (the store orders them so).
    const main = [...d.revenueByCurrency].sort((a, b) => b.conversions - a.conversions || a.currency.localeCompare(b.currency))[0];
    return {
      total_revenue: main ? toCents(parseAmount(main.revenue)) : 0,
      currency: main?.currency ?? 'USD',
      revenue_by_currency: byCurrency,
      active_api_keys: d.activeKeys,
      ad_requests_24h: d.searches,
      impressions_24h: d.impressions,
      clicks_24h: d.clicks,
      ctr_24h: ratio(d.clicks, d.impressions),
    };
  }

  /**
   * The console's overview of the `range` ending now: the store queries behind GET /v1/analytics
   * and GET /v1/usage, so the figures on screen equal theirs for the same range.
   * Hourly up to 7 days, daily for 30.
   */
  async overview(caller: Principal, rangeName: ConsoleRange, livemode?: boolean): Promise<ConsoleOverview> {
    const principal = await this.view(caller, livemode);
    const end = this.deps.clock.now();
    const span = { '24h': DAY_MS, '7d': 7 * DAY_MS, '30d': 30 * DAY_MS }[rangeName];
    const range = resolveRange(
      { start_date: new Date(end.getTime() - span).toISOString(), end_date: end.toISOString(), granularity: rangeName === '30d' ? 'day' : 'hour' },
      end,
    );
    // As in analytics() and usage(): nothing of the hours the store may roll up still waits here.
    await this.deps.requestLog.flush();
    const [{ buckets: usage }, business] = await Promise.all([
      this.deps.store.usage(principal.accountId, range, end),
      this.deps.store.business(principal.accountId, range, end),
    ]);
    // Totals and series from the same buckets, so they always agree. The console reads its top categories from GET /v1/analytics.
    const summary = await this.summary(principal.accountId, range, { business, categories: null });
    const searches = new Map(usage.map((b) => [b.bucket, b.searches]));
    const series = fillSeries(
      range,
      business,
      (b) => b,
      () => null,
    ).map(({ periodStart, value: b }) => ({
      period_start: periodStart,
      searches: searches.get(Date.parse(periodStart)) ?? 0,
      impressions: b?.impressions ?? 0,
      clicks: b?.clicks ?? 0,
      ctr: b ? ratio(b.clicks, b.impressions) : 0,
      conversions: b?.conversions ?? 0,
      revenue: b ? toCents(parseAmount(b.revenue)) : 0,
    }));
    return {
      range: rangeName,
      ...rangeOut(range),
      granularity: range.granularity,
      totals: { ...summary.metrics, searches: series.reduce((n, b) => n + b.searches, 0) },
      series,
      top_products: summary.top_products,
      top_queries: summary.top_queries,
    };
  }

  /** GET /analytics/performance: latency and statuses of the account's requests in the window ending now. */
  async performance(caller: Principal, query: PerformanceQuery): Promise<Performance> {
    const principal = await this.view(caller, query.livemode);
    const timeframe = query.timeframe ?? '24h';
    const tf = TIMEFRAMES[timeframe];
    const end = this.deps.clock.now();
    const range = { start: new Date(end.getTime() - tf.ms), end, bucketMs: tf.bucketMs };
    await this.deps.requestLog.flush();
    const p = await this.deps.store.performance(principal.accountId, range, end);
    const statusCodes: Record<string, number> = {};
    for (const s of p.byStatus) statusCodes[String(s.status)] = s.requests;
    return {
      timeframe,
      start_date: range.start.toISOString(),
      end_date: range.end.toISOString(),
      requests: p.overall.requests,
      latency_ms: { p50: p.overall.p50, p90: p.overall.p90, p95: p.overall.p95, p99: p.overall.p99, max: p.overall.max },
      status_codes: statusCodes,
      by_endpoint: p.byEndpoint.map((e) => ({
        method: e.method,
        route: e.route,
        requests: e.requests,
        p50: e.p50,
        p95: e.p95,
        p99: e.p99,
        error_rate: ratio(e.errors, e.requests),
      })),
      by_status: p.byStatus.map((s) => ({ status: s.status, requests: s.requests, p50: s.p50, p95: s.p95, p99: s.p99 })),
      granularity: tf.granularity,
      series: fillSeries(
        range,
        p.series,
        (b) => ({ requests: b.requests, p95: b.p95 }),
        () => ({ requests: 0, p95: 0 }),
      ).map(({ periodStart, value }) => ({ period_start: periodStart, ...value })),
    };
  }

  /** The summary; `business` when the caller already read it, `categories: null` to skip top_categories (then empty). */
  private async summary(
    accountId: string,
    range: ResolvedRange,
    options: { business?: readonly BusinessBucket[]; categories: CategoryRanking | null },
  ): Promise<AnalyticsSummary> {
    const known = options.business;
    const [buckets, topProducts, topQueries, topCategories] = await Promise.all([
      known !== undefined ? Promise.resolve([...known]) : this.deps.store.business(accountId, range, this.deps.clock.now()),
      this.topProducts(accountId, range),
      this.topQueries(accountId, range),
      options.categories === null ? Promise.resolve([]) : this.topCategories(accountId, range, options.categories),
    ]);
    const impressions = buckets.reduce((n, b) => n + b.impressions, 0);
    const displayed = buckets.reduce((n, b) => n + b.displayed, 0);
    const clicks = buckets.reduce((n, b) => n + b.clicks, 0);
    const conversions = buckets.reduce((n, b) => n + b.conversions, 0);
    return {
      ...rangeOut(range),
      metrics: {
        impressions,
        displayed_impressions: displayed,
        display_rate: ratio(displayed, impressions),
        clicks,
        ctr: ratio(clicks, impressions),
        conversions,
        conversion_rate: ratio(conversions, clicks),
        revenue: toCents(sumAmounts(buckets.map((b) => b.revenue))),
      },
      top_products: topProducts,
      top_queries: topQueries,
      top_categories: topCategories,
    };
  }

  private async metricSeries(accountId: string, range: ResolvedRange, metric: SeriesMetric): Promise<Analytics> {
    const buckets = await this.deps.store.business(accountId, range, this.deps.clock.now());
    const total = { impressions: 0, displayed: 0, clicks: 0, conversions: 0, revenue: 0n };
    for (const b of buckets) {
      total.impressions += b.impressions;
      total.displayed += b.displayed;
      total.clicks += b.clicks;
      total.conversions += b.conversions;
      total.revenue += parseAmount(b.revenue);
    }
    const metricOf = (f: { impressions: number; displayed: number; clicks: number; conversions: number; revenue: bigint }): number => {
      switch (metric) {
        case 'ctr':
          return ratio(f.clicks, f.impressions);
        case 'conversion_rate':
          return ratio(f.conversions, f.clicks);
        case 'display_rate':
          return ratio(f.displayed, f.impressions);
        case 'revenue':
          return toCents(f.revenue);
      }
    };
    return {
      metric,
      ...rangeOut(range),
      granularity: range.granularity,
      value: metricOf(total),
      series: fillSeries(
        range,
        buckets,
        (b) => metricOf({ ...b, revenue: parseAmount(b.revenue) }),
        () => 0,
      ).map(({ periodStart, value }) => ({ period_start: periodStart, value })),
    };
  }

  private async topProducts(accountId: string, range: ResolvedRange) {
    const rows = await this.deps.store.topProducts(accountId, range.start, range.end, TOP_LIMIT, this.deps.clock.now());
    const titles = await this.titles(rows);
    return rows.map((r) => ({
      product_id: r.productId,
      title: titles.get(r.productId) ?? null,
      impressions: r.impressions,
      clicks: r.clicks,
      ctr: ratio(r.clicks, r.impressions),
      conversions: r.conversions,
      revenue: toCents(parseAmount(r.revenue)),
    }));
  }

  private async topQueries(accountId: string, range: ResolvedRange) {
    const rows: QueryFigures[] = await this.deps.store.topQueries(accountId, range.start, range.end, TOP_LIMIT, this.deps.clock.now());
    return rows.map((r) => ({ query: r.query, searches: r.searches, clicks: r.clicks, ctr: ratio(r.clicks, r.resultsReturned) }));
  }

  private async topCategories(accountId: string, range: ResolvedRange, ranking: CategoryRanking) {
    const leaves = await this.deps.store.categoryFigures(accountId, range.start, range.end, this.deps.clock.now());
    return rankCategories(leaves, this.deps.taxonomy, ranking);
  }

  private async titles(rows: readonly ProductFigures[]): Promise<Map<string, string>> {
    const catalog = this.deps.catalog;
    if (!catalog || rows.length === 0) return new Map();
    const products = await catalog.getByIds(rows.map((r) => r.productId));
    return new Map(products.map((p) => [p.productId, p.title]));
  }
}

/** The query's top_categories parameters over the defaults (level 2, by impressions, 10). */
const categoryRanking = (query: AnalyticsQuery): CategoryRanking => ({
  level: query.category_level ?? DEFAULT_CATEGORY_RANKING.level,
  orderBy: query.category_order ?? DEFAULT_CATEGORY_RANKING.orderBy,
  limit: query.category_limit ?? DEFAULT_CATEGORY_RANKING.limit,
});

const rangeOut = (range: ResolvedRange) => ({ start_date: range.start.toISOString(), end_date: range.end.toISOString() });
