import { z } from 'zod';
import { AVAILABILITY } from '../catalog/product.js';
import { Timestamp } from './common.js';

const FilterText = z.string().trim().min(1).max(200);

const SearchFiltersSchema = z
  .object({
    min_price: z.number().min(0).max(1e9).optional().describe('Minimum price in USD, inclusive'),
    max_price: z.number().min(0).max(1e9).optional().describe('Maximum price in USD, inclusive'),
    merchant: FilterText.optional().describe('Retailer name, case-insensitive'),
    brand: FilterText.optional().describe('Brand, case-insensitive'),
    category: FilterText.optional().describe(
      'A category and everything under it: a Google product taxonomy id ("638"), a taxonomy path ("Home & Garden > Kitchen & Dining"), a word ("kitchen": every taxonomy category named with it), or the feed\'s own category or any ancestor of it ("Footwear" matches "Footwear > Running Shoes"); case-insensitive',
    ),
    keyword_filter: FilterText.optional().describe('Every word must occur in the title, description or attributes'),
  })
  .strict()
  .refine((f) => f.min_price === undefined || f.max_price === undefined || f.min_price <= f.max_price, {
    message: 'min_price must not exceed max_price',
    path: ['min_price'],
  });
export type SearchFilters = z.infer<typeof SearchFiltersSchema>;

const ConversationTurnSchema = z
  .object({
    role: z.enum(['user', 'assistant', 'system', 'tool']),
    content: z.string().max(4000),
  })
  .strict();

/** The min_relevance_score a request gets when it names none: more likely relevant than not. */
export const DEFAULT_MIN_RELEVANCE = 0.5;

/** POST /search request (docs/search.md). `stream` is REST-only; MCP omits it. */
export const SearchRequestSchema = z
  .object({
    query: z.string().trim().min(1, 'query must not be empty').max(2000).describe('Natural-language context or user query'),
    limit: z.number().int().min(1).max(10).default(3).describe('Maximum number of results, 1 to 10'),
    stream: z.boolean().default(false).describe('Answer as a Server-Sent Events stream'),
    filters: SearchFiltersSchema.nullish().describe('Hard constraints, applied before ranking'),
    sort: z.enum(['relevance', 'price_asc', 'price_desc']).default('relevance'),
    min_relevance_score: z.number().min(0).max(1).default(DEFAULT_MIN_RELEVANCE).describe('Minimum calibrated probability of relevance'),
    session_id: z.uuid().nullish().describe('Keeps conversation context across requests; created when absent'),
    conversation_context: z.array(ConversationTurnSchema).max(50).nullish().describe('Recent conversation, oldest first'),
    exclude_product_ids: z.array(z.string().min(1).max(200)).max(200).nullish().describe('Products to leave out'),
  })
  .strict();
export type SearchRequest = z.infer<typeof SearchRequestSchema>;

/** ACP's affiliate_attribution object (docs/commerce.md, "Attribution"). */
const AffiliateAttributionSchema = z
  .object({
    provider: z.string().describe("The attribution provider: this deployment's public host name"),
    token: z
      .string()
      .describe(
        "Opaque, signed, expiring token bound to this impression and the product's merchant; the merchant verifies it with POST /v1/attribution/verify",
      ),
    publisher_id: z.string().describe('The account the recommendation is credited to (acct_…)'),
    source: z.object({ type: z.literal('platform') }),
    issued_at: Timestamp,
    expires_at: Timestamp.describe('30 days after issued_at'),
  })
  .describe('Hand this to the merchant at checkout (ACP checkout affiliate_attribution) so the sale is credited without a click');

