import type { Problem } from '../core/errors.js';
import type { Analytics, AnalyticsQuery } from '../core/schemas/analytics.js';
import type { Click, DisplayReceipt, DisplayReceiptRequest } from '../core/schemas/clicks.js';
import type { Feedback, FeedbackRequest } from '../core/schemas/feedback.js';
import type { SearchRequest, SearchResponse } from '../core/schemas/search.js';
import type {
  UcpGetProductRequest,
  UcpGetProductResponse,
  UcpLookupRequest,
  UcpLookupResponse,
  UcpSearchRequest,
  UcpSearchResponse,
} from '../core/schemas/ucp.js';

/** A search as a tool sends it: REST's request without `stream`. */
type ApiSearchRequest = Omit<SearchRequest, 'stream'>;

/**
 * What the MCP tools call, already bound to one caller (an API key or an authenticated principal).
 * Two implementations give the same answers: the core in this process (`createInProcessApi`) and
 * a running Aisle over REST (`createRestApi`). Failures throw `ApiProblemError` or the core's
 * `AppError`; the tools render either as the same problem object.
 */
export interface AisleApi {
  /** POST /v1/search (scope `search`). */
  search(request: ApiSearchRequest): Promise<SearchResponse>;
  /** POST /v1/clicks/{impression_id} (scope `events:write`); a repeat answers the first click with `duplicate: true`. */
  recordClick(impressionId: string): Promise<Click>;
  /** POST /v1/displays (scope `events:write`): display receipts, first one wins. */
  recordDisplays(request: DisplayReceiptRequest): Promise<DisplayReceipt>;
  /** POST /v1/feedback (scope `events:write`). */
  submitFeedback(feedback: FeedbackRequest): Promise<Feedback>;
  /** GET /v1/analytics (scope `analytics:read`). */
  getAnalytics(query: AnalyticsQuery): Promise<Analytics>;
  /** POST /ucp/catalog/search (scope `search`); `profile` is the calling platform's UCP profile URL. */
  ucpSearch(request: UcpSearchRequest, profile: string): Promise<UcpSearchResponse>;
  /** POST /ucp/catalog/lookup (scope `search`). */
  ucpLookup(request: UcpLookupRequest, profile: string): Promise<UcpLookupResponse>;
  /** POST /ucp/catalog/product (scope `search`). */
  ucpGetProduct(request: UcpGetProductRequest, profile: string): Promise<UcpGetProductResponse>;
  /** https origins of the catalog's product images, for the product-card view's CSP (no scope: not account data). */
  imageOrigins(): Promise<string[]>;
}

/** A problem a remote Aisle answered, carried as is (its request_id names the REST request). */
export class ApiProblemError extends Error {
  override readonly name = 'ApiProblemError';
  constructor(readonly problem: Problem) {
    super(problem.detail);
  }
}
