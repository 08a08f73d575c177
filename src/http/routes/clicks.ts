import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Core } from '../../core/index.js';
import {
  AttributionVerificationSchema,
  AttributionVerifyRequestSchema,
  ClickBodySchema,
  ClickSchema,
  ConversionRequestSchema,
  ConversionSchema,
  DisplayReceiptRequestSchema,
  DisplayReceiptSchema,
  ImpressionIdParamsSchema,
  LinkQuerySchema,
} from '../../core/schemas/clicks.js';
import { principalOf } from '../auth.js';
import { errorResponses } from '../openapi.js';

/**
 * POST /clicks/{impression_id}, POST /conversions and POST /displays (docs/clicks.md). Each route is
 * declared whole, though alike in form to other routes: the declaration is its operation's
 * OpenAPI entry (summary, schemas, statuses), read one at a time.
 */
export const clickRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  app.post(
    '/clicks/:impression_id',
    {
      config: { scope: 'events:write' },
      schema: {
        tags: ['clicks'],
        summary: 'Report that a person clicked a result (counted once per impression)',
        params: ImpressionIdParamsSchema,
        body: ClickBodySchema,
        response: {
          201: ClickSchema.describe('Click recorded'),
          200: ClickSchema.describe('Already clicked: the original click, duplicate: true'),
          ...errorResponses(400, 404, 410),
        },
      },
    },
    async (req, reply) => {
      const { created, click } = await core.clicks.recordClick(principalOf(req), req.params.impression_id);
      return reply.code(created ? 201 : 200).send(click);
    },
  );

  app.post(
    '/conversions',
    {
      config: { scope: 'conversions:write' },
      schema: {
        tags: ['clicks'],
        summary: 'Record a sale after a click, or with the attribution token handed over at checkout; once per order_id',
        body: ConversionRequestSchema,
        response: {
          201: ConversionSchema.describe('Conversion recorded'),
          200: ConversionSchema.describe('This order_id was already recorded: the stored conversion'),
          ...errorResponses(400, 403, 404, 422),
        },
      },
    },
    async (req, reply) => {
      const { created, conversion } = await core.conversions.record(principalOf(req), req.body);
      return reply.code(created ? 201 : 200).send(conversion);
    },
  );

  app.post(
    '/attribution/verify',
    {
      config: { scope: 'conversions:write' },
      schema: {
        tags: ['clicks'],
        summary: 'Verify an attribution token a merchant received at checkout: valid (with impression, publisher and campaign) or why not',
        body: AttributionVerifyRequestSchema,
        response: { 200: AttributionVerificationSchema, ...errorResponses(400) },
      },
    },
    async (req) => core.conversions.verify(principalOf(req), req.body.token),
  );

  app.post(
    '/displays',
    {
      config: { scope: 'events:write' },
      schema: {
        tags: ['clicks'],
        summary: "Display receipt: these results' cards, with their disclosure, were on a person's screen (first receipt wins)",
        body: DisplayReceiptRequestSchema,
        response: { 200: DisplayReceiptSchema, ...errorResponses(400, 404) },
      },
    },
    async (req) => core.displays.recordDisplays(principalOf(req), req.body),
  );
};

/** GET /r/{impression_id}?sig=: the signed click link. Public: the signature is the credential. */
export const clickLinkRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  app.get(
    '/r/:impression_id',
    {
      config: { public: true },
      schema: {
        tags: ['clicks'],
        summary: 'Signed click link: records the click and redirects to the merchant',
        security: [],
        params: ImpressionIdParamsSchema,
        querystring: LinkQuerySchema,
      },
    },
    async (req, reply) => {
      const purpose = `${req.headers['sec-purpose'] ?? ''} ${req.headers.purpose ?? ''} ${req.headers['x-purpose'] ?? ''}`;
      const { location, outcome } = await core.clicks.followLink(req.params.impression_id, req.query.sig, {
        userAgent: req.headers['user-agent'],
        // Browsers prefetch links they guess will be clicked, and HEAD fetches only look.
        automated: req.method === 'HEAD' || /prefetch|prerender|preview/i.test(purpose),
      });
      // Never cached: every follow must reach us to be counted (and a shared cache must not replay one).
      return reply.code(302).header('location', location).header('cache-control', 'no-store').header('aisle-click', outcome).send();
    },
  );
};
