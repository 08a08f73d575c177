import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../core/errors.js';
import type { Core } from '../core/index.js';
import { authFailureError, requireScope } from '../core/keys/authenticator.js';
import { hasScope, type Scope } from '../core/keys/scopes.js';
import { DEFAULT_SCOPES, type ResourceName } from '../core/oauth/endpoints.js';
import { ACCESS_TOKEN_PREFIX } from '../core/oauth/secrets.js';
import { type RateLimitDecision, rateLimitedError } from '../core/rate-limit/rate-limiter.js';
import { csrfMatches, sessionEndedError } from '../core/sessions/console-sessions.js';
import type { Principal } from '../core/shared-ports.js';

/**
 * `x-api-key` first; `Authorization: Bearer` for clients (MCP) that only speak bearer tokens. The
 * credential is an API key or an OAuth access token (`aisle_ot_…`, docs/oauth.md).
 */
function extractApiKey(request: FastifyRequest): string | undefined {
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
/** Of `catalog:write`, the console manages catalog sources; ACP feed upserts take keys only. */
const SESSION_PREFIXES = ['/v1/catalog/sources'];

/**
 * The protected resource a route belongs to (docs/oauth.md): what an access token must be minted
 * for. UCP's REST binding is part of the REST API.
 */
function resourceOf(route: string): ResourceName | null {
  if (route === '/mcp') return 'mcp';
  return route.startsWith('/v1/') || route.startsWith('/ucp/') ? 'v1' : null;
}

/**
 * An RFC 6750 challenge with the resource's RFC 9728 metadata URL, so an OAuth client (Claude,
 * ChatGPT) can discover how to obtain a token from any 401 or 403 of /mcp and /v1.
 */
function bearerChallenge(core: Core, resource: ResourceName, params: Record<string, string>): Record<string, string> {
  const parts = Object.entries(params).map(([name, value]) => `${name}="${value}"`);
  parts.push(`resource_metadata="${core.oauth.endpoints.metadataUrl(resource)}"`);
  return { 'www-authenticate': `Bearer ${parts.join(', ')}` };
}

/**
 * The principal of an API key or an OAuth access token. A refusal is a 401 problem; on /mcp and
 * /v1 it carries the challenge: without a credential it names the scopes to ask for (the default
 * connector scopes on /mcp, the route's scope on /v1), with a bad one `error="invalid_token"`.
 */
async function authenticate(core: Core, credential: string | undefined, resource: ResourceName | null, scope: Scope | 'any'): Promise<Principal> {
  if (credential?.startsWith(ACCESS_TOKEN_PREFIX)) {
    const result = await core.oauth.tokens.authenticate(credential, resource);
    if (result.ok) return result.principal;
    const headers = resource === null ? {} : bearerChallenge(core, resource, { error: 'invalid_token' });
    throw new AppError('invalid_token', result.detail, { headers });
  }
  const result = await core.auth.authenticate(credential);
  if (result.ok) return result.principal;
  const error = authFailureError(result.reason);
  if (resource === null) throw error;
  const hint = resource === 'mcp' ? DEFAULT_SCOPES.join(' ') : scope === 'any' ? undefined : scope;
  const params: Record<string, string> = result.reason !== 'missing' ? { error: 'invalid_token' } : hint === undefined ? {} : { scope: hint };
  throw new AppError(error.code, error.detail, { headers: bearerChallenge(core, resource, params) });
}

/** An OAuth access token without `scope`: 403 with an RFC 6750 `insufficient_scope` challenge naming it. Keys pass. */
export function checkTokenScope(core: Core, principal: Principal, scope: Scope, resource: ResourceName): void {
  if (principal.oauth === undefined || hasScope(principal.scopes, scope)) return;
  throw new AppError('insufficient_scope', `This operation needs the ${scope} scope, which this access token was not granted.`, {
    extensions: { required_scope: scope },
    headers: bearerChallenge(core, resource, { error: 'insufficient_scope', scope }),
  });
}

/** A missing scope: for an OAuth token a 403 with the challenge, for a key the plain 403. */
function checkScope(core: Core, principal: Principal, scope: Scope, resource: ResourceName | null): void {
  if (principal.oauth === undefined || resource === null) requireScope(principal, scope);
  else checkTokenScope(core, principal, scope, resource);
}

/**
 * Authenticates every route that declares a scope, before the body is parsed: the route's guard,
 * then API key or OAuth access token → principal, then the shared rate limit, then the route's
 * scope. Order matters: a request that fails its guard or auth costs no rate-limit write, and a
 * 403 for a missing scope still spends budget so scopes cannot be probed for free. An access
 * token acts as the key that approved its grant, with its key's rate limit (docs/oauth.md).
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
    const resource = resourceOf(route);
    let principal: Principal;
    const sessionRoute =
      route.startsWith('/console/') || (route.startsWith('/v1/') && SESSION_SCOPES.has(scope)) || SESSION_PREFIXES.some((prefix) => route.startsWith(prefix));
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
      principal = await authenticate(core, apiKey, resource, scope);
    }
    request.principal = principal;
    // Every authenticated answer says whose data it is, also where the body's schema has no room (ACP feeds).
    reply.header('aisle-livemode', String(principal.livemode !== false));
    const decision = await core.rateLimiter.consume(principal);
    if (decision !== null) {
      setRateLimitHeaders(reply, decision);
      if (!decision.allowed) throw rateLimitedError(decision);
    }
    if (scope !== 'any') checkScope(core, principal, scope, resource);
  });
}

/** The authenticated principal of a route that is not public; throws if auth did not run. */
export function principalOf(request: FastifyRequest) {
  if (request.principal === null) throw new Error('principalOf() on a route without authentication');
  return request.principal;
}
