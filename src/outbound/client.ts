import { createWriteStream } from 'node:fs';
import http, { type ClientRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { pipeline } from 'node:stream/promises';
import tls, { rootCertificates } from 'node:tls';
import { checkUrlShape } from '../core/webhooks/url-guard.js';
import type { LookupAll } from './dns.js';
import { AddressRefusedError, type ConnectLookup, guardedLookup } from './guard.js';
import { ByteCounter, OutboundError } from './limits.js';

export { OutboundError } from './limits.js';

export interface OutboundClientOptions {
  /** Private, loopback and reserved addresses, and plain http, allowed (operator-set endpoints, local development, tests). */
  allowPrivate: boolean;
  /** Tests stand in for DNS (a rebinding resolver); production uses dns.lookup. */
  lookupAll?: LookupAll;
  /** A certificate authority to trust besides the system's (tests' own https servers). */
  extraCa?: string;
  /** How long an idle connection is kept for the next request to the same host. Default 4 s. */
  keepAliveMs?: number;
}

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** The whole exchange, from the connect to the answer's last byte. */
  timeoutMs: number;
  /** The longest silence: before the answer's headers, and between pieces of its body. Default `timeoutMs`. */
  idleTimeoutMs?: number;
  /** Body bytes accepted (as sent: the client never decompresses). */
  maxBytes: number;
  /** Past `maxBytes`: fail (the default), or keep the first `maxBytes` and close (a receipt's prefix). */
  overflow?: 'fail' | 'truncate';
  /** The caller's own cancellation: the request fails with the signal's reason. */
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** Header names and values as sent, in order (what a fetch Response is built from). */
  rawHeaders: string[];
  body: Buffer;
}

export interface OutboundDownload {
  status: number;
  headers: IncomingHttpHeaders;
  /** Bytes written to the file (only a 200's body is written). */
  bytes: number;
}

/** What one exchange hands its body reader. */
interface Exchange {
  fail(err: Error): void;
  /** The answer's body has been read to its declared end (downloads then wait for the server to close). */
  bodyEnded(): void;
}

const DEFAULT_KEEP_ALIVE_MS = 4_000;
/** How long a download waits, after the body, for the server to close as asked. */
const CLOSE_WAIT_MS = 2_000;

/**
 * The one HTTP client for every server Aisle does not run: feed downloads, webhook deliveries,
 * OAuth client metadata, an OpenAI-compatible endpoint, a remote Aisle behind the stdio MCP
 * server (docs/decisions/0020-one-outbound-http-client.md). Built on Node's own `http`, whose
 * parser survives every server behaviour tried, where undici 7's crashes the process. Each
 * request passes the SSRF guard (by URL shape, then by address as the socket connects), is
 * bounded in total time, in silence and in body size, never follows a redirect, and fails with
 * an OutboundError whose message says why in one line.
 */
export class OutboundClient {
  private readonly lookup: ConnectLookup;
  private readonly ca: string[] | undefined;
  private readonly agents: { 'http:': http.Agent; 'https:': https.Agent };

  constructor(private readonly options: OutboundClientOptions) {
    this.lookup = guardedLookup(options.allowPrivate, options.lookupAll);
    // Node replaces its trusted roots with `ca` when given one: keep the system's and add the extra.
    this.ca = options.extraCa === undefined ? undefined : [...rootCertificates, options.extraCa];
    const keepAlive = { keepAlive: true, timeout: options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS, scheduling: 'lifo' as const };
    this.agents = { 'http:': new http.Agent(keepAlive), 'https:': new https.Agent(keepAlive) };
  }

  /** Sends a request and reads its answer into memory, within the request's bounds. */
  request(url: string, r: OutboundRequest): Promise<OutboundResponse> {
    return this.exchange(url, r, false, async (res) => {
      const body = await readBody(res, r);
      return { status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, body };
    });
  }

