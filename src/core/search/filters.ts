/** What a search request asks of the catalog and of the publisher's policy (docs/search.md, "Filters"; docs/policy.md). */
import type { CatalogFilter } from '../catalog/ports.js';
import { namedSubtrees, type Taxonomy } from '../knowledge/taxonomy.js';
import type { ResolvedPolicy } from '../policy/policy-service.js';
import { lexicalTerms } from '../ranking/lexical.js';
import type { PriceConstraint } from '../ranking/query-text.js';
import type { ReadConstraints } from '../reading/ports.js';
import type { SearchRequest } from '../schemas/search.js';
import type { SessionState } from './ports.js';

/**
 * The request's filters, narrowed by the message's price and then by what the reader found (a
 * model reader's constraints): the request wins where it speaks, then the message's own words.
 */
export function catalogFilter(
  request: SearchRequest,
  price: PriceConstraint | null,
  options: { anyCategory?: readonly string[]; priced?: boolean },
  read: ReadConstraints,
  policy: ResolvedPolicy | null,
  taxonomy: Taxonomy | undefined,
): CatalogFilter {
  const f = request.filters ?? {};
  // Explicit filters win where both speak. A lower bound of 0 is what "has a price" comes to in the store.
  const statedPrice = f.min_price !== undefined || f.max_price !== undefined || price !== null;
  const minPrice = f.min_price ?? price?.minPrice ?? (statedPrice ? undefined : read.minPrice) ?? (options.priced ? 0 : undefined);
  const maxPrice = f.max_price ?? price?.maxPrice ?? (statedPrice ? undefined : read.maxPrice);
  const brand = f.brand ?? read.brand;
  return {
    ...(minPrice !== undefined ? { minPrice } : {}),
    ...(maxPrice !== undefined ? { maxPrice } : {}),
    ...(f.merchant ? { merchant: f.merchant } : {}),
    ...(brand ? { brand } : {}),
    ...(f.category ? { category: f.category, categorySubtrees: taxonomy ? namedSubtrees(taxonomy, f.category, lexicalTerms) : [] } : {}),
    ...(options.anyCategory?.length ? { anyCategory: options.anyCategory } : {}),
    ...(f.keyword_filter ? { keywords: f.keyword_filter.split(/\s+/).filter(Boolean) } : {}),
    ...(request.exclude_product_ids?.length ? { excludeProductIds: request.exclude_product_ids } : {}),
    // The publisher's exclusions go into retrieval like any filter: what remains still fills the answer.
    ...(policy?.excludeSubtrees.length ? { excludeSubtrees: policy.excludeSubtrees } : {}),
    ...(policy?.excludeBrands.length ? { excludeBrands: policy.excludeBrands } : {}),
    ...(policy?.excludeMerchants.length ? { excludeMerchants: policy.excludeMerchants } : {}),
  };
}

/**
 * Whether the publisher's policy keeps this turn without products (docs/policy.md): before its
 * Nth user message (the request's user turns and this one; without turns, the session's searches
 * and this one), or once the session has had its share of answers with products.
 */
export function silencedByPolicy(policy: ResolvedPolicy, request: SearchRequest, session: SessionState): boolean {
  const context = request.conversation_context ?? [];
  const userTurns = context.length > 0 ? context.filter((t) => t.role === 'user').length + 1 : session.queries.length + 1;
  if (policy.minTurns !== null && userTurns < policy.minTurns) return true;
  return policy.maxProductAnswers !== null && (session.productAnswers ?? 0) >= policy.maxProductAnswers;
}
