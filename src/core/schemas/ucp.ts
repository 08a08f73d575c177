import { z } from 'zod';

/**
 * UCP catalog requests and responses (docs/commerce.md). UCP's request schemas are open: fields
 * this version does not know are accepted, not refused, because UCP counts new optional request
 * fields as backwards compatible. What Aisle cannot honour comes back as a message instead.
 */

/** The UCP release Aisle answers as (a dated release: UCP forbids advertising "draft"). */
export const UCP_VERSION = '2026-04-08';

const FilterText = z.string().trim().min(1).max(200);
const MinorUnits = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** The platform's profile URL (UCP-Agent header on REST, meta["ucp-agent"].profile on MCP). */
export const UcpProfileUrl = z.url({ protocol: /^https?$/ }).max(2000);

const UcpContextSchema = z
  .object({
    intent: z.string().max(4000).optional().describe('What the buyer is after, in words; used like a conversation turn'),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD')
      .optional()
      .describe('Currency of filters.price (default USD)'),
    session_id: z.uuid().optional().describe('Aisle extension: the session to continue (aisle.session_id of an earlier answer)'),
  })
  .loose();

const UcpSearchFiltersSchema = z
  .object({
    categories: z.array(FilterText).min(1).max(20).optional().describe('Any of these categories (or a descendant)'),
    price: z
      .object({ min: MinorUnits.optional(), max: MinorUnits.optional() })
      .strict()
      .refine((p) => p.min === undefined || p.max === undefined || p.min <= p.max, { message: 'min must not exceed max', path: ['min'] })
      .optional()
      .describe('Integer minor units in context.currency'),
    merchant: FilterText.optional().describe('Aisle extension: retailer name, case-insensitive'),
    brand: FilterText.optional().describe('Aisle extension: brand, case-insensitive'),
    keyword_filter: FilterText.optional().describe('Aisle extension: every word must occur in the product text'),
    min_relevance_score: z.number().min(0).max(1).optional().describe('Aisle extension: minimum calibrated relevance (default 0.5)'),
  })
  .loose();
export type UcpSearchFilters = z.infer<typeof UcpSearchFiltersSchema>;

/** Filter names Aisle honours; any other key in `filters` is answered with a filter_not_supported message. */
export const HONOURED_FILTERS: readonly string[] = Object.keys(UcpSearchFiltersSchema.shape);

const Attribution = z.record(z.string().max(200), z.string().max(2000)).describe('Platform referral parameters; accepted, never used for ranking');
const Signals = z.record(z.string().max(200), z.unknown()).describe('Accepted and not used or stored');

export const UcpSearchRequestSchema = z
  .object({
    query: z.string().trim().min(1, 'query must not be empty').max(2000).describe('Free-text search; Aisle requires it'),
    context: UcpContextSchema.optional(),
    signals: Signals.optional(),
    attribution: Attribution.optional(),
    filters: UcpSearchFiltersSchema.optional(),
    pagination: z
      .object({
        cursor: z.string().min(1).max(4096).optional().describe('pagination.cursor of the previous page'),
        limit: z.number().int().min(1).max(1000).optional().describe('Page size, default 10; more than 10 is answered with 10'),
      })
      .loose()
      .optional(),
  })
  .loose();
export type UcpSearchRequest = z.infer<typeof UcpSearchRequestSchema>;

/** Most ids a lookup takes at once. */
const MAX_LOOKUP_IDS = 50;

export const UcpLookupRequestSchema = z
  .object({
    ids: z.array(z.string().min(1).max(200)).min(1).max(MAX_LOOKUP_IDS).describe(`Product or variant ids, 1 to ${MAX_LOOKUP_IDS}`),
    filters: UcpSearchFiltersSchema.optional(),
    context: UcpContextSchema.optional(),
    signals: Signals.optional(),
    attribution: Attribution.optional(),
  })
  .loose();
export type UcpLookupRequest = z.infer<typeof UcpLookupRequestSchema>;

export const UcpGetProductRequestSchema = z
  .object({
    id: z.string().min(1).max(200).describe('Product or variant id'),
    selected: z
      .array(z.object({ name: z.string(), label: z.string() }).loose())
      .max(50)
      .optional(),
    preferences: z.array(z.string()).max(50).optional(),
    filters: UcpSearchFiltersSchema.optional(),
    context: UcpContextSchema.optional(),
    signals: Signals.optional(),
    attribution: Attribution.optional(),
  })
  .loose();
