import { z } from 'zod';
import { InputTimestamp, Timestamp } from './common.js';

/**
 * Usage, analytics, performance and dashboard figures (docs/analytics.md). Every figure is derived from
 * committed rows (search_requests, impressions, clicks, conversions, feedback, request_log); the
 * exact definitions below are the API reference (docs/analytics.md repeats them).
 */

export const GRANULARITIES = ['hour', 'day'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export const METRICS = ['ctr', 'conversion_rate', 'revenue', 'display_rate', 'top_products', 'top_queries', 'top_categories'] as const;
/** The metrics answered as a value and a series (the others are ranked lists). */
const SERIES_METRICS = ['ctr', 'conversion_rate', 'revenue', 'display_rate'] as const;
export type SeriesMetric = (typeof SERIES_METRICS)[number];

const TIMEFRAMES = ['1h', '24h', '7d', '30d'] as const;
export type Timeframe = (typeof TIMEFRAMES)[number];

const RANGE_RULES =
  'The range is half-open, [start_date, end_date). Defaults: end_date = now, start_date = 30 days before end_date. ' +
  'start_date must be before end_date and the range at most 366 days, else 400 validation_failed naming the parameter.';

const startDate = InputTimestamp.optional().describe(`Start of the range (inclusive), ISO 8601 with an offset; answered in UTC. ${RANGE_RULES}`);
const endDate = InputTimestamp.optional().describe('End of the range (exclusive), ISO 8601 with an offset; default now');
const granularity = z
  .enum(GRANULARITIES)
  .optional()
  .describe(
    'Series bucket size, aligned to UTC hours or days. Default: `hour` for ranges up to 48 hours, else `day`. `hour` is allowed for ranges up to 31 days',
  );

/** `livemode=false`: a live key reads its account's test data (docs/commerce.md, "Test mode"); a test key always reads test data. */
export const Livemode = z
  .enum(['true', 'false'])
  .default('true')
  .transform((v) => v === 'true')
  .describe('`false` shows test data (made with aisle_test_ keys) instead of live data');

/** GET /usage query. */
export const UsageQuerySchema = z.object({ start_date: startDate, end_date: endDate, granularity, livemode: Livemode }).strict();
export type UsageQuery = z.infer<typeof UsageQuerySchema>;

const usageCounters = {
  requests: z.number().int().describe('Authenticated API requests completed in the range (every status, including 4xx and 429), from the request log'),
  searches: z.number().int().describe('Searches served (a batch counts each of its queries)'),
  results_returned: z.number().int().describe('Results returned by those searches (= impressions)'),
  clicks: z.number().int().describe('Billable clicks recorded in the range (at most one per impression; bots and duplicates excluded)'),
  feedback: z.number().int().describe('Feedback votes recorded in the range'),
  errors: z.number().int().describe('Requests in the range answered with a 4xx or 5xx status (429 included)'),
};

export const UsageSchema = z.object({
  start_date: Timestamp,
  end_date: Timestamp,
  granularity: z.enum(GRANULARITIES),
  totals: z.object(usageCounters),
  series: z
    .array(
      z.object({ period_start: Timestamp.describe('Start of the UTC bucket; every bucket of the range is present, empty ones as zeros'), ...usageCounters }),
    )
    .describe('One entry per bucket, oldest first; the first and last buckets count only the part inside the range'),
  by_key: z
    .array(z.object({ key_id: z.uuid(), name: z.string().nullable().describe('null when the key has been deleted'), requests: z.number().int() }))
    .describe('Requests per API key in the range, most requests first, ties by key_id'),
  rate_limit: z
    .object({
      limit: z.number().int().describe('Requests per window for the calling key'),
      remaining: z.number().int().describe('Requests the calling key may still send now'),
      reset_at: Timestamp.describe('When the full quota is available again'),
      window_seconds: z.number().int(),
    })
    .describe('Rate-limit status of the calling key (this request already counted)'),
});
export type Usage = z.infer<typeof UsageSchema>;

export const CATEGORY_ORDERS = ['impressions', 'clicks', 'revenue'] as const;
export type CategoryOrder = (typeof CATEGORY_ORDERS)[number];
/** The Google product taxonomy is at most 7 levels deep. */
const MAX_CATEGORY_LEVEL = 7;
const MAX_CATEGORY_LIMIT = 50;

/** The parameters of top_categories; no defaults here, so a forwarded query (MCP over REST) carries only what its caller set. */
const categoryParams = {
  category_level: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_CATEGORY_LEVEL)
    .optional()
    .describe(
      'top_categories: the taxonomy level to group by, 1 (e.g. "Home & Garden") to 7; default 2 ("Home & Garden > Kitchen & Dining"). ' +
        'A product placed above that level counts under its own category',
    ),
  category_order: z
    .enum(CATEGORY_ORDERS)
    .optional()
    .describe('top_categories: the measure to rank by, highest first; default impressions. Ties: impressions, clicks, revenue, then path'),
  category_limit: z.coerce.number().int().min(1).max(MAX_CATEGORY_LIMIT).optional().describe('top_categories: how many categories, 1 to 50; default 10'),
};
const CATEGORY_PARAMS = Object.keys(categoryParams) as (keyof typeof categoryParams)[];

