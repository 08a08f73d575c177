/** A ranked candidate as a search result (docs/search.md, "Request and answer"). */
import type { CatalogProduct } from '../catalog/product.js';
import type { AttributionTokens } from '../clicks/attribution.js';
import { newId } from '../ids.js';
import type { Candidate } from '../ranking/ranking.js';
import type { AdResponse, SearchRequest } from '../schemas/search.js';
import type { Need } from '../understanding/need.js';
import { explain } from './explain.js';

const formatPrice = (amount: number | null, currency: string | null): string => {
  if (amount === null) return '';
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency ?? 'USD' }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency ?? ''}`.trim();
  }
};

/** A result with its impression id, click link and attribution, explained. */
export function toAdResponse(
  deps: { clickLinks: { urlFor(impressionId: string): string }; attribution: Pick<AttributionTokens, 'attribution'> },
  c: Candidate,
  request: SearchRequest,
  implied: { minPrice?: number; maxPrice?: number },
  usedTurn: string | null,
  need: Need | null,
  accountId: string,
  now: Date,
): AdResponse {
  const p = c.product;
  const impressionId = newId();
  return {
    product_id: p.productId,
    impression_id: impressionId,
    click_url: deps.clickLinks.urlFor(impressionId),
    title: p.title,
    description: p.description,
    url: p.url ?? '',
    price: formatPrice(p.priceAmount, p.currency),
    price_amount: p.priceAmount,
    currency: p.currency,
    merchant: p.merchant ?? '',
    brand: p.brand ?? '',
    category: p.category.join(' > '),
    category_id: p.taxonomy?.categoryId ?? null,
    category_path: p.taxonomy ? p.taxonomy.path.join(' > ') : null,
    category_confidence: p.taxonomy?.confidence ?? null,
    availability: p.availability,
    relevance_score: Math.round(c.probability * 10_000) / 10_000,
    relevance_explanation: explain(c, request.filters, implied, usedTurn, need),
    image_url: p.imageUrl ?? '',
    disclosure_text: p.disclosureText ?? DEFAULT_DISCLOSURE,
    last_updated_at: p.lastUpdatedAt?.toISOString() ?? null,
    external_id: p.externalId,
    affiliate_attribution: deps.attribution.attribution({ impressionId, accountId, merchant: p.merchant, issuedAt: now }),
  };
}

/** The ranking of a search with nothing but a price to go on: by price (docs/search.md). */
export const PRICE_ORDER = 'price-order';

/**
 * A product of a price-only search as a result: no ranking features (nothing was matched, and
 * global learning leaves such impressions out), relevance 1 because it satisfies everything the
 * request asks, which is the price.
 */
export const priceOrderCandidate = (product: CatalogProduct): Candidate => ({
  product,
  features: [],
  cosine: 0,
  matchedTerms: [],
  score: 0,
  probability: 1,
  rankScore: 1,
});

/** Shown when a feed carries no disclosure of its own: the spec requires one on every result. */
export const DEFAULT_DISCLOSURE = 'Aisle may earn a commission if you buy through this link.';
