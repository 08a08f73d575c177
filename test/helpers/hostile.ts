import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import net, { type AddressInfo, type Socket } from 'node:net';
import tls from 'node:tls';
import { createGzip } from 'node:zlib';
import { TEST_CA, TEST_KEY } from './tls.js';

/**
 * Feed, webhook, metadata and model servers as an attacker who controls one would run them: raw
 * sockets on 127.0.0.1 (plain and TLS), so a case can lie about lengths, cut a chunked body, reset
 * mid-body or never finish, which no well-behaved HTTP server library would let it do. A request
 * to `/<caller>/<case>/…` gets that case; `/<caller>/current/…` gets the case set for that caller
 * (for callers whose base URL is fixed at start). Every answer asks the client to close.
 */
export const CASES = [
  'good',
  'large-close',
  'stall',
  'trickle',
  'length-longer',
  'length-shorter',
  'chunked-cut',
  'gigabyte',
  'gzip-bomb',
  'junk',
  'nul',
  'invalid-utf8',
  'html',
  'not-http',
  'redirect',
  'reset',
  '404',
  '500',
  '429',
] as const;
export type HostileCase = (typeof CASES)[number];

/** What a caller's request was, for the payload to answer it. */
interface Asked {
  caller: string;
  kase: HostileCase;
  /** The path after `/<caller>/<case>`. */
  rest: string;
  /** The whole request path, as a client metadata document must name it. */
  path: string;
  body: Buffer;
}

/** A caller's good answer: a feed, a metadata document, an embeddings response. */
export type Payload = (asked: Asked) => { body: Buffer; contentType: string };

/** How large the body of `large-close` is: past the 256 KB at which undici 7's parser crashed the process. */
const LARGE_BYTES = 512 * 1024;
const GIGABYTE = 1024 ** 3;

export class HostileServer {
  readonly payloads = new Map<string, Payload>();
  readonly current = new Map<string, HostileCase>();
  /** Requests answered, by `<caller>/<case>`. */
  readonly served = new Map<string, number>();
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private bomb: Buffer | null = null;

  private constructor(
    private readonly plain: net.Server,
    private readonly secure: tls.Server,
  ) {}

