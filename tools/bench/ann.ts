/**
 * ANN vs exact vector search, as search uses it: `npm run bench:ann -- [--sets crowdflower,homedepot]
 * [--size 20000] [--synthetic 1000000] [--queries 300] [--sweep ef=2,3,4 overfetch=1,1.5]`.
 *
 * The catalog: the real USE-lite embeddings of the labelled sets' products (../shared/data/eval;
 * default: Home Depot's 54,667), in the order of `--sets`, cut at `--size`; queries are the sets'
 * dev queries, taken alternately. Without ../shared, or with `--synthetic N`: N vectors made from
 * a few thousand real embeddings of synthetic product texts (each a mix of two plus noise,
 * re-normalised), because embedding a million texts would take the bench past its time budget;
 * the structure (clusters of near-duplicates) is that of a catalog.
 *
 * Each query asks the store's vectorSearch for the retrieval depth search uses (100), first
 * exactly, then through each index kind (rebuilt here; build time), and reports recall@100 and
 * recall@10 against exact search in the same run, with median and p99 latency. `--sweep` repeats
 * the IVF_HNSW_SQ measurement for each combination of the listed query settings (indexes.ts).
 */
// First, so that the command line is checked before anything else loads (ann.command.ts).

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFeed } from '../../src/catalog/files/detect.js';
import { UsageError } from '../../src/cli/errors.js';
import { readJsonLines } from '../../src/cli/files.js';
import { productEmbeddingText, toEmbeddingInput } from '../../src/core/catalog/embedding-text.js';
import { type FeedRecord, importCatalog } from '../../src/core/catalog/import.js';
import { normalizeProduct } from '../../src/core/catalog/normalize.js';
import type { CatalogRow } from '../../src/core/catalog/ports.js';
import { mulberry32 } from '../../src/core/random.js';
import { RETRIEVAL_DEPTH } from '../../src/core/ranking/retrieval.js';
import type { Embedder } from '../../src/core/shared-ports.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { type AnnTuning, annIndexConfig } from '../../src/store/lance/indexes.js';
import { sharedPath } from '../shared-data.js';
import { cli } from './ann.command.js';
import { syntheticCatalog, syntheticProduct } from './gen-catalog.js';
import { formatTable, median, percentile, round } from './lib.js';

const { values, positionals } = cli;
const queryCount = cli.number('queries', { integer: true, positive: true, default: 300 });
const sizeLimit = cli.number('size', { integer: true, positive: true });
const synthetic = cli.number('synthetic', { integer: true, positive: true });
const KINDS = ['ivf_hnsw_sq', 'ivf_pq'] as const;
const kinds = cli.check(() =>
  values.kinds.split(',').map((kind) => {
    if (!(KINDS as readonly string[]).includes(kind)) throw new UsageError(`--kinds takes ${KINDS.join(', ')}, not ${kind}`);
    return kind as (typeof KINDS)[number];
  }),
);
/** Search's retrieval depth: the candidates each query needs (search-service.ts). */
const DEPTH = RETRIEVAL_DEPTH;

function mix(a: Float32Array, b: Float32Array, random: () => number): Float32Array {
  const w = 0.7 + 0.3 * random();
  const out = new Float32Array(a.length);
  let norm = 0;
  for (let i = 0; i < a.length; i++) {
    out[i] = w * a[i]! + (1 - w) * b[i]! + (random() - 0.5) * 0.02;
    norm += out[i]! * out[i]!;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < out.length; i++) out[i]! /= norm;
  return out;
}

async function* realProducts(sets: readonly string[], size: number): AsyncGenerator<FeedRecord> {
  let count = 0;
  for (const set of sets) {
    for await (const record of (await readFeed(sharedPath('data/eval', set, 'products.jsonl')!, {})).records) {
      if (count++ >= size) return;
      yield record;
    }
  }
}

