import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Core } from '../../core/index.js';
import {
  UcpGetProductRequestSchema,
  UcpGetProductResponseSchema,
  UcpLookupRequestSchema,
  UcpLookupResponseSchema,
  UcpProfileSchema,
  UcpProfileUrl,
  UcpSearchRequestSchema,
  UcpSearchResponseSchema,
} from '../../core/schemas/ucp.js';
import { ucpProfile } from '../../core/ucp/profile.js';
import { principalOf } from '../auth.js';
import { errorResponses } from '../openapi.js';

const tags = ['ucp'];

/**
 * The `profile` member of a UCP-Agent header, an RFC 8941 dictionary such as
 * `profile="https://agent.example/.well-known/ucp"`. Only that string member is read; other
 * members are allowed and ignored.
 */
function ucpAgentProfile(header: string): string | null {
  const match = /(?:^|,)\s*profile\s*=\s*"((?:[^"\\]|\\.)*)"\s*(?:;[^,]*)?(?:,|$)/.exec(header);
  return match ? match[1]!.replace(/\\(.)/g, '$1') : null;
}

/** The headers UCP's REST binding requires on every catalog call. */
const UcpHeadersSchema = z
  .object({
    'ucp-agent': z
      .string()
      .max(4000)
      .refine((v) => UcpProfileUrl.safeParse(ucpAgentProfile(v)).success, 'must be a dictionary with profile="<absolute URL of the platform\'s UCP profile>"')
      .describe('RFC 8941 dictionary naming the platform profile: profile="https://platform.example/.well-known/ucp"'),
    'request-id': z.uuid().describe('A UUID the platform chooses for this request'),
  })
  .loose();

/**
 * UCP's catalog over REST (docs/commerce.md): the business profile at /.well-known/ucp and the
 * three operations of UCP's OpenAPI description under /ucp, with the keys, scope (`search`) and
 * rate limit of POST /v1/search. Each route is declared whole, though the three
 * operations are alike in form: the declaration is its operation's OpenAPI entry, read one at a time.
 */
export const ucpRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  const profile = ucpProfile(core.publicBaseUrl);
  const etag = `"${createHash('sha256').update(JSON.stringify(profile)).digest('base64url').slice(0, 27)}"`;

  // Public and the same for everyone, so caches may keep it (UCP asks for max-age of 60 s or more).
  app.get(
    '/.well-known/ucp',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'UCP business profile: the catalog capabilities and their endpoints',
        security: [],
        response: { 200: UcpProfileSchema, 304: z.null().describe('Not modified: If-None-Match named the current ETag') },
      },
    },
    async (req, reply) => {
      reply.header('cache-control', 'public, max-age=300').header('etag', etag);
      if (req.headers['if-none-match'] === etag) return reply.code(304).send(null);
      return profile;
    },
  );

  const config = { scope: 'search' as const };
  app.post(
    '/ucp/catalog/search',
    {
      config,
      schema: {
        tags,
        summary: 'UCP search_catalog: products that fit a query, with cursor pagination',
        headers: UcpHeadersSchema,
        body: UcpSearchRequestSchema,
        response: { 200: UcpSearchResponseSchema, ...errorResponses(400, 422) },
      },
    },
    async (req) => core.ucp.search(principalOf(req), req.body),
  );
  app.post(
    '/ucp/catalog/lookup',
    {
      config,
      schema: {
        tags,
        summary: 'UCP lookup_catalog: products by id',
        headers: UcpHeadersSchema,
        body: UcpLookupRequestSchema,
        response: { 200: UcpLookupResponseSchema, ...errorResponses(400) },
      },
    },
    async (req) => core.ucp.lookup(principalOf(req), req.body),
  );
  app.post(
    '/ucp/catalog/product',
    {
      config,
      schema: {
        tags,
        summary: 'UCP get_product: one product; not found is a UCP error response (HTTP 200)',
        headers: UcpHeadersSchema,
        body: UcpGetProductRequestSchema,
        response: { 200: UcpGetProductResponseSchema, ...errorResponses(400) },
      },
    },
    async (req) => core.ucp.getProduct(principalOf(req), req.body),
  );
};
