import { LRUCache } from 'lru-cache';
import type { ClientMetadataFetcher, MetadataFetch } from '../core/oauth/ports.js';
import { checkUrlShape } from '../core/webhooks/url-guard.js';
import { OutboundClient } from './client.js';
import type { LookupAll } from './dns.js';

/** A metadata document is a few hundred bytes; 5 KB is what the CIMD draft suggests a server accept. */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
const FETCH_TIMEOUT_MS = 5_000;
/** Freshness of a document whose answer says nothing about caching. */
export const DEFAULT_CACHE_MS = 5 * 60_000;
/** The longest a document is reused, whatever its headers say. */
export const MAX_CACHE_MS = 24 * 60 * 60_000;
/** A failure is remembered this long, so a client id that does not work is not fetched on every request. */
const FAILURE_CACHE_MS = 60_000;

export interface ClientMetadataFetcherOptions {
  /** Private, loopback and reserved addresses allowed (AISLE_OAUTH_ALLOW_PRIVATE; local development and tests). */
  allowPrivate: boolean;
  timeoutMs?: number;
  /** A certificate authority to trust besides the system's: tests serve documents over https on 127.0.0.1. */
  extraCa?: string;
  /** Tests stand in for DNS (a host name resolving to a private address); production uses dns.lookup. */
  lookupAll?: LookupAll;
  /** Documents kept at most (default 500). */
  cacheEntries?: number;
}

/**
 * Fetches Client ID Metadata Documents (docs/oauth.md) through the outbound client: https only;
 * through the SSRF guard, so private, loopback and reserved addresses are refused by name and at
 * connect time;
 * at most 5 KB within 5 s; a redirect is an error, never followed. Documents are cached as their
 * Cache-Control or Expires says (5 minutes without either, 24 hours at most); failures for a minute.
 */
export class HttpClientMetadataFetcher implements ClientMetadataFetcher {
  private readonly client: OutboundClient;
  private readonly timeoutMs: number;
  private readonly cache: LRUCache<string, MetadataFetch>;

  constructor(private readonly options: ClientMetadataFetcherOptions) {
    this.timeoutMs = options.timeoutMs ?? FETCH_TIMEOUT_MS;
    this.client = new OutboundClient({
      allowPrivate: options.allowPrivate,
      ...(options.lookupAll ? { lookupAll: options.lookupAll } : {}),
      ...(options.extraCa ? { extraCa: options.extraCa } : {}),
    });
    this.cache = new LRUCache({ max: options.cacheEntries ?? 500 });
  }

  async fetch(url: string): Promise<MetadataFetch> {
    const cached = this.cache.get(url);
    if (cached !== undefined) return cached;
    const { result, ttlMs } = await this.load(url);
    if (ttlMs > 0) this.cache.set(url, result, { ttl: ttlMs });
    return result;
  }

  close(): Promise<void> {
    return this.client.close();
  }

  private async load(url: string): Promise<{ result: MetadataFetch; ttlMs: number }> {
    const failed = (reason: string) => ({ result: { ok: false as const, reason }, ttlMs: FAILURE_CACHE_MS });
    const shape = checkUrlShape(url, this.options.allowPrivate);
    if (!shape.ok) return failed(`the URL ${shape.reason}`);
    if (shape.url.protocol !== 'https:') return failed('the URL must use https');
    try {
      // One byte past the limit tells a document that is too large; the status is judged first.
      const res = await this.client.request(url, {
        headers: { accept: 'application/json' },
        timeoutMs: this.timeoutMs,
        maxBytes: MAX_DOCUMENT_BYTES + 1,
        overflow: 'truncate',
      });
      if (res.status !== 200) {
        return failed(
          res.status >= 300 && res.status < 400 ? `it answered a redirect (HTTP ${res.status}), which is not followed` : `it answered HTTP ${res.status}`,
        );
      }
      if (res.body.length > MAX_DOCUMENT_BYTES) return failed(`the document is larger than ${MAX_DOCUMENT_BYTES} bytes`);
      let document: unknown;
      try {
        document = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(res.body));
      } catch {
        return failed('the document is not JSON');
      }
      return { result: { ok: true, document }, ttlMs: freshnessMs(res.headers) };
    } catch (err) {
      return failed((err as Error).message);
    }
  }
}

type Headers = Record<string, string | string[] | undefined>;
const header = (headers: Headers, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

/** How long the answer may be reused (RFC 9111): no-store and no-cache mean not at all; max-age, else Expires; minus Age. */
export function freshnessMs(headers: Headers): number {
  const cacheControl = (header(headers, 'cache-control') ?? '').toLowerCase();
  if (/(^|[\s,])(no-store|no-cache)([\s,=]|$)/.test(cacheControl)) return 0;
  const maxAge = /(?:^|[\s,])max-age\s*=\s*"?(\d+)/.exec(cacheControl)?.[1];
  let ms: number;
  if (maxAge !== undefined) ms = Number(maxAge) * 1000;
  else {
    const expiresHeader = header(headers, 'expires');
    const expires = Date.parse(expiresHeader ?? '');
    const date = Date.parse(header(headers, 'date') ?? '');
    // An Expires that does not parse means "already expired" (RFC 9111 §5.3).
    if (expiresHeader === undefined) ms = DEFAULT_CACHE_MS;
    else ms = Number.isNaN(expires) ? 0 : expires - (Number.isNaN(date) ? Date.now() : date);
  }
  const age = Number(header(headers, 'age') ?? 0);
  return Math.min(MAX_CACHE_MS, Math.max(0, ms - (Number.isFinite(age) ? age * 1000 : 0)));
}
