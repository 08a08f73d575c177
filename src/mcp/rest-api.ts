import { randomUUID } from 'node:crypto';
import { type ErrorCode, errorRegistry, errorTypeUri, type Problem } from '../core/errors.js';
import type { Analytics } from '../core/schemas/analytics.js';
import type { Click, DisplayReceipt } from '../core/schemas/clicks.js';
import type { Feedback } from '../core/schemas/feedback.js';
import type { SearchResponse } from '../core/schemas/search.js';
import type { UcpGetProductResponse, UcpLookupResponse, UcpSearchResponse } from '../core/schemas/ucp.js';
import { OutboundClient } from '../outbound/client.js';
import { type AisleApi, ApiProblemError } from './api.js';

/** Aisle's answers are kilobytes; a server sending more is not Aisle. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

export interface RestApiOptions {
  /** Ends in /v1, e.g. http://127.0.0.1:8787/v1. */
  baseUrl: string;
  apiKey: string;
  userAgent: string;
  /** One call, whole (AISLE_BASE_URL_TIMEOUT_MS). */
  timeoutMs: number;
}

/**
 * A running Aisle over its REST API: what the stdio MCP server uses when AISLE_BASE_URL is set
 * (a hosted Aisle, or a local one whose PGlite data dir another process holds), through the
 * outbound client (private addresses allowed: the operator names the URL). Problems the server
 * answers are passed on unchanged; a server that cannot be reached, or answers what is not Aisle's
 * JSON, is a 503 `unavailable` problem.
 */
export function createRestApi(options: RestApiOptions): AisleApi & { close(): Promise<void> } {
  const client = new OutboundClient({ allowPrivate: true });
  // UCP's REST binding lives beside /v1, at /ucp.
  const origin = options.baseUrl.replace(/\/v1\/?$/, '');
  const call = async <T>(method: 'GET' | 'POST', path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<T> => {
    const url = path.startsWith('/ucp/') ? `${origin}${path}` : `${options.baseUrl}${path}`;
    let res: Awaited<ReturnType<OutboundClient['request']>>;
    try {
      res = await client.request(url, {
        method,
        headers: {
          'x-api-key': options.apiKey,
          accept: 'application/json',
          'user-agent': options.userAgent,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...extraHeaders,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        timeoutMs: options.timeoutMs,
        maxBytes: MAX_ANSWER_BYTES,
      });
    } catch (err) {
      throw new ApiProblemError(
        localProblem(
          'unavailable',
          `Cannot reach Aisle at ${options.baseUrl} (${(err as Error).message}). Is the server running, and is AISLE_BASE_URL right?`,
        ),
      );
    }
    const text = res.body.toString('utf8');
    if (res.status >= 200 && res.status < 300) {
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new ApiProblemError(localProblem('unavailable', `Aisle at ${url} answered HTTP ${res.status} with a body that is not JSON.`));
      }
    }
    throw new ApiProblemError(asProblem(res.status, res.headers['content-type'], text, url));
  };
  return {
    close: () => client.close(),
    // The REST API does not list the catalog's image hosts: the view then shows placeholders.
    imageOrigins: () => Promise.resolve([]),
    search: (req) => call<SearchResponse>('POST', '/search', req),
    recordClick: (impressionId) => call<Click>('POST', `/clicks/${encodeURIComponent(impressionId)}`, {}),
    recordDisplays: (request) => call<DisplayReceipt>('POST', '/displays', request),
    submitFeedback: (feedback) => call<Feedback>('POST', '/feedback', feedback),
    ucpSearch: (req, profile) => call<UcpSearchResponse>('POST', '/ucp/catalog/search', req, ucpHeaders(profile)),
    ucpLookup: (req, profile) => call<UcpLookupResponse>('POST', '/ucp/catalog/lookup', req, ucpHeaders(profile)),
    ucpGetProduct: (req, profile) => call<UcpGetProductResponse>('POST', '/ucp/catalog/product', req, ucpHeaders(profile)),
    getAnalytics: (query) => {
      const params = new URLSearchParams(
        Object.entries(query).flatMap(([name, value]): [string, string][] => (value === undefined ? [] : [[name, String(value)]])),
      );
      return call<Analytics>('GET', `/analytics${params.size > 0 ? `?${params}` : ''}`);
    },
  };
}

/** What UCP's REST binding requires on every call: the platform's profile and a request id. */
const ucpHeaders = (profile: string) => ({ 'ucp-agent': `profile="${profile.replace(/["\\]/g, '\\$&')}"`, 'request-id': randomUUID() });

function localProblem(code: ErrorCode, detail: string, requestId = ''): Problem {
  const { status, title } = errorRegistry[code];
  return { type: errorTypeUri(code), title, status, detail, code, request_id: requestId };
}

/** The server's problem+json as is; anything else (a proxy's HTML page) becomes a problem naming the status. */
function asProblem(status: number, contentType: string | string[] | undefined, text: string, url: string): Problem {
  if (String(contentType ?? '').startsWith('application/problem+json')) {
    try {
      const parsed = JSON.parse(text) as Problem;
      if (typeof parsed.code === 'string' && typeof parsed.detail === 'string') return parsed;
    } catch {
      // falls through to the generic problem
    }
  }
  return localProblem(status >= 500 ? 'unavailable' : 'bad_request', `Aisle at ${url} answered HTTP ${status} without a problem document.`);
}
