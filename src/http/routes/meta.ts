import type { FastifyInstance } from 'fastify';
import { errorRegistry } from '../../core/errors.js';
import type { Core } from '../../core/index.js';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function errorsPage(): string {
  const rows = Object.entries(errorRegistry)
    .map(([code, e]) => `<tr id="${code}"><td><code>${code}</code></td><td>${e.status}</td><td>${escapeHtml(e.title)}</td></tr>`)
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Aisle error codes</title>
<style>body{font-family:system-ui,sans-serif;max-width:50rem;margin:2rem auto}td,th{padding:.3rem .8rem;text-align:left}tr:target{background:#ffd}</style>
</head><body><h1>Aisle error codes</h1>
<p>Every error is <code>application/problem+json</code> (RFC 9457) with <code>type</code>, <code>title</code>, <code>status</code>,
<code>detail</code>, a stable <code>code</code> from this table, the <code>request_id</code>, and for validation errors
<code>errors: [{path, message}]</code>.</p>
<table><thead><tr><th>code</th><th>status</th><th>meaning</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>`;
}

/** Health probes, the OpenAPI document and the error-code reference: all public. */
export function registerMetaRoutes(app: FastifyInstance, core: Core): void {
  const quiet = { logLevel: 'warn' as const, config: { public: true } };

  app.get('/healthz', { ...quiet, schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { ...quiet, schema: { hide: true } }, async (_req, reply) => {
    try {
      const current = await core.health.migrationsCurrent();
      if (!current) return reply.code(503).send({ status: 'unavailable', database: 'ok', migrations: 'pending' });
      return { status: 'ok', database: 'ok', migrations: 'current' };
    } catch {
      return reply.code(503).send({ status: 'unavailable', database: 'unreachable' });
    }
  });

  app.get('/v1/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());

  app.get('/docs/errors', { config: { public: true }, schema: { hide: true } }, async (_req, reply) =>
    reply.type('text/html; charset=utf-8').send(errorsPage()),
  );
}