  /**
   * Streams a 200's body to `file` (another status's body is not read). Stricter than `request`:
   * one connection, closed by the server, so a body shorter or longer than its Content-Length, or
   * a chunked body cut short, fails the download rather than passing as complete.
   */
  download(url: string, r: OutboundRequest, file: string): Promise<OutboundDownload> {
    return this.exchange(url, { ...r, headers: { ...r.headers, connection: 'close' } }, true, async (res, ex) => {
      const status = res.statusCode ?? 0;
      if (status !== 200) {
        res.on('error', ex.fail).destroy();
        return { status, headers: res.headers, bytes: 0 };
      }
      const declared = declaredLength(res.headers);
      if (declared !== null && declared > r.maxBytes) throw tooLarge(declared, r.maxBytes);
      const counter = new ByteCounter(r.maxBytes);
      try {
        await pipeline(res, counter, createWriteStream(file));
      } catch (err) {
        if (counter.error !== null) throw counter.error;
        throw res.complete ? err : incomplete(counter.bytes, declared, err);
      }
      ex.bodyEnded();
      return { status, headers: res.headers, bytes: counter.bytes };
    });
  }

  /** Closes idle connections; requests under way fail. */
  async close(): Promise<void> {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }

  private exchange<T>(raw: string, r: OutboundRequest, strict: boolean, read: (res: IncomingMessage, ex: Exchange) => Promise<T>): Promise<T> {
    const shape = checkUrlShape(raw, this.options.allowPrivate);
    if (!shape.ok) return Promise.reject(new OutboundError('refused', `refused: the URL ${shape.reason}`));
    if (r.signal?.aborted) return Promise.reject(r.signal.reason);
    const url = shape.url;
    const idleMs = r.idleTimeoutMs ?? r.timeoutMs;
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      let result: { value: T } | null = null;
      let socketClosed = false;
      let bodyEnded = false;
      let req: ClientRequest | null = null;
      let socket: net.Socket | null = null;
      const onData = () => {
        // Bytes after a download's declared end: the server sent more than it said.
        if (strict && bodyEnded) fail(new OutboundError('malformed', 'the body is longer than its Content-Length'));
        else touch();
      };
      const settle = (err: Error | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(total);
        clearTimeout(idle);
        clearTimeout(closeWait);
        r.signal?.removeEventListener('abort', onAbort);
        // A kept-alive socket serves the next request: it keeps none of this one's listeners.
        socket?.removeListener('data', onData);
        socket?.removeListener('close', onClose);
        if (err !== null) {
          req?.destroy();
          reject(err);
        } else resolve(result!.value);
      };
      const fail = (err: unknown) => settle(asOutboundError(err));
      const onClose = () => {
        socketClosed = true;
        maybeDone();
      };
      // A download is done when the server has closed after the body; anything else when its body is read.
      let closeWait: NodeJS.Timeout | undefined;
      const maybeDone = () => {
        if (result === null) return;
        if (!strict || socketClosed) return settle(null);
        // A server that ignores `connection: close` would hold the download open: past a short
        // wait after the body (a server with more to send sends it at once), the body stands.
        clearTimeout(idle);
        closeWait ??= setTimeout(() => settle(null), Math.min(idleMs, CLOSE_WAIT_MS));
      };
      const total = setTimeout(() => fail(new OutboundError('timeout', `timeout: no complete answer within ${r.timeoutMs} ms`)), r.timeoutMs);
      const idle = setTimeout(() => fail(new OutboundError('timeout', `timeout: the server sent nothing for ${idleMs} ms`)), idleMs);
      // Restarts the silence bound: a timer refreshed in place, cheap on every piece of a large body.
      const touch = () => {
        if (!settled) idle.refresh();
      };
      const onAbort = () => settle(r.signal!.reason instanceof Error ? r.signal!.reason : new OutboundError('aborted', 'the request was cancelled'));
      r.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        req = this.send(url, r, strict);
      } catch (err) {
        // Node refuses some inputs synchronously (a header value with a line break).
        return fail(err);
      }
      req.on('socket', (s) => {
        socket = s;
        s.on('data', onData);
        s.once('close', onClose);
      });
      req.on('error', fail);
      req.on('response', (res) => {
        touch();
        const ex: Exchange = { fail, bodyEnded: () => (bodyEnded = true) };
        read(res, ex).then((value) => {
          result = { value };
          bodyEnded = true;
          maybeDone();
        }, fail);
      });
      req.end(r.body);
    });
  }

  private send(url: URL, r: OutboundRequest, strict: boolean): ClientRequest {
    const body = r.body === undefined ? undefined : typeof r.body === 'string' ? Buffer.from(r.body) : r.body;
    const headers: Record<string, string> = { 'accept-encoding': 'identity', ...r.headers };
    if (body !== undefined) headers['content-length'] = String(body.byteLength);
    const https_ = url.protocol === 'https:';
    const options: https.RequestOptions = {
      method: r.method ?? 'GET',
      headers,
      lookup: this.lookup as never,
      ...(this.ca === undefined ? {} : { ca: this.ca }),
    };
    if (strict) {
      // One connection of its own, which the server closes after the body. Node's client ends a
      // `connection: close` exchange with socket.destroySoon() at the declared end of the body,
      // and falls back to socket.end() where a socket has none: ending only our side keeps the
      // socket reading until the server closes, so every byte it sent past the declared end is
      // seen (the exchange waits for that close, within its time bounds).
      // No agent: Node then connects through createConnection, once, for this request alone.
      options.createConnection = () => {
        const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
        const port = Number(url.port || (https_ ? 443 : 80));
        const s = https_
          ? tls.connect({ host, port, lookup: this.lookup as never, ...(net.isIP(host) ? {} : { servername: host }), ...(this.ca ? { ca: this.ca } : {}) })
          : net.connect({ host, port, lookup: this.lookup as never });
        (s as { destroySoon?: () => void }).destroySoon = () => s.end();
        return s;
      };
    } else options.agent = this.agents[url.protocol as 'http:' | 'https:'];
    return (https_ ? https : http).request(url, options);
  }
}

