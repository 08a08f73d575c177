import { createServer, type Server, type ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpFeedDownloader } from '../../src/catalog/files/download.js';
import { call, createKey, createTestApp, expectProblem, expectStatus, type TestApp } from '../helpers/app.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

/**
 * A feed server on 127.0.0.1 that behaves as feed hosts do, well and badly: conditional answers
 * by ETag, gzip when asked, and paths that stall, lie about their length, send a huge file,
 * declare one, answer with junk or redirect.
 */
let feed = '';
let etag = '"v1"';
let served = 0;
const MAX_BYTES = 256 * 1024;
const server: Server = createServer((req, res: ServerResponse) => {
  served += 1;
  const path = req.url ?? '/';
  if (path === '/feed.jsonl') {
    if (req.headers['if-none-match'] === etag) return res.writeHead(304, { etag }).end();
    const body = Buffer.from(feed);
    if (/gzip/.test(String(req.headers['accept-encoding']))) return res.writeHead(200, { etag, 'content-encoding': 'gzip' }).end(gzipSync(body));
    return res.writeHead(200, { etag }).end(body);
  }
  if (path === '/stall') {
    res.writeHead(200);
    res.write('{"title": "half a');
    return; // never ends
  }
  if (path === '/lies') {
    res.writeHead(200, { 'content-length': '5000' });
    res.write('{"title": "Short product"}\n');
    return void res.socket?.destroy();
  }
  if (path === '/huge') {
    res.writeHead(200);
    const line = `${JSON.stringify({ title: 'Filler product', description: 'x'.repeat(1000) })}\n`;
    let sent = 0;
    const more = () => {
      while (sent < 4 * MAX_BYTES) {
        sent += line.length;
        if (!res.write(line)) return void res.once('drain', more);
      }
      res.end();
    };
    return more();
  }
  if (path === '/declared-huge') return res.writeHead(200, { 'content-length': String(50 * 1024 * 1024) }).end();
  if (path === '/junk') return res.writeHead(200).end('<html>this is a login page, not a feed</html>\n');
  if (path === '/moved') return res.writeHead(302, { location: 'https://elsewhere.example.com/feed.jsonl' }).end();
  return res.writeHead(404).end();
});
let base = '';

const product = (sku: string, title: string, price: number) =>
  JSON.stringify({ sku, title, description: `${title} for testing pulls.`, price, currency: 'USD', category: 'Outdoor > Optics' });

