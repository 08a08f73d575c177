/**
 * What a publisher policy costs a search (docs/policy.md): `npm run bench:policy -- --catalog-uri DIR`.
 *
 * One core over the catalog at DIR; the same queries searched with no policy and with a policy of
 * 20 excluded categories (taxonomy subtrees the catalog's products are placed in, below the top
 * level, so they exclude something without emptying answers) and 50 excluded brands (the
 * catalog's commonest), and with a policy as large that excludes nothing the catalog has (its
 * cost alone), in rounds of changing order after a warm-up pass. CPU per search is the process's
 * user + system time over a round divided by its searches; the ratio of the two medians is the
 * policy's cost. The searches call the core directly: HTTP would add the same cost to both.
 */
// First, so that the command line is checked before anything else loads (policy.command.ts).

import { join } from 'node:path';
import { UsageError } from '../../src/cli/errors.js';
import { readJsonLines } from '../../src/cli/files.js';
import { loadConfig } from '../../src/config.js';
import { RETRIEVAL_DEPTH } from '../../src/core/ranking/retrieval.js';
import type { Principal } from '../../src/core/shared-ports.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { loadTaxonomy } from '../../src/knowledge/files.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { sharedPath } from '../shared-data.js';
import { createBenchKey, formatTable, median, round, startBenchServer } from './lib.js';
import { cli } from './policy.command.js';

const { values } = cli;
const queryCount = cli.number('queries', { integer: true, positive: true, default: 300 });
const rounds = cli.number('rounds', { integer: true, positive: true, default: 5 });

