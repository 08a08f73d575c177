import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { errorRegistry } from '../core/errors.js';
import { ProblemSchema } from '../core/schemas/common.js';

/** Problem responses every authenticated route can give, plus the route's own statuses. */
export function errorResponses(...statuses: number[]) {
  const all = [...new Set([...statuses, 401, 403, 429, 500, 503])].sort();
  return Object.fromEntries(all.map((s) => [s, ProblemSchema.describe(problemDescription(s))]));
}

function problemDescription(status: number): string {
  const codes = Object.entries(errorRegistry)
    .filter(([, e]) => e.status === status)
    .map(([code]) => `\`${code}\``);
  return `Problem details (application/problem+json); code ${codes.join(' or ')}`;
}

/** Documented routes that live beside /v1, not under it (UCP's binding and its profile). */
const ROOT_PREFIXES = ['/ucp/', '/.well-known/'];

/** Their paths get a server of their own (`/`), or they would read as /v1/ucp/…. */
function atRoot(doc: { paths?: Record<string, Record<string, unknown>> }): typeof doc {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (ROOT_PREFIXES.some((prefix) => path.startsWith(prefix))) item.servers = [{ url: '/' }];
  }
  return doc;
}

/** OpenAPI 3.1 generated from the route schemas (the same zod schemas the handlers validate with). */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Aisle API',
        version: '1.0.0',
        description:
          'Contextual product recommendations for AI agents. Authenticate with `x-api-key` (or `Authorization: Bearer`), ' +
          'or with an OAuth access token as `Authorization: Bearer` (docs/oauth.md). ' +
          'Errors are RFC 9457 problem+json; every code is listed at /docs/errors.',
      },
      servers: [{ url: '/v1' }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          bearer: { type: 'http', scheme: 'bearer' },
        },
      },
      security: [{ apiKey: [] }, { bearer: [] }],
    },
    transform: jsonSchemaTransform,
    // A plain tree (no object shared between routes), so the YAML has no anchors or aliases;
    // @fastify/swagger renders it once and serves the same text to every request.
    transformObject: (doc) => atRoot(JSON.parse(JSON.stringify(jsonSchemaTransformObject(doc)))),
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
  });
}
