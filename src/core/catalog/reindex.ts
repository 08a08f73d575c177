import type { FeedRecord } from './import.js';
import type { CatalogStore } from './ports.js';
import type { CatalogProduct } from './product.js';

/** A catalog product as an input row again: normalising it gives back the same product. */
export function productToInput(p: CatalogProduct): Record<string, unknown> {
  return {
    product_id: p.productId,
    ...(p.externalId === null ? {} : { sku: p.externalId }),
    title: p.title,
    description: p.description,
    ...(p.url === null ? {} : { url: p.url }),
    ...(p.imageUrl === null ? {} : { image_url: p.imageUrl }),
    ...(p.priceAmount === null ? {} : { price: p.priceAmount, currency: p.currency ?? 'USD' }),
    ...(p.merchant === null ? {} : { merchant: p.merchant }),
    ...(p.brand === null ? {} : { brand: p.brand }),
    category: p.category,
    availability: p.availability,
    ...(p.disclosureText === null ? {} : { disclosure_text: p.disclosureText }),
    attributes: p.attributes,
    ...(p.lastUpdatedAt === null ? {} : { last_updated_at: p.lastUpdatedAt.toISOString() }),
  };
}

/**
 * The serving catalog as feed records, for re-embedding it with another model. Readers stay
 * pinned to the serving version while the replacement is written, so this can feed a replace
 * import of the same catalog.
 */
export async function* catalogAsFeed(catalog: CatalogStore): AsyncIterable<FeedRecord> {
  let line = 0;
  for await (const batch of catalog.scanProducts()) {
    for (const product of batch) yield { line: ++line, row: productToInput(product) };
  }
}
