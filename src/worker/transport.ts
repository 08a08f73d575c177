import { performance } from 'node:perf_hooks';
import { storableText } from '../core/storable-text.js';
import { OutboundClient } from '../outbound/client.js';
import type { LookupAll } from '../outbound/dns.js';
/** A receiver has 10 s to answer (docs/webhooks.md). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** How much of a response body an attempt records. */
const RECORDED_BODY_BYTES = 2048;

export type SendResult =
  | { statusCode: number; retryAfter: string | undefined; body: string; durationMs: number }
  | { statusCode: null; error: string; durationMs: number };

export interface Transport {
  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult>;
  close(): Promise<void>;
}

export interface HttpTransportOptions {
  allowPrivate: boolean;
  /** Tests shorten it; production uses 10 s (docs/webhooks.md). */
  timeoutMs?: number;
  /** Tests stand in for DNS (a rebinding resolver); production uses dns.lookup. */
  lookupAll?: LookupAll;
}

/**
 * Webhook POSTs through the outbound client (src/outbound/client.ts): the SSRF guard by URL and
 * at connect time, redirects never followed, 10 s for the whole answer, and only the first 2 KB
 * of a receiver's body read. Whatever the receiver does, an attempt ends as a status or an error
 * line, and the delivery is retried on its schedule (docs/webhooks.md).
 */
export class HttpTransport implements Transport {
  readonly timeoutMs: number;
  private readonly client: OutboundClient;

  constructor(options: HttpTransportOptions) {
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.client = new OutboundClient({ allowPrivate: options.allowPrivate, ...(options.lookupAll ? { lookupAll: options.lookupAll } : {}) });
  }

  async send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
    try {
      const res = await this.client.request(url, {
        method: 'POST',
        headers,
        body,
        timeoutMs: this.timeoutMs,
        maxBytes: RECORDED_BODY_BYTES,
        overflow: 'truncate',
      });
      const retryAfter = res.headers['retry-after'];
      return { statusCode: res.status, retryAfter, body: recordedText(res.body), durationMs: elapsed() };
    } catch (err) {
      return { statusCode: null, error: storableText((err as Error).message, 300), durationMs: elapsed() };
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/**
 * A receiver's body as text that can be stored (it can hold any bytes: a NUL would make the
 * database refuse the attempt's record). Cut on a byte boundary, so a split UTF-8 sequence at the
 * end is dropped.
 */
const recordedText = (body: Buffer): string => storableText(body.toString('utf8').replace(/\uFFFD+$/, ''), RECORDED_BODY_BYTES);