  static async start(): Promise<HostileServer> {
    let self: HostileServer | null = null;
    const onSocket = (s: Socket) => self!.accept(s);
    const plain = net.createServer(onSocket);
    const secure = tls.createServer({ key: TEST_KEY, cert: TEST_CA }, onSocket);
    // A client that gives up mid-handshake is one of the cases, not an error of the server.
    secure.on('tlsClientError', () => undefined);
    await Promise.all([plain, secure].map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
    self = new HostileServer(plain, secure);
    self.bomb = await gzipBomb(GIGABYTE);
    return self;
  }

  url(caller: string, kase: HostileCase | 'current', rest = '/', scheme: 'http' | 'https' = 'http'): string {
    const port = ((scheme === 'http' ? this.plain : this.secure).address() as AddressInfo).port;
    return `${scheme}://127.0.0.1:${port}/${caller}/${kase}${rest}`;
  }

  /** The ports it listens on (plain, TLS). */
  get ports(): number[] {
    return [this.plain, this.secure].map((s) => (s.address() as AddressInfo).port);
  }

  /** Connections open now, from any client. */
  get openConnections(): number {
    return this.sockets.size;
  }

  count(caller: string, kase: HostileCase): number {
    return this.served.get(`${caller}/${kase}`) ?? 0;
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    for (const s of this.sockets) s.destroy();
    await Promise.all([this.plain, this.secure].map((s) => new Promise((resolve) => s.close(resolve))));
  }

  private accept(s: Socket): void {
    this.sockets.add(s);
    s.on('close', () => this.sockets.delete(s));
    s.on('error', () => undefined);
    let head = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      head = Buffer.concat([head, d]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      const lines = head.subarray(0, end).toString('latin1').split('\r\n');
      const length = Number(/^content-length:\s*(\d+)/im.exec(lines.join('\n'))?.[1] ?? 0);
      if (head.length < end + 4 + length) return;
      s.off('data', onData);
      const path = lines[0]!.split(' ')[1] ?? '/';
      this.answer(s, path, head.subarray(end + 4, end + 4 + length));
    };
    s.on('data', onData);
  }

  private answer(s: Socket, path: string, body: Buffer): void {
    const [, caller = '', named = '', rest = '/'] = /^\/([^/]+)\/([^/?]+)(.*)$/.exec(path) ?? [];
    const kase = named === 'current' ? (this.current.get(caller) ?? 'good') : (named as HostileCase);
    this.served.set(`${caller}/${kase}`, (this.served.get(`${caller}/${kase}`) ?? 0) + 1);
    const payload = this.payloads.get(caller)?.({ caller, kase, rest, path, body }) ?? { body: Buffer.from('{}'), contentType: 'application/json' };
    const head = (status: string, headers: Record<string, string | number>) =>
      `HTTP/1.1 ${status}\r\n${Object.entries({ connection: 'close', ...headers })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('')}\r\n`;
    const ok = (bytes: Buffer, extra: Record<string, string | number> = {}): void =>
      void s.end(Buffer.concat([Buffer.from(head('200 OK', { 'content-type': payload.contentType, 'content-length': bytes.length, ...extra })), bytes]));
    const p = payload.body;
    switch (kase) {
      case 'good':
        return void ok(p);
      case 'large-close':
        return void ok(padded(p, payload.contentType));
      case 'stall':
        return void s.write(head('200 OK', { 'content-type': payload.contentType, 'content-length': p.length }));
      case 'trickle': {
        s.write(head('200 OK', { 'content-type': payload.contentType, 'content-length': p.length }));
        let i = 0;
        const timer = setInterval(() => (i < p.length && !s.destroyed ? s.write(p.subarray(i, ++i)) : clearInterval(timer)), 1_000);
        this.timers.add(timer);
        return;
      }
      case 'length-longer':
        return void s.end(Buffer.concat([Buffer.from(head('200 OK', { 'content-type': payload.contentType, 'content-length': p.length + 1000 })), p]));
      case 'length-shorter':
        // As a server that counts characters rather than bytes would.
        return void s.end(
          Buffer.concat([Buffer.from(head('200 OK', { 'content-type': payload.contentType, 'content-length': Math.max(1, p.length - 7) })), p]),
        );
      case 'chunked-cut': {
        const half = p.subarray(0, Math.ceil(p.length / 2));
        s.write(head('200 OK', { 'content-type': payload.contentType, 'transfer-encoding': 'chunked' }));
        return void s.end(Buffer.concat([Buffer.from(`${half.length.toString(16)}\r\n`), half, Buffer.from('\r\n')]));
      }
      case 'gigabyte':
        s.write(head('200 OK', { 'content-type': payload.contentType, 'transfer-encoding': 'chunked' }));
        return void streamZeros(s, GIGABYTE);
      case 'gzip-bomb':
        return void ok(this.bomb!, { 'content-encoding': 'gzip' });
      case 'junk':
        return void ok(JUNK, { 'content-type': 'application/octet-stream' });
      case 'nul':
        return void ok(Buffer.concat([Buffer.from([0, 0x7b, 0]), p]));
      case 'invalid-utf8':
        return void ok(Buffer.concat([Buffer.from([0xff, 0xfe, 0xc3, 0x28]), p]));
      case 'html':
        return void ok(Buffer.from('<!doctype html><html><body><form>Sign in to continue</form></body></html>\n'), { 'content-type': 'text/html' });
      case 'not-http':
        return void s.end('SSH-2.0-OpenSSH_9.2\r\nProtocol mismatch.\r\n\r\n');
      case 'redirect':
        return void s.end(head('302 Found', { location: 'http://127.0.0.1:1/elsewhere', 'content-length': 0 }));
      case 'reset':
        s.write(
          Buffer.concat([Buffer.from(head('200 OK', { 'content-type': payload.contentType, 'content-length': p.length })), p.subarray(0, p.length >> 1)]),
        );
        return void setTimeout(() => (s instanceof tls.TLSSocket ? s.destroy() : s.resetAndDestroy()), 20);
      case '404':
      case '500':
      case '429': {
        const text = Buffer.from(`status ${kase}\n`);
        const status = { '404': '404 Not Found', '500': '500 Internal Server Error', '429': '429 Too Many Requests' }[kase];
        return void s.end(Buffer.concat([Buffer.from(head(status, { 'content-type': 'text/plain', 'content-length': text.length, 'retry-after': 1 })), text]));
      }
    }
  }
}

/** Bytes no reader can take for anything (a fixed pattern, so a failure reproduces). */
const JUNK = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) & 0xff));

