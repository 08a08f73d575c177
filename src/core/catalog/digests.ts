import { createHash } from 'node:crypto';
import { productEmbeddingText } from './embedding-text.js';
import type { CatalogProduct } from './product.js';

/**
 * What an import compares to tell how a product changed since the catalog last stored it
 * (docs/ingest.md, "Re-imports and deltas"), kept with every product row:
 * - `text`: the embedding model and every field the vector and the full-text column are made from
 *   (title, brand, category, description): unchanged, the stored vector and text index still hold;
 * - `content`: every field but the live ones (price, currency, availability, last updated);
 * - `row`: the whole product.
 */
export interface ProductDigests {
  text: string;
  content: string;
  row: string;
}

/**
 * How a product read by an import differs from the stored one:
 * - `new`: not in the catalog;
 * - `unchanged`: nothing to write;
 * - `delta`: only the live fields changed: written alone, without embedding or re-indexing text;
 * - `restated`: other fields changed but not the embedded text: written keeping the stored vector;
 * - `changed`: the embedded text changed: embedded again.
 */
export type ProductChange = 'new' | 'unchanged' | 'delta' | 'restated' | 'changed';

// 128 bits of SHA-256, base64url: a digest compares one product with its own stored self, so a
// collision would have to happen between two versions of the same product.
const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64url').slice(0, 22);

export function productDigests(product: CatalogProduct, embeddingModel: string): ProductDigests {
  const p = product;
  const text = digest(JSON.stringify([embeddingModel, productEmbeddingText(p), p.title, p.brand, p.category, p.description]));
  const content = digest(JSON.stringify([text, p.productId, p.externalId, p.url, p.imageUrl, p.merchant, p.disclosureText, p.attributes]));
  const row = digest(JSON.stringify([content, p.priceAmount, p.currency, p.availability, p.lastUpdatedAt?.getTime() ?? null]));
  return { text, content, row };
}

/** How `next` differs from what is stored (undefined: not stored; digests of rows written before digests were kept are null). */
export function classifyChange(stored: { text: string | null; content: string | null; row: string | null } | undefined, next: ProductDigests): ProductChange {
  if (stored === undefined) return 'new';
  if (stored.row === next.row) return 'unchanged';
  if (stored.content === next.content) return 'delta';
  if (stored.text === next.text) return 'restated';
  return 'changed';
}
