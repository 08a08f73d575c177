import type { Scope } from '../core/keys/scopes.js';
import type { ConsoleSession } from '../core/sessions/console-sessions.js';
import type { Principal } from '../core/shared-ports.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Scope an API key needs for this route; `any` means any valid key (per-operation checks
     * follow, as on /mcp). Every /v1 route names one or is `public`; routes without it need no key.
     */
    scope?: Scope | 'any';
    /** No API key needed (health, docs, OpenAPI, signed redirects). */
    public?: boolean;
    /** Console-only: a console session authenticates, an API key does not (docs/console.md). */
    consoleOnly?: boolean;
    /**
     * Runs before the key is looked up or charged (the /mcp Origin and Host checks), so a request
     * refused for where it comes from costs the key nothing.
     */
    guard?: (request: FastifyRequest) => void;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** Set when a console session (cookie), not an API key, authenticated the request. */
    consoleSession: ConsoleSession | null;
  }
}