async function main(): Promise<void> {
  const uri = values['catalog-uri'];
  if (uri === undefined) throw new UsageError('--catalog-uri is required: a catalog an import wrote');
  const embedder = await createEmbedder({ provider: 'use-lite', cacheDir: values['cache-dir'] ?? join(uri, '..', 'models') });
  const catalog = await LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri, annThreshold: 20_000, annIndex: 'ivf_hnsw_sq' });
  const info = await catalog.info();
  if (info === null) throw new UsageError(`${uri} holds no catalog`);
  const { databaseUrl } = loadConfig();
  const server = await startBenchServer({ search: { catalog, embedder }, ...(databaseUrl ? { databaseUrl } : {}) });
  try {
    // The catalog's placements and brands: the policy excludes what the catalog has.
    const subtrees = new Map<string, number>();
    // Every place any product is at or under, at every depth.
    const placed = new Set<string>();
    const brands = new Map<string, number>();
    const titles: string[] = [];
    for await (const batch of catalog.scanProducts()) {
      for (const p of batch) {
        if (titles.length < queryCount) titles.push(p.title);
        if (p.brand) brands.set(p.brand, (brands.get(p.brand) ?? 0) + 1);
        for (let depth = 1; depth <= (p.taxonomy?.path.length ?? 0); depth++) placed.add(p.taxonomy!.path.slice(0, depth).join(' > '));
        for (let depth = 2; depth <= Math.min(3, p.taxonomy?.path.length ?? 0); depth++) {
          const key = p.taxonomy!.path.slice(0, depth).join(' > ');
          subtrees.set(key, (subtrees.get(key) ?? 0) + 1);
        }
      }
    }
    const taxonomy = new Map([...(await loadTaxonomy()).values()].map((c) => [c.path.join(' > '), c.id]));
    // Middling subtrees (not the 10 largest): each excludes some products of some answers.
    const categories = [...subtrees.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(10, 30)
      .map(([path]) => taxonomy.get(path)!);
    const excludedBrands = [...brands.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 50)
      .map(([b]) => b);
    // A catalog with fewer brands (CrowdFlower names none) gets names it does not have: each
    // still costs the check a product's brand goes through.
    for (let i = 0; excludedBrands.length < 50; i++) excludedBrands.push(`No Such Brand ${i}`);
    // The same size of policy, excluding nothing this catalog has: its cost alone, with no product left out.
    const absentCategories = [...taxonomy.entries()]
      .filter(([path]) => !placed.has(path) && path.includes(' > '))
      .slice(0, 20)
      .map(([, id]) => id);
    const absentBrands = Array.from({ length: 50 }, (_, i) => `Absent Brand ${i}`);
    if (categories.length < 20) process.stderr.write(`only ${categories.length} placed subtrees in the catalog: is it placed (imported since placement)?\n`);

    const dev = sharedPath('data/eval/homedepot/queries_dev.jsonl');
    const queries = dev ? (await readJsonLines<{ query: string }>(dev)).slice(0, queryCount * 2).map((q) => q.query) : [...titles, ...titles];
    const warmup = queries.slice(queryCount);
    const measured = queries.slice(0, queryCount);

    const key = await createBenchKey(server.core, 1_000_000, 'bench policy');
    const auth = await server.core.auth.authenticate(key);
    if (!auth.ok) throw new Error('the bench key did not authenticate');
    const principal: Principal = auth.principal;
    const search = server.core.search();
    // As the server does before its first request: the vocabulary built and the product cache filled.
    await search.warm();
    const runAll = async (list: readonly string[]) => {
      const cpu = process.cpuUsage();
      const started = performance.now();
      let results = 0;
      for (const query of list)
        results += (await search.search(principal, { query, limit: 10, min_relevance_score: 0.5, sort: 'relevance', stream: false })).results.length;
      const used = process.cpuUsage(cpu);
      return { cpuMs: (used.user + used.system) / 1000 / list.length, wallMs: (performance.now() - started) / list.length, results: results / list.length };
    };
    type Mode = 'none' | 'policy' | 'absent';
    const setPolicy = (mode: Mode) =>
      server.core.policy.putAccount(
        principal,
        mode === 'policy'
          ? { excluded_categories: categories, excluded_brands: excludedBrands }
          : mode === 'absent'
            ? { excluded_categories: absentCategories, excluded_brands: absentBrands }
            : {},
      );

    const modes: Mode[] = ['none', 'policy', 'absent'];
    for (const mode of modes) {
      await setPolicy(mode);
      await runAll(warmup);
    }
    const runs: Record<Mode, { cpuMs: number; wallMs: number; results: number }[]> = { none: [], policy: [], absent: [] };
    for (let r = 0; r < rounds; r++) {
      // Each round in another order, so no mode always runs first.
      for (const mode of [...modes.slice(r % 3), ...modes.slice(0, r % 3)] as Mode[]) {
        await setPolicy(mode);
        runs[mode].push(await runAll(measured));
      }
    }
    const label: Record<Mode, string> = {
      none: 'no policy',
      policy: `${categories.length} categories + ${excludedBrands.length} brands`,
      absent: `${absentCategories.length} categories + ${absentBrands.length} brands it lacks`,
    };
    const row = (mode: Mode) => [
      label[mode],
      round(median(runs[mode].map((x) => x.cpuMs)), 2).toString(),
      runs[mode].map((x) => round(x.cpuMs, 2)).join(' / '),
      round(median(runs[mode].map((x) => x.wallMs)), 2).toString(),
      round(median(runs[mode].map((x) => x.results)), 2).toString(),
    ];
    const cpu = (mode: Mode) => median(runs[mode].map((x) => x.cpuMs));
    // How much of the catalog the policy leaves out: a policy that excludes much is dearer.
    const inSubtree = new Set(categories.map((id) => [...taxonomy.entries()].find(([, v]) => v === id)![0]));
    let left = 0;
    for await (const batch of catalog.scanProducts()) {
      for (const p of batch) {
        const path = p.taxonomy?.path ?? [];
        if (path.some((_, i) => inSubtree.has(path.slice(0, i + 1).join(' > '))) || (p.brand !== null && excludedBrands.includes(p.brand))) left++;
      }
    }
    const ratio = cpu('policy') / cpu('none');
    process.stdout.write(
      `Policy cost on ${uri} (${info.productCount} products, ${info.annIndex}), ${measured.length} queries × ${rounds} rounds each; the policy leaves out ${left} products (${round((100 * left) / info.productCount, 1)} %)\n`,
    );
    process.stdout.write(`${formatTable(['policy', 'CPU ms/search (median)', 'per round', 'wall ms/search', 'results/search'], modes.map(row))}\n`);
    process.stdout.write(
      `CPU with the policy / without: ${round(ratio, 3)}; with one that excludes nothing here / without: ${round(cpu('absent') / cpu('none'), 3)}\n`,
    );
    process.stdout.write(
      `BENCH_JSON ${JSON.stringify({ bench: 'policy', products: info.productCount, queries: measured.length, rounds, cpu_ms_none: round(cpu('none'), 3), cpu_ms_policy: round(cpu('policy'), 3), cpu_ms_absent: round(cpu('absent'), 3), excluded_share: round(left / info.productCount, 3), ratio: round(ratio, 3), ratio_absent: round(cpu('absent') / cpu('none'), 3) })}\n`,
    );
  } finally {
    await server.close();
    await catalog.close();
    await embedder.close();
  }
}

await cli.run(main);
