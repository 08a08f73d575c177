/**
 * The API process against servers that misbehave on purpose (test/helpers/hostile.ts): feed
 * pulls, webhook deliveries and OAuth client metadata, each through every case. The process is a
 * real `npm start` child; after each case it must be alive, hold no socket or temporary file it
 * did not hold before, and stay within 150 MB of its memory before (test/helpers/unharmed.ts).
 * Its embedding endpoint is a scripted OpenAI-compatible route on the same server, answering well.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CASES, type HostileCase, HostileServer } from '../helpers/hostile.js';
import { type Child, childEnv, runTs, seededDataDir, tempDir } from '../helpers/process.js';
import { baseline, expectUnharmed } from '../helpers/unharmed.js';

const CA_FILE = fileURLToPath(new URL('../fixtures/tls/test-only-cert.pem', import.meta.url));
const REDIRECT = 'http://127.0.0.1:33418/callback';
const REPEATS = 40;

/** Which cases a caller must take as a good answer; every other case must fail cleanly. `either`: both are right. */
type Outcome = 'ok' | 'fail' | 'either';
const outcome =
  (ok: readonly HostileCase[], either: readonly HostileCase[] = []) =>
  (kase: HostileCase): Outcome =>
    ok.includes(kase) ? 'ok' : either.includes(kase) ? 'either' : 'fail';
// A receiver's status decides a delivery; of its body only the first 2 KB is read, as bytes.
const webhookOutcome = outcome(['good', 'large-close', 'gigabyte', 'gzip-bomb', 'junk', 'nul', 'invalid-utf8', 'html'], ['length-shorter']);
const feedOutcome = outcome(['good', 'large-close']);
const metadataOutcome = outcome(['good']);

const FEED = `${[
  { sku: 'H-1', title: 'Hostile Test Lantern', description: 'A lantern for testing feed pulls.', price: 30, currency: 'USD' },
  { sku: 'H-2', title: 'Hostile Test Compass', description: 'A compass for testing feed pulls.', price: 12, currency: 'USD' },
  { sku: 'H-3', title: 'Hostile Test Stove', description: 'A stove for testing feed pulls.', price: 80, currency: 'USD' },
]
  .map((p) => JSON.stringify(p))
  .join('\n')}\n`;

/** A stable 8-dimensional vector per text: enough for a scripted embedding endpoint. */
const vectorOf = (text: string) => Array.from({ length: 8 }, (_, i) => 1 + [...text].reduce((sum, c, j) => sum + (j % 8 === i ? c.charCodeAt(0) : 0), 0));

let server: HostileServer;
let api: Child;
let base = '';
let key = '';
let tmp = '';

beforeAll(async () => {
  server = await HostileServer.start();
  server.payloads.set('feeds', () => ({ body: Buffer.from(FEED), contentType: 'application/x-ndjson' }));
  server.payloads.set('webhooks', () => ({ body: Buffer.from('received, thank you\n'), contentType: 'text/plain' }));
  server.payloads.set('metadata', ({ path }) => ({
    body: Buffer.from(
      JSON.stringify({
        client_id: `${new URL(server.url('metadata', 'good', '/', 'https')).origin}${path}`,
        client_name: 'Hostile',
        redirect_uris: [REDIRECT],
      }),
    ),
    contentType: 'application/json',
  }));
  server.payloads.set('embed', ({ body }) => {
    const input = (JSON.parse(body.toString('utf8')) as { input: string[] }).input;
    const data = input.map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text) }));
    return {
      body: Buffer.from(JSON.stringify({ object: 'list', data, model: 'hostile-test', usage: { prompt_tokens: 0, total_tokens: 0 } })),
      contentType: 'application/json',
    };
  });
  tmp = tempDir('hostile-tmp');
  api = runTs(
    'src/main.ts',
    [],
    childEnv(await seededDataDir('hostile-api', { catalog: false }), {
      AISLE_SAMPLE_CATALOG: 'false',
      AISLE_EMBEDDING_PROVIDER: 'openai',
      AISLE_EMBEDDING_BASE_URL: server.url('embed', 'good', '/v1'),
      AISLE_EMBEDDING_MODEL: 'hostile-test',
      AISLE_EMBEDDING_DIMENSIONS: '8',
      AISLE_FEED_ALLOW_PRIVATE: 'true',
      AISLE_FEED_MAX_MB: '8',
      AISLE_FEED_IDLE_TIMEOUT_MS: '2000',
      AISLE_FEED_TIMEOUT_MS: '4000',
      AISLE_WEBHOOK_ALLOW_PRIVATE: 'true',
      AISLE_WEBHOOK_TIMEOUT_MS: '1500',
      AISLE_WEBHOOK_POLL_MS: '20',
      AISLE_OAUTH_ALLOW_PRIVATE: 'true',
      AISLE_OAUTH_METADATA_TIMEOUT_MS: '1500',
      // The hostile server's https side uses the test-only certificate; Node itself reads this.
      NODE_EXTRA_CA_CERTS: CA_FILE,
      TMPDIR: tmp,
      // The test polls deliveries; the per-key limit is not what is under test.
      AISLE_DEFAULT_RATE_LIMIT: '100000',
    }),
  );
  [, key = ''] = await api.waitForStderr(/API key, shown only now: (aisle_sk_[0-9A-Za-z]{36})\n/);
  [, base = ''] = await api.waitForStderr(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
}, 120_000);

