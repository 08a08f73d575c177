/**
 * ANN vs exact vector search: `npm run bench:ann -- [--synthetic 1000000] [--queries 200]`.
 *
 * Default: the Home Depot catalog's real USE-lite embeddings (../shared/data/eval/homedepot;
 * falls back to synthetic when absent) and its dev queries. For each vector index kind the
 * catalog's index is rebuilt (build time), then every query runs limit 10: recall@10 against
 * exact search in the same run, median and p99 latency.
 *
 * --synthetic N: N vectors made from a few thousand real embeddings of synthetic product texts
 * (each a mix of two plus noise, re-normalised), because embedding a million texts would take the
 * bench past its time budget; the structure (clusters of near-duplicates) is that of a catalog.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { productEmbeddingText, toEmbeddingInput } from '../../src/core/catalog/embedding-text.js';
import { ingestCatalog } from '../../src/core/catalog/ingest.js';
import { normalizeProduct } from '../../src/core/catalog/normalize.js';
import type { AnnIndexKind, CatalogRow, Embedder } from '../../src/core/ports.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { readFeed } from '../../src/ingest/formats/detect.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { mulberry32, syntheticCatalog, syntheticProduct } from '../gen-catalog.js';
import { formatTable, median, round } from './lib.js';
import { percentile, readJsonl, sharedPath } from './shared-data.js';

const { values } = parseArgs({
  options: { synthetic: { type: 'string' }, queries: { type: 'string', default: '200' }, 'catalog-uri': { type: 'string' }, kinds: { type: 'string', default: 'ivf_hnsw_sq,ivf_pq' } },
});

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

async function buildHomeDepot(catalog: LanceCatalogStore, embedder: Embedder): Promise<Float32Array[]> {
  const products = sharedPath('data/eval/homedepot/products.jsonl')!;
  if ((await catalog.info()) === null) {
    process.stderr.write('embedding and importing the Home Depot catalog (a few minutes)…\n');
    await ingestCatalog((await readFeed(products, {})).records, { catalog, embedder }, { replace: true, dryRun: false });
  }
  const queries = await readJsonl<{ query: string }>(sharedPath('data/eval/homedepot/queries_dev.jsonl')!, Number(values.queries));
  const texts = queries.map((q) => toEmbeddingInput(q.query));
  return embedder.embed(texts.slice(0, Number(values.queries)));
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
  return Array.from({ length: Number(values.queries) }, () =>
    mix(baseVectors[Math.floor(random() * baseVectors.length)]!, baseVectors[Math.floor(random() * baseVectors.length)]!, random),
  );
}

async function measure(catalog: LanceCatalogStore, queries: Float32Array[], exact: boolean) {
  const latencies: number[] = [];
  const results: string[][] = [];
  for (const q of queries.slice(0, 10)) await catalog.vectorSearch(q, { limit: 10, exact });
  for (const q of queries) {
    const t = performance.now();
    const hits = await catalog.vectorSearch(q, { limit: 10, exact });
    latencies.push(performance.now() - t);
    results.push(hits.map((h) => h.product.productId));
  }
  return { results, p50: median(latencies), p99: percentile(latencies, 99) };
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'aisle-bench-ann-'));
  const synthetic = values.synthetic ? Number(values.synthetic) : sharedPath('data/eval/homedepot') ? null : 100_000;
  try {
    const embedder = await createEmbedder({ provider: 'use-lite', cacheDir: join(work, 'models') });
    // A threshold above any size: the bench builds each index kind itself.
    const catalog = await LanceCatalogStore.open({ uri: values['catalog-uri'] ?? join(work, 'catalog'), annThreshold: Number.MAX_SAFE_INTEGER, annIndex: 'ivf_hnsw_sq' });
    const queries = synthetic === null ? await buildHomeDepot(catalog, embedder) : await buildSynthetic(catalog, embedder, synthetic);
    const size = (await catalog.info())!.productCount;

    await catalog.rebuildVectorIndex('none');
    const exact = await measure(catalog, queries, true);
    const rows = [['exact (brute force)', '-', '1.000', round(exact.p50, 2).toString(), round(exact.p99, 2).toString(), '1']];
    const json: Record<string, unknown> = { bench: 'ann', products: size, source: synthetic === null ? 'homedepot' : 'synthetic', exact_p50_ms: round(exact.p50, 2) };
    for (const kind of values.kinds.split(',') as Exclude<AnnIndexKind, 'none'>[]) {
      const t = performance.now();
      await catalog.rebuildVectorIndex(kind);
      const buildS = (performance.now() - t) / 1000;
      const ann = await measure(catalog, queries, false);
      let found = 0;
      ann.results.forEach((ids, i) => {
        const truth = new Set(exact.results[i]);
        found += ids.filter((id) => truth.has(id)).length;
      });
      const recall = found / exact.results.reduce((s, r) => s + r.length, 0);
      rows.push([kind, round(buildS, 1).toString(), round(recall, 3).toFixed(3), round(ann.p50, 2).toString(), round(ann.p99, 2).toString(), round(exact.p50 / ann.p50, 1).toString()]);
      json[kind] = { build_s: round(buildS, 1), recall_at_10: round(recall, 4), p50_ms: round(ann.p50, 2), p99_ms: round(ann.p99, 2) };
    }
    process.stdout.write(`ANN vs exact on ${size.toLocaleString('en-US')} products (${json.source}), ${queries.length} queries, limit 10\n`);
    process.stdout.write(`${formatTable(['index', 'build s', 'recall@10', 'p50 ms', 'p99 ms', 'speed-up p50'], rows)}\n`);
    process.stdout.write(`BENCH_JSON ${JSON.stringify(json)}\n`);
    await catalog.close();
    await embedder.close();
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
