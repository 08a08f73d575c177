import { fromMinorUnits } from '../catalog/currency.js';
import type { CatalogStore } from '../catalog/ports.js';
import type { CatalogProduct } from '../catalog/product.js';
import { AppError } from '../errors.js';
import { parseId } from '../ids.js';
import type { SearchRequest, SearchResponse } from '../schemas/search.js';
import {
  HONOURED_FILTERS,
  UCP_VERSION,
  type UcpGetProductRequest,
  type UcpGetProductResponse,
  type UcpLookupRequest,
  type UcpLookupResponse,
  type UcpMessage,
  type UcpProduct,
  type UcpSearchFilters,
  type UcpSearchRequest,
  type UcpSearchResponse,
} from '../schemas/ucp.js';
import type { SearchService } from '../search/search-service.js';
import type { Principal } from '../shared-ports.js';
import { decodeCursor, encodeCursor, MAX_PAGINATED_PRODUCTS, searchDigest } from './cursor.js';
import { disclosureMessages, productOfResult, toUcpProduct } from './products.js';

/** UCP's default page size; Aisle answers at most 10 products per search. */
const PAGE_SIZE = 10;

const SEARCH_CAPABILITY = 'dev.ucp.shopping.catalog.search';
const LOOKUP_CAPABILITY = 'dev.ucp.shopping.catalog.lookup';
const envelope = (capability: string) => ({ version: UCP_VERSION, status: 'success' as const, capabilities: { [capability]: [{ version: UCP_VERSION }] } });

export interface UcpCatalogDeps {
  search(): SearchService;
  catalog?: CatalogStore;
  /** What each search result adds to its product's metadata (impression, click link, attribution). */
  resultMetadata(result: SearchResponse['results'][number], response: SearchResponse): Record<string, unknown>;
}

/**
 * UCP's catalog capability over Aisle's search and catalog (docs/commerce.md): search_catalog is a
 * search (impressions recorded, the session continued), lookup and get_product read the catalog
 * and record nothing. What cannot be honoured is said in `messages`, never dropped in silence.
 */
export class UcpCatalog {
  constructor(private readonly deps: UcpCatalogDeps) {}

  async search(principal: Principal, request: UcpSearchRequest): Promise<UcpSearchResponse> {
    const messages: UcpMessage[] = [];
    const filters = request.filters ?? {};
    messages.push(...unsupportedFilters(filters));
    const currency = request.context?.currency ?? 'USD';
    if (filters.price !== undefined && request.context?.currency === undefined) {
      messages.push({
        type: 'info',
        code: 'price_filter_currency_assumed',
        content: 'filters.price was read as USD minor units because context.currency was not sent.',
      });
    }
    const digest = searchDigest({ q: request.query, f: filters, i: request.context?.intent ?? null, c: currency });
    const cursor = request.pagination?.cursor === undefined ? null : decodeCursor(request.pagination.cursor, digest);
    const shownBefore = cursor?.shown ?? [];
    const limit = Math.min(request.pagination?.limit ?? PAGE_SIZE, PAGE_SIZE, MAX_PAGINATED_PRODUCTS - shownBefore.length);
    if (limit <= 0) {
      throw new AppError(
        'validation_failed',
        `pagination.cursor is past the last page: a search paginates through at most ${MAX_PAGINATED_PRODUCTS} products.`,
        {
          errors: [{ path: 'pagination.cursor', message: `past the last of ${MAX_PAGINATED_PRODUCTS} products` }],
        },
      );
    }
    const sessionId = cursor?.sessionId ?? request.context?.session_id;
    const intent = request.context?.intent?.trim();
    const searchRequest: SearchRequest = {
      query: request.query,
      limit,
      stream: false,
      sort: 'relevance',
      min_relevance_score: filters.min_relevance_score ?? 0.5,
      filters: {
        ...(filters.price?.min !== undefined ? { min_price: fromMinorUnits(filters.price.min, currency) } : {}),
        ...(filters.price?.max !== undefined ? { max_price: fromMinorUnits(filters.price.max, currency) } : {}),
        ...(filters.merchant ? { merchant: filters.merchant } : {}),
        ...(filters.brand ? { brand: filters.brand } : {}),
        ...(filters.keyword_filter ? { keyword_filter: filters.keyword_filter } : {}),
      },
      ...(sessionId === undefined ? {} : { session_id: sessionId }),
      ...(intent ? { conversation_context: [{ role: 'user' as const, content: intent }] } : {}),
      ...(shownBefore.length > 0 ? { exclude_product_ids: shownBefore } : {}),
    };
    const response = await this.deps.search().search(principal, searchRequest, {
      priced: true,
      ...(filters.categories ? { anyCategory: filters.categories } : {}),
    });
    const products = response.results
      .map((r) => toUcpProduct(productOfResult(r), this.deps.resultMetadata(r, response)))
      .filter((p): p is UcpProduct => p !== null);
    if (products.length === 0) {
      messages.push({
        type: 'info',
        code: 'no_relevant_results',
        content: 'No product fits this request well enough; tell the buyer so rather than suggesting something unrelated.',
      });
    }
    const shown = [...shownBefore, ...products.map((p) => p.id)];
    const remaining = response.metadata.total_matches - products.length;
    const hasNext = remaining > 0 && shown.length < MAX_PAGINATED_PRODUCTS;
    messages.push(...disclosureMessages(products, (i) => `$.products[${i}]`));
    return {
      ucp: envelope(SEARCH_CAPABILITY),
      products,
      pagination: {
        has_next_page: hasNext,
        ...(hasNext ? { cursor: encodeCursor({ sessionId: response.metadata.session_id, shown }, digest) } : {}),
        total_count: shownBefore.length + response.metadata.total_matches,
      },
      messages,
      aisle: {
        request_id: response.request_id,
        session_id: response.metadata.session_id,
        pii_redacted: response.metadata.pii_redacted,
        livemode: response.livemode,
      },
    };
  }

