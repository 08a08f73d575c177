/**
 * The most expensive valid request of each kind, beside a typical one of the same kind:
 *
 *   npm run bench:worst -- [--catalog-uri DIR] [--sample] [--rounds 3] [--only search,mcp] [--trace]
 *
 * For every route the app registers (its route table) and every tool POST /mcp lists, a typical
 * request and the largest valid ones: longest texts, most conversation turns, most excluded ids,
 * every filter at its longest, the largest batch, list limit 100, the longest date range, ten ids
 * per display receipt, and so on (the limits are the zod schemas' in src/core/schemas). A route
 * or tool with no request kind in worst/requests/ prints a "not covered" row rather than passing
 * unseen.
 *
 * How it measures. The server runs in this process (startBenchServer: PGlite in a temporary
 * directory, or a database of its own on DATABASE_URL's server) and the client in a child
 * process, so `process.cpuUsage()` around a batch of sequential requests is the server's CPU
 * alone: every thread of it (the embedding thread, LanceDB's, PGlite's WebAssembly on the main
 * thread) and nothing of the client's. On PostgreSQL the database's own processes are not counted.
 * The request log is flushed inside each batch, so its writes count for the requests that made them.
 * - CPU ms per request: the batch's CPU over its requests; median over the rounds.
 * - Event-loop block: the main thread's own CPU time between two ticks of a 5 ms timer (see
 *   BlockMeter), the largest in any round; beside it the wall-clock delay (monitorEventLoopDelay),
 *   which on a shared machine also counts the time the OS ran other processes.
 * - Memory: JavaScript heap allocated per request (V8's GC profiler: the rise in use plus what
 *   collections freed meanwhile) and the largest rise of RSS during the batch; medians.
 * A warm-up pass runs every request kind once (JIT, caches, analytics rollups) before the rounds;
 * within a round each kind's typical and worst batches run back to back, so drift on a shared
 * machine hits both alike. Every search text is new (dev queries not searched before; worst
 * requests of fresh made-up words), so neither the embedding cache nor the spelling cache answers.
 *
 * Targets (docs/benchmarks.md#the-most-expensive-request-of-each-kind): no request costs more
 * than 10× the CPU of a typical one of its kind, no search more than 3× a plain search, and none
 * blocks the event loop for more than 50 ms.
 *
 * The search rows run on the Home Depot catalog (../shared; built once into
 * .bench/homedepot-catalog, or `--catalog-uri DIR`) because its vocabulary sets the cost of
 * spelling correction; without it, or with `--sample`, on data/sample-catalog.jsonl.
 * Seeded first: a year of searches, impressions, clicks, conversions and request-log rows (bulk
 * SQL), a hundred searches with clicks, conversions, feedback votes and display receipts through
 * the API, 100 keys for the key list, 20 webhooks and 1,000 deliveries for the webhook lists.
 * `--only` runs the rows whose route or tool contains one of the words; `--trace` prints each
 * batch's wall time. Exits 1 when a request answers other than it should (the row says FAILED);
 * a request over its target is a finding, printed as OVER, not a failure of the bench.
 *
 * This file opens the catalog and the server and runs the steps in worst/: setup.ts (accounts and
 * seeding; the bulk SQL is ../seed.ts, shared with bench:analytics), requests/ (the catalogue of
 * request kinds, texts.ts their texts), run.ts and measure.ts (the rounds and what a batch costs),
 * verdicts.ts and report.ts (figures, verdicts, the table and BENCH_JSON).
 */
// First, so that the command line is checked before anything else loads (worst.command.ts).

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readFeed } from '../../src/catalog/files/detect.js';
import { loadConfig } from '../../src/config.js';
import { importCatalog } from '../../src/core/catalog/import.js';
import { RETRIEVAL_DEPTH } from '../../src/core/ranking/retrieval.js';
import type { Embedder } from '../../src/core/shared-ports.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { REPO_ROOT as ROOT } from '../repo-root.js';
import { sharedPath } from '../shared-data.js';
import { createBenchDatabase, ensureCatalog } from './deployment.js';
import { startBenchServer } from './lib.js';
import { Client, listedTools } from './worst/client.js';
import { writeReport } from './worst/report.js';
import { requestKinds } from './worst/requests/catalogue.js';
import { rowsOf, runRounds } from './worst/run.js';
import { prepare, servedFiles } from './worst/setup.js';
import { cli } from './worst.command.js';

const { values } = cli;
const rounds = cli.number('rounds', { integer: true, positive: true, default: 3 });
/** Route or tool name fragments to run (the others print "skipped"); all when absent. */
const only =
  values.only
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean) ?? null;

/** The Home Depot catalog (built once) unless --sample or it is missing, else the sample catalog in `work`. */
async function openCatalog(work: string, models: string, embedder: Embedder, homeDepot: boolean): Promise<{ catalog: LanceCatalogStore; catalogName: string }> {
  if (homeDepot) {
    const uri = resolve(values['catalog-uri'] ?? join(ROOT, '.bench/homedepot-catalog'));
    const used = await ensureCatalog(uri, models);
    const catalog = await LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri, annThreshold: 20_000, annIndex: 'ivf_hnsw_sq' });
    if ((await catalog.info())?.annIndex !== 'ivf_hnsw_sq') await catalog.rebuildVectorIndex('ivf_hnsw_sq');
    return { catalog, catalogName: used.startsWith('existing') ? `Home Depot (${uri})` : used };
  }
  const catalog = await LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri: join(work, 'catalog'), annThreshold: 1_000_000, annIndex: 'ivf_hnsw_sq' });
  const feed = await readFeed(join(ROOT, 'data/sample-catalog.jsonl'), {});
  await importCatalog(feed.records, { catalog, embedder }, { replace: true, dryRun: false });
  return { catalog, catalogName: 'sample (data/sample-catalog.jsonl)' };
}

async function main(): Promise<number> {
  const started = performance.now();
  const work = await mkdtemp(join(tmpdir(), 'aisle-bench-worst-'));
  const models = join(ROOT, '.bench/models');
  const homeDepot = !values.sample && sharedPath('data/eval/homedepot/products.jsonl') !== null;
  const embedder = await createEmbedder({ provider: 'use-lite', cacheDir: models });
  const { catalog, catalogName } = await openCatalog(work, models, embedder, homeDepot);
  const products = (await catalog.info())?.productCount ?? 0;
  const { databaseUrl } = loadConfig();
  const database = databaseUrl ? await createBenchDatabase(databaseUrl, 'aisle_worst_bench') : null;
  const server = await startBenchServer({ databaseUrl: database?.url, search: { catalog, embedder } });
  const client = new Client(server.url);
  try {
    await server.core.search().warm();
    const setup = await prepare(server, catalog, { homeDepot, catalogName, products });
    const files = await servedFiles();
    const rows = rowsOf(requestKinds(setup, files.swagger, files.assets), only);
    await runRounds(server, client, rows, { rounds, trace: values.trace === true, started });
    const tools = await listedTools(server.url, setup.keyA);
    return writeReport(rows, { catalogName, products, dbKind: server.dbKind, rounds, only, started, routes: server.routes, tools });
  } finally {
    client.close();
    await server.close();
    await catalog.close();
    await embedder.close();
    await database?.drop();
    await rm(work, { recursive: true, force: true });
  }
}

await cli.run(main);
