/**
 * Keeping a catalog fresh (docs/ingest.md, "Re-imports and deltas"): `npm run bench:freshness`.
 * Times, on one synthetic catalog: the fresh import with its index and cold-start fit; the same
 * feed imported again; price-only deltas, from the import's start until another catalog handle
 * (an API process) serves the new prices; and many small delta commits, after which search
 * latency and storage are compared with the same catalog after upkeep (compacted, old versions
 * removed). Reports BENCH_JSON for BENCHMARKS.md.
 */
// First, so that the command line is checked before anything else loads.

import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FeedRecord, type ImportSummary, importCatalog } from '../../src/core/catalog/import.js';
import { uuidV5 } from '../../src/core/catalog/normalize.js';
import { RETRIEVAL_DEPTH } from '../../src/core/ranking/retrieval.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { cli } from './freshness.command.js';
import { syntheticCatalog } from './gen-catalog.js';
import { formatTable, median, percentile, round } from './lib.js';

const products = cli.number('products', { integer: true, positive: true, default: 100_000 });
const commits = cli.number('commits', { integer: true, positive: true, default: 1_000 });
const commitSize = cli.number('commit-size', { integer: true, positive: true, default: 10 });

async function* asFeed(rows: readonly Record<string, unknown>[]): AsyncIterable<FeedRecord> {
  let line = 0;
  for (const row of rows) yield { line: ++line, row };
}