let sample: SampleCatalog;
let t: TestApp;
let publicOnly: TestApp;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  // A copy: pulls publish into the catalog, which other test files share.
  sample = await openSampleCatalog({ copy: true });
  const downloader = new HttpFeedDownloader({ allowPrivate: true, maxBytes: MAX_BYTES, idleTimeoutMs: 1_000 });
  t = await createTestApp({ search: sample, feedDownloader: downloader });
  publicOnly = await createTestApp({ shared: { testDb: t.testDb, db: t.db, adminKey: t.adminKey, accountId: t.accountId } });
});
afterAll(async () => {
  await publicOnly?.close();
  await t?.close();
  await sample?.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const create = (body: Record<string, unknown>, app = t) => call(app.app, app.adminKey, 'POST', '/v1/catalog/sources', body);
const pull = (id: string) => call(t.app, t.adminKey, 'POST', `/v1/catalog/sources/${id}/pull`);

async function searchPrices(query: string): Promise<Map<string, number | null>> {
  const res = await call(t.app, t.adminKey, 'POST', '/v1/search', { query, limit: 10, min_relevance_score: 0 });
  expectStatus(res, 200);
  return new Map((res.json() as { results: { title: string; price_amount: number | null }[] }).results.map((r) => [r.title, r.price_amount]));
}

describe('POST /v1/catalog/sources', () => {
  it('refuses private addresses unless the operator allows them, short schedules, unknown formats and mappings off CSV', async () => {
    expectProblem(await create({ url: `${base}/feed.jsonl`, schedule: 60 }, publicOnly), 422, 'source_url_not_allowed');
    expectProblem(await create({ url: 'https://localhost/feed.jsonl', schedule: 60 }, publicOnly), 422, 'source_url_not_allowed');
    expectProblem(await create({ url: `${base}/feed.jsonl`, schedule: 5 }), 400, 'validation_failed');
    expectProblem(await create({ url: `${base}/feed.jsonl`, schedule: 60, format: 'xlsx' }), 400, 'validation_failed');
    expectProblem(await create({ url: `${base}/feed.jsonl`, schedule: 60, format: 'jsonl', mapping: { title: 'Name' } }), 400, 'validation_failed');
    expectProblem(await create({ url: `${base}/feed.csv`, schedule: 60, format: 'csv', mapping: { colour: 'Color' } }), 400, 'validation_failed');
    expectProblem(await create({ url: `${base}/feed.jsonl`, schedule: 60, extra: true }), 400, 'validation_failed');
    const test = await createKey(t.app, t.adminKey, { name: 'test mode', mode: 'test' });
    expectProblem(await call(t.app, test.key, 'POST', '/v1/catalog/sources', { url: `${base}/feed.jsonl`, schedule: 60 }), 403, 'insufficient_scope');
    expect((await call(t.app, t.adminKey, 'GET', '/v1/catalog/sources')).json()).toEqual({ data: [] });
  });
});

describe('pulling a catalog source', () => {
  it('imports the feed, answers 304s with nothing written, applies a price change as a delta, and keeps serving through every kind of bad pull', async () => {
    feed = `${[product('Q-1', 'Quokka Night Binoculars', 120), product('Q-2', 'Quokka Star Map', 15), product('Q-3', 'Quokka Red Torch', 22)].join('\n')}\n`;
    etag = '"v1"';
    const created = await create({ url: `${base}/feed.jsonl`, schedule: 60, merchant: 'Quokka Optics' });
    expectStatus(created, 201);
    const id = created.json().id as string;
    expect(created.json()).toMatchObject({ url: `${base}/feed.jsonl`, schedule: 60, merchant: 'Quokka Optics', last_pull: null, pulls: [] });

    const first = await pull(id);
    expectStatus(first, 200);
    expect(first.json()).toMatchObject({ status: 'ok', products: { new: 3, updated: 0, delta: 0, unchanged: 0, skipped: 0 } });
    expect((await searchPrices('quokka night binoculars')).get('Quokka Night Binoculars')).toBe(120);

    // Unchanged on the server: a conditional request, answered 304, writes nothing.
    expect((await pull(id)).json()).toMatchObject({ status: 'not_modified', products: { new: 0 } });

    feed = feed.replace('"price":120', '"price":99');
    etag = '"v2"';
    expect((await pull(id)).json()).toMatchObject({ status: 'ok', products: { delta: 1, unchanged: 2 } });
    expect((await searchPrices('quokka night binoculars')).get('Quokka Night Binoculars')).toBe(99);

    const failures: [string, RegExp][] = [
      ['/stall', /timeout/],
      ['/lies', /connection failed|closed|terminated|mismatch/i],
      ['/huge', /larger than 262144 bytes/],
      ['/declared-huge', /declares 52428800 bytes/],
      ['/junk', /^the feed:1:7: root element <html> is neither RSS <rss> nor Atom <feed>$/],
      ['/moved', /302 \(a redirect to https:\/\/elsewhere\.example\.com\/feed\.jsonl/],
      ['/missing', /answered 404/],
    ];
    for (const [path, reason] of failures) {
      expectStatus(await call(t.app, t.adminKey, 'PATCH', `/v1/catalog/sources/${id}`, { url: `${base}${path}` }), 200);
      const failed = await pull(id);
      expectStatus(failed, 200);
      expect(failed.json(), path).toMatchObject({ status: 'failed' });
      expect(failed.json().error, path).toMatch(reason);
      // The last good catalog keeps serving.
      expect((await searchPrices('quokka night binoculars')).get('Quokka Night Binoculars'), path).toBe(99);
    }

    const shown = await call(t.app, t.adminKey, 'GET', `/v1/catalog/sources/${id}`);
    expectStatus(shown, 200);
    const pulls = shown.json().pulls as { status: string }[];
    expect(pulls.map((p) => p.status)).toEqual([...failures.map(() => 'failed'), 'ok', 'not_modified', 'ok']);
    expect(shown.json().last_pull).toEqual(shown.json().pulls[0]);
    // A failure is tried again within 15 minutes, not at the next hourly pull.
    expect(Date.parse(shown.json().next_pull_at) - Date.parse(shown.json().last_pull.finished_at)).toBe(15 * 60_000);
  });

  it('pulls what is due on the scheduler tick, once, and keeps sources to their account', async () => {
    feed = `${product('Q-9', 'Quokka Tripod Mount', 45)}\n`;
    etag = '"v9"';
    const id = (await create({ url: `${base}/feed.jsonl`, schedule: 30 })).json().id as string;
    const before = served;
    expect(await t.core.catalogSources().pullDue()).toBeGreaterThanOrEqual(1);
    expect(served).toBeGreaterThan(before);
    const shown = (await call(t.app, t.adminKey, 'GET', `/v1/catalog/sources/${id}`)).json();
    expect(shown.last_pull).toMatchObject({ status: 'ok', products: { new: 1 } });
    expect(Date.parse(shown.next_pull_at) - Date.parse(shown.last_pull.finished_at)).toBe(30 * 60_000);
    // Nothing is due any more.
    const now = served;
    expect(await t.core.catalogSources().pullDue()).toBe(0);
    expect(served).toBe(now);

    const other = await t.core.accounts.create('another account');
    expectProblem(await call(t.app, other.firstKey.key, 'GET', `/v1/catalog/sources/${id}`), 404, 'not_found');
    expectProblem(await call(t.app, other.firstKey.key, 'POST', `/v1/catalog/sources/${id}/pull`), 404, 'not_found');
    expectProblem(await call(t.app, other.firstKey.key, 'DELETE', `/v1/catalog/sources/${id}`), 404, 'not_found');
    expectStatus(await call(t.app, t.adminKey, 'DELETE', `/v1/catalog/sources/${id}`), 204);
    expectProblem(await call(t.app, t.adminKey, 'GET', `/v1/catalog/sources/${id}`), 404, 'not_found');
    // Its products stay in the catalog.
    expect((await searchPrices('quokka tripod mount')).get('Quokka Tripod Mount')).toBe(45);
  });
});
