import type { FastifyInstance } from 'fastify';
import type { Scope } from '../core/keys/scopes.js';
import './fastify-types.js';

export interface RouteEntry {
  method: string;
  url: string;
  scope: Scope | 'any' | null;
  public: boolean;
  /** Console-only: a console session authenticates it, never an API key. */
  consoleOnly: boolean;
  /** The route's own body limit, when it differs from the app's. */
  bodyLimit: number | null;
  pattern: RegExp;
}

/**
 * Records every route as it is registered: the 404 handler uses it to answer 405 with `Allow`
 * for a known path, and the test suite iterates it so no route escapes the scope and fuzz tests.
 * Registration fails for a /v1 route that neither names a scope nor is marked public.
 */
export function trackRoutes(app: FastifyInstance): RouteEntry[] {
  const routes: RouteEntry[] = [];
  app.addHook('onRoute', (opts) => {
    const methods = Array.isArray(opts.method) ? opts.method : [opts.method];
    const scope = opts.config?.scope ?? null;
    const isPublic = opts.config?.public === true;
    if (opts.url.startsWith('/v1/') && scope === null && !isPublic) {
      throw new Error(`Route ${methods.join(',')} ${opts.url} must declare config.scope or config.public`);
    }
    const pattern = new RegExp(
      `^${opts.url
        .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
        .replace(/:[A-Za-z_]+/g, '[^/]+')
        .replace(/\*/g, '.*')}$`,
    );
    for (const method of methods) {
      if (method === 'HEAD') continue;
      routes.push({
        method,
        url: opts.url,
        scope,
        public: isPublic,
        consoleOnly: opts.config?.consoleOnly === true,
        bodyLimit: opts.bodyLimit ?? null,
        pattern,
      });
    }
  });
  return routes;
}

export const allowedMethodsFor =
  (routes: readonly RouteEntry[]) =>
  (path: string): string[] => [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