/** The body grown past LARGE_BYTES and still valid: JSON and JSONL take trailing spaces, other text a comment-free tail of spaces. */
function padded(body: Buffer, contentType: string): Buffer {
  const pad = Buffer.alloc(Math.max(0, LARGE_BYTES - body.length), 0x20);
  if (contentType.includes('jsonl') || contentType.includes('ndjson')) {
    // Spaces after each line's object: one line of a feed stays one product.
    const lines = body.toString('utf8').trimEnd().split('\n');
    const each = Math.ceil(pad.length / lines.length);
    return Buffer.from(`${lines.map((l) => l + ' '.repeat(each)).join('\n')}\n`);
  }
  return Buffer.concat([body, pad]);
}

/** Writes `total` zero bytes as chunks, minding backpressure, until done or the client goes. */
function streamZeros(s: Socket, total: number): void {
  const chunk = Buffer.alloc(1024 * 1024);
  const framed = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
  let sent = 0;
  const more = () => {
    while (sent < total && !s.destroyed) {
      sent += chunk.length;
      if (!s.write(framed)) return void s.once('drain', more);
    }
    if (!s.destroyed) s.end('0\r\n\r\n');
  };
  more();
}

/** gzip of `bytes` zeros: about a thousandth of its size. */
async function gzipBomb(bytes: number): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on('data', (d: Buffer) => out.push(d));
  const done = new Promise((resolve) => gzip.on('end', resolve));
  const chunk = Buffer.alloc(8 * 1024 * 1024);
  for (let sent = 0; sent < bytes; sent += chunk.length) {
    if (!gzip.write(chunk)) await new Promise((resolve) => gzip.once('drain', resolve));
  }
  gzip.end();
  await done;
  return Buffer.concat(out);
}

/** The process's socket inodes, from its open files. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // Closed between the listing and the read.
    }
  }
  return inodes;
}

/** The process's TCP sockets whose other end is on one of `ports` (in any state but LISTEN), as /proc/net shows them. */
function tcpSocketsTo(pid: number, ports: readonly number[]): string[] {
  const inodes = socketInodes(pid);
  const found: string[] = [];
  for (const table of ['tcp', 'tcp6']) {
    for (const line of readFileSync(`/proc/${pid}/net/${table}`, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      const remotePort = Number.parseInt(cols[2]?.split(':')[1] ?? '', 16);
      if (cols[9] !== undefined && inodes.has(cols[9]) && ports.includes(remotePort)) found.push(`${cols[1]} -> ${cols[2]} state ${cols[3]}`);
    }
  }
  return found;
}

/** What a process holds, read from /proc: resident memory, and its sockets to the given ports. */
export function processHolds(pid: number, ports: readonly number[]): { rssMb: number; socketsTo: string[] } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? Number.NaN);
  return { rssMb: rssKb / 1024, socketsTo: tcpSocketsTo(pid, ports) };
}