/** GET /analytics query. The category_ parameters shape top_categories: with metric=top_categories or in the summary. */
export const AnalyticsQuerySchema = z
  .object({
    metric: z.enum(METRICS).optional().describe('One metric with its series or list; without it, the summary of every metric'),
    start_date: startDate,
    end_date: endDate,
    granularity,
    ...categoryParams,
    livemode: Livemode,
  })
  .strict()
  .superRefine((query, ctx) => {
    if (query.metric === undefined || query.metric === 'top_categories') return;
    for (const name of CATEGORY_PARAMS) {
      if (query[name] !== undefined)
        ctx.addIssue({ code: 'custom', path: [name], message: 'applies to top_categories only: use it with metric=top_categories or without metric' });
    }
  });
export type AnalyticsQuery = z.infer<typeof AnalyticsQuerySchema>;

const DEFINITIONS =
  'impressions = results shown (created in the range); clicks = billable clicks recorded in the range (unique per impression; duplicates and bots excluded); ' +
  'ctr = clicks / impressions; conversions = conversions recorded in the range; conversion_rate = conversions / clicks; ' +
  'revenue = Σ commission_amount of those conversions, summed exactly and rounded to the cent; ' +
  "displayed_impressions = impressions whose first display receipt (their card, disclosure included, was on a person's screen) arrived in the range; " +
  'display_rate = displayed_impressions / impressions. A ratio with a zero denominator is 0.';

export const AnalyticsMetricsSchema = z
  .object({
    impressions: z.number().int(),
    displayed_impressions: z
      .number()
      .int()
      .describe('Impressions whose first display receipt arrived in the range (MCP view record_display, or POST /displays)'),
    display_rate: z.number().describe('displayed_impressions / impressions; 0 when there are no impressions'),
    clicks: z.number().int(),
    ctr: z.number().describe('clicks / impressions; 0 when there are no impressions'),
    conversions: z.number().int(),
    conversion_rate: z.number().describe('conversions / clicks; 0 when there are no clicks'),
    revenue: z.number().describe('Σ commission_amount, to the cent'),
  })
  .describe(DEFINITIONS);

export const TopProductSchema = z.object({
  product_id: z.uuid(),
  title: z.string().nullable().describe('From the catalog; null when the product has left it'),
  impressions: z.number().int(),
  clicks: z.number().int(),
  ctr: z.number(),
  conversions: z.number().int(),
  revenue: z.number(),
});
const TOP_PRODUCTS_ORDER = 'clicks desc, then impressions desc, then revenue desc, then product_id asc';

export const TopQuerySchema = z.object({
  query: z.string().describe('As stored: PII redacted, lower-cased, whitespace collapsed'),
  searches: z.number().int().describe('Searches with this query in the range'),
  clicks: z.number().int().describe('Billable clicks in the range on results of searches with this query'),
  ctr: z.number().describe('clicks / results returned by those searches; 0 when they returned none'),
});
const TOP_QUERIES_ORDER = 'searches desc, then clicks desc, then query asc';

export const TopCategorySchema = z.object({
  category_id: z
    .number()
    .int()
    .nullable()
    .describe('Google product taxonomy id of the category at the asked level; null for impressions of products nothing placed (unplaced)'),
  category_path: z.string().nullable().describe('The category as a path, "Home & Garden > Kitchen & Dining"; null for unplaced'),
  impressions: z.number().int().describe('Results shown in the range whose product was in this category (or below it) when shown'),
  clicks: z.number().int().describe('Billable clicks recorded in the range on impressions of this category'),
  ctr: z.number().describe('clicks / impressions; 0 when there are no impressions'),
  conversions: z.number().int().describe('Conversions recorded in the range on impressions of this category'),
  revenue: z.number().describe('Σ commission_amount of those conversions, to the cent (as metrics.revenue: currencies are not converted)'),
  revenue_by_currency: z.record(z.string(), z.number()).describe('The same revenue per currency (ISO 4217), to the cent; {} without conversions'),
});
export type TopCategory = z.infer<typeof TopCategorySchema>;
const TOP_CATEGORIES_ORDER =
  'category_order (default impressions) desc, then impressions, clicks and revenue desc, then category_path asc (unplaced last), then category_id asc';

const topProducts = z.array(TopProductSchema).max(10).describe(`At most 10 products shown or clicked in the range, ordered by ${TOP_PRODUCTS_ORDER}`);
const topQueries = z.array(TopQuerySchema).max(10).describe(`At most 10 queries searched in the range, ordered by ${TOP_QUERIES_ORDER}`);
const topCategories = z
  .array(TopCategorySchema)
  .max(MAX_CATEGORY_LIMIT)
  .describe(
    `At most category_limit (default 10) taxonomy categories at category_level (default 2) with an impression, click or conversion in the range, ` +
      `unplaced impressions as one row with a null id and path; ordered by ${TOP_CATEGORIES_ORDER}`,
  );

const rangeFields = { start_date: Timestamp, end_date: Timestamp };

