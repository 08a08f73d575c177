import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Core } from '../../core/index.js';
import {
  CreateFeedRequestSchema,
  FeedIdParamsSchema,
  FeedMetadataSchema,
  ProductsResponseSchema,
  UpsertProductsRequestSchema,
  UpsertProductsResponseSchema,
} from '../../core/schemas/feeds.js';
import { principalOf } from '../auth.js';
import { errorResponses } from '../openapi.js';

const tags = ['feeds'];
/** An upsert carries up to 500 whole products: more than the default body limit allows. */
const UPSERT_BODY_LIMIT = 8 * 1024 * 1024;

/**
 * ACP's Feed API under /v1 (docs/commerce.md, "Product feeds"), scope `catalog:write`. Each route is
 * declared whole, though alike in form to other routes: the declaration is its operation's
 * OpenAPI entry (summary, schemas, statuses), read one at a time.
 */
export const feedRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  const config = { scope: 'catalog:write' as const };
  app.post(
    '/feeds',
    {
      config,
      schema: {
        tags,
        summary: 'Create a product feed (ACP createFeed)',
        body: CreateFeedRequestSchema,
        response: { 201: FeedMetadataSchema, ...errorResponses(400, 409) },
      },
    },
    async (req, reply) => reply.code(201).send(await core.feeds.create(principalOf(req), req.body)),
  );
  app.get(
    '/feeds/:id',
    { config, schema: { tags, summary: 'A feed (ACP getFeed)', params: FeedIdParamsSchema, response: { 200: FeedMetadataSchema, ...errorResponses(404) } } },
    async (req) => core.feeds.get(principalOf(req), req.params.id),
  );
  app.get(
    '/feeds/:id/products',
    {
      config,
      schema: {
        tags,
        summary: "The feed's products as sent (ACP getFeedProducts)",
        params: FeedIdParamsSchema,
        response: { 200: ProductsResponseSchema, ...errorResponses(404) },
      },
    },
    async (req) => core.feeds.products(principalOf(req), req.params.id),
  );
  app.patch(
    '/feeds/:id/products',
    {
      config,
      bodyLimit: UPSERT_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Upsert whole products by id and publish them to the catalog (ACP upsertFeedProducts)',
        params: FeedIdParamsSchema,
        body: UpsertProductsRequestSchema,
        response: { 200: UpsertProductsResponseSchema, ...errorResponses(400, 404, 413) },
      },
    },
    async (req) => core.feeds.upsert(principalOf(req), req.params.id, req.body),
  );
};
