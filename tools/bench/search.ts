/**
 * Search latency and throughput on the 54,667-product Home Depot catalog (../shared; synthetic
 * when absent): `npm run bench:search -- [--catalog-uri DIR] [--queries 300] [--duration 10]`.
 *
 * 1. Single client over HTTP: p50/p99 of POST /v1/search for real dev queries, after a warm-up
 *    pass over `--queries` other dev queries (a server answers thousands of searches; the first
 *    few hundred, before V8 has optimised the hot path, measure the JIT, not the service). The
 *    client runs in a worker thread, as a real client runs in another process: its own request
 *    building and response reading then do not queue on the server's event loop. The same loop
 *    with the client on the server's thread is reported beside it, for comparison with earlier
 *    figures; the two alternate in three rounds of `--queries` queries each.
 * 2. The same queries in-process, timed per stage: embedding, retrieval (vector + full text),
 *    fusion, writes (search row, impressions, session) — so the split shows where time goes.
 * 3. 16 connections with autocannon: searches/s, beside GET /healthz in the same run.
 * Uses DATABASE_URL when set, else PGlite.
 *
 * `--learning-running` adds a pair of single-client loops on one server, alternating in three
 * rounds: one while nothing else runs, one while global learning fits models from the event log
 * back to back (proposals disabled, so every run is a full fit over up to 5,000 logged searches;
 * the log is seeded first with searches and position-biased clicks over HTTP).
 * `--baseline-learning-off` serves it a second time without per-query learning (the cost of
 * learning's read on every search), and
 * `--baseline-tuning overfetch=1,ef=1.5` serves the same catalog a second time with other ANN
 * query settings (indexes.ts; these are the ones before exact re-scoring over-fetched), and
 * its single client and 16-connection run alternate with the first's, so the cost of a setting
 * is measured side by side in one run.
 */
// First, so that the command line is checked before anything else loads (search.command.ts).

import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { UsageError } from '../../src/cli/errors.js';
import { readJsonLines } from '../../src/cli/files.js';
import { loadConfig } from '../../src/config.js';
import { toEmbeddingInput } from '../../src/core/catalog/embedding-text.js';
import { importCatalog } from '../../src/core/catalog/import.js';
import { newId } from '../../src/core/ids.js';
import { DEFAULT_GLOBAL_FIT } from '../../src/core/learning/global-fit.js';
import { analyzeQuery } from '../../src/core/ranking/features.js';
import { CatalogLexicon, wordTokens } from '../../src/core/ranking/lexical.js';
import { FALLBACK_MODEL, rankCandidates } from '../../src/core/ranking/ranking.js';
import { RETRIEVAL_DEPTH } from '../../src/core/ranking/retrieval.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import type { AnnTuning } from '../../src/store/lance/indexes.js';
import { createPgStores } from '../../src/store/pg/index.js';
import { fitInThread } from '../../src/threads/fit-thread.js';
import { sharedPath } from '../shared-data.js';
import { benchCatalogRecords } from './bench-catalog.js';
import { createBenchKey, formatTable, median, percentile, round, runLoadChecked, startBenchServer } from './lib.js';
import { cli } from './search.command.js';

const { values } = cli;
const queryCount = cli.number('queries', { integer: true, positive: true, default: 300 });
const duration = cli.number('duration', { positive: true, default: 10 });
const seedCount = cli.number('seed', { integer: true, positive: true, default: 1500 });

/** `overfetch=1,ef=1.5` → the ANN tuning it names. */
function parseTuning(raw: string): Partial<AnnTuning> {
  const names: Record<string, keyof AnnTuning> = { overfetch: 'overfetch', ef: 'efPerResult', nprobes: 'nprobes' };
  return Object.fromEntries(
    raw.split(',').map((pair) => {
      const [key, value] = pair.split('=');
      const name = names[key ?? ''];
      if (!name || !Number.isFinite(Number(value))) throw new UsageError(`--baseline-tuning takes overfetch=N,ef=N,nprobes=N, not ${pair}`);
      return [name, Number(value)];
    }),
  );
}

const tuning = values['baseline-tuning'] ? cli.check(() => parseTuning(values['baseline-tuning']!)) : null;

/** Rounds of each single client; each round searches `--queries` query texts not searched before. */
const ROUNDS = 3;

async function queryTexts(limit: number): Promise<string[]> {
  const path = sharedPath('data/eval/homedepot/queries_dev.jsonl');
  if (path === null) return Array.from({ length: limit }, (_, i) => ['cordless drill', 'garden hose', 'espresso machine', 'running shoe', 'tent'][i % 5]!);
  return (await readJsonLines<{ query: string }>(path, limit)).map((q) => q.query);
}

