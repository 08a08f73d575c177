import type { SearchFilters } from '../schemas/search.js';
import type { Candidate } from '../ranking/ranking.js';

const list = (xs: readonly string[]) => (xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);

/** Concrete reasons from the match: matched terms and attributes, satisfied filters, the turn it continues. */
export function explain(
  c: Candidate,
  filters: SearchFilters | null | undefined,
  implied: { minPrice?: number; maxPrice?: number },
  usedTurn: string | null,
): string {
  const parts: string[] = [];
  if (c.matchedTerms.length > 0) parts.push(`matches ${list(c.matchedTerms.map((t) => `"${t}"`))}`);
  else if (c.cosine >= 0.45) parts.push('is semantically close to the request');
  const attributeHits = Object.entries(c.product.attributes)
    .filter(([k, v]) => v === true && c.matchedTerms.some((t) => k.toLowerCase().startsWith(t.slice(0, 5))))
    .map(([k]) => k);
  if (attributeHits.length > 0) parts.push(`is marked ${list(attributeHits)}`);
  const satisfied: string[] = [];
  const price = c.product.priceAmount;
  const min = filters?.min_price ?? implied.minPrice;
  const max = filters?.max_price ?? implied.maxPrice;
  if (price !== null && (min !== undefined || max !== undefined)) {
    const bounds = [min !== undefined ? `≥ $${min}` : '', max !== undefined ? `≤ $${max}` : ''].filter(Boolean).join(' and ');
    satisfied.push(`price $${price.toFixed(2)} ${bounds}`);
  }
  if (filters?.brand) satisfied.push(`brand ${c.product.brand}`);
  if (filters?.merchant) satisfied.push(`sold by ${c.product.merchant}`);
  if (filters?.category) satisfied.push(`in ${c.product.category.join(' > ')}`);
  if (filters?.keyword_filter) satisfied.push(`contains "${filters.keyword_filter}"`);
  if (satisfied.length > 0) parts.push(`fits ${list(satisfied)}`);
  if (usedTurn !== null) parts.push(`continues "${usedTurn.length > 60 ? `${usedTurn.slice(0, 57)}…` : usedTurn}"`);
  if (parts.length === 0) return 'Closest available match in the catalog.';
  const sentence = parts.join('; ');
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
}
