import { z } from 'zod';
import { SCOPES } from '../keys/scopes.js';
import { AnalyticsMetricsSchema, Livemode, TopProductSchema, TopQuerySchema } from './analytics.js';
import { Timestamp } from './common.js';
import { AdResponseSchema, NO_FILL_REASONS, SearchRequestSchema } from './search.js';

/** GET /console/assets/:file: the bundled script or stylesheet, named by content hash. */
export const ConsoleAssetParamsSchema = z.object({ file: z.string().max(100) }).strict();

/** POST /console/session: the one time the browser sends the API key. */
export const ConsoleSignInBodySchema = z.object({ api_key: z.string().trim().min(1, 'Enter an API key').max(200) }).strict();

/** What the console knows about who is signed in. Never the key's secret. */
export const ConsoleSessionInfoSchema = z.object({
  account_id: z.uuid(),
  key: z.object({ id: z.uuid(), name: z.string(), hint: z.string().describe('Last four characters of the key') }),
  scopes: z.array(z.enum(SCOPES)),
  csrf_token: z.string().describe('Echo in the x-csrf-token header on every request that changes something'),
  expires_at: Timestamp,
});
export type ConsoleSessionInfo = z.infer<typeof ConsoleSessionInfoSchema>;

const CONSOLE_RANGES = ['24h', '7d', '30d'] as const;
export type ConsoleRange = (typeof CONSOLE_RANGES)[number];

/** GET /console/overview query. */
export const ConsoleOverviewQuerySchema = z.object({ range: z.enum(CONSOLE_RANGES).default('7d'), livemode: Livemode }).strict();

/**
 * The console's overview: the same figures as GET /v1/analytics (summary) and GET /v1/usage for
 * the range [start_date, end_date), read by the same store queries, plus the searches per bucket.
 */
export const ConsoleOverviewSchema = z.object({
  range: z.enum(CONSOLE_RANGES),
  start_date: Timestamp,
  end_date: Timestamp,
  granularity: z.enum(['hour', 'day']),
  totals: AnalyticsMetricsSchema.extend({ searches: z.number().int() }),
  series: z.array(
    z.object({
      period_start: Timestamp,
      searches: z.number().int(),
      impressions: z.number().int(),
      clicks: z.number().int(),
      ctr: z.number(),
      conversions: z.number().int(),
      revenue: z.number(),
    }),
  ),
  top_products: z.array(TopProductSchema),
  top_queries: z.array(TopQuerySchema),
});
export type ConsoleOverview = z.infer<typeof ConsoleOverviewSchema>;

/** POST /console/playground: a search request without streaming or conversation memory. */
export const PlaygroundRequestSchema = SearchRequestSchema.pick({
  query: true,
  limit: true,
  filters: true,
  sort: true,
  min_relevance_score: true,
  conversation_context: true,
}).strict();
export type PlaygroundRequest = z.infer<typeof PlaygroundRequestSchema>;

/** A playground result: the search result without its tracking (nothing was recorded). */
const PlaygroundResultSchema = AdResponseSchema.omit({ impression_id: true, click_url: true, affiliate_attribution: true });
export const PlaygroundResponseSchema = z.object({
  results: z.array(PlaygroundResultSchema),
  metadata: z.object({
    total_matches: z.number().int(),
    took_ms: z.number(),
    pii_redacted: z.array(z.string()),
    model: z.string(),
    ranking_model: z.string(),
    no_fill_reason: z.enum(NO_FILL_REASONS).nullable().describe("Why there are no results, as the search's metadata says it"),
    recorded: z.literal(false),
  }),
});
export type PlaygroundResponse = z.infer<typeof PlaygroundResponseSchema>;
