/**
 * The outbound client's own contract (src/outbound/client.ts) against raw servers on 127.0.0.1:
 * framing a download strictly whatever the timing, bounds, the guard by URL, no redirects, the
 * caller's cancellation, and the fetch it lends the OpenAI SDK.
 */
import { readFileSync } from 'node:fs';
import net, { type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storableText } from '../../src/core/storable-text.js';
import { OutboundClient, OutboundError } from '../../src/outbound/client.js';
import { outboundFetch } from '../../src/outbound/fetch.js';
import { tempDir } from '../helpers/process.js';

/** Answers each request by the behaviour its path names. */
const behaviours: Record<string, (s: Socket) => void> = {
  // The declared length ends early; the rest follows 200 ms later, after the body looked complete
  // and the client had ended its side (the server keeps writing: it was made half-open).
  '/late-tail': (s) => {
    s.write('HTTP/1.1 200 OK\r\ncontent-length: 5\r\nconnection: close\r\n\r\nhello');
    setTimeout(() => s.end(' and more the server did not count'), 200);
  },
  '/exact': (s) => s.end('HTTP/1.1 200 OK\r\ncontent-length: 5\r\nconnection: close\r\n\r\nhello'),
  // A server that ignores the client's `connection: close` and keeps the connection open after the body.
  '/keeps-open': (s) => s.write('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello'),
  '/short': (s) => s.end('HTTP/1.1 200 OK\r\ncontent-length: 50\r\nconnection: close\r\n\r\nhello'),
  '/chunked': (s) => s.end('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n'),
  '/redirect': (s) => s.end('HTTP/1.1 301 Moved\r\nlocation: /exact\r\ncontent-length: 0\r\nconnection: close\r\n\r\n'),
  '/big': (s) => s.end(`HTTP/1.1 200 OK\r\ncontent-length: 10000\r\nconnection: close\r\n\r\n${'x'.repeat(10_000)}`),
  '/json': (s) => s.end('HTTP/1.1 201 Created\r\ncontent-type: application/json\r\nx-extra: 1\r\ncontent-length: 11\r\nconnection: close\r\n\r\n{"ok":true}'),
  '/gzip': (s) => s.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}'),
  '/silent': () => undefined,
};

let server: net.Server;
let base = '';
const seen: string[] = [];
const sockets = new Set<Socket>();
const client = new OutboundClient({ allowPrivate: true });
const dir = tempDir('outbound');

