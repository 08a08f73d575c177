import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Core } from '../../core/index.js';
import { SearchRequestSchema, SearchResponseSchema } from '../../core/schemas/search.js';
import { principalOf } from '../auth.js';
import { errorResponses } from '../openapi.js';

const tags = ['search'];

/** CONTRACT §4: POST /search. */
export const searchRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  app.post('/search', {
    config: { scope: 'search' },
    schema: {
      tags,
      summary: 'Find the products that fit what the user is talking about',
      body: SearchRequestSchema,
      response: { 200: SearchResponseSchema.describe('Results, or a text/event-stream when stream is true'), ...errorResponses(400, 422) },
    },
  }, async (req) => core.search().search(principalOf(req), req.body));
};

