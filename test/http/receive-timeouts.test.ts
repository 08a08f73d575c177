import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { usingRealPostgres } from '../helpers/db.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

const REQUEST_MS = 1_500;
const HEADERS_MS = 300;
/** Far above every bound: a socket still open then would have been held forever. */
const HANG_GUARD_MS = 15_000;

interface RawOutcome {
  /** Everything the server sent before the connection closed. */
  text: string;
  ms: number;
}

/** Opens a TCP connection, writes `chunks` and then nothing more; resolves when the server closes it. */
function stall(port: number, chunks: string[]): { closed: Promise<RawOutcome> } {
  const started = Date.now();
  const socket = connect(port, '127.0.0.1');
  let text = '';
  socket.on('connect', () => {
    for (const c of chunks) socket.write(c);
  });
  socket.on('data', (d: Buffer) => (text += d.toString()));
  socket.on('error', () => undefined);
  const closed = new Promise<RawOutcome>((resolve, reject) => {
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server held a stalled connection for ${HANG_GUARD_MS} ms; it sent: ${text}`));
    }, HANG_GUARD_MS);
    socket.on('close', () => {
      clearTimeout(guard);
      resolve({ text, ms: Date.now() - started });
    });
  });
  return { closed };
}

/** Asserts a raw 408 `request_timeout` problem+json answer. */
function expect408(outcome: RawOutcome): void {
  const [head = '', body = ''] = outcome.text.split('\r\n\r\n');
  expect(head, outcome.text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  expect(head.toLowerCase()).toContain('content-type: application/problem+json');
  expect(head.toLowerCase()).toContain('connection: close');
  const requestId = /x-request-id: (\S+)/i.exec(head)?.[1];
  expect(JSON.parse(body)).toMatchObject({ status: 408, code: 'request_timeout', type: '/docs/errors#request_timeout', request_id: requestId });
}

const partialBody = (key: string) =>
  `POST /v1/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"tric`;

describe('receiving a request (AISLE_REQUEST_TIMEOUT_MS, AISLE_HEADERS_TIMEOUT_MS)', () => {
  let sample: SampleCatalog;
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    sample = await openSampleCatalog();
    t = await createTestApp({ search: sample, httpTimeouts: { requestMs: REQUEST_MS, headersMs: HEADERS_MS } });
    port = Number(new URL(await t.app.listen({ host: '127.0.0.1', port: 0 })).port);
  });
  afterAll(async () => {
    await t.close();
    await sample.close();
  });

  it('answers 408 request_timeout and closes the connection when a body stalls, once the request bound has passed', async () => {
    const outcome = await stall(port, [partialBody(t.adminKey)]).closed;
    expect408(outcome);
    expect(outcome.ms).toBeGreaterThanOrEqual(REQUEST_MS - 50);
  });

  it('does not cut an answer that takes longer than the request bound once the request is in (SSE search)', async () => {
    // Hold the database for twice the request bound, so the search cannot answer before then.
    const hold = await holdDatabase(t, REQUEST_MS * 2);
    const started = Date.now();
    const res = await fetch(`http://127.0.0.1:${port}/v1/search`, {
      method: 'POST',
      headers: { 'x-api-key': t.adminKey, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'camping tent', stream: true, limit: 3, min_relevance_score: 0 }),
      signal: AbortSignal.timeout(HANG_GUARD_MS),
    });
    const body = await res.text();
    await hold.released;
    expect(res.status, body).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(body.match(/^event: result$/gm)).toHaveLength(3);
    expect(body).toMatch(/^event: done$/m);
    expect(Date.now() - started).toBeGreaterThan(REQUEST_MS);
  });
});

