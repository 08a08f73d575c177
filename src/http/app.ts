import { randomUUID } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { DEFAULT_TIMEOUTS } from '../config.js';
import type { Core } from '../core/index.js';
import type { McpServerOptions } from '../mcp/server.js';
import { registerAuth } from './auth.js';
import './fastify-types.js';
import type { AisleMetrics } from '../metrics/metrics.js';
import { registerJsonBodyParser } from './json-body.js';
import { registerOpenApi } from './openapi.js';
import { classifyError, registerProblemHandlers, sendProblem } from './problem.js';
import { type HttpTimeouts, ReceiveTimeouts } from './receive-timeouts.js';
import { registerRequestLog } from './request-log.js';
import { allowedMethodsFor, type RouteEntry, trackRoutes } from './route-table.js';
import { analyticsRoutes } from './routes/analytics.js';
import { catalogSourceRoutes } from './routes/catalog-sources.js';
import { clickLinkRoutes, clickRoutes } from './routes/clicks.js';
import { consoleRoutes } from './routes/console.js';
import { feedbackRoutes } from './routes/feedback.js';
import { feedRoutes } from './routes/feeds.js';
import { keyRoutes } from './routes/keys.js';
import { LOCAL_ONLY_MCP, type McpHttpOptions, mcpRoutes } from './routes/mcp.js';
import { registerMetaRoutes } from './routes/meta.js';
import { oauthRoutes } from './routes/oauth.js';
import { oauthConsentRoutes } from './routes/oauth-consent.js';
import { oauthGrantRoutes } from './routes/oauth-grants.js';
import { policyRoutes } from './routes/policy.js';
import { searchRoutes } from './routes/search.js';
import { ucpRoutes } from './routes/ucp.js';
import { webhookRoutes } from './routes/webhooks.js';
import { registerRequestSpans } from './tracing.js';

export const DEFAULT_BODY_LIMIT = 256 * 1024;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface AppOptions {
  core: Core;
  logger: FastifyBaseLogger;
  trustProxy?: boolean;
  /** Origin and Host checks of POST /mcp; loopback hosts and no browser origins when absent. */
  mcp?: McpHttpOptions;
  /** More on every /mcp server: only the MCP conformance run passes it (tools/conformance/run.ts), never `npm start`. */
  mcpServer?: Pick<McpServerOptions, 'extension'>;
  /** Bounds on receiving a request (AISLE_REQUEST_TIMEOUT_MS, AISLE_HEADERS_TIMEOUT_MS); their defaults when absent. */
  timeouts?: HttpTimeouts;
  /** The process's Prometheus metrics (AISLE_METRICS_LISTEN): every request and MCP tool call is observed. */
  metrics?: AisleMetrics;
  /** A server span per request (traces on: an OTLP endpoint is configured). */
  tracing?: boolean;
}

export interface AisleApp {
  app: FastifyInstance;
  /** Every registered route with its scope; used for 405 answers and by the test suite. */
  routes: readonly RouteEntry[];
}

/** Builds the REST app. It never listens: main.ts does, tests use inject() or listen themselves. */
export async function buildApp(options: AppOptions): Promise<AisleApp> {
  const receive = new ReceiveTimeouts(options.timeouts ?? { requestMs: DEFAULT_TIMEOUTS.requestMs, headersMs: DEFAULT_TIMEOUTS.headersMs }, options.logger);
  const app = Fastify({
    loggerInstance: options.logger,
    // Fastify's keep-alive of 72 s stays: longer than the 60 s idle timeout of common load
    // balancers, so the balancer, not us, closes an idle connection and never reuses a closed one.
    ...receive.fastifyOptions(),
    // One line per request from our onResponse hook instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: options.trustProxy ?? false,
    bodyLimit: DEFAULT_BODY_LIMIT,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    frameworkErrors: (error, _req, reply) => sendProblem(reply, classifyError(error)),
  }).withTypeProvider<ZodTypeProvider>();

  // First of all hooks: what runs for a request runs inside its span.
  if (options.tracing) registerRequestSpans(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  receive.register(app);
  const routes = trackRoutes(app);
  registerJsonBodyParser(app);
  registerProblemHandlers(app, allowedMethodsFor(routes));

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  const { metrics } = options;
  app.addHook('onResponse', async (request, reply) => {
    // The route's template (`/v1/keys/:id`), never the path itself: one series per route.
    metrics?.httpRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    request.log.info(
      { method: request.method, route: request.routeOptions.url ?? null, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 },
      'request completed',
    );
  });

  await app.register(fastifyCookie);
  registerAuth(app, options.core);
  registerRequestLog(app, options.core);
  await registerOpenApi(app);
  registerMetaRoutes(app, options.core);
  await app.register(keyRoutes, { prefix: '/v1', core: options.core });
  await app.register(policyRoutes, { prefix: '/v1', core: options.core });
  await app.register(searchRoutes, { prefix: '/v1', core: options.core });
  await app.register(clickRoutes, { prefix: '/v1', core: options.core });
  await app.register(feedbackRoutes, { prefix: '/v1', core: options.core });
  await app.register(clickLinkRoutes, { core: options.core });
  await app.register(webhookRoutes, { prefix: '/v1', core: options.core });
  await app.register(analyticsRoutes, { prefix: '/v1', core: options.core });
  await app.register(consoleRoutes, { core: options.core });
  await app.register(oauthRoutes, { core: options.core });
  await app.register(oauthConsentRoutes, { core: options.core });
  await app.register(oauthGrantRoutes, { prefix: '/v1', core: options.core });
  await app.register(ucpRoutes, { core: options.core });
  await app.register(feedRoutes, { prefix: '/v1', core: options.core });
  await app.register(catalogSourceRoutes, { prefix: '/v1', core: options.core });
  await app.register(mcpRoutes, {
    core: options.core,
    options: options.mcp ?? LOCAL_ONLY_MCP,
    server: {
      ...options.mcpServer,
      ...(metrics ? { onToolCall: (tool: string, ok: boolean, seconds: number) => metrics.mcpToolCall(tool, ok, seconds) } : {}),
    },
  });
  await app.ready();
  return { app, routes };
}