afterAll(async () => {
  if (process.env.HOSTILE_DEBUG)
    console.log(
      api
        ?.stderr()
        .split('\n')
        .filter((l) => /"level":(40|50|60)/.test(l))
        .slice(0, 30)
        .join('\n'),
    );
  api?.proc.kill('SIGKILL');
  await server?.close();
});

async function rest(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> & { data?: unknown[] }; text: string }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text.startsWith('{') ? JSON.parse(text) : {}, text };
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A stored reason a person can read: not empty, no control characters but tabs and newlines. */
const expectReadable = (reason: unknown, label: string) => {
  expect(typeof reason, label).toBe('string');
  expect((reason as string).length, label).toBeGreaterThan(0);
  expect((reason as string).replace(/[\t\n]/g, ''), label).not.toMatch(/\p{Cc}/u);
};

const others = CASES.filter((c) => c !== 'large-close');

describe('feed pulls from hostile servers', () => {
  let source = '';

  it(`imports a large feed whose server closes after the body, ${REPEATS} times in a row`, async () => {
    const created = await rest('POST', '/v1/catalog/sources', { url: server.url('feeds', 'large-close', '/feed.jsonl'), schedule: 60 });
    expect(created.status, created.text).toBe(201);
    source = created.json.id as string;
    const before = baseline(api.proc.pid!, server, tmp);
    for (let i = 0; i < REPEATS; i++) {
      const pulled = await rest('POST', `/v1/catalog/sources/${source}/pull`);
      expect(pulled.status, pulled.text).toBe(200);
      expect(pulled.json, `pull ${i + 1}`).toMatchObject({ status: 'ok', products: i === 0 ? { new: 3 } : { unchanged: 3 } });
    }
    expect(server.count('feeds', 'large-close')).toBe(REPEATS);
    await expectUnharmed(before, server, `feeds large-close ×${REPEATS}`);
  });

  it.each(others)('%s: a pull that is recorded with a readable reason, releases its claim, and never answers 500', async (kase) => {
    const before = baseline(api.proc.pid!, server, tmp);
    expect((await rest('PATCH', `/v1/catalog/sources/${source}`, { url: server.url('feeds', kase, '/feed.jsonl') })).status).toBe(200);
    const pulled = await rest('POST', `/v1/catalog/sources/${source}/pull`);
    expect(pulled.status, pulled.text).toBe(200);
    const expected = feedOutcome(kase);
    expect(pulled.json.status, pulled.text).toBe(expected === 'ok' ? 'ok' : 'failed');
    if (expected === 'fail') expectReadable(pulled.json.error, kase);
    const shown = await rest('GET', `/v1/catalog/sources/${source}`);
    expect(shown.json.last_pull).toEqual(pulled.json);
    if (expected === 'fail') {
      // Released: tried again within 15 minutes, and a pull now is not refused as one under way.
      expect(Date.parse(shown.json.next_pull_at as string) - Date.parse(pulled.json.finished_at as string)).toBe(15 * 60_000);
    }
    await expectUnharmed(before, server, `feeds ${kase}`);
  });
});

