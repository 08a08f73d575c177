import type { FastifyInstance } from 'fastify';
import type { Core } from '../core/index.js';

/**
 * Records every authenticated request (a principal was resolved: 2xx, 4xx, 403 and 429 alike) in
 * the request log. Console sessions are not API consumption and are left out. record() only queues, so nothing here waits on the database; the app's close
 * flushes what is still queued.
 */
export function registerRequestLog(app: FastifyInstance, core: Core): void {
  if (!core.requestLog.enabled) return;
  app.addHook('onResponse', (request, reply, done) => {
    const principal = request.principal;
    if (principal !== null && request.consoleSession === null) {
      core.requestLog.record({
        accountId: principal.accountId,
        keyId: principal.keyId,
        method: request.method,
        route: request.routeOptions.url ?? 'unknown',
        status: reply.statusCode,
        latencyMs: Math.round(reply.elapsedTime * 1000) / 1000,
      });
    }
    done();
  });
  app.addHook('onClose', async () => core.requestLog.close());
}
