import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Core } from '../../core/index.js';
import {
  CreatedWebhookSchema,
  CreateWebhookBodySchema,
  DeliveryIdParamsSchema,
  DeliveryPageSchema,
  DeliveryRecordSchema,
  ListDeliveriesQuerySchema,
  ListWebhooksQuerySchema,
  RotatedSecretSchema,
  TestEventBodySchema,
  TestEventResultSchema,
  UpdateWebhookBodySchema,
  WebhookIdParamsSchema,
  WebhookPageSchema,
  WebhookRecordSchema,
} from '../../core/schemas/webhooks.js';
import { principalOf } from '../auth.js';
import { errorResponses } from '../openapi.js';

const scope = 'webhooks:manage' as const;
const tags = ['webhooks'];

/** Webhook subscriptions and their deliveries (docs/webhooks.md). Each handler: parse (by schema), one core call, render. */
export const webhookRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  const webhooks = core.webhooks;

  app.post(
    '/webhooks',
    {
      config: { scope },
      schema: {
        tags,
        summary: 'Subscribe a URL to events (the signing secret is returned once)',
        body: CreateWebhookBodySchema,
        response: { 201: CreatedWebhookSchema, ...errorResponses(400, 409, 422) },
      },
    },
    async (req, reply) => reply.code(201).send(await webhooks.create(principalOf(req), req.body)),
  );

  app.get(
    '/webhooks',
    {
      config: { scope },
      schema: {
        tags,
        summary: 'List webhooks, newest first',
        querystring: ListWebhooksQuerySchema,
        response: { 200: WebhookPageSchema, ...errorResponses(400) },
      },
    },
    (req) => webhooks.list(principalOf(req), req.query),
  );

  app.get(
    '/webhooks/:webhook_id',
    {
      config: { scope },
      schema: { tags, summary: 'Get one webhook', params: WebhookIdParamsSchema, response: { 200: WebhookRecordSchema, ...errorResponses(404) } },
    },
    (req) => webhooks.get(principalOf(req), req.params.webhook_id),
  );

  app.patch(
    '/webhooks/:webhook_id',
    {
      config: { scope },
      schema: {
        tags,
        summary: 'Change URL, events, description or status',
        params: WebhookIdParamsSchema,
        body: UpdateWebhookBodySchema,
        response: { 200: WebhookRecordSchema, ...errorResponses(400, 404, 422) },
      },
    },
    (req) => webhooks.update(principalOf(req), req.params.webhook_id, req.body),
  );

  app.delete(
    '/webhooks/:webhook_id',
    {
      config: { scope },
      schema: {
        tags,
        summary: 'Delete a webhook and its pending deliveries',
        params: WebhookIdParamsSchema,
        response: { 204: z.null().describe('Deleted'), ...errorResponses(404) },
      },
    },
    async (req, reply) => {
      await webhooks.remove(principalOf(req), req.params.webhook_id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/webhooks/:webhook_id/rotate-secret',
    {
      config: { scope },
      schema: {
        tags,
        summary: 'New signing secret; the old one signs alongside it for 24 h',
        params: WebhookIdParamsSchema,
        body: z.object({}).strict().nullish(),
        response: { 201: RotatedSecretSchema, ...errorResponses(400, 404) },
      },
    },
    async (req, reply) => reply.code(201).send(await webhooks.rotateSecret(principalOf(req), req.params.webhook_id)),
  );

  app.get(
    '/webhooks/:webhook_id/deliveries',
    {
      config: { scope },
      schema: {
        tags,
        summary: "A webhook's deliveries, newest first; finished ones are deleted 30 days after their last attempt (AISLE_WEBHOOK_RETENTION_DAYS)",
        params: WebhookIdParamsSchema,
        querystring: ListDeliveriesQuerySchema,
        response: { 200: DeliveryPageSchema, ...errorResponses(400, 404) },
      },
    },
    (req) => webhooks.listDeliveries(principalOf(req), req.params.webhook_id, req.query),
  );

  app.post(
    '/webhooks/:webhook_id/deliveries/:delivery_id/retry',
    {
      config: { scope },
      schema: {
        tags,
        summary: 'Send a delivery again now (same event, same webhook-id)',
        params: DeliveryIdParamsSchema,
        body: z.object({}).strict().nullish(),
        response: { 202: DeliveryRecordSchema, ...errorResponses(400, 404, 409) },
      },
    },
    async (req, reply) => reply.code(202).send(await webhooks.retryDelivery(principalOf(req), req.params.webhook_id, req.params.delivery_id)),
  );

  app.post(
    '/webhooks/:webhook_id/test',
    {
      config: { scope },
      schema: {
        tags,
        summary: 'Queue a sample event (marked test: true) for this webhook',
        params: WebhookIdParamsSchema,
        body: TestEventBodySchema.nullish(),
        response: { 202: TestEventResultSchema, ...errorResponses(400, 404, 409) },
      },
    },
    async (req, reply) => reply.code(202).send(await webhooks.sendTest(principalOf(req), req.params.webhook_id, req.body ?? {})),
  );
};
