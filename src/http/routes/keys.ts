import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Core } from '../../core/index.js';
import {
  CreatedKeySchema,
  CreateKeyBodySchema,
  KeyIdParamsSchema,
  KeyPageSchema,
  KeyRecordSchema,
  ListKeysQuerySchema,
  RotatedKeySchema,
  RotateKeyBodySchema,
  UpdateKeyBodySchema,
} from '../../core/schemas/keys.js';
import { principalOf } from '../auth.js';
import { errorResponses } from '../openapi.js';

const scope = 'keys:manage' as const;
const tags = ['keys'];

/**
 * Key management (docs/api.md). Each handler: parse (by schema), one core call, render. Each route is
 * declared whole, though alike in form to other routes: the declaration is its operation's
 * OpenAPI entry (summary, schemas, statuses), read one at a time.
 */
export const keyRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  app.get(
    '/keys',
    {
      config: { scope },
      schema: { tags, summary: 'List API keys, newest first', querystring: ListKeysQuerySchema, response: { 200: KeyPageSchema, ...errorResponses(400) } },
    },
    (req) => core.keys.list(principalOf(req), req.query),
  );

  app.post(
    '/keys',
    {
      config: { scope },
      schema: {
        tags,
        summary: 'Create an API key (the secret is returned once)',
        body: CreateKeyBodySchema,
        response: { 201: CreatedKeySchema, ...errorResponses(400, 409) },
      },
    },
    async (req, reply) => reply.code(201).send(await core.keys.create(principalOf(req), req.body)),
  );

  app.get(
    '/keys/:key_id',
    {
      config: { scope },
      schema: { tags, summary: 'Get one API key', params: KeyIdParamsSchema, response: { 200: KeyRecordSchema, ...errorResponses(404) } },
    },
    (req) => core.keys.get(principalOf(req), req.params.key_id),
  );

  app.post(
    '/keys/:key_id',
    {
      config: { scope },
      schema: {
        tags,
        summary: 'Disable an API key (no body), or re-enable it with {"status":"active"}',
        params: KeyIdParamsSchema,
        body: UpdateKeyBodySchema.nullish(),
        response: { 200: KeyRecordSchema, ...errorResponses(400, 404, 409) },
      },
    },
    (req) => core.keys.update(principalOf(req), req.params.key_id, req.body ?? undefined),
  );

  app.post(
    '/keys/:key_id/rotate',
    {
      config: { scope },
      schema: {
        tags,
        summary: 'Replace an API key; the old one works until the grace period ends',
        params: KeyIdParamsSchema,
        body: RotateKeyBodySchema.nullish(),
        response: { 201: RotatedKeySchema, ...errorResponses(400, 404, 409) },
      },
    },
    async (req, reply) => reply.code(201).send(await core.keys.rotate(principalOf(req), req.params.key_id, RotateKeyBodySchema.parse(req.body ?? {}))),
  );

  app.delete(
    '/keys/:key_id',
    {
      config: { scope },
      schema: {
        tags,
        summary: 'Delete an API key permanently',
        params: KeyIdParamsSchema,
        response: { 204: z.null().describe('Deleted'), ...errorResponses(404, 409) },
      },
    },
    async (req, reply) => {
      await core.keys.remove(principalOf(req), req.params.key_id);
      return reply.code(204).send(null);
    },
  );
};
