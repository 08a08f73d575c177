import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Core } from '../core/index.js';
import { csrfMatches, sessionEndedError } from '../core/console/console-sessions.js';
import { AppError } from '../core/errors.js';
import { authFailureError, requireScope } from '../core/keys/authenticator.js';
import { rateLimitedError, type RateLimitDecision } from '../core/rate-limit/rate-limiter.js';
import type { Principal } from '../core/shared-ports.js';

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

/** The console's session cookie: HttpOnly, SameSite=Strict, Secure over https (docs/console.md). */
export const SESSION_COOKIE = 'aisle_session';
export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The /v1 routes a session opens: what the console manages and shows. The data plane (search, events) takes keys only. */
const SESSION_SCOPES: ReadonlySet<string> = new Set(['keys:manage', 'webhooks:manage', 'analytics:read']);

/**
 * Authenticates every route that declares a scope, before the body is parsed: the route's guard,
 * then API key → principal, then the shared rate limit, then the route's scope. Order matters: a
 * request that fails its guard or auth costs no rate-limit write, and a 403 for a missing scope
 * still spends budget so scopes cannot be probed for free.
 *
 * Without an API key, a console session cookie authenticates the console's routes and the /v1
 * routes it uses (keys, webhooks, analytics; never search, events or /mcp), as the key that
 * opened it; a state change must echo the session's CSRF token. An API key always wins over a
 * cookie, and console-only routes take the session alone.
 */
export function registerAuth(app: FastifyInstance, core: Core): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('consoleSession', null);
  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config;
    const scope = config.scope;
    if (request.is404 || scope === undefined) return;
    config.guard?.(request);
    const route = request.routeOptions.url ?? '';
    const cookie = request.cookies[SESSION_COOKIE];
    const apiKey = config.consoleOnly === true ? undefined : extractApiKey(request);
    let principal: Principal;
    const sessionRoute = route.startsWith('/console/') || (route.startsWith('/v1/') && SESSION_SCOPES.has(scope));
    if (apiKey === undefined && (config.consoleOnly === true || (cookie !== undefined && sessionRoute))) {
      const session = await core.consoleSessions.resolve(cookie);
      if (session === null) throw sessionEndedError();
      const sent = request.headers[CSRF_HEADER];
      if (!SAFE_METHODS.has(request.method) && !csrfMatches(session, typeof sent === 'string' ? sent : undefined)) {
        throw new AppError('csrf_failed', `Send the session's CSRF token (GET /console/session) in the ${CSRF_HEADER} header.`);
      }
      request.consoleSession = session;
      principal = session.principal;
    } else {
      const result = await core.auth.authenticate(apiKey);
      if (!result.ok) throw authFailureError(result.reason);
      principal = result.principal;
    }
    request.principal = principal;
    const decision = await core.rateLimiter.consume(principal);
    if (decision !== null) {
      setRateLimitHeaders(reply, decision);
      if (!decision.allowed) throw rateLimitedError(decision);
    }
    if (scope !== 'any') requireScope(principal, scope);
  });
}

/** The authenticated principal of a route that is not public; throws if auth did not run. */
export function principalOf(request: FastifyRequest) {
  if (request.principal === null) throw new Error('principalOf() on a route without authentication');
  return request.principal;
}
