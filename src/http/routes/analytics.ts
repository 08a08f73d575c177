import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Core } from '../../core/index.js';
import {
  AnalyticsQuerySchema,
  AnalyticsSchema,
  DashboardQuerySchema,
  DashboardStatsSchema,
  PerformanceQuerySchema,
  PerformanceSchema,
  UsageQuerySchema,
  UsageSchema,
} from '../../core/schemas/analytics.js';
import { principalOf } from '../auth.js';
import { errorResponses } from '../openapi.js';

const scope = 'analytics:read' as const;
const tags = ['analytics'];

/** Usage, analytics, dashboard and performance figures, all under `analytics:read` (docs/analytics.md). */
export const analyticsRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  app.get(
    '/usage',
    {
      config: { scope },
      schema: {
        tags,
        summary: "API consumption over time, per key, and the calling key's rate-limit status",
        querystring: UsageQuerySchema,
        response: { 200: UsageSchema, ...errorResponses(400) },
      },
    },
    (req) => core.analytics.usage(principalOf(req), req.query),
  );

  app.get(
    '/analytics',
    {
      config: { scope },
      schema: {
        tags,
        summary: 'Impressions, clicks, CTR, conversions, revenue, top products, top queries and top categories',
        querystring: AnalyticsQuerySchema,
        response: { 200: AnalyticsSchema, ...errorResponses(400) },
      },
    },
    (req) => core.analytics.analytics(principalOf(req), req.query),
  );

  app.get(
    '/dashboard/stats',
    {
      config: { scope },
      schema: {
        tags,
        summary: 'Headline figures: revenue, active keys, the last 24 hours',
        querystring: DashboardQuerySchema,
        response: { 200: DashboardStatsSchema, ...errorResponses(400) },
      },
    },
    (req) => core.analytics.dashboardStats(principalOf(req), req.query.livemode),
  );

  app.get(
    '/analytics/performance',
    {
      config: { scope },
      schema: {
        tags,
        summary: "Latency percentiles and status codes of this account's own requests",
        querystring: PerformanceQuerySchema,
        response: { 200: PerformanceSchema, ...errorResponses(400) },
      },
    },
    (req) => core.analytics.performance(principalOf(req), req.query),
  );
};
