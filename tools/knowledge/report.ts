/**
 * What the shopper's knowledge base holds after the filters (docs/knowledge.md): the figures
 * data/knowledge/README.md quotes.
 *
 *   npm run knowledge -- [--file FILE]...
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { toEmbeddingInput } from '../../src/core/catalog/embedding-text.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { loadKnowledge, loadTaxonomy } from '../../src/knowledge/files.js';
import { KnowledgeService } from '../../src/knowledge/service.js';
import { createLogger } from '../../src/logger.js';
import { cli } from './report.command.js';

const taxonomy = await loadTaxonomy();
const { entries, report, files } = await loadKnowledge(
  taxonomy,
  (cli.values.file ?? []).map((f) => resolve(f)),
);
const verticals = new Map<string, number>();
for (const e of entries) {
  const top = taxonomy.get(e.category_id)!.path[0]!;
  verticals.set(top, (verticals.get(top) ?? 0) + 1);
}
const short = entries.filter((e) => e.names.length < 2 || e.needs.length < 8 || new Set(e.needs.map((n) => n.relation)).size < 3);
const needs = entries.reduce((n, e) => n + e.needs.length, 0);
const names = entries.reduce((n, e) => n + e.names.length, 0);
console.log(`files: ${files.map((f) => `${f.file.replace(/^.*\//, '')} ${f.entries}`).join(', ')}`);
console.log(`read ${files.reduce((n, f) => n + f.entries, 0)} entries; filters: ${JSON.stringify(report)}`);
console.log(`types ${entries.length}, needs ${needs}, names ${names}, categories ${new Set(entries.map((e) => e.category_id)).size} of ${taxonomy.size}`);
console.log(
  `verticals ${verticals.size} of 21: ${[...verticals]
    .sort((a, b) => b[1] - a[1])
    .map(([v, n]) => `${v} ${n}`)
    .join('; ')}`,
);
console.log(
  `types short of 2 names, 8 needs or 3 relations after the filters: ${short.length}${
    short.length > 0
      ? ` (${short
          .slice(0, 10)
          .map((e) => e.type)
          .join(', ')}…)`
      : ''
  }`,
);
const shortList = cli.values['short-list'];
if (shortList !== undefined) writeFileSync(shortList, short.map((e) => `${JSON.stringify(e)}\n`).join(''));

if (cli.values.measure) {
  const cacheDir = resolve(cli.values['model-cache'] ?? '.aisle/models');
  const embedder = await createEmbedder({ provider: 'use-lite', cacheDir });
  await embedder.embed(['warm up']);
  // Memory is compared after full collections, so garbage the build left (the cache file's buffer) is not counted.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  // Two collections with a turn between: an ArrayBuffer's memory goes back after its wrapper's finaliser runs.
  const held = async () => {
    gc();
    await new Promise((r) => setTimeout(r, 100));
    gc();
    const m = process.memoryUsage();
    return { rss: m.rss / 1048576, retained: (m.heapUsed + m.arrayBuffers) / 1048576 };
  };
  const before = await held();
  const started = performance.now();
  const service = new KnowledgeService({ embedder, cacheDir, extraFiles: (cli.values.file ?? []).map((f) => resolve(f)), logger: createLogger('warn') });
  await service.start();
  const ms = performance.now() - started;
  const after = await held();
  const texts = ['how do we show a film on a big sheet in the garden?'];
  const vectors = await embedder.embed(texts.map(toEmbeddingInput));
  const matcher = service.matcher()!;
  const times: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t = performance.now();
    matcher.match(vectors, texts);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(
    `vectors ready in ${(ms / 1000).toFixed(1)} s; memory retained +${Math.round(after.retained - before.retained)} MB (JS heap and buffers), resident +${Math.round(after.rss - before.rss)} MB; one match ${times[150]!.toFixed(1)} ms (median of 300); "${texts[0]}" → ${matcher.match(vectors, texts)?.type ?? 'nothing'}`,
  );
  await embedder.close();
}
