import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Core } from '../../core/index.js';
import { GrantIdParamsSchema, GrantPageSchema, ListGrantsQuerySchema } from '../../core/schemas/oauth.js';
import { principalOf } from '../auth.js';
import { errorResponses } from '../openapi.js';

const scope = 'keys:manage' as const;
const tags = ['oauth'];

/** The account's connected apps (docs/api.md, docs/oauth.md): OAuth grants, listed and revoked like keys. */
export const oauthGrantRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  app.get(
    '/oauth/grants',
    {
      config: { scope },
      schema: {
        tags,
        summary: 'List the apps authorized by OAuth, newest first',
        querystring: ListGrantsQuerySchema,
        response: { 200: GrantPageSchema, ...errorResponses(400) },
      },
    },
    (req) => core.oauth.grants.list(principalOf(req), req.query),
  );

  app.delete(
    '/oauth/grants/:grant_id',
    {
      config: { scope },
      schema: {
        tags,
        summary: 'Revoke an app: its access and refresh tokens stop working at once',
        params: GrantIdParamsSchema,
        response: { 204: z.null().describe('Revoked'), ...errorResponses(404) },
      },
    },
    async (req, reply) => {
      await core.oauth.grants.revoke(principalOf(req), req.params.grant_id);
      return reply.code(204).send(null);
    },
  );
};
