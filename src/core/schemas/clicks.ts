import { z } from 'zod';
import { type IdKind, idPrefixes } from '../ids.js';
import { Timestamp } from './common.js';

/** A UUID or its prefixed form (`clk_…`) in a request body; the service turns it into the bare UUID. */
export const idInBody = (kind: IdKind) =>
  z
    .string()
    .regex(
      new RegExp(`^(?:${idPrefixes[kind]}_)?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`),
      `must be a UUID or ${idPrefixes[kind]}_<UUID>`,
    );

export const ImpressionIdParamsSchema = z
  .object({ impression_id: z.string().describe('Impression id from a search result: a UUID or its `imp_` prefixed form') })
  .strict();

/** POST /clicks/{impression_id} takes no body, or `{}`. */
export const ClickBodySchema = z.object({}).strict().nullish();

export const ClickSchema = z.object({
  click_id: z.uuid(),
  impression_id: z.uuid(),
  product_id: z.uuid(),
  request_id: z.uuid(),
  destination_url: z.string().nullable().describe('The merchant URL with affiliate parameters; null when the product has left the catalog'),
  clicked_at: Timestamp.describe('When the click was first recorded'),
  duplicate: z.boolean().describe('True when this impression was already clicked: the original click is returned and nothing is counted again'),
  impression_displayed: z
    .boolean()
    .describe("Whether a display receipt for the impression (POST /displays, or the MCP view's record_display) had arrived when the click was recorded"),
  livemode: z.boolean().describe('False when a test key (aisle_test_) made it: test data, never counted in live figures'),
});
export type Click = z.infer<typeof ClickSchema>;

export const LinkQuerySchema = z.object({ sig: z.string().max(200).optional() }).loose();

// Stored as numeric(18,4): more decimals than four are rounded there.
const Amount = z.number().min(0).max(1e12);

/** A conversion's details from the merchant: flat, at most 20 keys and 4 KB, no personal data (docs/commerce.md). */
const ConversionMetadataSchema = z
  .record(z.string().min(1).max(100), z.union([z.string().max(1000), z.number(), z.boolean()]))
  .refine((m) => Object.keys(m).length <= 20, 'at most 20 keys')
  .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= 4096, 'at most 4 KB as JSON')
  .describe('Flat key-value details (strings, numbers, booleans): at most 20 keys and 4 KB; personal data is refused');

export const ConversionRequestSchema = z
  .object({
    click_id: idInBody('click').optional().describe('The click the sale follows (an affiliate postback usually echoes it as a sub-id)'),
    impression_id: idInBody('impression').optional().describe('Alternatively the impression; its billable click is used'),
    attribution_token: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('Alternatively the affiliate_attribution token the agent handed over at checkout; no click needed'),
    metadata: ConversionMetadataSchema.optional(),
    order_id: z.string().trim().min(1).max(200).describe("The merchant's order id; a conversion is recorded once per order"),
    sale_amount: Amount.describe('Order value'),
    commission_amount: Amount.describe('Commission earned; revenue figures sum this'),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD')
      .describe('ISO 4217'),
  })
  .strict()
  .refine((b) => [b.click_id, b.impression_id, b.attribution_token].filter((v) => v !== undefined).length === 1, {
    message: 'send exactly one of click_id, impression_id and attribution_token',
    path: ['click_id'],
  });
export type ConversionRequest = z.infer<typeof ConversionRequestSchema>;

export const ConversionSchema = z.object({
  conversion_id: z.uuid(),
  click_id: z.uuid().nullable().describe('Null when attributed by an attribution token'),
  attributed_by: z.enum(['click', 'token']),
  impression_id: z.uuid(),
  product_id: z.uuid(),
  order_id: z.string(),
  sale_amount: z.number(),
  commission_amount: z.number(),
  currency: z.string(),
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  created_at: Timestamp,
  livemode: z.boolean().describe('False when a test key (aisle_test_) made it: test data, never counted in live figures'),
});
export type Conversion = z.infer<typeof ConversionSchema>;

export const AttributionVerifyRequestSchema = z.object({ token: z.string().min(1).max(200).describe('affiliate_attribution.token') }).strict();

const ATTRIBUTION_STATUSES = ['valid', 'expired', 'unknown', 'tampered', 'other_merchant'] as const;

export const AttributionVerificationSchema = z.object({
  valid: z.boolean(),
  status: z
    .enum(ATTRIBUTION_STATUSES)
    .describe(
      '`valid`; `expired` (older than 30 days); `unknown` (not issued here, or not to this account); `tampered` (altered); `other_merchant` (the key is limited to another merchant)',
    ),
  impression_id: z.uuid().optional(),
  request_id: z.uuid().optional(),
  product_id: z.uuid().optional(),
  account_id: z.string().optional().describe('The publisher credited (acct_…)'),
  campaign_id: z.string().optional().describe('The key whose search showed the product (key_…)'),
  issued_at: Timestamp.optional(),
  expires_at: Timestamp.optional(),
});
export type AttributionVerification = z.infer<typeof AttributionVerificationSchema>;

/** POST /displays body and the MCP app-only tool record_display's arguments. */
export const DisplayReceiptRequestSchema = z
  .object({
    impression_ids: z
      .array(idInBody('impression'))
      .min(1)
      .max(10)
      .describe('impression_id of each result whose card (with its disclosure_text) a person has had on screen: 1 to 10, UUIDs or imp_ form'),
  })
  .strict();
export type DisplayReceiptRequest = z.infer<typeof DisplayReceiptRequestSchema>;

export const DisplayReceiptSchema = z.object({
  displays: z
    .array(
      z.object({
        impression_id: z.uuid(),
        displayed_at: Timestamp.describe('When the first receipt for this impression arrived; later receipts never move it'),
        first_receipt: z.boolean().describe('True when this call recorded the display; false when an earlier receipt had'),
      }),
    )
    .describe('One entry per distinct impression sent, in the order sent'),
});
export type DisplayReceipt = z.infer<typeof DisplayReceiptSchema>;