export const AdResponseSchema = z.object({
  product_id: z.uuid(),
  impression_id: z.uuid().describe('Report a click on this result with POST /clicks/{impression_id}'),
  click_url: z.string().describe('Signed link to put in front of a person: records the click and redirects to the merchant'),
  title: z.string(),
  description: z.string(),
  url: z.string(),
  price: z.string().describe('Formatted, e.g. "$129.99"; empty when the product has no price'),
  price_amount: z.number().nullable(),
  currency: z.string().nullable(),
  merchant: z.string(),
  brand: z.string(),
  category: z.string().describe("The feed's own category path; empty when it gave none"),
  category_id: z.number().int().nullable().describe("The product's place in the Google product taxonomy (its id); null when nothing placed it"),
  category_path: z.string().nullable().describe('That place as a path, "Home & Garden > Kitchen & Dining > Cookware & Bakeware > Cookware > Skillets"'),
  category_confidence: z.number().min(0).max(1).nullable().describe("1 when the feed named the category; else how clearly the product's text named it (0–1)"),
  availability: z.enum(AVAILABILITY),
  relevance_score: z.number().min(0).max(1).describe('Calibrated probability that the product is relevant'),
  relevance_explanation: z.string(),
  image_url: z.string(),
  disclosure_text: z.string().describe('Affiliate disclosure the integrator must show with this product'),
  last_updated_at: Timestamp.nullable().describe('When price and availability were last confirmed'),
  external_id: z.string().nullable().describe("The feed's own id for the product (SKU, feed id)"),
  affiliate_attribution: AffiliateAttributionSchema,
});
export type AdResponse = z.infer<typeof AdResponseSchema>;

/** Why a search answered no results (docs/search.md, "Conversations"). */
export const NO_FILL_REASONS = ['no_shopping_need', 'sensitive_topic', 'no_relevant_products', 'publisher_policy'] as const;
export type NoFillReason = (typeof NO_FILL_REASONS)[number];

/** Which reader read a search (docs/search.md, "Readers"): `offline_fallback` when the model reader could not. */
const READER_NAMES = ['offline', 'model', 'offline_fallback'] as const;
export type ReaderName = (typeof READER_NAMES)[number];

export const SearchResponseSchema = z.object({
  request_id: z.uuid(),
  livemode: z.boolean().describe('False for a search made with a test key (aisle_test_): its impressions, clicks and conversions are test data'),
  results: z.array(AdResponseSchema),
  metadata: z.object({
    total_matches: z.number().int().describe('Products passing the filters and min_relevance_score, before limit'),
    session_id: z.uuid(),
    took_ms: z.number(),
    pii_redacted: z.array(z.string()),
    model: z.string().describe('The embedding model'),
    ranking_model: z.string().describe('The ranking model that ordered and scored the results: `fallback` (hand-set) or the source of a fitted model'),
    interpreted_query: z
      .string()
      .describe(
        "The product need Aisle searched for, in the catalog's words (empty when it found no shopping need); send a better query if it is not what the person wants",
      ),
    reader: z
      .enum(READER_NAMES)
      .describe(
        'Which reader read the request: offline (the default, no language model), model (a language model behind the configured chat endpoint) or offline_fallback (the model did not answer in time or in shape)',
      ),
    no_fill_reason: z
      .enum(NO_FILL_REASONS)
      .nullable()
      .describe(
        'Why there are no results: no_shopping_need (nothing in the conversation asks for a product), sensitive_topic (no products beside this topic), no_relevant_products (nothing reached min_relevance_score within the filters); null when there are results',
      ),
  }),
});
export type SearchResponse = z.infer<typeof SearchResponseSchema>;

/** POST /search/batch: up to 10 searches, each validated and answered on its own. */
export const SearchBatchRequestSchema = z
  .object({
    queries: z.array(z.unknown()).min(1).max(10).describe('Search requests (without stream); one bad query does not fail the others'),
  })
  .strict();

export const SearchBatchResponseSchema = z.object({
  results: z.array(
    z.object({
      index: z.number().int(),
      status: z.number().int().describe('HTTP status this query alone would have had'),
      body: SearchResponseSchema.optional(),
      error: z.object({ type: z.string(), title: z.string(), status: z.number(), detail: z.string(), code: z.string() }).loose().optional(),
    }),
  ),
});
export type SearchBatchResponse = z.infer<typeof SearchBatchResponseSchema>;
