import { z } from 'zod';

/**
 * ACP's Feed API (docs/commerce.md, "Product feeds"): the request and response shapes of ACP's
 * feed schema (2026-04-17), closed as ACP's are, with Aisle's bounds on top (ids, text and list
 * lengths), so one product cannot hold unbounded data.
 */

const Text = (max: number) => z.string().max(max);
const Id = z.string().min(1).max(200);
const Url = z.url().max(2000);
const Currency = z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD');

const Description = z
  .object({ plain: Text(10_000).optional(), html: Text(20_000).optional(), markdown: Text(10_000).optional() })
  .strict()
  .refine((d) => Object.keys(d).length > 0, 'must have plain, html or markdown');
const Price = z.object({ amount: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER), currency: Currency }).strict();
const Media = z
  .object({ type: Text(50), url: Url, alt_text: Text(500).optional(), width: z.number().int().optional(), height: z.number().int().optional() })
  .strict();
const Link = z.object({ type: Text(100), title: Text(200).optional(), url: Url }).strict();
const Seller = z.object({ name: Text(200).optional(), links: z.array(Link).max(20).optional() }).strict();

const AcpVariantSchema = z
  .object({
    id: Id,
    title: Text(500),
    description: Description.optional(),
    url: Url.optional(),
    barcodes: z
      .array(z.object({ type: Text(50), value: Text(100) }).strict())
      .max(20)
      .optional(),
    price: Price.optional(),
    list_price: Price.optional(),
    unit_price: z
      .object({
        amount: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
        currency: Currency,
        measure: z.object({ value: z.number(), unit: Text(20) }).strict(),
        reference: z.object({ value: z.number().int(), unit: Text(20) }).strict(),
      })
      .strict()
      .optional(),
    availability: z
      .object({ available: z.boolean().optional(), status: Text(50).optional() })
      .strict()
      .optional(),
    categories: z
      .array(z.object({ value: Text(500), taxonomy: Text(100).optional() }).strict())
      .max(20)
      .optional(),
    condition: z.array(Text(50)).max(10).optional(),
    variant_options: z
      .array(z.object({ name: Text(100), value: Text(200) }).strict())
      .max(30)
      .optional(),
    media: z.array(Media).max(20).optional(),
    seller: Seller.optional(),
    marketplace: Seller.optional(),
  })
  .strict();
export type AcpVariant = z.infer<typeof AcpVariantSchema>;

/** Most variants one product may have, and products one upsert may carry. */
const MAX_VARIANTS = 100;
const MAX_UPSERT_PRODUCTS = 500;

export const AcpProductSchema = z
  .object({
    id: Id,
    title: Text(500).optional(),
    description: Description.optional(),
    url: Url.optional(),
    media: z.array(Media).max(20).optional(),
    variants: z.array(AcpVariantSchema).max(MAX_VARIANTS),
  })
  .strict();
export type AcpProduct = z.infer<typeof AcpProductSchema>;

const Country = z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as US');

export const CreateFeedRequestSchema = z.object({ target_country: Country.optional() }).strict();
export type CreateFeedRequest = z.infer<typeof CreateFeedRequestSchema>;

export const FeedMetadataSchema = z
  .object({ id: z.string(), target_country: z.string().optional(), updated_at: z.iso.datetime({ offset: true }).optional() })
  .strict();
export type FeedMetadata = z.infer<typeof FeedMetadataSchema>;

export const FeedIdParamsSchema = z.object({ id: z.string().min(1).max(100).describe('Feed id (feed_…)') }).strict();

export const UpsertProductsRequestSchema = z
  .object({ products: z.array(AcpProductSchema).min(1, 'products must contain at least one product').max(MAX_UPSERT_PRODUCTS) })
  .strict();
export type UpsertProductsRequest = z.infer<typeof UpsertProductsRequestSchema>;

export const UpsertProductsResponseSchema = z.object({ id: z.string(), accepted: z.boolean() }).strict();
export const ProductsResponseSchema = z.object({ products: z.array(AcpProductSchema) }).strict();