async function buildReal(catalog: LanceCatalogStore, embedder: Embedder, sets: readonly string[], size: number): Promise<Float32Array[]> {
  if ((await catalog.info()) === null) {
    process.stderr.write(`embedding and importing ${sets.join(' + ')} (a few minutes)…\n`);
    await importCatalog(realProducts(sets, size), { catalog, embedder }, { replace: true, dryRun: false });
  }
  const perSet = await Promise.all(sets.map((set) => readJsonLines<{ query: string }>(sharedPath('data/eval', set, 'queries_dev.jsonl')!)));
  const texts: string[] = [];
  for (let i = 0; texts.length < queryCount && perSet.some((q) => i < q.length); i++) {
    for (const q of perSet) if (q[i] && texts.length < queryCount) texts.push(toEmbeddingInput(q[i]!.query));
  }
  const vectors: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += 64) vectors.push(...(await embedder.embed(texts.slice(i, i + 64))));
  return vectors;
}

async function buildSynthetic(catalog: LanceCatalogStore, embedder: Embedder, count: number): Promise<Float32Array[]> {
  const random = mulberry32(3);
  const baseTexts: string[] = [];
  const bases: CatalogRow['product'][] = [];
  for await (const row of syntheticCatalog(4000, 11)) {
    const n = normalizeProduct(row);
    if (n.ok) bases.push(n.product);
  }
  for (const b of bases) baseTexts.push(productEmbeddingText(b));
  const baseVectors: Float32Array[] = [];
  for (let i = 0; i < baseTexts.length; i += 256) baseVectors.push(...(await embedder.embed(baseTexts.slice(i, i + 256))));
  if ((await catalog.info())?.productCount !== count) {
    process.stderr.write(`writing ${count} synthetic vectors…\n`);
    const writer = await catalog.openWriter({ model: embedder.model, dimensions: embedder.dimensions, replace: true });
    const productRandom = mulberry32(5);
    for (let start = 0; start < count; start += 20_000) {
      const rows: CatalogRow[] = [];
      for (let i = start; i < Math.min(count, start + 20_000); i++) {
        const n = normalizeProduct(syntheticProduct(i, productRandom));
        if (!n.ok) continue;
        const a = baseVectors[Math.floor(random() * baseVectors.length)]!;
        const b = baseVectors[Math.floor(random() * baseVectors.length)]!;
        rows.push({ product: n.product, vector: mix(a, b, random) });
      }
      await writer.write(rows);
    }
    await writer.commit();
  }
  return Array.from({ length: queryCount }, () =>
    mix(baseVectors[Math.floor(random() * baseVectors.length)]!, baseVectors[Math.floor(random() * baseVectors.length)]!, random),
  );
}

async function measure(catalog: LanceCatalogStore, queries: Float32Array[], exact: boolean) {
  const latencies: number[] = [];
  const results: string[][] = [];
  for (const q of queries.slice(0, 10)) await catalog.vectorSearch(q, { limit: DEPTH, exact });
  for (const q of queries) {
    const t = performance.now();
    const hits = await catalog.vectorSearch(q, { limit: DEPTH, exact });
    latencies.push(performance.now() - t);
    results.push(hits.map((h) => h.product.productId));
  }
  return { results, p50: median(latencies), p99: percentile(latencies, 99) };
}

/** Share of exact search's first `k` found among the first `k` of `got`, over all queries. */
function recallAt(k: number, got: readonly string[][], truth: readonly string[][]): number {
  let found = 0;
  let total = 0;
  got.forEach((ids, i) => {
    const expected = new Set(truth[i]!.slice(0, k));
    found += ids.slice(0, k).filter((id) => expected.has(id)).length;
    total += expected.size;
  });
  return found / total;
}

