/**
 * Click recording throughput: `npm run bench:clicks -- [--duration 30] [--connections 32] [--impressions N]`.
 *
 * 1. POST /v1/clicks/{impression_id} with an API key, every request on a different impression, so
 *    each one is a new billable click (auth, rate limit, impression lookup, insert, commit).
 * 2. GET /r/{impression_id}?sig=… with a browser user agent: signature check, the same recording,
 *    and a 302 to the merchant URL with affiliate parameters.
 * Both runs must finish with 0 errors and only the expected status; the billable rows in the
 * database must equal the 201s and 302s counted. Uses DATABASE_URL when set, else PGlite.
 */
// First, so that the command line is checked before anything else loads (clicks.command.ts).

import { mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import PQueue from 'p-queue';
import { loadConfig } from '../../src/config.js';
import { uuidV5 } from '../../src/core/catalog/normalize.js';
import type { CatalogProduct } from '../../src/core/catalog/product.js';
import { newId } from '../../src/core/ids.js';
import { RETRIEVAL_DEPTH } from '../../src/core/ranking/retrieval.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { createPgStores } from '../../src/store/pg/index.js';
import { cli } from './clicks.command.js';
import { type BenchServer, createBenchKey, formatTable, round, runLoadChecked, startBenchServer } from './lib.js';

const duration = cli.number('duration', { positive: true, default: 30 });
const connections = cli.number('connections', { integer: true, positive: true, default: 32 });
const impressions = cli.number('impressions', { integer: true, positive: true });
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const PRODUCTS = 1_000;

function product(i: number): CatalogProduct {
  return {
    productId: uuidV5(`bench-clicks:${i}`),
    externalId: `sku-${i}`,
    title: `Bench product ${i}`,
    description: '',
    url: `https://shop${i % 7}.example.com/p/${i}`,
    imageUrl: null,
    priceAmount: 10 + i,
    currency: 'USD',
    merchant: `Shop ${i % 7}`,
    brand: null,
    category: [],
    availability: 'in_stock',
    disclosureText: null,
    attributes: {},
    lastUpdatedAt: null,
  };
}

/** Impressions written the way searches write them: ten per search, each search its own session. */
async function writeImpressions(server: BenchServer, principal: { accountId: string; keyId: string }, count: number): Promise<string[]> {
  const stores = createPgStores(server.db);
  const searches = Array.from({ length: Math.ceil(count / 10) }, (_, s) =>
    Array.from({ length: Math.min(10, count - s * 10) }, (_, i) => ({
      impressionId: newId(),
      productId: product((s * 10 + i) % PRODUCTS).productId,
      position: i + 1,
    })),
  );
  const queue = new PQueue({ concurrency: 8 });
  await queue.addAll(
    searches.map(
      (impressions) => () =>
        stores.searches.recordSearch({
          requestId: newId(),
          accountId: principal.accountId,
          keyId: principal.keyId,
          sessionId: newId(),
          query: 'bench',
          normalizedQuery: 'bench',
          filters: {},
          totalMatches: impressions.length,
          tookMs: 0,
          createdAt: new Date(),
          impressions,
          session: { queries: ['bench'], shownProductIds: impressions.map((i) => i.productId), clickedProductIds: [] },
        }),
    ),
  );
  return searches.flat().map((i) => i.impressionId);
}

/**
 * autocannon's worker thread needs a module path for setupRequest: this one hands each request the
 * next path of a list, so no two requests of the run hit the same impression.
 */
function pathCycler(dir: string, name: string, paths: readonly string[]): string {
  const list = join(dir, `${name}.txt`);
  writeFileSync(list, paths.join('\n'));
  const module = join(dir, `${name}.cjs`);
  writeFileSync(
    module,
    `const paths = require('node:fs').readFileSync(${JSON.stringify(list)}, 'utf8').split('\\n');\nlet i = 0;\nmodule.exports = (req) => ({ ...req, path: paths[i++ % paths.length] });\n`,
  );
  return module;
}

async function load(
  label: string,
  url: string,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
  setupRequest: string,
  expected: number,
  seconds = duration,
) {
  const r = await autocannon({ url, connections, duration: seconds, workers: 1, headers, requests: [{ method, setupRequest }] });
  const codes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(r.statusCodeStats ?? {})) codes[code] = stat.count ?? 0;
  const unexpected = Object.keys(codes).filter((c) => Number(c) !== expected);
  if (r.errors > 0 || r.timeouts > 0 || unexpected.length > 0 || r.requests.total === 0) {
    throw new Error(`${label}: ${r.requests.total} requests, ${r.errors} errors, ${r.timeouts} timeouts, status codes ${JSON.stringify(codes)}`);
  }
  return { rps: r.requests.total / r.duration, p50: r.latency.p50, p99: r.latency.p99, requests: r.requests.total, errors: r.errors };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'aisle-bench-clicks-'));
  const catalog = await LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri: join(work, 'catalog'), annThreshold: 1_000_000, annIndex: 'ivf_hnsw_sq' });
  const writer = await catalog.openWriter({ model: 'bench-random', dimensions: 8, replace: true });
  await writer.write(
    Array.from({ length: PRODUCTS }, (_, i) => ({ product: product(i), vector: Float32Array.from({ length: 8 }, (_, k) => (k === i % 8 ? 1 : 0)) })),
  );
  await writer.commit();
  const server = await startBenchServer({ databaseUrl: loadConfig().databaseUrl, search: { catalog } });
  try {
    const key = await createBenchKey(server.core, 100_000_000);
    const auth = await server.core.auth.authenticate(key);
    if (!auth.ok) throw new Error('bench key does not authenticate');
    // Enough distinct impressions that no request of either run repeats one.
    const perRun = impressions ?? (server.dbKind === 'postgres' ? 40_000 : 15_000);
    process.stderr.write(`writing ${Math.ceil(2.2 * perRun).toLocaleString('en-US')} impressions…\n`);
    const warmIds = await writeImpressions(server, auth.principal, Math.ceil(perRun / 5));
    const ids = await writeImpressions(server, auth.principal, 2 * perRun);
    const apiIds = ids.slice(0, perRun);
    const linkIds = ids.slice(perRun);

    // Warm-up, not reported: JIT, the pool, and the product-destination cache.
    await load(
      'warm-up',
      server.url,
      'POST',
      { 'x-api-key': key },
      pathCycler(
        work,
        'warm',
        warmIds.map((id) => `/v1/clicks/${id}`),
      ),
      201,
      Math.min(5, duration),
    );
    await new Promise((r) => setTimeout(r, 1000));
    const before = (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM clicks WHERE billable'))[0]!.n;

    // The machine is shared: the cheapest route in the same run says what "fast" means today.
    const healthz = await runLoadChecked({ url: `${server.url}/healthz`, durationSeconds: Math.min(10, duration), connections, label: 'healthz' });
    const clicks = await load(
      'POST /v1/clicks',
      server.url,
      'POST',
      { 'x-api-key': key },
      pathCycler(
        work,
        'clicks',
        apiIds.map((id) => `/v1/clicks/${id}`),
      ),
      201,
    );
    const links = await load(
      'GET /r/',
      server.url,
      'GET',
      { 'user-agent': CHROME },
      pathCycler(
        work,
        'links',
        linkIds.map((id) => {
          const link = new URL(server.core.clickLinks.urlFor(id));
          return link.pathname + link.search;
        }),
      ),
      302,
    );
    // autocannon's worker may still have requests in flight when the run resolves.
    await new Promise((r) => setTimeout(r, 1000));

    // autocannon counts the requests answered within the duration; up to one per connection and
    // run is still in flight at the end, and is recorded too.
    const stored = (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM clicks WHERE billable'))[0]!.n - before;
    const extra = stored - (clicks.requests + links.requests);
    if (extra < 0 || extra > 2 * connections) throw new Error(`${stored} billable clicks stored for ${clicks.requests} 201s and ${links.requests} 302s`);
    if (clicks.requests > perRun || links.requests > perRun) throw new Error('ran out of distinct impressions: raise --impressions');
    const row = (label: string, r: typeof clicks) => [
      label,
      round(r.rps, 0).toString(),
      r.requests.toString(),
      r.errors.toString(),
      r.p50.toString(),
      r.p99.toString(),
    ];
    process.stdout.write(`Clicks on ${server.dbKind}, ${connections} connections, ${duration} s each, every request a new billable click\n`);
    process.stdout.write(
      `${formatTable(['endpoint', 'req/s', 'requests', 'errors', 'p50 ms', 'p99 ms'], [row('POST /v1/clicks/{id} → 201', clicks), row('GET /r/{id}?sig= → 302', links)])}\n`,
    );
    process.stdout.write(
      `Baseline GET /healthz: ${round(healthz.rps, 0)} req/s (p50 ${healthz.p50} ms); clicks/healthz ${round(clicks.rps / healthz.rps, 3)}, redirects/healthz ${round(links.rps / healthz.rps, 3)}\n`,
    );
    process.stdout.write(
      `BENCH_JSON ${JSON.stringify({ bench: 'clicks', db: server.dbKind, connections, duration_s: duration, healthz_rps: round(healthz.rps, 0), clicks_per_s: round(clicks.rps, 0), clicks_p50_ms: clicks.p50, clicks_p99_ms: clicks.p99, redirects_per_s: round(links.rps, 0), redirects_p50_ms: links.p50, redirects_p99_ms: links.p99 })}\n`,
    );
  } finally {
    await server.close();
    await catalog.close();
    await rm(work, { recursive: true, force: true });
  }
}

await cli.run(main);