const AnalyticsSummarySchema = z.object({
  ...rangeFields,
  metrics: AnalyticsMetricsSchema,
  top_products: topProducts,
  top_queries: topQueries,
  top_categories: topCategories,
});
const AnalyticsSeriesSchema = z.object({
  metric: z.enum(SERIES_METRICS),
  ...rangeFields,
  granularity: z.enum(GRANULARITIES),
  value: z.number().describe('The metric over the whole range'),
  series: z.array(z.object({ period_start: Timestamp, value: z.number() })).describe('The metric per UTC bucket, oldest first, empty buckets as 0'),
});
const AnalyticsTopProductsSchema = z.object({ metric: z.literal('top_products'), ...rangeFields, items: topProducts });
const AnalyticsTopQueriesSchema = z.object({ metric: z.literal('top_queries'), ...rangeFields, items: topQueries });
const AnalyticsTopCategoriesSchema = z.object({
  metric: z.literal('top_categories'),
  ...rangeFields,
  category_level: z.number().int().describe('The taxonomy level the categories are grouped at'),
  category_order: z.enum(CATEGORY_ORDERS).describe('The measure they are ranked by'),
  items: topCategories,
});

/** GET /analytics response: the summary without `metric`, else the asked-for metric. */
export const AnalyticsSchema = z
  .union([AnalyticsSummarySchema, AnalyticsSeriesSchema, AnalyticsTopProductsSchema, AnalyticsTopQueriesSchema, AnalyticsTopCategoriesSchema])
  .describe(DEFINITIONS);
export type Analytics = z.infer<typeof AnalyticsSchema>;
export type AnalyticsSummary = z.infer<typeof AnalyticsSummarySchema>;

/** GET /dashboard/stats takes no parameters. */
export const DashboardQuerySchema = z.object({ livemode: Livemode }).strict();

export const DashboardStatsSchema = z.object({
  total_revenue: z
    .number()
    .describe(
      'Σ commission_amount of every conversion the account ever recorded in `currency`, to the cent (all of them unless the account mixes currencies; amounts are never converted)',
    ),
  currency: z
    .string()
    .describe("ISO 4217 code of total_revenue: the currency most of the account's conversions are in, ties alphabetically; USD when there are none"),
  revenue_by_currency: z.record(z.string(), z.number()).describe('All-time revenue per currency, to the cent'),
  active_api_keys: z.number().int().describe('Keys that authenticate now (status active, not expired, no rotation grace run out)'),
  ad_requests_24h: z.number().int().describe('Searches served in the last 24 hours'),
  impressions_24h: z.number().int().describe('Results shown in the last 24 hours'),
  clicks_24h: z.number().int().describe('Billable clicks in the last 24 hours'),
  ctr_24h: z.number().describe('clicks_24h / impressions_24h; 0 without impressions'),
});
export type DashboardStats = z.infer<typeof DashboardStatsSchema>;

/** GET /analytics/performance query. */
export const PerformanceQuerySchema = z
  .object({ timeframe: z.enum(TIMEFRAMES).default('24h').describe('The window ending now: 1h, 24h, 7d or 30d'), livemode: Livemode })
  .strict();
export type PerformanceQuery = Omit<z.input<typeof PerformanceQuerySchema>, 'livemode'> & { livemode?: boolean };

const percentiles =
  'Nearest-rank percentiles (the smallest recorded latency with at least p of the requests at or below it), exact over recorded latencies, in milliseconds; ' +
  'latencies are recorded on a 2 % logarithmic grid to three significant digits (within 1.5 % of the measured server time); 0 when there were no requests';

export const PerformanceSchema = z.object({
  timeframe: z.enum(TIMEFRAMES),
  start_date: Timestamp,
  end_date: Timestamp,
  requests: z.number().int().describe("This account's authenticated requests completed in the window"),
  latency_ms: z.object({ p50: z.number(), p90: z.number(), p95: z.number(), p99: z.number(), max: z.number() }).describe(percentiles),
  status_codes: z.record(z.string(), z.number().int()).describe('Requests per HTTP status code'),
  by_endpoint: z
    .array(
      z.object({
        method: z.string(),
        route: z.string().describe('The route template, e.g. /v1/clicks/:impression_id'),
        requests: z.number().int(),
        p50: z.number(),
        p95: z.number(),
        p99: z.number(),
        error_rate: z.number().describe("Share of the endpoint's requests answered 4xx or 5xx"),
      }),
    )
    .describe(`Per endpoint, most requests first, ties by route then method. ${percentiles}`),
  by_status: z
    .array(z.object({ status: z.number().int(), requests: z.number().int(), p50: z.number(), p95: z.number(), p99: z.number() }))
    .describe(`Per status code, ascending. ${percentiles}`),
  granularity: z.enum(['minute', 'hour', 'day']).describe('Series bucket: minute for 1h, hour for 24h, day for 7d and 30d'),
  series: z
    .array(z.object({ period_start: Timestamp, requests: z.number().int(), p95: z.number() }))
    .describe('Per UTC bucket, oldest first, empty buckets as zeros'),
});
export type Performance = z.infer<typeof PerformanceSchema>;