async function main(): Promise<void> {
  const { databaseUrl } = loadConfig();
  const work = mkdtempSync(join(tmpdir(), 'aisle-bench-search-'));
  try {
    const embedder = await createEmbedder({ provider: 'use-lite', cacheDir: join(work, 'models') });
    const catalog = await LanceCatalogStore.open({
      recallDepth: RETRIEVAL_DEPTH,
      uri: values['catalog-uri'] ?? join(work, 'catalog'),
      annThreshold: 20_000,
      annIndex: 'ivf_hnsw_sq',
    });
    if ((await catalog.info()) === null) {
      const products = sharedPath('data/eval/homedepot/products.jsonl');
      process.stderr.write(`importing ${products ?? '54,667 synthetic products'} (a few minutes)…\n`);
      const records = await benchCatalogRecords(products);
      await importCatalog(records, { catalog, embedder }, { replace: true, dryRun: false });
    }
    if ((await catalog.info())!.annIndex !== 'ivf_hnsw_sq') await catalog.rebuildVectorIndex('ivf_hnsw_sq');
    const info = (await catalog.info())!;
    const baselineCatalog = tuning
      ? await LanceCatalogStore.open({
          recallDepth: RETRIEVAL_DEPTH,
          uri: values['catalog-uri'] ?? join(work, 'catalog'),
          annThreshold: 20_000,
          annIndex: 'ivf_hnsw_sq',
          annTuning: tuning,
        })
      : null;
    const learningRunning = values['learning-running'];
    const server = await startBenchServer({
      databaseUrl,
      search: { catalog, embedder },
      // As the server runs it: the fit on a worker thread.
      ...(learningRunning ? { rankingLearning: { options: { fit: { ...DEFAULT_GLOBAL_FIT, minGain: Number.POSITIVE_INFINITY } }, fit: fitInThread } } : {}),
    });
    const learningOff = values['baseline-learning-off'];
    const baseline =
      baselineCatalog || learningOff
        ? await startBenchServer({ databaseUrl, search: { catalog: baselineCatalog ?? catalog, embedder }, ...(learningOff ? { learning: false } : {}) })
        : null;
    const baselineLabel = [tuning ? `ANN tuning ${values['baseline-tuning']}` : null, learningOff ? 'learning off (AISLE_LEARNING=false)' : null]
      .filter(Boolean)
      .join(', ');
    try {
      // As main.ts does at start: the vocabulary, and the product cache with each product's terms.
      const warmStarted = performance.now();
      await server.core.search().warm();
      const warmMs = performance.now() - warmStarted;
      await baseline?.core.search().warm();
      const key = await createBenchKey(server.core, 1_000_000);
      const baselineKey = baseline ? await createBenchKey(baseline.core, 1_000_000) : '';
      // Every measured search has a query text of its own: the embedder's query cache must not
      // answer a repeat. The clients alternate in rounds, so drifting load hits them alike.
      const count = queryCount;
      const slots = baseline ? 3 : 2;
      const learningSlots = learningRunning ? 2 * ROUNDS : 0;
      const all = await queryTexts((1 + slots * ROUNDS + learningSlots) * count);
      const learningSlice = (round: number, arm: number) =>
        all.slice((slots * ROUNDS + 2 * round + arm) * count, (slots * ROUNDS + 2 * round + arm + 1) * count);
      const warmUp = all.slice((slots * ROUNDS + learningSlots) * count);
      const queries = all.slice(0, count);
      const slice = (round: number, slot: number) => all.slice((slots * round + slot) * count, (slots * round + slot + 1) * count);
      const post = (url: string, apiKey: string, query: string) =>
        fetch(`${url}/v1/search`, {
          method: 'POST',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ query, limit: 10 }),
        });
      for (const q of warmUp) await (await post(server.url, key, q)).arrayBuffer();
      if (baseline) for (const q of warmUp) await (await post(baseline.url, baselineKey, q)).arrayBuffer();

      const http: number[] = [];
      const httpSameThread: number[] = [];
      const httpBaseline: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        http.push(...(await clientInWorker(server.url, key, slice(round, 0))));
        for (const q of slice(round, 1)) {
          const t = performance.now();
          const res = await post(server.url, key, q);
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`search answered ${res.status}`);
          httpSameThread.push(performance.now() - t);
        }
        if (baseline) httpBaseline.push(...(await clientInWorker(baseline.url, baselineKey, slice(round, 2))));
      }

      const idle: number[] = [];
      const whileLearning: number[] = [];
      const learnerRuns: number[] = [];
      const readMs: number[] = [];
      const fitMs: number[] = [];
      let lastFit: unknown = null;
      let seeded = 0;
      if (learningRunning) {
        // The event log learning reads: searches of the warm-up queries, each result clicked with
        // probability 0.3/k (a person looks down the list less and less).
        for (let i = 0; i < seedCount; i++) {
          const res = await post(server.url, key, warmUp[i % warmUp.length]!);
          const body = (await res.json()) as { results: { impression_id: string }[] };
          for (const [k, r] of body.results.entries()) {
            if (Math.random() < 0.3 / (k + 1))
              await (
                await fetch(`${server.url}/v1/clicks/${r.impression_id}`, {
                  method: 'POST',
                  headers: { 'x-api-key': key, 'content-type': 'application/json' },
                  body: '{}',
                })
              ).arrayBuffer();
          }
          seeded++;
        }
        for (let round = 0; round < ROUNDS; round++) {
          idle.push(...(await clientInWorker(server.url, key, learningSlice(round, 0))));
          let stop = false;
          const loop = (async () => {
            while (!stop) {
              const t = performance.now();
              const run = await server.core.ranking!.runOnce();
              learnerRuns.push(performance.now() - t);
              if (run.action === 'none' && run.fit) {
                lastFit = run.fit;
                readMs.push(run.fit.readMs ?? 0);
                fitMs.push(run.fit.fitMs ?? 0);
              }
            }
          })();
          whileLearning.push(...(await clientInWorker(server.url, key, learningSlice(round, 1))));
          stop = true;
          await loop;
        }
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
          catalog.vectorSearch(vector!, { limit: RETRIEVAL_DEPTH, withVectors: true }),
          catalog.textSearch(words.join(' '), { limit: RETRIEVAL_DEPTH, withVectors: true }),
        ]);
        stage.retrieve.push(performance.now() - t);
        t = performance.now();
        const candidates = rankCandidates({ ...analyzeQuery(words, words, lexicon), words }, lexical, dense, lexicon, FALLBACK_MODEL, vector!)
          .sort((a, b) => b.rankScore - a.rankScore)
          .slice(0, 10);
        stage.fuse.push(performance.now() - t);
        t = performance.now();
        await stores.searches.recordSearch({
          requestId: newId(),
          accountId: account.account.id,
          keyId: account.firstKey.metadata.id,
          sessionId: newId(),
          query: q,
          normalizedQuery: q,
          filters: {},
          totalMatches: candidates.length,
          tookMs: 0,
          createdAt: new Date(),
          impressions: candidates.map((c, i) => ({ impressionId: newId(), productId: c.product.productId, position: i + 1 })),
          session: { queries: [q], shownProductIds: [], clickedProductIds: [] },
        });
        stage.write.push(performance.now() - t);
      }

      const headers = { 'x-api-key': key };
      const bodies = queries.slice(0, 200).map((query) => JSON.stringify({ query, limit: 10 }));
      const healthz = await runLoadChecked({ url: `${server.url}/healthz`, durationSeconds: duration, connections: 16 });
      const searches = await runLoadChecked({ url: `${server.url}/v1/search`, durationSeconds: duration, connections: 16, headers, bodies, label: 'search' });
      const baselineSearches = baseline
        ? await runLoadChecked({
            url: `${baseline.url}/v1/search`,
            durationSeconds: duration,
            connections: 16,
            headers: { 'x-api-key': baselineKey },
            bodies,
            label: 'search (baseline)',
          })
        : null;

      const row = (label: string, xs: number[]) => [label, round(median(xs), 2).toString(), round(percentile(xs, 99), 2).toString()];
      process.stdout.write(
        `Search on ${info.productCount.toLocaleString('en-US')} products (ANN ${info.annIndex}), ${http.length} + ${httpSameThread.length} distinct dev queries in ${ROUNDS} alternating rounds after ${warmUp.length} others as warm-up, limit 10, database ${server.dbKind}; start-up warm-up ${round(warmMs / 1000, 1)} s; client in a worker thread\n`,
      );
      process.stdout.write(
        `${formatTable(['single client', 'p50 ms', 'p99 ms'], [row('POST /v1/search over HTTP', http), row('  (client on the server thread)', httpSameThread), row('  embedding', stage.embed), row('  retrieval (vector + text)', stage.retrieve), row('  features + ranking', stage.fuse), row('  writes (search, impressions, session)', stage.write)])}\n`,
      );
      process.stdout.write(
        `16 connections: ${round(searches.rps, 1)} searches/s (p50 ${searches.p50} ms, p99 ${searches.p99} ms); GET /healthz ${round(healthz.rps, 0)} req/s; ratio ${round(searches.rps / healthz.rps, 4)}\n`,
      );
      if (learningRunning) {
        const ratio = (a: number, b: number) => round(a / b, 3).toString();
        process.stdout.write(
          `Global learning running back to back (${learnerRuns.length} full fits, median ${round(median(learnerRuns), 0)} ms each, over a log of ${seeded} seeded searches plus the run's own) against nothing running, single client in a worker thread, alternating rounds:\n`,
        );
        process.stdout.write(
          `${formatTable(
            ['', 'p50 ms', 'p99 ms'],
            [
              ['while learning runs', round(median(whileLearning), 2).toString(), round(percentile(whileLearning, 99), 2).toString()],
              ['nothing else running', round(median(idle), 2).toString(), round(percentile(idle, 99), 2).toString()],
              ['ratio', ratio(median(whileLearning), median(idle)), ratio(percentile(whileLearning, 99), percentile(idle, 99))],
            ],
          )}\n`,
        );
        process.stdout.write(
          `per run, median: reading the log ${round(median(readMs), 0)} ms (on this process's event loop and database), fitting ${round(median(fitMs), 0)} ms (on a worker thread)\n`,
        );
        process.stdout.write(`last fit: ${JSON.stringify(lastFit)}\n`);
      }
      if (baseline && baselineSearches) {
        const ratio = (a: number, b: number) => round(a / b, 3).toString();
        process.stdout.write(`Beside the same catalog served with ${baselineLabel} (client in a worker thread, alternating rounds):\n`);
        process.stdout.write(
          `${formatTable(
            ['', 'p50 ms', 'p99 ms', 'searches/s at 16'],
            [
              ['shipped', round(median(http), 2).toString(), round(percentile(http, 99), 2).toString(), round(searches.rps, 1).toString()],
              [
                'baseline',
                round(median(httpBaseline), 2).toString(),
                round(percentile(httpBaseline, 99), 2).toString(),
                round(baselineSearches.rps, 1).toString(),
              ],
              [
                'ratio shipped / baseline',
                ratio(median(http), median(httpBaseline)),
                ratio(percentile(http, 99), percentile(httpBaseline, 99)),
                ratio(searches.rps, baselineSearches.rps),
              ],
            ],
          )}\n`,
        );
      }
      process.stdout.write(
        `BENCH_JSON ${JSON.stringify({ bench: 'search', products: info.productCount, db: server.dbKind, http_p50_ms: round(median(http), 2), http_p99_ms: round(percentile(http, 99), 2), http_same_thread_p50_ms: round(median(httpSameThread), 2), warm_ms: round(warmMs, 0), split_p50_ms: Object.fromEntries(Object.entries(stage).map(([k, v]) => [k, round(median(v), 2)])), searches_per_s_16c: round(searches.rps, 1), healthz_rps: round(healthz.rps, 0), ...(learningRunning ? { learning_running_p50_ms: round(median(whileLearning), 2), learning_idle_p50_ms: round(median(idle), 2), learning_running_p99_ms: round(percentile(whileLearning, 99), 2), learning_idle_p99_ms: round(percentile(idle, 99), 2), learner_runs: learnerRuns.length, learner_run_median_ms: round(median(learnerRuns), 0) } : {}), ...(baseline && baselineSearches ? { baseline: baselineLabel, baseline_http_p50_ms: round(median(httpBaseline), 2), baseline_http_p99_ms: round(percentile(httpBaseline, 99), 2), baseline_searches_per_s_16c: round(baselineSearches.rps, 1) } : {}) })}\n`,
      );
    } finally {
      // autocannon's worker may still have requests in flight when the run resolves.
      await new Promise((r) => setTimeout(r, 1000));
      await server.close();
      await baseline?.close();
    }
    await baselineCatalog?.close();
    await catalog.close();
    await embedder.close();
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * The single-client loop on its own thread (plain JavaScript, so it needs no TypeScript loader):
 * one request at a time, each timed from sending to the last byte of the answer.
 */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const times = [];
  for (const query of workerData.queries) {
    const t = performance.now();
    const res = await fetch(workerData.url + '/v1/search', { method: 'POST', headers: { 'x-api-key': workerData.key, 'content-type': 'application/json' }, body: JSON.stringify({ query, limit: 10 }) });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error('search answered ' + res.status);
    times.push(performance.now() - t);
  }
  parentPort.postMessage(times);
})(); // a rejection ends the worker with an 'error' event
`;

function clientInWorker(url: string, key: string, queries: readonly string[]): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CLIENT, { eval: true, workerData: { url, key, queries } });
    worker.once('message', (times: number[]) => {
      resolve(times);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

await cli.run(main);
