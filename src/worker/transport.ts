import { performance } from 'node:perf_hooks';
import { type Agent, request } from 'undici';
import { checkUrlShape } from '../core/webhooks/url-guard.js';
import type { LookupAll } from './dns.js';
import { AddressRefusedError, guardedAgent } from './guarded-agent.js';

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
 * Webhook POSTs over undici. Redirects are never followed (undici's request does not, and no
 * redirect interceptor is installed). The SSRF guard runs at connect time (guardedAgent): a host
 * name's addresses are checked as the socket connects to them. IP-literal hosts never reach a
 * lookup; `checkUrlShape` judges them before the request.
 */
export class HttpTransport implements Transport {
  readonly timeoutMs: number;
  private readonly agent: Agent;

  constructor(private readonly options: HttpTransportOptions) {
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.agent = guardedAgent({
      allowPrivate: options.allowPrivate,
      connectTimeoutMs: this.timeoutMs,
      ...(options.lookupAll ? { lookupAll: options.lookupAll } : {}),
    });
  }

  async send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
    const shape = checkUrlShape(url, this.options.allowPrivate);
    if (!shape.ok) return { statusCode: null, error: `refused: the URL ${shape.reason}`, durationMs: elapsed() };
    try {
      const res = await request(shape.url, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.timeoutMs),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      const text = await readPrefix(res.body, RECORDED_BODY_BYTES);
      const retryAfter = res.headers['retry-after'];
      return { statusCode: res.statusCode, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, body: text, durationMs: elapsed() };
    } catch (err) {
      return { statusCode: null, error: describeFailure(err, this.timeoutMs), durationMs: elapsed() };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** The first `max` bytes as text; the rest of the body is discarded without being read. */
async function readPrefix(body: AsyncIterable<Buffer> & { destroy(): unknown }, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= max) break;
  }
  body.destroy();
  // Cut on a byte boundary, then drop a split UTF-8 sequence at the end.
  return Buffer.concat(chunks)
    .subarray(0, max)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}

/** One line on why a request got no answer: refused by the SSRF guard, timed out, or the connection failed. */
export function describeFailure(err: unknown, timeoutMs: number): string {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof AddressRefusedError) return e.message;
    if (e.name === 'TimeoutError' || e.name === 'HeadersTimeoutError' || e.name === 'BodyTimeoutError' || e.name === 'ConnectTimeoutError') {
      return `timeout: no complete answer within ${timeoutMs} ms`;
    }
  }
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.code;
  return `connection failed${code ? ` (${code})` : ''}: ${e.cause?.message ?? e.message ?? String(err)}`.slice(0, 300);
}