export type UcpGetProductRequest = z.infer<typeof UcpGetProductRequestSchema>;

/** MCP's `arguments.meta` on every UCP tool call (not MCP's own `_meta`). */
export const UcpMetaSchema = z
  .object({
    'ucp-agent': z.object({ profile: UcpProfileUrl.describe("The calling platform's UCP profile URL") }).loose(),
    'idempotency-key': z.uuid().optional(),
  })
  .loose();

// Responses: the fields Aisle writes, open like UCP's own schemas. Tests check every answer against
// UCP's JSON Schemas; these describe them for OpenAPI and the MCP tool listing.

const Price = z.object({ amount: z.number().int(), currency: z.string() });
const Message = z
  .object({
    type: z.enum(['error', 'warning', 'info']),
    code: z.string().optional(),
    content: z.string(),
    path: z.string().optional(),
    severity: z.string().optional(),
    presentation: z.string().optional(),
  })
  .loose();
export type UcpMessage = z.infer<typeof Message>;

const UcpEnvelope = z
  .object({
    version: z.string(),
    status: z.enum(['success', 'error']).optional(),
    capabilities: z.record(z.string(), z.array(z.object({ version: z.string() }).loose())).optional(),
  })
  .loose();

const Variant = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.object({ plain: z.string() }).loose(),
    price: Price,
    sku: z.string().optional(),
    url: z.string().optional(),
    availability: z.object({ available: z.boolean().optional(), status: z.string().optional() }).optional(),
    seller: z.object({ name: z.string().optional() }).loose().optional(),
    inputs: z.array(z.object({ id: z.string(), match: z.string().optional() })).optional(),
  })
  .loose();

const UcpProductSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.object({ plain: z.string() }).loose(),
    url: z.string().optional(),
    categories: z.array(z.object({ value: z.string(), taxonomy: z.string().optional() })).optional(),
    price_range: z.object({ min: Price, max: Price }),
    media: z.array(z.object({ type: z.string(), url: z.string(), alt_text: z.string().optional() })).optional(),
    variants: z.array(Variant),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();
export type UcpProduct = z.infer<typeof UcpProductSchema>;

/** Aisle's own part of an answer, beside UCP's (UCP reserves `ucp` for itself). */
const AisleExtension = z
  .object({
    request_id: z.string().optional().describe('The search; impressions and attribution tokens name it'),
    session_id: z.uuid().optional().describe('Send as context.session_id to continue the session'),
    pii_redacted: z.array(z.string()).optional(),
    livemode: z.boolean().optional().describe('False for a test key: test data'),
  })
  .loose();

export const UcpSearchResponseSchema = z
  .object({
    ucp: UcpEnvelope,
    products: z.array(UcpProductSchema),
    pagination: z.object({ has_next_page: z.boolean(), cursor: z.string().optional(), total_count: z.number().int().optional() }).optional(),
    messages: z.array(Message).optional(),
    aisle: AisleExtension.optional(),
  })
  .loose();
export type UcpSearchResponse = z.infer<typeof UcpSearchResponseSchema>;

export const UcpLookupResponseSchema = z
  .object({ ucp: UcpEnvelope, products: z.array(UcpProductSchema), messages: z.array(Message).optional(), aisle: AisleExtension.optional() })
  .loose();
export type UcpLookupResponse = z.infer<typeof UcpLookupResponseSchema>;

/** get_product: the product, or (not found) UCP's error response: `ucp.status: "error"` and an error message. */
export const UcpGetProductResponseSchema = z
  .object({ ucp: UcpEnvelope, product: UcpProductSchema.optional(), messages: z.array(Message).optional(), aisle: AisleExtension.optional() })
  .loose();
export type UcpGetProductResponse = z.infer<typeof UcpGetProductResponseSchema>;

/** GET /.well-known/ucp: the business profile (UCP's profile.json, business_schema). */
export const UcpProfileSchema = z.object({ ucp: z.object({ version: z.string() }).loose() }).loose();
