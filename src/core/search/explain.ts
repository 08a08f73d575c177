import type { Candidate } from '../ranking/ranking.js';
import type { SearchFilters } from '../schemas/search.js';
import type { Need } from '../understanding/need.js';

const list = (xs: readonly string[]) => (xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);

const quoteTurn = (turn: string) => `"${turn.length > 60 ? `${turn.slice(0, 57)}…` : turn}"`;

/**
 * Concrete reasons from the match: matched terms and attributes, satisfied filters, the turn it
 * continues. For a conversation (`need`), the words it matched, which of them is the catalog's
 * word for what was described, and the earlier turn the match relates to.
 */
export function explain(
  c: Candidate,
  filters: SearchFilters | null | undefined,
  implied: { minPrice?: number; maxPrice?: number },
  usedTurn: string | null,
  need: Need | null = null,
): string {
  const parts: string[] = [];
  if (need !== null) parts.push(...needReasons(c, need));
  else if (c.matchedTerms.length > 0) parts.push(`matches ${list(c.matchedTerms.map((t) => `"${t}"`))}`);
  if (parts.length === 0 && c.cosine >= 0.45) parts.push(`is semantically close to the ${need !== null ? 'conversation' : 'request'}`);
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
  if (usedTurn !== null) parts.push(`continues ${quoteTurn(usedTurn)}`);
  if (parts.length === 0) return 'Closest available match in the catalog.';
  const sentence = parts.join('; ');
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
}

/** What a conversation's candidate matched: the need's words, the type the catalog associates with them, the earlier turn. */
function needReasons(c: Candidate, need: Need): string[] {
  const matched = new Set(c.matchedTerms);
  const words = need.words.filter((w) => matched.has(w.word));
  const said = words.filter((w) => w.source !== 'type');
  const inferred = words.filter((w) => w.source === 'type');
  const parts: string[] = [];
  // The shopper's need that the knowledge base read as this kind of product.
  if (need.knowledge !== undefined) parts.push(`for ${quoteTurn(need.knowledge.because)}: ${need.knowledge.type}`);
  if (said.length > 0) parts.push(`matches ${list(said.map((w) => `"${w.word}"`))}`);
  if (inferred.length > 0) parts.push(`is ${list(inferred.map((w) => `"${w.word}"`))}, the catalog's word for what was described`);
  // The turn that carried most of the matched words, when it is not the last message.
  const turn = said.find((w) => w.turn !== null)?.turn;
  if (turn !== undefined && turn !== null) parts.push(`continues ${quoteTurn(turn)}`);
  return parts;
}