const duBytes = (dir: string) => Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'aisle-bench-freshness-'));
  try {
    const uri = join(work, 'catalog');
    const embedder = await createEmbedder({ provider: 'use-lite', cacheDir: cli.values['cache-dir'] ?? join(work, 'models') });
    const open = (versionRetentionMs?: number) =>
      LanceCatalogStore.open({
        recallDepth: RETRIEVAL_DEPTH,
        uri,
        annThreshold: 20_000,
        annIndex: 'ivf_hnsw_sq',
        ...(versionRetentionMs === undefined ? {} : { versionRetentionMs }),
      });
    const rows: Record<string, unknown>[] = [];
    for await (const row of syntheticCatalog(products, 42)) rows.push(row);
    const catalog = await open();
    const reader = await open();
    const figures: Record<string, number> = {};
    const table: string[][] = [];
    const timed = async (label: string, feed: readonly Record<string, unknown>[], fit: boolean): Promise<ImportSummary & { ms: number }> => {
      const t = performance.now();
      const summary = await importCatalog(asFeed(feed), { catalog, embedder }, { replace: false, dryRun: false, fitRanking: fit });
      const ms = performance.now() - t;
      process.stderr.write(`${label}: ${round(ms / 1000, 1)} s\n`);
      table.push([
        label,
        String(feed.length),
        round(ms / 1000, 1).toString(),
        Math.round(feed.length / (ms / 1000)).toString(),
        `${summary.imported}/${summary.updated}/${summary.delta}/${summary.unchanged}`,
        String(summary.embedded),
      ]);
      return { ...summary, ms };
    };

    const fresh = await timed('fresh import (index + fit)', rows, true);
    figures.fresh_per_s = Math.round(products / (fresh.ms / 1000));
    // Of which the cold-start fit (the rest: reading, embedding, writing, indexing).
    figures.fresh_fit_s = fresh.rankingModel?.action === 'fitted' ? round(fresh.rankingModel.ms / 1000, 1) : 0;
    const again = await timed('same feed again', rows, true);
    figures.same_again_per_s = Math.round(products / (again.ms / 1000));

    // Price-only deltas, until another handle serves the new price.
    const delta = async (count: number, factor: number) => {
      const changed: Record<string, unknown>[] = rows.slice(0, count).map((r) => ({ ...r, price: round(Number(r.price) * factor, 2) }));
      const started = performance.now();
      const summary = await timed(`price delta of ${count.toLocaleString('en-US')}`, changed, true);
      await reader.refresh();
      const probe = uuidV5(`${String(changed[0]!.merchant)}:${String(changed[0]!.sku)}`);
      const [served] = await reader.getByIds([probe]);
      if (served?.priceAmount !== changed[0]!.price)
        throw new Error(`the reader does not serve the new price (${served?.priceAmount} ≠ ${String(changed[0]!.price)})`);
      if (summary.delta !== count) throw new Error(`expected ${count} deltas, got ${summary.delta}`);
      return performance.now() - started;
    };
    figures.delta_10pct_s = round((await delta(Math.round(products / 10), 0.9)) / 1000, 2);
    figures.delta_all_s = round((await delta(products, 0.8)) / 1000, 2);

    // Search latency at the catalog: the two retrievals a search runs, 100 candidates each.
    const queries = await embedder.embed([
      'running shoe',
      'espresso machine',
      'wireless headphones',
      'tent',
      'cordless drill',
      'dog bed',
      'face serum',
      'chef knife',
    ]);
    const texts = ['running shoe', 'espresso machine', 'wireless headphones', 'tent', 'cordless drill', 'dog bed', 'face serum', 'chef knife'];
    const latency = async (store: LanceCatalogStore) => {
      // A handle's first searches read the index metadata: one round of every query first, untimed.
      for (let q = 0; q < queries.length; q++) {
        await store.vectorSearch(queries[q]!, { limit: RETRIEVAL_DEPTH });
        await store.textSearch(texts[q]!, { limit: RETRIEVAL_DEPTH });
      }
      const times: number[] = [];
      for (let round_ = 0; round_ < 25; round_++) {
        for (let q = 0; q < queries.length; q++) {
          const t = performance.now();
          await store.vectorSearch(queries[q]!, { limit: RETRIEVAL_DEPTH });
          await store.textSearch(texts[q]!, { limit: RETRIEVAL_DEPTH });
          times.push(performance.now() - t);
        }
      }
      return { p50: round(median(times), 2), p99: round(percentile(times, 99), 2) };
    };

    // Many small delta commits, as a feed pushing price changes all day would make.
    const commitTimes: number[] = [];
    for (let c = 0; c < commits; c++) {
      const start = (c * commitSize) % products;
      const changed = rows.slice(start, start + commitSize).map((r) => ({ ...r, price: round(Number(r.price) + 1 + (c % 7), 2) }));
      const t = performance.now();
      await importCatalog(asFeed(changed), { catalog, embedder }, { replace: false, dryRun: false });
      commitTimes.push(performance.now() - t);
      if ((c + 1) % 100 === 0) process.stderr.write(`${c + 1} delta commits, median ${round(median(commitTimes), 0)} ms\n`);
    }
    const afterCommits = await open();
    const busy = { ...(await latency(afterCommits)), bytes: duBytes(uri) };
    await afterCommits.close();
    // Upkeep once the retention window has passed for every version the commits left.
    const upkeeper = await open(1);
    const upkeep = await upkeeper.upkeep();
    await upkeeper.close();
    const compacted = await open();
    const tidy = { ...(await latency(compacted)), bytes: duBytes(uri) };
    await compacted.close();

    process.stdout.write(`Catalog freshness on ${products.toLocaleString('en-US')} synthetic products, model ${embedder.model}\n`);
    process.stdout.write(`${formatTable(['import', 'rows', 'seconds', 'rows/s', 'new/updated/delta/same', 'embedded'], table)}\n`);
    process.stdout.write(
      `${commits} delta commits of ${commitSize} products: median ${round(median(commitTimes), 0)} ms, p99 ${round(percentile(commitTimes, 99), 0)} ms per commit\n`,
    );
    process.stdout.write(
      `${formatTable(
        ['catalog', 'search p50 ms', 'search p99 ms', 'storage MB'],
        [
          [`after ${commits} commits`, String(busy.p50), String(busy.p99), round(busy.bytes / 1048576, 1).toString()],
          ['after upkeep (compacted, old versions removed)', String(tidy.p50), String(tidy.p99), round(tidy.bytes / 1048576, 1).toString()],
        ],
      )}\nupkeep: ${JSON.stringify(upkeep)}\npeak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB\n`,
    );
    process.stdout.write(
      `BENCH_JSON ${JSON.stringify({
        bench: 'freshness',
        products,
        ...figures,
        commits,
        commit_size: commitSize,
        commit_median_ms: round(median(commitTimes), 0),
        p99_after_commits_ms: busy.p99,
        p99_after_upkeep_ms: tidy.p99,
        p99_ratio: round(busy.p99 / tidy.p99, 3),
        storage_after_commits_mb: round(busy.bytes / 1048576, 1),
        storage_after_upkeep_mb: round(tidy.bytes / 1048576, 1),
        storage_ratio: round(busy.bytes / tidy.bytes, 3),
        peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
      })}\n`,
    );
    await reader.close();
    await catalog.close();
    await embedder.close();
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await cli.run(main);
