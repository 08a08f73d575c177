import type { Principal } from '../core/ports.js';
import type { Scope } from '../core/keys/scopes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Scope an API key needs for this route; `any` means any valid key (per-operation checks
     * follow, as on /mcp). Every /v1 route names one or is `public`; routes without it need no key.
     */
    scope?: Scope | 'any';
    /** No API key needed (health, docs, OpenAPI, signed redirects). */
    public?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export {};
