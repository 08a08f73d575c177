import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Core } from '../../core/index.js';
import {
  CreateSourceBodySchema,
  PullRecordSchema,
  SourceIdParamsSchema,
  SourceListSchema,
  SourceRecordSchema,
  UpdateSourceBodySchema,
} from '../../core/schemas/catalog-sources.js';
import { principalOf } from '../auth.js';
import { errorResponses } from '../openapi.js';

const config = { scope: 'catalog:write' as const };
const tags = ['catalog'];

/** Feeds pulled on a schedule (docs/ingest.md, "Feeds pulled on a schedule"), scope `catalog:write`. */
export const catalogSourceRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  app.post(
    '/catalog/sources',
    {
      config,
      schema: {
        tags,
        summary: 'Register a feed URL pulled on a schedule',
        body: CreateSourceBodySchema,
        response: { 201: SourceRecordSchema, ...errorResponses(400, 409, 422, 503) },
      },
    },
    async (req, reply) => reply.code(201).send(await core.catalogSources().create(principalOf(req), req.body)),
  );
  app.get(
    '/catalog/sources',
    { config, schema: { tags, summary: "The account's catalog sources with their last pulls", response: { 200: SourceListSchema, ...errorResponses(503) } } },
    (req) => core.catalogSources().list(principalOf(req)),
  );
  app.get(
    '/catalog/sources/:id',
    {
      config,
      schema: {
        tags,
        summary: 'One catalog source with its last 20 pulls',
        params: SourceIdParamsSchema,
        response: { 200: SourceRecordSchema, ...errorResponses(404, 503) },
      },
    },
    (req) => core.catalogSources().get(principalOf(req), req.params.id),
  );
  app.patch(
    '/catalog/sources/:id',
    {
      config,
      schema: {
        tags,
        summary: 'Change URL, format, mapping, merchant or schedule',
        params: SourceIdParamsSchema,
        body: UpdateSourceBodySchema,
        response: { 200: SourceRecordSchema, ...errorResponses(400, 404, 422, 503) },
      },
    },
    (req) => core.catalogSources().update(principalOf(req), req.params.id, req.body),
  );
  app.delete(
    '/catalog/sources/:id',
    {
      config,
      schema: {
        tags,
        summary: 'Stop pulling a source (its products stay in the catalog)',
        params: SourceIdParamsSchema,
        response: { 204: z.null().describe('Deleted'), ...errorResponses(404, 503) },
      },
    },
    async (req, reply) => {
      await core.catalogSources().delete(principalOf(req), req.params.id);
      return reply.code(204).send(null);
    },
  );
  app.post(
    '/catalog/sources/:id/pull',
    {
      config,
      schema: {
        tags,
        summary: 'Pull a source now; answers its pull once finished',
        params: SourceIdParamsSchema,
        response: { 200: PullRecordSchema, ...errorResponses(404, 409, 503) },
      },
    },
    (req) => core.catalogSources().pullNow(principalOf(req), req.params.id),
  );
};
