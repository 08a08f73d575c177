import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Core } from '../core/index.js';
import { authFailureError, requireScope } from '../core/keys/authenticator.js';
import { rateLimitedError, type RateLimitDecision } from '../core/rate-limit/rate-limiter.js';

/** `x-api-key` first; `Authorization: Bearer` for clients (MCP) that only speak bearer tokens. */
export function extractApiKey(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header !== '') return header.trim();
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  return undefined;
}

export function setRateLimitHeaders(reply: FastifyReply, d: RateLimitDecision): void {
  reply.header('ratelimit-policy', `"default";q=${d.limit};w=${d.windowSeconds}`);
  reply.header('ratelimit', `"default";r=${d.remaining};t=${d.resetSeconds}`);
}

/**
 * Authenticates every route that declares a scope, before the body is parsed: API key → principal,
 * then the shared rate limit, then the route's scope. Order matters: a request that fails auth
 * costs no rate-limit write, and a 403 still spends budget so scopes cannot be probed for free.
 */
export function registerAuth(app: FastifyInstance, core: Core): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request, reply) => {
    const scope = request.routeOptions.config.scope;
    if (request.is404 || scope === undefined) return;
    const result = await core.auth.authenticate(extractApiKey(request));
    if (!result.ok) throw authFailureError(result.reason);
    request.principal = result.principal;
    const decision = await core.rateLimiter.consume(result.principal);
    if (decision !== null) {
      setRateLimitHeaders(reply, decision);
      if (!decision.allowed) throw rateLimitedError(decision);
    }
    if (scope !== 'any') requireScope(result.principal, scope);
  });
}

/** The authenticated principal of a route that is not public; throws if auth did not run. */
export function principalOf(request: FastifyRequest) {
  if (request.principal === null) throw new Error('principalOf() on a route without authentication');
  return request.principal;
}
