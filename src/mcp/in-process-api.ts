import type { Core } from '../core/index.js';
import { authFailureError, requireScope } from '../core/keys/authenticator.js';
import type { Scope } from '../core/keys/scopes.js';
import { rateLimitedError } from '../core/rate-limit/rate-limiter.js';
import type { Principal } from '../core/shared-ports.js';
import type { AisleApi } from './api.js';

/**
 * Who the calls are made for: a principal the HTTP layer already authenticated and charged to
 * the rate limit (POST /mcp), or an API key checked on every call like a REST request (stdio),
 * so a key disabled mid-session stops working at once and each tool call spends one unit.
 */
export type Caller = { principal: Principal } | { apiKey: string };

/** The core in this process, bound to one caller. Scope refusals are 403 insufficient_scope AppErrors. */
export function createInProcessApi(core: Core, caller: Caller): AisleApi {
  const authorize = async (scope: Scope): Promise<Principal> => {
    const principal = 'principal' in caller ? caller.principal : await admit(core, caller.apiKey);
    requireScope(principal, scope);
    return principal;
  };
  return {
    search: async (request) => core.search().search(await authorize('search'), { ...request, stream: false }),
    recordClick: async (impressionId) => (await core.clicks.recordClick(await authorize('events:write'), impressionId)).click,
    recordDisplays: async (request) => core.displays.recordDisplays(await authorize('events:write'), request),
    submitFeedback: async (feedback) => core.feedback.submit(await authorize('events:write'), feedback),
    getAnalytics: async (query) => core.analytics.analytics(await authorize('analytics:read'), query),
    // The platform profile is not fetched (docs/commerce.md, "What is not implemented"): the key is the trust.
    ucpSearch: async (request) => core.ucp.search(await authorize('search'), request),
    ucpLookup: async (request) => core.ucp.lookup(await authorize('search'), request),
    ucpGetProduct: async (request) => core.ucp.getProduct(await authorize('search'), request),
    imageOrigins: () => core.imageOrigins(),
  };
}

/** What the REST auth hook does before a handler runs: key → principal, then one rate-limit unit. */
async function admit(core: Core, apiKey: string): Promise<Principal> {
  const result = await core.auth.authenticate(apiKey);
  if (!result.ok) throw authFailureError(result.reason);
  const decision = await core.rateLimiter.consume(result.principal);
  if (decision !== null && !decision.allowed) throw rateLimitedError(decision);
  return result.principal;
}
