/**
 * A catalog at scale, measured end to end (docs/benchmarks.md): `npm run bench:scale`. Each step
 * runs the operator's own command in a child process (npm run ingest, bench:load, eval,
 * bench:memory) on one catalog, and this bench collects their figures into one report.
 */
// First, so that the command line is checked before anything else loads.

import { execFileSync, spawn } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { CliError, EXIT } from '../../src/cli/errors.js';
import { loadConfig } from '../../src/config.js';
import { RETRIEVAL_DEPTH } from '../../src/core/ranking/retrieval.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { sharedPath } from '../shared-data.js';
import { syntheticCatalog } from './gen-catalog.js';
import { formatTable, round } from './lib.js';
import { cli } from './scale.command.js';

const products = cli.number('products', { integer: true, positive: true, default: 1_000_000 });
const duration = cli.number('duration', { integer: true, positive: true, default: 20 });
const embeddingModel = cli.values['embedding-model'];

/** Runs an npm script's entry as its npm script does; stderr shown as it comes (progress bars), stdout kept. */
function run(entry: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['src/launcher/run.mjs', entry, ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (c: string) => {
      stdout += c;
      if (cli.verbose) process.stderr.write(c);
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolvePromise({ stdout, ms: performance.now() - started }) : reject(new Error(`${entry} ${args.join(' ')} exited with ${code}`)),
    );
  });
}

const benchJson = (stdout: string): Record<string, unknown> => {
  const line = stdout.split('\n').findLast((l) => l.startsWith('BENCH_JSON '));
  if (line === undefined) throw new Error('no BENCH_JSON line in the output');
  return JSON.parse(line.slice('BENCH_JSON '.length)) as Record<string, unknown>;
};

