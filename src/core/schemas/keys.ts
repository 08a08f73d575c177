import { z } from 'zod';
import { SCOPES } from '../keys/scopes.js';
import { InputTimestamp, PageQuery, pageOf, Timestamp } from './common.js';

export const ScopeSchema = z.enum(SCOPES).describe('Permission a key carries');

const KeyStatusSchema = z
  .enum(['active', 'disabled', 'revoked', 'expired'])
  .describe('Only `active` authenticates. `disabled` can be re-enabled; `revoked` and `expired` are final.');

export const KeyRecordSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.enum(['aisle_sk_', 'aisle_test_']).describe('Type marker: aisle_sk_ for live keys, aisle_test_ for test keys'),
  livemode: z.boolean().describe('False for a test key: what it records stays in test data'),
  hint: z.string().describe('Last four characters of the secret'),
  scopes: z.array(ScopeSchema),
  status: KeyStatusSchema,
  created_at: Timestamp,
  last_used_at: Timestamp.nullable().describe('Updated at most once a minute'),
  expires_at: Timestamp.nullable(),
  rate_limit_per_minute: z.number().int(),
  merchant: z.string().nullable().describe('The one merchant whose attribution tokens the key verifies and converts; null for any'),
});
z.globalRegistry.add(KeyRecordSchema, { id: 'KeyRecord' });
export type KeyRecord = z.infer<typeof KeyRecordSchema>;

const KeyName = z.string().trim().min(1).max(100);

export const CreateKeyBodySchema = z
  .object({
    name: KeyName.describe('Label, e.g. the agent or environment the key is for'),
    scopes: z.array(ScopeSchema).min(1).max(SCOPES.length).optional().describe("Defaults to the calling key's scopes; a key cannot grant a scope it lacks"),
    expires_at: InputTimestamp.optional().describe('When the key stops working; must be in the future'),
    rate_limit_per_minute: z.number().int().min(1).max(1_000_000).optional().describe('Defaults to the server default (600)'),
    mode: z
      .enum(['live', 'test'])
      .optional()
      .describe("`test` creates an aisle_test_ key whose searches, clicks and conversions stay in test data; defaults to the calling key's mode"),
    merchant: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe("Limit the key to one merchant (as products name it): it verifies and converts only that merchant's attribution tokens and clicks"),
  })
  .strict();
export type CreateKeyBody = z.infer<typeof CreateKeyBodySchema>;

// The secret beside its record (RotatedKeySchema extends it). Alike in form to other replies that
// pair a value with a record (webhooks.ts's TestEventResultSchema), no field in common: one schema per operation.
export const CreatedKeySchema = z.object({
  key: z.string().describe('The full secret. Shown only in this response; store it now.'),
  metadata: KeyRecordSchema,
});
export type CreatedKey = z.infer<typeof CreatedKeySchema>;

export const UpdateKeyBodySchema = z
  .object({
    status: z.enum(['active', 'disabled']).optional().describe('`disabled` (the default) disables; `active` re-enables'),
  })
  .strict();
export type UpdateKeyBody = z.infer<typeof UpdateKeyBodySchema>;

export const RotateKeyBodySchema = z
  .object({
    grace_period_seconds: z.number().int().min(0).max(604_800).default(0).describe('How long the old key keeps working, 0 to 604800 (7 days)'),
  })
  .strict();
export type RotateKeyBody = z.infer<typeof RotateKeyBodySchema>;

export const RotatedKeySchema = CreatedKeySchema.extend({
  rotated_from: z.uuid().describe('Id of the key this one replaces'),
  old_key_expires_at: Timestamp.describe('When the old key stops working'),
});
export type RotatedKey = z.infer<typeof RotatedKeySchema>;

export const KeyIdParamsSchema = z.object({ key_id: z.string().describe('Key id: a UUID or its `key_` prefixed form') }).strict();

export const ListKeysQuerySchema = PageQuery;
export type ListKeysQuery = z.infer<typeof ListKeysQuerySchema>;

export const KeyPageSchema = pageOf(KeyRecordSchema);
export type KeyPage = z.infer<typeof KeyPageSchema>;