beforeAll(async () => {
  server = net.createServer({ allowHalfOpen: true }, (s) => {
    sockets.add(s.on('close', () => sockets.delete(s)));
    s.on('error', () => undefined);
    s.once('data', (d: Buffer) => {
      const [, path = '', rest = ''] = /^\w+ (\S+) HTTP\/1\.1\r\n([\s\S]*)$/.exec(d.toString('latin1')) ?? [];
      seen.push(`${path} ${/^accept-encoding: (.*)$/im.exec(rest)?.[1] ?? ''}`);
      (behaviours[path] ?? ((x: Socket) => x.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n')))(s);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await client.close();
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const failure = (p: Promise<unknown>) =>
  p.then(
    () => expect.fail('expected a failure'),
    (err: unknown) => err as OutboundError,
  );
const bounds = { timeoutMs: 2_000, maxBytes: 1_000 };

describe('OutboundClient.download', () => {
  it('fails a body longer than its Content-Length even when the rest comes after the body looked complete', async () => {
    const err = await failure(client.download(`${base}/late-tail`, bounds, join(dir, 'a')));
    expect(err).toBeInstanceOf(OutboundError);
    expect(err.message).toBe('the body is longer than its Content-Length');
  });

  it('fails a body shorter than its Content-Length, and takes an exact or chunked one', async () => {
    expect((await failure(client.download(`${base}/short`, bounds, join(dir, 'b')))).message).toBe('the connection closed after 5 bytes of the 50 it declared');
    expect(await client.download(`${base}/exact`, bounds, join(dir, 'c'))).toMatchObject({ status: 200, bytes: 5 });
    expect(readFileSync(join(dir, 'c'), 'utf8')).toBe('hello');
    expect(await client.download(`${base}/chunked`, bounds, join(dir, 'd'))).toMatchObject({ status: 200, bytes: 5 });
  });

  it('takes the body of a server that does not close as asked, after a short wait', async () => {
    expect(await client.download(`${base}/keeps-open`, { ...bounds, idleTimeoutMs: 300 }, join(dir, 'g'))).toMatchObject({ status: 200, bytes: 5 });
    expect(readFileSync(join(dir, 'g'), 'utf8')).toBe('hello');
  });

  it('writes no other status than 200, and never follows a redirect', async () => {
    const before = seen.filter((s) => s.startsWith('/exact')).length;
    expect(await client.download(`${base}/redirect`, bounds, join(dir, 'e'))).toMatchObject({ status: 301, bytes: 0, headers: { location: '/exact' } });
    expect(seen.filter((s) => s.startsWith('/exact'))).toHaveLength(before);
  });

  it('stops at the size limit, declared or not', async () => {
    expect((await failure(client.download(`${base}/big`, bounds, join(dir, 'f')))).message).toBe('the answer declares 10000 bytes, more than 1000');
  });
});

describe('OutboundClient.request', () => {
  it('refuses private addresses by URL before connecting unless allowed, and http on a guarded client', async () => {
    const guarded = new OutboundClient({ allowPrivate: false });
    const before = seen.length;
    expect((await failure(guarded.request(`${base}/exact`, bounds))).message).toBe('refused: the URL must use https');
    expect((await failure(guarded.request('https://10.0.0.1/x', bounds))).message).toBe('refused: the URL points at a private address (10.0.0.1)');
    expect(seen).toHaveLength(before);
    await guarded.close();
  });

  it('keeps only a prefix when asked to, and fails past the limit otherwise', async () => {
    expect((await client.request(`${base}/big`, { ...bounds, overflow: 'truncate' })).body.toString()).toBe('x'.repeat(1_000));
    expect((await failure(client.request(`${base}/big`, bounds))).kind).toBe('too_large');
  });

  it('bounds silence and the whole exchange, and ends at the caller’s cancellation', async () => {
    expect((await failure(client.request(`${base}/silent`, { ...bounds, idleTimeoutMs: 200 }))).message).toBe('timeout: the server sent nothing for 200 ms');
    expect((await failure(client.request(`${base}/silent`, { ...bounds, timeoutMs: 300 }))).message).toBe('timeout: no complete answer within 300 ms');
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('the caller gave up')), 100);
    expect((await failure(client.request(`${base}/silent`, { ...bounds, signal: controller.signal }))).message).toBe('the caller gave up');
  });

  it('refuses a header value that would split the request, without sending anything', async () => {
    const before = seen.length;
    expect((await failure(client.request(`${base}/exact`, { ...bounds, headers: { 'x-bad': 'a\r\nx-injected: 1' } }))).kind).toBe('connection');
    expect(seen).toHaveLength(before);
  });
});

describe('outboundFetch', () => {
  const fetch = outboundFetch(client, bounds);

  it('answers a Response with the status, headers and body, asking for no encoding', async () => {
    const res = await fetch(`${base}/json`, { method: 'POST', headers: { 'accept-encoding': 'gzip, br' }, body: '{}' });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-extra')).toBe('1');
    expect(await res.json()).toEqual({ ok: true });
    expect(seen.at(-1)).toBe('/json identity');
  });

  it('fails an answer in an encoding that was not asked for', async () => {
    await expect(fetch(`${base}/gzip`)).rejects.toThrow('the answer is gzip-encoded, which was not asked for');
  });
});

describe('storableText', () => {
  it('escapes control characters but tab and newline, replaces lone surrogates, and cuts at the limit', () => {
    expect(storableText('a\u0000b\tc\nd\u0085e', 100)).toBe('a\\u0000b\tc\nd\\u0085e');
    expect(storableText('x\uD800y', 100)).toBe('x\uFFFDy');
    expect(storableText('abcdef', 4)).toBe('abc…');
    // A cut through a surrogate pair leaves no half of it.
    expect(storableText('ab😀', 3)).toBe('ab…');
    expect(storableText('a😀b', 3)).toBe('a\uFFFD…');
  });
});
