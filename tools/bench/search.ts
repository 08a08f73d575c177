/**
 * Search latency and throughput on the 54,667-product Home Depot catalog (../shared; synthetic
 * when absent): `npm run bench:search -- [--catalog-uri DIR] [--queries 300] [--duration 10]`.
 *
 * 1. Single client over HTTP: p50/p99 of POST /v1/search for real dev queries.
 * 2. The same queries in-process, timed per stage: embedding, retrieval (vector + full text),
 *    fusion, writes (search row, impressions, session) — so the split shows where time goes.
 * 3. 16 connections with autocannon: searches/s, beside GET /healthz in the same run.
 * Uses DATABASE_URL when set, else PGlite.
 */
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { toEmbeddingInput } from '../../src/core/catalog/embedding-text.js';
import { ingestCatalog } from '../../src/core/catalog/ingest.js';
import { newId } from '../../src/core/ids.js';
import { analyzeQuery } from '../../src/core/search/features.js';
import { CatalogLexicon, wordTokens } from '../../src/core/search/lexical.js';
import { FALLBACK_MODEL, rankCandidates } from '../../src/core/search/ranking.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { readFeed } from '../../src/ingest/formats/detect.js';
import { createPgStores } from '../../src/store/pg/index.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { syntheticCatalog } from '../gen-catalog.js';
import { createBenchKey, formatTable, median, round, runLoadChecked, startBenchServer } from './lib.js';
import { percentile, readJsonl, sharedPath } from './shared-data.js';

const { values } = parseArgs({ options: { 'catalog-uri': { type: 'string' }, queries: { type: 'string', default: '300' }, duration: { type: 'string', default: '10' } } });

