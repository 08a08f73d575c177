/**
 * Ingest throughput on the 54,667-product Home Depot catalog (../shared/data/eval/homedepot),
 * or on a synthetic catalog when that is absent: `npm run bench:ingest -- [--file F] [--limit N] [--pairs N]`.
 *
 * Baselines in the same run: reading + normalising only (--dry-run path) and embedding only, so
 * the full import's time splits into parse, embed and write. The full import runs `--pairs`
 * times without placement in the taxonomy and as many with it (alternating; each placement
 * starts with no category names embedded, as a fresh process does), so the cost of placement is
 * the ratio of their medians. Reports wall time, products/s and peak RSS.
 */
// First, so that the command line is checked before anything else loads (ingest.command.ts).

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFeed } from '../../src/catalog/files/detect.js';
import { requireReadableFile } from '../../src/cli/files.js';
import { productEmbeddingText } from '../../src/core/catalog/embedding-text.js';
import { type FeedRecord, importCatalog } from '../../src/core/catalog/import.js';
import { normalizeProduct } from '../../src/core/catalog/normalize.js';
import type { CatalogProduct } from '../../src/core/catalog/product.js';
import { RETRIEVAL_DEPTH } from '../../src/core/ranking/retrieval.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { openPlacer } from '../../src/knowledge/placer.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { sharedPath } from '../shared-data.js';
import { syntheticCatalog } from './gen-catalog.js';
import { cli } from './ingest.command.js';
import { formatTable, median, round } from './lib.js';

const { values } = cli;
const limitFlag = cli.number('limit', { integer: true, positive: true });
const pairs = cli.number('pairs', { integer: true, positive: true, default: 1 });

async function* limited(records: AsyncIterable<FeedRecord>, limit: number): AsyncIterable<FeedRecord> {
  let n = 0;
  for await (const r of records) {
    if (n++ >= limit) return;
    yield r;
  }
}

async function main(): Promise<void> {
  if (values.file !== undefined) requireReadableFile(values.file);
  const work = await mkdtemp(join(tmpdir(), 'aisle-bench-ingest-'));
  try {
    let file = values.file ?? sharedPath('data/eval/homedepot/products.jsonl');
    if (file === null) {
      process.stderr.write('../shared/data/eval/homedepot is absent: benchmarking a 54,667-product synthetic catalog instead\n');
      file = join(work, 'synthetic.jsonl');
      const lines: string[] = [];
      for await (const row of syntheticCatalog(54_667, 7)) lines.push(JSON.stringify(row));
      await writeFile(file, `${lines.join('\n')}\n`);
    }
    const limit = limitFlag ?? Number.POSITIVE_INFINITY;
    const cacheDir = values['cache-dir'] ?? join(work, 'models');
    const embedder = await createEmbedder({ provider: 'use-lite', cacheDir });
    const rssBefore = process.memoryUsage().rss;

    // 1. Parse + normalise only.
    let t = performance.now();
    const products: CatalogProduct[] = [];
    for await (const r of limited((await readFeed(file, {})).records, limit)) {
      if ('row' in r) {
        const n = normalizeProduct(r.row);
        if (n.ok) products.push(n.product);
      }
    }
    const parseMs = performance.now() - t;

    // 2. Embedding only, in the ingest batch size.
    t = performance.now();
    for (let i = 0; i < products.length; i += 256) await embedder.embed(products.slice(i, i + 256).map(productEmbeddingText));
    const embedMs = performance.now() - t;

    // 3. The real import: read, normalise, embed, write, index, publish; without placement, then
    // with it, each into a catalog of its own.
    const times = { bare: [] as number[], placed: [] as number[] };
    let summary: Awaited<ReturnType<typeof importCatalog>> | null = null;
    for (let pair = 0; pair < pairs; pair++) {
      for (const mode of ['bare', 'placed'] as const) {
        const catalog = await LanceCatalogStore.open({
          recallDepth: RETRIEVAL_DEPTH,
          uri: join(work, `catalog-${mode}-${pair}`),
          annThreshold: 20_000,
          annIndex: 'ivf_hnsw_sq',
        });
        t = performance.now();
        const placer = mode === 'placed' ? await openPlacer(embedder, [], { cached: false }) : undefined;
        summary = await importCatalog(
          limited((await readFeed(file, {})).records, limit),
          { catalog, embedder, ...(placer ? { placer } : {}) },
          { replace: true, dryRun: false },
        );
        times[mode].push(performance.now() - t);
        process.stderr.write(`import ${mode} ${pair + 1}/${pairs}: ${round(times[mode].at(-1)! / 1000, 1)} s\n`);
        await catalog.close();
        await rm(join(work, `catalog-${mode}-${pair}`), { recursive: true, force: true });
      }
    }
    const fullMs = median(times.placed);
    const bareMs = median(times.bare);
    const peakRssMb = process.resourceUsage().maxRSS / 1024;

    const n = products.length;
    const rows = [
      ['parse + normalise', round(parseMs / 1000, 1).toString(), Math.round(n / (parseMs / 1000)).toString(), round(parseMs / fullMs, 3).toString()],
      ['embed only (batch 256)', round(embedMs / 1000, 1).toString(), Math.round(n / (embedMs / 1000)).toString(), round(embedMs / fullMs, 3).toString()],
      [
        'full import without placement',
        round(bareMs / 1000, 1).toString(),
        Math.round(summary!.imported / (bareMs / 1000)).toString(),
        round(bareMs / fullMs, 3).toString(),
      ],
      ['full import (with placement)', round(fullMs / 1000, 1).toString(), Math.round(summary!.imported / (fullMs / 1000)).toString(), '1'],
    ];
    process.stdout.write(`Ingest of ${file} (${n} valid products, ${summary!.skipped} skipped), model ${embedder.model}; full imports: medians of ${pairs}\n`);
    process.stdout.write(`${formatTable(['stage', 'seconds', 'products/s', 'share of full'], rows)}\n`);
    process.stdout.write(
      `placement adds ${round((fullMs / bareMs - 1) * 100, 1)} % to a fresh import (${times.placed.map((m) => round(m / 1000, 1)).join(', ')} s with, ${times.bare.map((m) => round(m / 1000, 1)).join(', ')} s without)\n`,
    );
    process.stdout.write(`peak RSS ${Math.round(peakRssMb)} MB (before: ${Math.round(rssBefore / 1048576)} MB); catalog ${JSON.stringify(summary!.catalog)}\n`);
    process.stdout.write(
      `BENCH_JSON ${JSON.stringify({ bench: 'ingest', products: n, parse_s: round(parseMs / 1000, 2), embed_s: round(embedMs / 1000, 2), full_s: round(fullMs / 1000, 2), full_without_placement_s: round(bareMs / 1000, 2), placement_ratio: round(fullMs / bareMs, 3), products_per_s: Math.round(summary!.imported / (fullMs / 1000)), peak_rss_mb: Math.round(peakRssMb), ann_index: summary!.catalog?.annIndex })}\n`,
    );
    await embedder.close();
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await cli.run(main);
