import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import {
  type Analytics,
  AnalyticsMetricsSchema,
  AnalyticsQuerySchema,
  CATEGORY_ORDERS,
  GRANULARITIES,
  METRICS,
  TopCategorySchema,
  TopProductSchema,
  TopQuerySchema,
} from '../../core/schemas/analytics.js';
import { Timestamp } from '../../core/schemas/common.js';
import { registerAisleTool, type ToolContext } from '../tool.js';

/**
 * GET /analytics answers one of five shapes; a tool's output schema must be one object, so this
 * is their union as one object: which members are present depends on `metric`.
 */
const AnalyticsToolOutputSchema = z.object({
  start_date: Timestamp,
  end_date: Timestamp,
  metric: z.enum(METRICS).optional().describe('The metric asked for; absent for the summary'),
  metrics: AnalyticsMetricsSchema.optional().describe(
    'Summary (no metric): impressions, displayed_impressions, display_rate, clicks, ctr, conversions, conversion_rate, revenue',
  ),
  top_products: z.array(TopProductSchema).optional().describe('Summary: up to 10 products'),
  top_queries: z.array(TopQuerySchema).optional().describe('Summary: up to 10 queries'),
  top_categories: z.array(TopCategorySchema).optional().describe('Summary: the top taxonomy categories (category_level, category_order, category_limit)'),
  granularity: z.enum(GRANULARITIES).optional().describe('metric ctr, conversion_rate, revenue or display_rate: bucket size of the series'),
  value: z.number().optional().describe('metric ctr, conversion_rate, revenue or display_rate: the value over the whole range'),
  series: z
    .array(z.object({ period_start: Timestamp, value: z.number() }))
    .optional()
    .describe('metric ctr, conversion_rate, revenue or display_rate: per bucket, oldest first'),
  category_level: z.number().int().optional().describe('metric top_categories: the taxonomy level the items are grouped at'),
  category_order: z.enum(CATEGORY_ORDERS).optional().describe('metric top_categories: the measure the items are ranked by'),
  items: z
    .array(z.union([TopProductSchema, TopQuerySchema, TopCategorySchema]))
    .optional()
    .describe('metric top_products, top_queries or top_categories: the list'),
});

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function renderAnalytics(a: Analytics): string {
  const range = `${a.start_date} to ${a.end_date}`;
  if ('metrics' in a) {
    const m = a.metrics;
    const products = a.top_products
      .slice(0, 3)
      .map((p) => `${p.title ?? p.product_id} (${p.clicks} clicks)`)
      .join('; ');
    return (
      `${range}: ${m.impressions} impressions (${m.displayed_impressions} displayed, ${pct(m.display_rate)}), ${m.clicks} clicks (CTR ${pct(m.ctr)}), ${m.conversions} conversions (${pct(m.conversion_rate)}), revenue ${m.revenue.toFixed(2)}.` +
      (products ? ` Top products: ${products}.` : '')
    );
  }
  if ('value' in a)
    return `${a.metric} ${a.metric === 'revenue' ? a.value.toFixed(2) : pct(a.value)} over ${range} (${a.series.length} ${a.granularity} buckets).`;
  if (a.metric === 'top_categories') {
    const top = a.items
      .slice(0, 3)
      .map(
        (c) =>
          `${c.category_path ?? (c.category_id === null ? 'unplaced' : c.category_id)} (${c.impressions} impressions, ${c.clicks} clicks, revenue ${c.revenue.toFixed(2)})`,
      )
      .join('; ');
    return `top_categories ${range}, level ${a.category_level} by ${a.category_order}: ${a.items.length} entries${top ? `. ${top}` : ''}.`;
  }
  return `${a.metric} ${range}: ${a.items.length} entries.`;
}

/** get_analytics: GET /v1/analytics as a tool (read-only). */
export function registerGetAnalyticsTool(server: McpServer, ctx: ToolContext): void {
  registerAisleTool(server, ctx, {
    name: 'get_analytics',
    title: 'Get analytics',
    description:
      "Read this account's recommendation performance for a date range (default: the last 30 days): impressions, displayed impressions and display rate " +
      '(cards a person had on screen, from display receipts), clicks, click-through rate, conversions, conversion rate and revenue, with the top products, queries and categories. ' +
      'Pass metric for one figure over time (ctr, conversion_rate, revenue, display_rate: value and series) or a ranked list (top_products, top_queries, top_categories: items). ' +
      'top_categories groups impressions, clicks and revenue by Google product taxonomy category: category_level 1-7 (default 2), ' +
      'category_order impressions, clicks or revenue (default impressions), category_limit 1-50 (default 10); unplaced products are one row with a null category. ' +
      'Dates are ISO 8601 with an offset; ' +
      'the range is [start_date, end_date), at most 366 days. Read-only.',
    input: AnalyticsQuerySchema,
    output: AnalyticsToolOutputSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async (query) => {
      const analytics = await ctx.api.getAnalytics(query);
      return { structured: analytics, text: renderAnalytics(analytics) };
    },
  });
}