describe('webhook deliveries to hostile receivers', () => {
  type Delivery = {
    status: string;
    attempts: number;
    last_status_code: number | null;
    last_error: string | null;
    last_attempt_at: string | null;
    next_attempt_at: string | null;
  };
  const deliveries = async (id: string) => (await rest('GET', `/v1/webhooks/${id}/deliveries?limit=100`)).json.data as Delivery[];

  async function endpoint(kase: HostileCase): Promise<string> {
    const created = await rest('POST', '/v1/webhooks', { url: server.url('webhooks', kase, '/hook'), events: ['feedback'] });
    expect(created.status, created.text).toBe(201);
    return created.json.id as string;
  }

  it(`delivers to a receiver that answers a large body and closes, ${REPEATS} times in a row`, async () => {
    const id = await endpoint('large-close');
    const before = baseline(api.proc.pid!, server, tmp);
    for (let i = 0; i < REPEATS; i++) expect((await rest('POST', `/v1/webhooks/${id}/test`, {})).status).toBe(202);
    const done = await until(
      () => deliveries(id),
      (list) => list.length === REPEATS && list.every((d) => d.attempts >= 1),
    );
    expect(
      done.map((d) => d.status),
      JSON.stringify(done.slice(0, 3)),
    ).toEqual(Array(REPEATS).fill('succeeded'));
    await expectUnharmed(before, server, `webhooks large-close ×${REPEATS}`);
    expect((await rest('DELETE', `/v1/webhooks/${id}`)).status).toBe(204);
  });

  it.each(others)('%s: the attempt ends as a status or a reason, and a failed one is retried on its schedule', async (kase) => {
    const id = await endpoint(kase);
    const before = baseline(api.proc.pid!, server, tmp);
    expect((await rest('POST', `/v1/webhooks/${id}/test`, {})).status).toBe(202);
    const [d] = await until(
      () => deliveries(id),
      (list) => (list[0]?.attempts ?? 0) >= 1,
    );
    expect(d, kase).toBeDefined();
    const expected = webhookOutcome(kase);
    const succeeded = d!.status === 'succeeded';
    if (expected !== 'either') expect(d!.status, JSON.stringify(d)).toBe(expected === 'ok' ? 'succeeded' : 'pending');
    if (!succeeded) {
      if (d!.last_status_code === null) expectReadable(d!.last_error, kase);
      // The first retry is due 5 s (±20 %) after the attempt, or after a longer Retry-After.
      const wait = Date.parse(d!.next_attempt_at!) - Date.parse(d!.last_attempt_at!);
      expect(wait, JSON.stringify(d)).toBeGreaterThanOrEqual(4_000);
      expect(wait, JSON.stringify(d)).toBeLessThanOrEqual(10_000);
    }
    // Deleting the endpoint drops its retry, so no later attempt reaches the server during another case.
    expect((await rest('DELETE', `/v1/webhooks/${id}`)).status).toBe(204);
    await expectUnharmed(before, server, `webhooks ${kase}`);
  });
});

describe('OAuth client metadata from hostile servers', () => {
  const authorize = (clientId: string) =>
    fetch(
      `${base}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', state: 's' })}`,
      { redirect: 'manual' },
    );

  it(`refuses a document over 5 KB whose server closes after it, ${REPEATS} times in a row`, async () => {
    const before = baseline(api.proc.pid!, server, tmp);
    for (let i = 0; i < REPEATS; i++) {
      const res = await authorize(server.url('metadata', 'large-close', `/client-${i}.json`, 'https'));
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('larger than 5120 bytes');
    }
    await expectUnharmed(before, server, `metadata large-close ×${REPEATS}`);
  });

  it.each(others)('%s: the authorization is refused with the reason, or proceeds for a good document', async (kase) => {
    const before = baseline(api.proc.pid!, server, tmp);
    const res = await authorize(server.url('metadata', kase, '/client.json', 'https'));
    const page = await res.text();
    if (metadataOutcome(kase) === 'ok') {
      expect(res.status, page).toBe(200);
    } else {
      expect(res.status, page).toBe(400);
      expect(page).toMatch(
        /The client&#39;s metadata document (could not be used|is not valid)|The client's metadata document (could not be used|is not valid)/,
      );
    }
    await expectUnharmed(before, server, `metadata ${kase}`);
  });
});