  /** Products by id (product or variant id: the same for Aisle), each once; unknown ids are messages, not errors. */
  async lookup(_principal: Principal, request: UcpLookupRequest): Promise<UcpLookupResponse> {
    const wanted = [...new Set(request.ids)];
    const found = await this.find(wanted);
    const messages: UcpMessage[] = unsupportedFilters(request.filters ?? {}, true);
    const products: UcpProduct[] = [];
    for (const [productId, ids] of groupIds(wanted, found)) {
      const view = found.get(productId)!;
      const product = toUcpProduct(
        view,
        {},
        ids.map((id) => ({ id, match: 'exact' as const })),
      );
      if (product === null) messages.push(priceMissing(ids[0]!));
      else products.push(product);
    }
    for (const id of wanted) if (!found.has(parseId('product', id) ?? '')) messages.push({ type: 'info', code: 'not_found', content: id });
    messages.push(...disclosureMessages(products, (i) => `$.products[${i}]`));
    return { ucp: envelope(LOOKUP_CAPABILITY), products, messages };
  }

  /** One product; not found (or without a price) is UCP's error response, a successful answer. */
  async getProduct(_principal: Principal, request: UcpGetProductRequest): Promise<UcpGetProductResponse> {
    const found = await this.find([request.id]);
    const view = found.values().next().value;
    const product = view === undefined ? null : toUcpProduct(view);
    if (product === null) {
      return {
        ucp: { version: UCP_VERSION, status: 'error', capabilities: { [LOOKUP_CAPABILITY]: [{ version: UCP_VERSION }] } },
        messages: [
          view === undefined
            ? { type: 'error', code: 'not_found', content: `Product not found: ${request.id}`, severity: 'unrecoverable' }
            : { type: 'error', code: 'item_unavailable', content: `Product ${request.id} has no price, which UCP requires.`, severity: 'unrecoverable' },
        ],
      };
    }
    const messages: UcpMessage[] = [...unsupportedFilters(request.filters ?? {}, true), ...disclosureMessages([product], () => '$.product')];
    if (request.selected !== undefined && request.selected.length > 0) {
      messages.push({
        type: 'info',
        code: 'option_selection_not_supported',
        content: 'Aisle products have a single offer; selected options were not applied.',
      });
    }
    return { ucp: envelope(LOOKUP_CAPABILITY), product, messages };
  }

  private async find(ids: readonly string[]): Promise<Map<string, CatalogProduct>> {
    if (this.deps.catalog === undefined) throw new AppError('unavailable', 'the catalog is not configured on this server');
    const uuids = [...new Set(ids.map((id) => parseId('product', id)).filter((id): id is string => id !== null))];
    const products = uuids.length === 0 ? [] : await this.deps.catalog.getByIds(uuids);
    return new Map(products.map((p) => [p.productId, p]));
  }
}

/** The requested ids of each found product (several ids may name one product). */
function groupIds(wanted: readonly string[], found: ReadonlyMap<string, CatalogProduct>): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const id of wanted) {
    const productId = parseId('product', id);
    if (productId === null || !found.has(productId)) continue;
    groups.set(productId, [...(groups.get(productId) ?? []), id]);
  }
  return groups;
}

const priceMissing = (id: string): UcpMessage => ({
  type: 'info',
  code: 'price_unavailable',
  content: `Product ${id} has no price, which UCP requires; it is left out.`,
});

/**
 * A warning for each filter Aisle does not apply: one it does not know, or (lookups, which read
 * products by id) any filter at all.
 */
function unsupportedFilters(filters: UcpSearchFilters, all = false): UcpMessage[] {
  return Object.keys(filters)
    .filter((name) => all || !HONOURED_FILTERS.includes(name))
    .map((name) => ({
      type: 'warning' as const,
      code: 'filter_not_supported',
      content: `filters.${name} was not applied: ${all ? 'lookups return the products asked for by id' : 'Aisle does not support this filter'}.`,
    }));
}
