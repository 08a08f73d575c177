import { z } from 'zod';

export const AVAILABILITY = ['in_stock', 'out_of_stock', 'preorder', 'unknown'] as const;
export type Availability = (typeof AVAILABILITY)[number];

export type AttributeValue = string | number | boolean | string[];

/** A product as the catalog stores it, after normalisation (every importer ends here). */
export interface CatalogProduct {
  /** UUID: the feed's own UUID, else UUIDv5 of `merchant:external_id`, so re-imports upsert. */
  productId: string;
  /** The feed's own id when it is not a UUID (feed id, GMC id, SKU). */
  externalId: string | null;
  title: string;
  description: string;
  url: string | null;
  imageUrl: string | null;
  priceAmount: number | null;
  currency: string | null;
  merchant: string | null;
  brand: string | null;
  /** Category path, broadest first: ["Footwear", "Running Shoes", "Trail"]. */
  category: string[];
  availability: Availability;
  disclosureText: string | null;
  attributes: Record<string, AttributeValue>;
  lastUpdatedAt: Date | null;
  /**
   * Where the product sits in the Google product taxonomy (docs/ingest.md, "Placement in the
   * taxonomy"): set by an import, null when nothing placed it; absent on a product not yet imported.
   */
  taxonomy?: Placement | null;
}

/** The attribute every importer keeps a feed's own google_product_category in (an id or a path). */
export const FEED_CATEGORY_ATTRIBUTE = 'google_product_category';

/** A place in the Google product taxonomy. */
export interface Placement {
  categoryId: number;
  /** From the top-level vertical down to the category. */
  path: readonly string[];
  /** 1 for a category the feed named; for text, how clearly the text named one (0–1). */
  confidence: number;
}

const looseString = z.union([z.string(), z.number()]).transform(String);

/**
 * One input row in Aisle's own product format (JSONL), and the shape every importer maps its
 * format to. Lenient on purpose: feeds are messy, and normaliseProduct() decides what to keep.
 * Only `title` is required.
 */
export const ProductInputSchema = z
  .object({
    product_id: looseString.optional().describe("UUID, or the feed's own id (kept as external_id)"),
    id: looseString.optional().describe('Alias of product_id'),
    sku: looseString.optional(),
    title: z.string().describe('Required'),
    description: z.string().optional(),
    url: z.string().optional(),
    image_url: z.string().optional(),
    price: z.union([z.number(), z.string()]).optional().describe('12.99, "12.99", "$12.99" or "12.99 USD"'),
    sale_price: z.union([z.number(), z.string()]).optional().describe('Used instead of price when lower'),
    currency: z.string().optional().describe('ISO 4217; default USD'),
    merchant: z.string().optional(),
    brand: z.string().optional(),
    category: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .describe('"A > B > C", "A | B | C" or ["A","B","C"]'),
    google_product_category: looseString
      .optional()
      .describe('Google product taxonomy id ("632") or path ("Hardware > Tools"): the place the product is given as is (kept as an attribute)'),
    availability: z.union([z.string(), z.boolean()]).optional(),
    disclosure_text: z.string().optional(),
    attributes: z.record(z.string(), z.unknown()).optional(),
    last_updated_at: z.string().optional(),
  })
  .loose();
