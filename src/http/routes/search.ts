import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError, toProblem } from '../../core/errors.js';
import type { Core } from '../../core/index.js';
import type { RateLimitDecision } from '../../core/rate-limit/rate-limiter.js';
import {
  SearchBatchRequestSchema,
  type SearchBatchResponse,
  SearchBatchResponseSchema,
  SearchRequestSchema,
  type SearchResponse,
  SearchResponseSchema,
} from '../../core/schemas/search.js';
import type { Principal } from '../../core/shared-ports.js';
import { principalOf, setRateLimitHeaders } from '../auth.js';
import { errorResponses } from '../openapi.js';
import { classifyError } from '../problem.js';

const tags = ['search'];
const BATCH_BODY_LIMIT = 1024 * 1024;

/** One Server-Sent Event; data is JSON on a single line, so no line needs splitting. */
const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** POST /search (JSON or SSE) and POST /search/batch (docs/search.md). */
export const searchRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  app.post(
    '/search',
    {
      config: { scope: 'search' },
      schema: {
        tags,
        summary: 'Find the products that fit what the user is talking about',
        description:
          'With `stream: true` the answer is `text/event-stream`: one `event: result` per product in rank order, then ' +
          '`event: done` with `{request_id, metadata}`; a failure after the stream started is an `event: error` with a problem object.',
        body: SearchRequestSchema,
        response: { 200: SearchResponseSchema, ...errorResponses(400, 422) },
      },
    },
    async (req, reply) => {
      const principal = principalOf(req);
      // Ranked (and impressions written) before the first byte: an error up to here is a plain problem+json.
      const response = await core.search().search(principal, req.body);
      if (!req.body.stream) return response;
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-request-id': String(req.id),
      });
      try {
        for (const result of response.results) raw.write(sse('result', result));
        raw.write(sse('done', { request_id: response.request_id, metadata: response.metadata }));
      } catch (err) {
        raw.write(sse('error', toProblem(classifyError(err), String(req.id))));
      }
      raw.end();
      return reply;
    },
  );

  app.post(
    '/search/batch',
    {
      config: { scope: 'search' },
      bodyLimit: BATCH_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Run up to 10 searches in one request; each costs one rate-limit unit',
        body: SearchBatchRequestSchema,
        response: { 200: SearchBatchResponseSchema, ...errorResponses(400, 413) },
      },
    },
    async (req, reply) => {
      const principal = principalOf(req);
      await chargeExtraQueries(core, principal, req.body.queries.length - 1, (d) => setRateLimitHeaders(reply, d));
      const results: SearchBatchResponse['results'] = [];
      for (const [index, query] of req.body.queries.entries()) {
        try {
          results.push({ index, status: 200, body: await runOne(core, principal, query, index) });
        } catch (err) {
          const error = classifyError(err);
          if (error.status >= 500) req.log.error({ err: error.cause ?? err, index }, 'batch query failed');
          results.push({ index, status: error.status, error: toProblem(error, String(req.id)) });
        }
      }
      return { results };
    },
  );
};

async function runOne(core: Core, principal: Principal, query: unknown, index: number): Promise<SearchResponse> {
  const parsed = SearchRequestSchema.safeParse(query);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((i) => ({ path: ['queries', index, ...i.path].join('.'), message: i.message }));
    throw new AppError('validation_failed', `queries.${index} is not a valid search request: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, {
      errors,
    });
  }
  if (parsed.data.stream) {
    throw new AppError('validation_failed', 'stream is not allowed in a batch', {
      errors: [{ path: `queries.${index}.stream`, message: 'not allowed in a batch' }],
    });
  }
  try {
    return await core.search().search(principal, parsed.data);
  } catch (err) {
    // A field the core names (a query of nothing but personal data) is a field of this query of the batch.
    if (!(err instanceof AppError) || err.errors === undefined) throw err;
    const errors = err.errors.map((e) => ({ ...e, path: `queries.${index}.${e.path}` }));
    throw new AppError(err.code, err.detail, {
      errors,
      extensions: err.extensions,
      headers: err.headers,
      ...(err.cause === undefined ? {} : { cause: err.cause }),
    });
  }
}

/** The auth hook charged one unit; a batch of n costs n (docs/api.md, "Rate limits"). */
async function chargeExtraQueries(core: Core, principal: Principal, extra: number, onDecision: (d: RateLimitDecision) => void) {
  if (extra <= 0) return;
  const decision = await core.rateLimiter.consume(principal, extra);
  if (decision === null) return;
  onDecision(decision);
  if (!decision.allowed) {
    throw new AppError(
      'rate_limited',
      `This batch needs ${extra + 1} requests of your budget of ${decision.limit} per minute; retry in ${decision.retryAfterSeconds} s.`,
      {
        headers: { 'retry-after': String(decision.retryAfterSeconds) },
      },
    );
  }
}
