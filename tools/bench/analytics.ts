/**
 * Analytics at scale: `npm run bench:analytics -- [--samples 30] [--duration 10] [--connections 8]`.
 *
 * 1. Seeds one account with 1,000,000 impressions (100,000 searches of ten), 100,000 billable
 *    clicks, 5,000 conversions and 1,000,000 request-log rows over the last 30 days (bulk SQL with
 *    generate_series), then times GET /v1/usage, /v1/analytics (summary and each metric),
 *    /v1/dashboard/stats and /v1/analytics/performance over HTTP: median and p99 of --samples calls.
 * 2. Search throughput (POST /v1/search, sample catalog, autocannon) with the request log on and
 *    off, alternating off/on/off/on, reported as a ratio: the log must cost less than 5 %.
 * With DATABASE_URL set it creates (and drops) its own database on that server; else PGlite.
 */
// First, so that the command line is checked before anything else loads (analytics.command.ts).

import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFeed } from '../../src/catalog/files/detect.js';
import { loadConfig } from '../../src/config.js';
import { importCatalog } from '../../src/core/catalog/import.js';
import { RETRIEVAL_DEPTH } from '../../src/core/ranking/retrieval.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { cli } from './analytics.command.js';
import { createBenchDatabase } from './deployment.js';
import { type BenchServer, createBenchKey, formatTable, median, round, runLoadChecked, startBenchServer } from './lib.js';
import { IMPRESSIONS_PER_SEARCH, seedActivity } from './seed.js';

const { values } = cli;
const samples = cli.number('samples', { integer: true, positive: true, default: 30 });
const duration = cli.number('duration', { positive: true, default: 10 });
const connections = cli.number('connections', { integer: true, positive: true, default: 8 });

const SEARCHES = 100_000;
const LOG_ROWS = 1_000_000;
const WINDOW_MS = 30 * 86_400_000;

/** Bulk rows for one account over the 30 days before `now` (seed.ts); ids are md5-derived so rows link up. */
async function seed(server: BenchServer, accountId: string, keyId: string, productIds: string[], now: Date): Promise<void> {
  const t0 = Date.now();
  await seedActivity(server.db, accountId, keyId, productIds, {
    idPrefix: '',
    searches: SEARCHES,
    requestLogRows: LOG_ROWS,
    end: now,
    windowMs: WINDOW_MS,
    sessions: 5000,
    queryTexts: 700,
    commission: { from: 1, steps: 10_000 },
    routes: [
      'POST /v1/search',
      'POST /v1/search',
      'POST /v1/search',
      'POST /v1/clicks/:impression_id',
      'POST /v1/feedback',
      'GET /v1/usage',
      'POST /v1/search/batch',
    ],
    errors: [
      { every: 50, status: 429 },
      { every: 37, status: 404 },
      { every: 41, status: 400 },
    ],
  });
  process.stderr.write(`seeded in ${round((Date.now() - t0) / 1000, 1)} s\n`);
}

function nearestRank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

