import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RETRIEVAL_DEPTH } from '../../src/core/ranking/retrieval.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { createKey, createTestApp, type TestApp } from '../helpers/app.js';
import { usingRealPostgres } from '../helpers/db.js';
import { type Child, runTs, seededDataDir } from '../helpers/process.js';
import { copySampleCatalog } from '../helpers/search.js';
import { Receiver } from '../helpers/webhooks.js';

/**
 * Two API processes (src/main.ts) and two webhook workers (src/worker/main.ts) on one PostgreSQL
 * database and one catalog directory behave as one service: a client spreads searches, clicks
 * (the same impression clicked through both processes at once), feedback and conversions over
 * both APIs while one worker is SIGKILLed and restarted. Nothing is double-counted, every webhook
 * event reaches the receiver, usage and analytics from either process equal the client's own
 * count, and a key's rate limit is one budget across both APIs.
 */
const SEARCHES = 24;
const RATE_LIMIT = 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const QUERIES = ['merino hiking socks', 'cordless drill', 'espresso machine', 'rain jacket', 'camping tent', 'running shoes', 'kitchen knife', 'desk lamp'];

interface SearchBody {
  request_id: string;
  results: { impression_id: string; product_id: string }[];
}
interface ClickBody {
  click_id: string;
  duplicate: boolean;
}

