import { z } from 'zod';
import { EVENT_TYPES } from '../webhooks/event-types.js';
import { PageQuery, pageOf, Timestamp } from './common.js';

const EventTypeSchema = z.enum(EVENT_TYPES).describe('Event kind');

const EventList = z
  .array(EventTypeSchema)
  .min(1)
  .max(EVENT_TYPES.length)
  .refine((v) => new Set(v).size === v.length, 'must not repeat an event kind')
  .describe('Event kinds to receive: click, conversion, search, feedback');
const WebhookUrl = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .describe('Receiving address; https, and not private, loopback, link-local or reserved (unless the operator allows private addresses)');
const Description = z.string().trim().max(500);

export const WebhookRecordSchema = z.object({
  id: z.uuid(),
  url: z.string(),
  events: z.array(EventTypeSchema),
  description: z.string().nullable(),
  status: z
    .enum(['enabled', 'disabled'])
    .describe(
      'Disabled endpoints receive nothing; deliveries waiting for them resume when re-enabled, unless older than the webhook history window (30 days by default)',
    ),
  disabled_reason: z.enum(['manual', 'failing']).nullable().describe('`failing`: disabled after 5 days of continuous failure'),
  failing_since: Timestamp.nullable().describe('Start of the current run of failed attempts; null after a success'),
  previous_secret_expires_at: Timestamp.nullable().describe('Until then the secret before the last rotation signs too'),
  created_at: Timestamp,
  updated_at: Timestamp,
});
z.globalRegistry.add(WebhookRecordSchema, { id: 'Webhook' });
export type WebhookRecord = z.infer<typeof WebhookRecordSchema>;

export const CreateWebhookBodySchema = z.object({ url: WebhookUrl, events: EventList, description: Description.optional() }).strict();
export type CreateWebhookBody = z.infer<typeof CreateWebhookBodySchema>;

export const CreatedWebhookSchema = WebhookRecordSchema.extend({
  secret: z.string().describe('Signing secret (`whsec_…`). Shown only in this response; store it now.'),
});
export type CreatedWebhook = z.infer<typeof CreatedWebhookSchema>;

export const UpdateWebhookBodySchema = z
  .object({
    url: WebhookUrl.optional(),
    events: EventList.optional(),
    description: Description.nullable().optional().describe('null clears it'),
    status: z.enum(['enabled', 'disabled']).optional().describe('Re-enabling clears the failure run'),
  })
  .strict();
export type UpdateWebhookBody = z.infer<typeof UpdateWebhookBodySchema>;

export const RotatedSecretSchema = z.object({
  id: z.uuid(),
  secret: z.string().describe('The new signing secret. Shown only in this response.'),
  previous_secret_expires_at: Timestamp.describe('Until then deliveries carry signatures from both secrets'),
});
export type RotatedSecret = z.infer<typeof RotatedSecretSchema>;

const DeliveryStatusSchema = z.enum(['pending', 'delivering', 'succeeded', 'failed']);

export const DeliveryRecordSchema = z.object({
  id: z.uuid(),
  webhook_id: z.uuid(),
  event_id: z.string().describe('`evt_…`: the `webhook-id` header of every attempt'),
  event_type: z.string(),
  status: DeliveryStatusSchema,
  attempts: z.number().int().describe('Attempts made so far (at most 8 before `failed`, plus manual retries)'),
  next_attempt_at: Timestamp.nullable(),
  last_attempt_at: Timestamp.nullable(),
  last_status_code: z.number().int().nullable(),
  last_duration_ms: z.number().nullable(),
  last_error: z.string().nullable().describe('Why the last attempt failed without a 2xx: timeout, connection or refused address'),
  last_response_body: z.string().nullable().describe('Start of the last response body (truncated)'),
  created_at: Timestamp,
});
z.globalRegistry.add(DeliveryRecordSchema, { id: 'WebhookDelivery' });
export type DeliveryRecord = z.infer<typeof DeliveryRecordSchema>;

export const WebhookIdParamsSchema = z.object({ webhook_id: z.string().describe('Webhook id: a UUID or its `wh_` form') }).strict();
export const DeliveryIdParamsSchema = z
  .object({
    webhook_id: z.string().describe('Webhook id: a UUID or its `wh_` form'),
    delivery_id: z.string().describe('Delivery id: a UUID or its `whd_` form'),
  })
  .strict();

export const ListWebhooksQuerySchema = PageQuery;
export type ListWebhooksQuery = z.infer<typeof ListWebhooksQuerySchema>;
export const WebhookPageSchema = pageOf(WebhookRecordSchema);
export type WebhookPage = z.infer<typeof WebhookPageSchema>;

export const ListDeliveriesQuerySchema = PageQuery.extend({
  status: DeliveryStatusSchema.optional().describe('Only deliveries in this state'),
}).strict();
export type ListDeliveriesQuery = z.infer<typeof ListDeliveriesQuerySchema>;
export const DeliveryPageSchema = pageOf(DeliveryRecordSchema);
export type DeliveryPage = z.infer<typeof DeliveryPageSchema>;

export const TestEventBodySchema = z
  .object({ event_type: EventTypeSchema.optional().describe("Kind of sample event; defaults to the endpoint's first subscribed kind") })
  .strict();
export type TestEventBody = z.infer<typeof TestEventBodySchema>;

export const TestEventResultSchema = z.object({
  event_id: z.string().describe('`evt_…` of the sample event (its envelope carries `test: true`)'),
  delivery: DeliveryRecordSchema,
});
export type TestEventResult = z.infer<typeof TestEventResultSchema>;