async function timeEndpoint(server: BenchServer, key: string, path: string): Promise<{ median: number; p99: number; bytes: number }> {
  const once = async () => {
    const t = performance.now();
    const res = await fetch(`${server.url}${path}`, { headers: { 'x-api-key': key } });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 300)}`);
    return { ms: performance.now() - t, bytes: body.length };
  };
  for (let i = 0; i < 3; i++) await once();
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < samples; i++) {
    const r = await once();
    times.push(r.ms);
    bytes = r.bytes;
  }
  return { median: round(median(times), 1), p99: round(nearestRank(times, 0.99), 1), bytes };
}

const QUERIES = [
  'trail running shoes',
  'espresso machine',
  'hiking socks',
  'camping tent',
  'wireless headphones',
  'coffee grinder',
  'backpack',
  'kitchen knife',
  'dog bed',
  'yoga mat',
];

async function searchThroughput(url: string, key: string): Promise<number> {
  const r = await runLoadChecked({
    url: `${url}/v1/search`,
    durationSeconds: duration,
    connections,
    headers: { 'x-api-key': key },
    bodies: QUERIES.map((query) => JSON.stringify({ query, limit: 5 })),
    label: 'POST /v1/search',
  });
  return r.rps;
}

/** A database of our own on the server DATABASE_URL names, so 1M seeded rows never land in someone's data. */
async function benchDatabase(): Promise<{ url: string | undefined; drop(): Promise<void> }> {
  const base = loadConfig().databaseUrl;
  return base ? createBenchDatabase(base, 'aisle_bench_analytics') : { url: undefined, drop: async () => undefined };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'aisle-bench-analytics-'));
  const database = await benchDatabase();
  const embedder = await createEmbedder({ provider: 'use-lite', cacheDir: join(work, 'models') });
  const catalog = await LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri: join(work, 'catalog'), annThreshold: 1_000_000, annIndex: 'ivf_hnsw_sq' });
  await importCatalog((await readFeed('data/sample-catalog.jsonl', {})).records, { catalog, embedder }, { replace: true, dryRun: false });
  const productIds: string[] = [];
  for await (const batch of catalog.scanProducts()) productIds.push(...batch.map((p) => p.productId));

  const withLog = await startBenchServer({ databaseUrl: database.url, search: { catalog, embedder } });
  // On PostgreSQL both servers share the database; PGlite is single-process, so the second has its own.
  const withoutLog = await startBenchServer({ databaseUrl: database.url, search: { catalog, embedder }, requestLog: { enabled: false } });
  try {
    const key = await createBenchKey(withLog.core, 100_000_000, 'analytics bench');
    const auth = await withLog.core.auth.authenticate(key);
    if (!auth.ok) throw new Error('bench key does not authenticate');
    process.stderr.write(
      `seeding ${(SEARCHES * IMPRESSIONS_PER_SEARCH).toLocaleString('en-US')} impressions, ${SEARCHES.toLocaleString('en-US')} clicks, ${LOG_ROWS.toLocaleString('en-US')} request-log rows on ${withLog.dbKind}…\n`,
    );
    await seed(withLog, auth.principal.accountId, auth.principal.keyId, productIds, new Date());

    const endpoints = [
      '/v1/usage',
      '/v1/analytics',
      '/v1/analytics?metric=ctr',
      '/v1/analytics?metric=conversion_rate',
      '/v1/analytics?metric=revenue',
      '/v1/analytics?metric=top_products',
      '/v1/analytics?metric=top_queries',
      '/v1/dashboard/stats',
      '/v1/analytics/performance?timeframe=24h',
      '/v1/analytics/performance?timeframe=30d',
    ];
    // The first read rolls up every settled hour and day of the 30 seeded days: a one-time cost
    // per account (afterwards, only each newly closed hour or day is rolled).
    const rollStart = performance.now();
    const first = await fetch(`${withLog.url}/v1/analytics/performance?timeframe=30d`, { headers: { 'x-api-key': key } });
    if (first.status !== 200) throw new Error(`first read: ${first.status} ${await first.text()}`);
    await first.text();
    const firstMs = round(performance.now() - rollStart, 0);
    const rows: string[][] = [];
    const json: Record<string, { median_ms: number; p99_ms: number }> = {};
    for (const path of endpoints) {
      const r = await timeEndpoint(withLog, key, path);
      rows.push([`GET ${path}`, r.median.toString(), r.p99.toString(), r.bytes.toString()]);
      json[path] = { median_ms: r.median, p99_ms: r.p99 };
    }
    const figures = JSON.parse(await (await fetch(`${withLog.url}/v1/analytics`, { headers: { 'x-api-key': key } })).text()) as {
      metrics: Record<string, number>;
    };
    process.stdout.write(
      `Analytics on ${withLog.dbKind}: one account with ${figures.metrics.impressions} impressions, ${figures.metrics.clicks} clicks, ${figures.metrics.conversions} conversions in 30 days, ${LOG_ROWS.toLocaleString('en-US')} request-log rows; ${samples} sequential calls each (default range: 30 days)\n`,
    );
    process.stdout.write(`${formatTable(['endpoint', 'median ms', 'p99 ms', 'bytes'], rows)}\n`);
    process.stdout.write(`First read after seeding (rolls up the 30 days once): ${firstMs} ms\n`);

    if (values['skip-search']) {
      process.stdout.write(
        `BENCH_JSON ${JSON.stringify({ bench: 'analytics', db: withLog.dbKind, samples, first_read_rollup_ms: firstMs, endpoints: json })}\n`,
      );
      return;
    }
    const searchKeyOn = await createBenchKey(withLog.core, 100_000_000, 'search bench on');
    const searchKeyOff = await createBenchKey(withoutLog.core, 100_000_000, 'search bench off');
    // Warm-up of both (JIT, query cache), then off/on/off/on so drift on a shared machine hits both alike.
    await searchThroughput(withoutLog.url, searchKeyOff);
    await searchThroughput(withLog.url, searchKeyOn);
    const off: number[] = [];
    const on: number[] = [];
    for (let i = 0; i < 2; i++) {
      off.push(await searchThroughput(withoutLog.url, searchKeyOff));
      on.push(await searchThroughput(withLog.url, searchKeyOn));
    }
    const offMean = off.reduce((a, b) => a + b, 0) / off.length;
    const onMean = on.reduce((a, b) => a + b, 0) / on.length;
    process.stdout.write(
      `Search throughput, ${connections} connections, ${duration} s runs: log off ${off.map((r) => round(r, 1)).join(', ')} req/s; log on ${on.map((r) => round(r, 1)).join(', ')} req/s; on/off ${round(onMean / offMean, 3)} (cost ${round((1 - onMean / offMean) * 100, 1)} %)\n`,
    );
    process.stdout.write(
      `BENCH_JSON ${JSON.stringify({ bench: 'analytics', db: withLog.dbKind, samples, first_read_rollup_ms: firstMs, endpoints: json, search_rps_log_off: round(offMean, 1), search_rps_log_on: round(onMean, 1), on_off_ratio: round(onMean / offMean, 3) })}\n`,
    );
  } finally {
    await withoutLog.close();
    await withLog.close();
    await catalog.close();
    await embedder.close();
    await database.drop();
    await rm(work, { recursive: true, force: true });
  }
}

await cli.run(main);
