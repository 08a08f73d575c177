import type { CatalogProduct } from './product.js';

// USE-lite reads at most 128 tokens and its cost grows faster than linearly with length
// (docs/search.md); the title, brand and category carry most of the signal, so texts stop at
// about 80 tokens.
const MAX_CHARS = 400;

/**
 * The text a query or product is embedded from, lower-cased on both sides: USE-lite's vocabulary
 * is cased, yet lowercasing ranks better (docs/relevance.md, "Embedding text").
 */
export const toEmbeddingInput = (text: string): string => text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim().slice(0, MAX_CHARS);

/** Title first (the strongest signal, and it must survive the 128-token cut), then brand, category, description. */
export function productEmbeddingText(p: CatalogProduct): string {
  const parts = [p.title, p.brand ?? '', p.category.join(' '), p.description];
  return toEmbeddingInput(parts.filter((s) => s !== '').join('. '));
}