describe('receiving a request with the headers bound alone (AISLE_REQUEST_TIMEOUT_MS=0)', () => {
  it('answers 408 when the headers stall, and when nothing is sent at all', async () => {
    // The request bound off, so a 408 here can only come from the headers bound.
    const t = await createTestApp({ httpTimeouts: { requestMs: 0, headersMs: HEADERS_MS } });
    try {
      const port = Number(new URL(await t.app.listen({ host: '127.0.0.1', port: 0 })).port);
      const [headers, silent] = await Promise.all([stall(port, ['GET /v1/keys HTTP/1.1\r\nHost: 127.0.0.1\r\n']).closed, stall(port, []).closed]);
      expect408(headers);
      expect408(silent);
      expect(headers.ms).toBeGreaterThanOrEqual(HEADERS_MS - 50);
      expect(silent.ms).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    } finally {
      await t.close();
    }
  });
});

describe('closing the app while a client trickles a request', () => {
  it('answers the trickling client 408 and finishes closing once the request bound has passed, instead of waiting for it', async () => {
    const t = await createTestApp({ httpTimeouts: { requestMs: REQUEST_MS, headersMs: HEADERS_MS } });
    const port = Number(new URL(await t.app.listen({ host: '127.0.0.1', port: 0 })).port);
    const trickle = stall(port, [partialBody(t.adminKey)]);
    await sleep(100);
    const started = Date.now();
    // Node stops its own request timer when closing starts: this close would wait for the client forever.
    const closed = await Promise.race([t.close().then(() => 'closed'), sleep(HANG_GUARD_MS).then(() => 'hung')]);
    expect(closed).toBe('closed');
    expect(Date.now() - started).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect408(await trickle.closed);
  });
});

describe('closing the app while a keep-alive client has an answer under way', () => {
  it('answers it with Connection: close and ends the connection, instead of holding the close until a cutoff', async () => {
    // No cutoff at all (closeMs 0): a connection kept open after its answer would hold the close
    // until the hang guard, so a close that finishes was not waiting for a timer.
    const t = await createTestApp({ httpTimeouts: { requestMs: REQUEST_MS, headersMs: HEADERS_MS, closeMs: 0 } });
    const port = Number(new URL(await t.app.listen({ host: '127.0.0.1', port: 0 })).port);
    // A request whose body is still arriving when the close begins, on a connection the client keeps alive.
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString()));
    socket.on('error', () => undefined);
    const socketClosed = new Promise<'closed'>((resolve) => socket.once('close', () => resolve('closed')));
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const body = JSON.stringify({ name: 'during close' });
    socket.write(
      `POST /v1/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\nx-api-key: ${t.adminKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 4)}`,
    );
    await sleep(100);
    const closing = t.close().then(() => 'closed');
    await sleep(50);
    socket.write(body.slice(4));
    expect(await Promise.race([closing, sleep(HANG_GUARD_MS).then(() => 'hung')]), text).toBe('closed');
    expect(await Promise.race([socketClosed, sleep(HANG_GUARD_MS).then(() => 'still open')]), text).toBe('closed');
    const [head = ''] = text.split('\r\n\r\n');
    expect(head, text).toMatch(/^HTTP\/1\.1 201 /);
    expect(head.toLowerCase()).toContain('connection: close');
    // Only one answer: nothing (a 408 above all) written to the connection after its request was answered.
    expect(text.match(/^HTTP\/1\.1 /gm)).toHaveLength(1);
  });
});

/**
 * Makes every statement of the request path wait for `ms`: PGlite serves one statement at a time, so
 * an open transaction holds it; on PostgreSQL another session locks the keys table.
 * Resolves once the hold has begun; `released` settles when it has ended.
 */
async function holdDatabase(t: TestApp, ms: number): Promise<{ released: Promise<void> }> {
  if (!usingRealPostgres()) {
    let begun!: () => void;
    const started = new Promise<void>((resolve) => (begun = resolve));
    const held = t.db.transaction(async () => {
      begun();
      await sleep(ms);
    });
    await started;
    return { released: held };
  }
  const c = new pg.Client({ connectionString: t.testDb.url });
  await c.connect();
  await c.query('BEGIN');
  await c.query('LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE');
  const released = sleep(ms).then(async () => {
    await c.query('COMMIT');
    await c.end();
  });
  return { released };
}