async function queryTexts(limit: number): Promise<string[]> {
  const path = sharedPath('data/eval/homedepot/queries_dev.jsonl');
  if (path === null) return Array.from({ length: limit }, (_, i) => ['cordless drill', 'garden hose', 'espresso machine', 'running shoe', 'tent'][i % 5]!);
  return (await readJsonl<{ query: string }>(path, limit)).map((q) => q.query);
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'aisle-bench-search-'));
  try {
    const embedder = await createEmbedder({ provider: 'use-lite', cacheDir: join(work, 'models') });
    const catalog = await LanceCatalogStore.open({ uri: values['catalog-uri'] ?? join(work, 'catalog'), annThreshold: 20_000, annIndex: 'ivf_hnsw_sq' });
    if ((await catalog.info()) === null) {
      const products = sharedPath('data/eval/homedepot/products.jsonl');
      process.stderr.write(`importing ${products ?? '54,667 synthetic products'} (a few minutes)…\n`);
      const records = products ? (await readFeed(products, {})).records : (async function* () {
        let line = 0;
        for await (const row of syntheticCatalog(54_667, 7)) yield { line: ++line, row };
      })();
      await ingestCatalog(records, { catalog, embedder }, { replace: true, dryRun: false });
    }
    if ((await catalog.info())!.annIndex !== 'ivf_hnsw_sq') await catalog.rebuildVectorIndex('ivf_hnsw_sq');
    const info = (await catalog.info())!;
    const server = await startBenchServer({ databaseUrl: process.env.DATABASE_URL, search: { catalog, embedder } });
    try {
      // As main.ts does at start: the vocabulary, and the product cache with each product's terms.
      const warmStarted = performance.now();
      await server.core.search().warm();
      const warmMs = performance.now() - warmStarted;
      const key = await createBenchKey(server.core, 1_000_000);
      const queries = await queryTexts(Number(values.queries));
      const post = (query: string) =>
        fetch(`${server.url}/v1/search`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ query, limit: 10 }) });
      for (const q of queries.slice(0, 20)) await post(q);

      const http: number[] = [];
      for (const q of queries) {
        const t = performance.now();
        const res = await post(q);
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`search answered ${res.status}`);
        http.push(performance.now() - t);
      }

      const stage = { embed: [] as number[], retrieve: [] as number[], fuse: [] as number[], write: [] as number[] };
      const lexicon = await new CatalogLexicon(catalog).get();
      const stores = createPgStores(server.db);
      const account = await server.core.accounts.create('split');
      for (const q of queries) {
        const text = toEmbeddingInput(q);
        let t = performance.now();
        const [vector] = await embedder.embed([`${text} `]);
        stage.embed.push(performance.now() - t);
        t = performance.now();
        const words = lexicon.correct(wordTokens(q)).words;
        const [dense, lexical] = await Promise.all([
          catalog.vectorSearch(vector!, { limit: 100, withVectors: true }),
          catalog.textSearch(words.join(' '), { limit: 100, withVectors: true }),
        ]);
        stage.retrieve.push(performance.now() - t);
        t = performance.now();
        const candidates = rankCandidates({ ...analyzeQuery(words, words, lexicon), words }, lexical, dense, lexicon, FALLBACK_MODEL, vector!)
          .sort((a, b) => b.rankScore - a.rankScore)
          .slice(0, 10);
        stage.fuse.push(performance.now() - t);
        t = performance.now();
        await stores.searches.recordSearch({
          requestId: newId(), accountId: account.account.id, keyId: account.firstKey.metadata.id, sessionId: newId(), query: q, normalizedQuery: q, filters: {},
          totalMatches: candidates.length, tookMs: 0, createdAt: new Date(),
          impressions: candidates.map((c, i) => ({ impressionId: newId(), productId: c.product.productId, position: i + 1 })),
          session: { queries: [q], shownProductIds: [], clickedProductIds: [] },
        });
        stage.write.push(performance.now() - t);
      }

      const duration = Number(values.duration);
      const headers = { 'x-api-key': key };
      const bodies = queries.slice(0, 200).map((query) => JSON.stringify({ query, limit: 10 }));
      const healthz = await runLoadChecked({ url: `${server.url}/healthz`, durationSeconds: duration, connections: 16 });
      const searches = await runLoadChecked({ url: `${server.url}/v1/search`, durationSeconds: duration, connections: 16, headers, bodies, label: 'search' });

      const row = (label: string, xs: number[]) => [label, round(median(xs), 2).toString(), round(percentile(xs, 99), 2).toString()];
      process.stdout.write(`Search on ${info.productCount.toLocaleString('en-US')} products (ANN ${info.annIndex}), ${queries.length} dev queries, limit 10, database ${server.dbKind}; start-up warm-up ${round(warmMs / 1000, 1)} s\n`);
      process.stdout.write(`${formatTable(['single client', 'p50 ms', 'p99 ms'], [row('POST /v1/search over HTTP', http), row('  embedding', stage.embed), row('  retrieval (vector + text)', stage.retrieve), row('  features + ranking', stage.fuse), row('  writes (search, impressions, session)', stage.write)])}\n`);
      process.stdout.write(`16 connections: ${round(searches.rps, 1)} searches/s (p50 ${searches.p50} ms, p99 ${searches.p99} ms); GET /healthz ${round(healthz.rps, 0)} req/s; ratio ${round(searches.rps / healthz.rps, 4)}\n`);
      process.stdout.write(
        `BENCH_JSON ${JSON.stringify({ bench: 'search', products: info.productCount, db: server.dbKind, http_p50_ms: round(median(http), 2), http_p99_ms: round(percentile(http, 99), 2), warm_ms: round(warmMs, 0), split_p50_ms: Object.fromEntries(Object.entries(stage).map(([k, v]) => [k, round(median(v), 2)])), searches_per_s_16c: round(searches.rps, 1), healthz_rps: round(healthz.rps, 0) })}\n`,
      );
    } finally {
      // autocannon's worker may still have requests in flight when the run resolves.
      await new Promise((r) => setTimeout(r, 1000));
      await server.close();
    }
    await catalog.close();
    await embedder.close();
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