/** CrowdFlower's products, then synthetic ones up to `count`, as one JSONL feed. */
async function writeFeed(path: string, setDir: string, count: number): Promise<void> {
  const out = createWriteStream(path);
  let written = 0;
  const write = async (row: unknown) => {
    if (!out.write(`${JSON.stringify(row)}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
    written++;
  };
  for await (const line of createInterface({ input: createReadStream(join(setDir, 'products.jsonl')) })) {
    if (line.trim() === '' || written >= count) continue;
    const p = JSON.parse(line) as { product_id: string; title: string; description?: string; category?: string };
    await write({ id: p.product_id, title: p.title, description: p.description ?? '', ...(p.category ? { category: p.category } : {}) });
  }
  for await (const row of syntheticCatalog(Math.max(0, count - written), 42)) await write(row);
  await new Promise<void>((r, j) => out.end((err?: Error | null) => (err ? j(err) : r())));
}

const duBytes = (dir: string) => Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);

async function main(): Promise<void> {
  const setDir = sharedPath('data/eval/crowdflower');
  if (!setDir) throw new CliError(EXIT.noInput, 'bench:scale mixes in CrowdFlower products from ../shared/data/eval/crowdflower, which is absent');
  const loadBefore = loadavg()[0] ?? 0;
  const work = cli.values.work ? resolve(cli.values.work) : await mkdtemp(join(tmpdir(), 'aisle-bench-scale-'));
  await mkdir(work, { recursive: true });
  const catalogUri = join(work, 'catalog');
  const models = join(work, 'data', 'models');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AISLE_DATA_DIR: join(work, 'data'),
    AISLE_CATALOG_URI: catalogUri,
    AISLE_SAMPLE_CATALOG: 'false',
    ...(embeddingModel ? { AISLE_EMBEDDING_MODEL: embeddingModel } : {}),
  };
  const model = embeddingModel ?? 'use-lite';
  try {
    // 1. The feed and the import, as an operator runs it.
    let importMs: number | null = null;
    let summary: Record<string, unknown> | null = null;
    if (!existsSync(join(catalogUri, 'meta.lance')) && !existsSync(join(catalogUri, 'products.lance'))) {
      const feed = join(work, 'feed.jsonl');
      process.stderr.write(`bench:scale: writing a feed of ${products.toLocaleString('en-US')} products\n`);
      await writeFeed(feed, setDir, products);
      process.stderr.write(`bench:scale: npm run ingest -- ${feed} --json (model ${model})\n`);
      const ingest = await run('tools/cli/ingest.ts', [feed, '--json'], env);
      importMs = ingest.ms;
      summary = JSON.parse(ingest.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
      await rm(feed, { force: true });
    } else process.stderr.write(`bench:scale: reusing the catalog at ${catalogUri}\n`);
    // The import built the ANN index inside its time; building it again alone times it, and
    // measures its recall@100 against exact search on probe queries (ingest.md, "Indexes").
    const store = await LanceCatalogStore.open({ uri: catalogUri, recallDepth: RETRIEVAL_DEPTH, annThreshold: 20_000, annIndex: 'ivf_hnsw_sq' });
    let info = await store.info();
    let indexMs: number | null = null;
    if (info && info.annIndex !== 'none') {
      process.stderr.write('bench:scale: building the ANN index again, timed\n');
      const started = performance.now();
      info = await store.rebuildVectorIndex(info.annIndex);
      indexMs = performance.now() - started;
    }
    await store.close();
    const disk = duBytes(catalogUri);

    // 2. Search latency and RSS under load (PostgreSQL, npm start's processes).
    let load: Record<string, unknown> | null = null;
    if (!cli.values['skip-load']) {
      if (!loadConfig().databaseUrl)
        throw new CliError(EXIT.config, 'bench:scale runs bench:load, which needs DATABASE_URL (PostgreSQL); pass --skip-load to leave it out');
      load = benchJson((await run('tools/bench/load.ts', ['--catalog-uri', catalogUri, '--duration', String(duration)], env)).stdout);
    }

    // 3. CrowdFlower dev inside the big catalog, and on its own catalog, in the same run.
    const evalArgs = (catalog: string) => [
      '--set',
      setDir,
      '--catalog',
      catalog,
      '--model-cache',
      models,
      ...(embeddingModel ? ['--embedding-model', embeddingModel] : []),
    ];
    const inside = benchJson((await run('tools/relevance/eval.ts', evalArgs(catalogUri), env)).stdout);
    const alone = benchJson((await run('tools/relevance/eval.ts', evalArgs(join(work, 'crowdflower-alone')), env)).stdout);

    // 4. Memory: the vocabulary and lexicon, the product cache.
    const memory = benchJson((await run('tools/bench/memory.ts', ['--catalog-uri', catalogUri], env)).stdout);

    const ndcg = (e: Record<string, unknown>, system: string) => {
      const value = (e.systems as Record<string, { ndcg: number }>)[system]?.ndcg;
      return value === undefined ? null : round(value, 4);
    };
    const steps = memory.steps as { step: string; rss_mb: number }[];
    const delta = (prefix: string) => {
      const i = steps.findIndex((s) => s.step.startsWith(prefix));
      return i > 0 ? round(steps[i]!.rss_mb - steps[i - 1]!.rss_mb, 1) : null;
    };
    const single = (load?.single_client ?? null) as { p50_ms: number; p99_ms: number } | null;
    const sixteen = (load?.search_only ?? null) as { p50_ms: number; p99_ms: number; rps: number } | null;
    const json = {
      bench: 'scale',
      products: info?.productCount ?? null,
      model: info?.model ?? null,
      loadavg_1m: round(loadBefore, 2),
      import_s: importMs === null ? null : round(importMs / 1000, 1),
      import_per_s: importMs === null || !info ? null : round(info.productCount / (importMs / 1000), 1),
      import_summary: summary,
      cold_start_fit_s: round(((summary?.rankingModel as { ms?: number } | undefined)?.ms ?? 0) / 1000, 1),
      index_build_s: indexMs === null ? null : round(indexMs / 1000, 1),
      disk_mb: round(disk / 1024 / 1024, 1),
      ann_index: info?.annIndex ?? null,
      ann_recall_at_100: info?.annRecall ?? null,
      search_one_client: single,
      search_16_connections: sixteen,
      rss_peak_mb: load?.rss_peak_mb ?? null,
      crowdflower_ndcg: {
        inside: { shipped: ndcg(inside, 'Aisle cold-start, as shipped'), rerank: ndcg(inside, 'Aisle rerank') },
        alone: { shipped: ndcg(alone, 'Aisle cold-start, as shipped'), rerank: ndcg(alone, 'Aisle rerank') },
      },
      vocabulary_and_lexicon_mb: delta('+ catalog vocabulary'),
      product_cache_mb: delta('+ product cache filled'),
      memory_steps: steps,
    };
    const f = (v: unknown) => (v === null || v === undefined ? '-' : String(v));
    const rows = [
      ['products', f(json.products)],
      ['import (index and cold-start fit included)', json.import_s === null ? 'reused' : `${json.import_s} s, ${json.import_per_s} products/s`],
      ['cold-start fit, inside the import', json.import_s === null ? '-' : `${json.cold_start_fit_s} s`],
      ['ANN index built alone', json.index_build_s === null ? '-' : `${json.index_build_s} s`],
      ['disk used', `${json.disk_mb} MB`],
      ['ANN index, recall@100 against exact', `${f(json.ann_index)}, ${f(json.ann_recall_at_100)}`],
      ['search, one client: p50 / p99', single ? `${single.p50_ms} / ${single.p99_ms} ms` : '-'],
      ['search, 16 connections: p50 / p99, searches/s', sixteen ? `${sixteen.p50_ms} / ${sixteen.p99_ms} ms, ${sixteen.rps}` : '-'],
      ['largest API process RSS under load', f((json.rss_peak_mb as { search?: { per_process?: number } } | null)?.search?.per_process)],
      ['CrowdFlower dev NDCG@10 as shipped: inside / alone', `${f(json.crowdflower_ndcg.inside.shipped)} / ${f(json.crowdflower_ndcg.alone.shipped)}`],
      ['CrowdFlower dev NDCG@10 rerank: inside / alone', `${f(json.crowdflower_ndcg.inside.rerank)} / ${f(json.crowdflower_ndcg.alone.rerank)}`],
      ['vocabulary and lexicon (RSS)', `${f(json.vocabulary_and_lexicon_mb)} MB`],
      ['product cache filled (RSS)', `${f(json.product_cache_mb)} MB`],
    ];
    process.stdout.write(
      `Scale bench: ${f(json.products)} products, ${f(json.model)}, load average ${json.loadavg_1m}\n\n${formatTable(['measure', 'value'], rows)}\n\n`,
    );
    process.stdout.write(`BENCH_JSON ${JSON.stringify(json)}\n`);
  } finally {
    if (!cli.values.work) await rm(work, { recursive: true, force: true });
  }
}

await cli.run(main);