function declaredLength(headers: IncomingHttpHeaders): number | null {
  const raw = headers['content-length'];
  return raw === undefined || !/^\d+$/.test(raw) ? null : Number(raw);
}

/** The body into memory: at most `maxBytes`, whatever the server declared or sends. */
async function readBody(res: IncomingMessage, r: OutboundRequest): Promise<Buffer> {
  const declared = declaredLength(res.headers);
  if (declared !== null && declared > r.maxBytes && r.overflow !== 'truncate') throw tooLarge(declared, r.maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      const room = r.maxBytes - size;
      if (chunk.length > room) {
        if (r.overflow !== 'truncate') throw new OutboundError('too_large', `the answer is larger than ${r.maxBytes} bytes`);
        chunks.push(chunk.subarray(0, room));
        // Leaving the loop destroys the answer: the rest is never read, and its connection is not reused.
        return Buffer.concat(chunks);
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } catch (err) {
    if (err instanceof OutboundError) throw err;
    throw incomplete(size, declared, err);
  }
  if (!res.complete) throw incomplete(size, declared, null);
  return Buffer.concat(chunks);
}

const tooLarge = (declared: number, max: number) => new OutboundError('too_large', `the answer declares ${declared} bytes, more than ${max}`);

function incomplete(got: number, declared: number | null, cause: unknown): OutboundError {
  const of = declared === null ? '' : ` of the ${declared} it declared`;
  return new OutboundError('malformed', `the connection closed after ${got} bytes${of}`, { cause });
}

/** One line on why a request got no complete answer. */
function asOutboundError(err: unknown): Error {
  if (err instanceof OutboundError) return err;
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof AddressRefusedError) return new OutboundError('refused', e.message, { cause: err });
    if (e.name === 'AbortError' || e.name === 'TimeoutError') return err as Error;
  }
  const e = err as NodeJS.ErrnoException & { reason?: string };
  if (typeof e.code === 'string' && e.code.startsWith('HPE_')) {
    return new OutboundError('malformed', `the answer is not valid HTTP (${e.code}: ${e.reason ?? e.message})`.slice(0, 300), { cause: err });
  }
  return new OutboundError('connection', `connection failed${e.code ? ` (${e.code})` : ''}: ${e.message ?? String(err)}`.slice(0, 300), { cause: err });
}