/** `ef=2,3 overfetch=1,1.5` → every combination, as partial tunings. */
function sweepGrid(): Partial<AnnTuning>[] {
  let grid: Partial<AnnTuning>[] = [{}];
  for (const arg of positionals) {
    const [key, list] = arg.split('=');
    const name = key === 'ef' ? 'efPerResult' : key;
    const numbers = (list ?? '').split(',').map(Number);
    if ((name !== 'efPerResult' && name !== 'overfetch' && name !== 'nprobes') || !numbers.every((v) => Number.isFinite(v) && v > 0)) {
      throw new UsageError(`--sweep takes ef=N,N overfetch=N,N nprobes=N,N, not ${arg}`);
    }
    grid = grid.flatMap((g) => numbers.map((v) => ({ ...g, [name]: v })));
  }
  return grid;
}
const grid = cli.check(() => {
  if (!values.sweep && positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]} (settings to sweep follow --sweep)`);
  return sweepGrid();
});

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'aisle-bench-ann-'));
  const sets = values.sets.split(',');
  const real = synthetic === undefined && sets.every((set) => sharedPath('data/eval', set, 'products.jsonl'));
  try {
    const embedder = await createEmbedder({ provider: 'use-lite', cacheDir: join(work, 'models') });
    const uri = values['catalog-uri'] ?? join(work, 'catalog');
    // A threshold above any size: the bench builds each index kind itself.
    const open = (annTuning?: Partial<AnnTuning>) =>
      LanceCatalogStore.open({
        recallDepth: RETRIEVAL_DEPTH,
        uri,
        annThreshold: Number.MAX_SAFE_INTEGER,
        annIndex: 'ivf_hnsw_sq',
        ...(annTuning ? { annTuning } : {}),
      });
    const catalog = await open();
    const queries = real
      ? await buildReal(catalog, embedder, sets, sizeLimit ?? Number.MAX_SAFE_INTEGER)
      : await buildSynthetic(catalog, embedder, synthetic ?? 100_000);
    const size = (await catalog.info())!.productCount;
    const source = real ? sets.join(' + ') : 'synthetic';

    await catalog.rebuildVectorIndex('none');
    const exact = await measure(catalog, queries, true);
    const rows = [['exact (brute force)', '-', '-', '1.000', '1.000', round(exact.p50, 2).toString(), round(exact.p99, 2).toString(), '1']];
    const json: Record<string, unknown> = {
      bench: 'ann',
      products: size,
      source,
      depth: DEPTH,
      exact_p50_ms: round(exact.p50, 2),
      exact_p99_ms: round(exact.p99, 2),
    };
    const report = (label: string, settings: string, buildS: number | null, ann: Awaited<ReturnType<typeof measure>>) => {
      const r100 = recallAt(DEPTH, ann.results, exact.results);
      const r10 = recallAt(10, ann.results, exact.results);
      rows.push([
        label,
        settings,
        buildS === null ? '-' : round(buildS, 1).toString(),
        r100.toFixed(4),
        r10.toFixed(4),
        round(ann.p50, 2).toString(),
        round(ann.p99, 2).toString(),
        round(exact.p50 / ann.p50, 1).toString(),
      ]);
      return {
        ...(buildS === null ? {} : { build_s: round(buildS, 1) }),
        recall_at_100: round(r100, 4),
        recall_at_10: round(r10, 4),
        p50_ms: round(ann.p50, 2),
        p99_ms: round(ann.p99, 2),
      };
    };
    const describe = (t: AnnTuning) => `ef ${t.efPerResult}×, fetch ${t.overfetch}×, nprobes ${t.nprobes}`;
    for (const kind of kinds) {
      const t = performance.now();
      await catalog.rebuildVectorIndex(kind);
      const buildS = (performance.now() - t) / 1000;
      json[kind] = report(
        kind,
        kind === 'ivf_hnsw_sq' ? describe(annIndexConfig(kind).tuning) : 'nprobes 32, refine 10',
        buildS,
        await measure(catalog, queries, false),
      );
      if (kind === 'ivf_hnsw_sq' && values.sweep) {
        const sweep: Record<string, unknown>[] = [];
        for (const tuning of grid) {
          const tuned = await open(tuning);
          const settings = describe({ ...annIndexConfig(kind).tuning, ...tuning });
          sweep.push({ settings, ...report(`${kind} (sweep)`, settings, null, await measure(tuned, queries, false)) });
          await tuned.close();
        }
        json.sweep = sweep;
      }
    }
    process.stdout.write(
      `ANN vs exact on ${size.toLocaleString('en-US')} products (${source}), ${queries.length} queries, depth ${DEPTH}; results re-scored exactly (catalog-store.ts)\n`,
    );
    process.stdout.write(`${formatTable(['index', 'query settings', 'build s', 'recall@100', 'recall@10', 'p50 ms', 'p99 ms', 'speed-up p50'], rows)}\n`);
    process.stdout.write(`BENCH_JSON ${JSON.stringify(json)}\n`);
    await catalog.close();
    await embedder.close();
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await cli.run(main);