describe.skipIf(!usingRealPostgres())('two API processes and two webhook workers on one PostgreSQL', () => {
  let t: TestApp;
  let receiver: Receiver;
  // Made in beforeAll, not while collecting: a skipped suite runs no hooks, so nothing would remove it.
  let dataDir = '';
  let catalogUri = '';
  const children: Child[] = [];
  let apis: string[] = [];

  function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return {
      ...process.env,
      DATABASE_URL: t.testDb.url!,
      DATABASE_POOL_SIZE: '4',
      AISLE_DATA_DIR: dataDir,
      AISLE_CATALOG_URI: catalogUri,
      AISLE_SAMPLE_CATALOG: 'false',
      AISLE_WEBHOOK_ALLOW_PRIVATE: 'true',
      AISLE_WEBHOOK_LEASE_MS: '2000',
      AISLE_WEBHOOK_POLL_MS: '25',
      AISLE_REQUEST_LOG_FLUSH_MS: '100',
      // Each process re-reads the catalog pointer this often: a feed upsert through one shows in the other.
      AISLE_CATALOG_REFRESH_MS: '500',
      LOG_LEVEL: 'warn',
      PORT: '0',
      // Separate servers, one process each (AISLE_API_PROCESSES would otherwise start one per core).
      AISLE_API_PROCESSES: '1',
      ...extra,
    };
  }

  function spawn(entry: string, extra: Record<string, string> = {}): Child {
    const child = runTs(entry, [], env(extra));
    children.push(child);
    return child;
  }

  async function startApi(): Promise<string> {
    // The in-process worker is off: the two `npm run worker` processes are the only deliverers.
    const child = spawn('src/main.ts', { AISLE_WEBHOOK_WORKER: 'false' });
    const [, base] = await child.waitForStderr(/listening on (http:\/\/127\.0\.0\.1:\d+)/, 90_000);
    return base!;
  }

  async function startWorker(): Promise<Child> {
    const child = spawn('src/worker/main.ts');
    await child.waitForStderr(/webhook worker started/, 90_000);
    return child;
  }

  beforeAll(async () => {
    // The children load the model from the data dir and share one catalog they only read: a copy
    // of the suite's sample catalog (imported once per change to the code, helpers/suite-fixtures.ts).
    dataDir = await seededDataDir('multi', { catalog: false });
    catalogUri = join(dataDir, 'catalog');
    await copySampleCatalog(catalogUri);
    t = await createTestApp();
    receiver = await Receiver.start((_req, res) => void setTimeout(() => res.end('ok'), Math.random() * 20));
    const catalog = await LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri: catalogUri, annThreshold: 1_000_000, annIndex: 'ivf_hnsw_sq' });
    expect((await catalog.info())?.productCount).toBeGreaterThan(400);
    await catalog.close();
    apis = await Promise.all([startApi(), startApi()]);
  }, 180_000);

  afterAll(async () => {
    for (const c of children) c.proc.kill('SIGKILL');
    await receiver?.close();
    await t?.close();
  });

  it('counts one billable click per impression, delivers every event, agrees with analytics, and enforces one rate-limit budget', {
    timeout: 120_000,
  }, async () => {
    let posts = 0;
    const post = async (api: number, path: string, body?: unknown): Promise<{ status: number; json: unknown; text: string }> => {
      posts += 1;
      const res = await fetch(`${apis[api % 2]}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': t.adminKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, text, json: text ? JSON.parse(text) : null };
    };

    // Created through an API process: the in-process test app refuses http destinations.
    const hook = await post(0, '/v1/webhooks', { url: receiver.url(), events: ['search', 'click', 'conversion', 'feedback'] });
    expect(hook.status, hook.text).toBe(201);
    const secret = (hook.json as { secret: string }).secret;
    const workers = [await startWorker(), await startWorker()];

    const clickIds = new Map<string, Set<string>>();
    let firstClicks = 0;
    let conversions = 0;
    let feedback = 0;
    let searchesWithResults = 0;
    let impressions = 0;

    async function session(i: number): Promise<void> {
      const search = await post(i, '/v1/search', { query: QUERIES[i % QUERIES.length], limit: 5 });
      expect(search.status, search.text).toBe(200);
      const body = search.json as SearchBody;
      impressions += body.results.length;
      const [first, second] = body.results;
      if (!first) return;
      searchesWithResults += 1;
      // The same impression clicked through both processes at the same moment, and once more later.
      const clicks = await Promise.all([post(0, `/v1/clicks/${first.impression_id}`), post(1, `/v1/clicks/imp_${first.impression_id}`)]);
      clicks.push(await post(i + 1, `/v1/clicks/${first.impression_id}`));
      for (const c of clicks) expect([200, 201], c.text).toContain(c.status);
      expect(
        clicks.filter((c) => c.status === 201),
        clicks.map((c) => c.text).join('\n'),
      ).toHaveLength(1);
      expect(clicks.filter((c) => (c.json as ClickBody).duplicate)).toHaveLength(2);
      firstClicks += 1;
      clickIds.set(first.impression_id, new Set(clicks.map((c) => (c.json as ClickBody).click_id)));
      if (second) {
        const fb = await post(i + 1, '/v1/feedback', { request_id: body.request_id, product_id: second.product_id, relevant: i % 2 === 0 });
        expect(fb.status, fb.text).toBe(201);
        feedback += 1;
      }
      if (i % 3 === 0) {
        // An affiliate postback retried through the other process: recorded once.
        const order = {
          click_id: (clicks[0]!.json as ClickBody).click_id,
          order_id: `order-${i}`,
          sale_amount: 100 + i,
          commission_amount: 5,
          currency: 'USD',
        };
        const a = await post(i, '/v1/conversions', order);
        const b = await post(i + 1, '/v1/conversions', order);
        expect(a.status, a.text).toBe(201);
        expect(b.status, b.text).toBe(200);
        expect((b.json as { conversion_id: string }).conversion_id).toBe((a.json as { conversion_id: string }).conversion_id);
        conversions += 1;
      }
    }

    const traffic = (async () => {
      for (let i = 0; i < SEARCHES; i += 4) await Promise.all([0, 1, 2, 3].map((j) => session(i + j)));
    })();
    // One worker dies once deliveries are flowing (with claims leased, as a rule); a replacement
    // starts after it has gone.
    await vi.waitUntil(() => receiver.received.length >= 4, { timeout: 60_000, interval: 25 });
    workers[0]!.proc.kill('SIGKILL');
    await workers[0]!.exited;
    workers[0] = await startWorker();
    await traffic;

    for (const ids of clickIds.values()) expect(ids.size).toBe(1);
    const billable = await t.db.query<{ impression_id: string; n: number }>(
      'SELECT impression_id, count(*)::int AS n FROM clicks WHERE billable GROUP BY impression_id',
    );
    expect(billable.map((r) => r.n)).toEqual(billable.map(() => 1));
    expect(new Set(billable.map((r) => r.impression_id))).toEqual(new Set(clickIds.keys()));
    const [conv] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM conversions');
    expect(conv!.n).toBe(conversions);

    // Every event the database holds reaches the receiver (leases of the killed worker expire after 2 s).
    const deadline = Date.now() + 60_000;
    for (;;) {
      const [row] = await t.db.query<{ open: number }>(`SELECT count(*)::int AS open FROM webhook_deliveries WHERE status <> 'succeeded'`);
      if (row!.open === 0) break;
      if (Date.now() > deadline) throw new Error(`${row!.open} deliveries still open`);
      await sleep(200);
    }
    const events = await t.db.query<{ id: string; type: string }>('SELECT id, type FROM webhook_events');
    const byType = (type: string) => events.filter((e) => e.type === type).length;
    expect({ search: byType('search'), click: byType('click'), feedback: byType('feedback'), conversion: byType('conversion') }).toEqual({
      search: SEARCHES,
      click: firstClicks,
      feedback,
      conversion: conversions,
    });
    const wh = new Webhook(secret);
    const delivered = new Set(receiver.received.map((r) => (wh.verify(r.body, r.headers) as { id: string }).id));
    expect(delivered).toEqual(new Set(events.map((e) => `evt_${e.id}`)));
    expect(searchesWithResults).toBeGreaterThan(SEARCHES / 2);

    // Analytics read committed rows, so either process answers with the ground truth; request
    // counts come from per-process batches flushed every AISLE_REQUEST_LOG_FLUSH_MS (100 ms here):
    // wait until every request made so far is written, however long the flushes take.
    const logged = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM request_log'))[0]!.n;
    await vi.waitUntil(async () => (await logged()) >= posts, { timeout: 60_000, interval: 100 });
    const get = async (api: number, path: string) => {
      const res = await fetch(`${apis[api]}${path}`, { headers: { 'x-api-key': t.adminKey } });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      return JSON.parse(text) as unknown;
    };
    const usage = (await get(0, '/v1/usage')) as { totals: Record<string, number> };
    expect(usage.totals).toEqual({ requests: posts, searches: SEARCHES, results_returned: impressions, clicks: firstClicks, feedback, errors: 0 });
    for (const api of [0, 1]) {
      const summary = (await get(api, '/v1/analytics')) as { metrics: Record<string, number> };
      expect(summary.metrics).toMatchObject({ impressions, clicks: firstClicks, conversions, revenue: 5 * conversions });
    }

    // One budget: a key allowed RATE_LIMIT requests a minute, hammered through both processes.
    const limited = await createKey(t.app, t.adminKey, { name: 'limited', scopes: ['webhooks:manage'], rate_limit_per_minute: RATE_LIMIT });
    const started = Date.now();
    const statuses = await Promise.all(
      Array.from({ length: 4 * RATE_LIMIT }, (_, i) =>
        fetch(`${apis[i % 2]}/v1/webhooks`, { headers: { 'x-api-key': limited.key } }).then(async (r) => {
          await r.arrayBuffer();
          return r.status;
        }),
      ),
    );
    const elapsed = Date.now() - started;
    const ok = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    // GCRA refills one request every 60/RATE_LIMIT s: anything beyond that came from a second budget.
    expect(ok).toBeGreaterThanOrEqual(RATE_LIMIT);
    expect(ok).toBeLessThanOrEqual(RATE_LIMIT + Math.floor(elapsed / (60_000 / RATE_LIMIT)));

    for (const w of workers) w.proc.kill('SIGTERM');
    expect(await Promise.all(workers.map((w) => w.exited))).toEqual([0, 0]);
    console.info(
      `multi-process: ${SEARCHES} searches, ${firstClicks} clicks (${2 * firstClicks} duplicates), ${feedback} feedback, ${conversions} conversions, ` +
        `${events.length} events, ${receiver.received.length} deliveries received; rate limit ${ok}/${statuses.length} allowed in ${elapsed} ms`,
    );
  });

  it('serves, from the other API process, a product upserted through the feed API of one', { timeout: 60_000 }, async () => {
    const request = (api: number, method: string, path: string, body?: unknown) =>
      fetch(`${apis[api]}${path}`, {
        method,
        headers: { 'x-api-key': t.adminKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const created = await request(0, 'POST', '/v1/feeds', {});
    expect(created.status).toBe(201);
    const feed = ((await created.json()) as { id: string }).id;
    const product = {
      id: 'prod_aurora_kettle',
      variants: [
        { id: 'aurora-kettle-1', title: 'Aurora Gooseneck Pour-Over Kettle', price: { amount: 5900, currency: 'USD' }, seller: { name: 'Aurora Goods' } },
      ],
    };
    const upserted = await request(0, 'PATCH', `/v1/feeds/${feed}/products`, { products: [product] });
    expect(upserted.status, await upserted.clone().text()).toBe(200);
    const titlesFrom = async (api: number) => {
      const res = await request(api, 'POST', '/v1/search', { query: 'aurora gooseneck pour-over kettle', limit: 3, min_relevance_score: 0 });
      return ((await res.json()) as { results: { title: string }[] }).results.map((r) => r.title);
    };
    // The process that wrote it serves it at once; the other once it has re-read the catalog pointer.
    expect(await titlesFrom(0)).toContain('Aurora Gooseneck Pour-Over Kettle');
    await vi.waitFor(async () => expect(await titlesFrom(1)).toContain('Aurora Gooseneck Pour-Over Kettle'), { timeout: 15_000, interval: 250 });
  });
});
