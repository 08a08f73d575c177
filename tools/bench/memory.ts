/**
 * Where an API process's memory goes: the pieces a search needs, opened one after another in
 * this process as the server opens them, with the process's memory after each (after a full
 * garbage collection, so what is counted is what is held).
 *
 *   npm run bench:memory -- [--catalog-uri DIR]
 *
 * Without `--catalog-uri` the Home Depot catalog is imported into a temporary directory first
 * (tools/bench/deployment.ts), as bench:load does.
 */
// First, so that the command line is checked before anything else loads (memory.command.ts).

import { mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadConfig } from '../../src/config.js';
import { toEmbeddingInput } from '../../src/core/catalog/embedding-text.js';
import { productTerms } from '../../src/core/ranking/features.js';
import { CatalogLexicon } from '../../src/core/ranking/lexical.js';
import { openCatalog, openEmbedder } from '../../src/runtime.js';
import { ensureCatalog } from './deployment.js';
import { formatTable } from './lib.js';
import { cli } from './memory.command.js';

const { values } = cli;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;

/** Resident memory by kind (Linux): anonymous (the process's own) and file-backed (mapped files the kernel can drop and read again). */
function residentByKind(): { anon_mb: number | null; file_mb: number | null } {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { anon_mb: mb(kb('RssAnon') * 1024), file_mb: mb(kb('RssFile') * 1024) };
  } catch {
    return { anon_mb: null, file_mb: null };
  }
}

const steps: Array<{
  step: string;
  rss_mb: number;
  anon_mb: number | null;
  file_mb: number | null;
  heap_used_mb: number;
  external_mb: number;
  array_buffers_mb: number;
}> = [];
function measure(step: string): void {
  gc();
  const m = process.memoryUsage();
  steps.push({ step, rss_mb: mb(m.rss), ...residentByKind(), heap_used_mb: mb(m.heapUsed), external_mb: mb(m.external), array_buffers_mb: mb(m.arrayBuffers) });
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'aisle-bench-memory-'));
  try {
    const catalogUri = values['catalog-uri'] ?? join(work, 'catalog');
    const source = await ensureCatalog(catalogUri, join(work, 'models'));
    measure('modules loaded (Node.js, our compiled code and its dependencies)');
    const config = loadConfig({ ...process.env, AISLE_DATA_DIR: work, AISLE_CATALOG_URI: catalogUri });
    const embedder = await openEmbedder(config);
    await embedder.embed([toEmbeddingInput('warm up')]);
    measure('+ embedding model (onnxruntime session in its worker thread)');
    const catalog = await openCatalog(config);
    measure('+ catalog opened (LanceDB table and indexes)');
    await new CatalogLexicon(catalog).get();
    measure('+ catalog vocabulary (spelling, IDF)');
    await catalog.warm(productTerms);
    measure(`+ product cache filled (AISLE_CATALOG_CACHE_MB=${config.catalog.cacheBytes / 1024 / 1024}) with ranking terms`);
    // What the cache counts against its budget, beside what filling it added to RSS.
    const added = (key: 'rss_mb' | 'anon_mb') => Math.round(((steps.at(-1)![key] ?? Number.NaN) - (steps.at(-2)![key] ?? Number.NaN)) * 10) / 10;
    const cache = { estimate_mb: mb(catalog.cacheStats().bytes), rss_added_mb: added('rss_mb'), anon_added_mb: added('anon_mb') };
    const [vector] = await embedder.embed([toEmbeddingInput('cordless drill')]);
    for (let i = 0; i < 100; i++) {
      await catalog.vectorSearch(vector!, { limit: 100, withVectors: true });
      await catalog.textSearch(`cordless drill ${i}`, { limit: 100, withVectors: true });
    }
    measure('+ 100 vector and full-text lookups');
    const rows = steps.map((s, i) => [
      s.step,
      String(s.rss_mb),
      i === 0 ? '' : `+${Math.round((s.rss_mb - steps[i - 1]!.rss_mb) * 10) / 10}`,
      String(s.heap_used_mb),
      String(s.external_mb),
      String(s.array_buffers_mb),
    ]);
    process.stdout.write(
      `Memory of one API process's parts, opened in order (catalog: ${source}), after a full GC:\n${formatTable(['step', 'RSS MB', 'Δ RSS', 'JS heap used', 'external', 'array buffers'], rows)}\n`,
    );
    process.stdout.write(
      `product cache: ${cache.estimate_mb} MB counted against its budget, ${cache.rss_added_mb} MB of RSS added (${Math.round((cache.rss_added_mb / cache.estimate_mb) * 100) / 100}×), of it ${cache.anon_added_mb} MB anonymous (${Math.round((cache.anon_added_mb / cache.estimate_mb) * 100) / 100}×)\n`,
    );
    process.stdout.write(`BENCH_JSON ${JSON.stringify({ bench: 'memory', catalog: source, steps, product_cache: cache })}\n`);
    await embedder.close();
    await catalog.close();
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await cli.run(main);
