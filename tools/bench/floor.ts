/**
 * The floor a search cannot go below: the three pieces of native work every search needs, each
 * alone, on the same catalog and queries as the load run, in this process while the server
 * idles. A query embedding (the default model, query cache off), the vector lookup and the
 * full-text lookup as LanceDB answers them (ids and scores, the same index and tuning as the
 * server, no rows decoded, nothing ranked or written). Each is timed one at a time: its CPU per
 * call (process.cpuUsage, every thread: onnxruntime's and LanceDB's pools included) and wall time.
 * The sum of the three CPU times is what one search must spend at least; 1000 / that sum is how
 * many searches a core could sustain if a search were nothing else.
 */
import * as lancedb from '@lancedb/lancedb';
import { toEmbeddingInput } from '../../src/core/catalog/embedding-text.js';
import { canonicalText } from '../../src/core/ranking/lexical.js';
import { RETRIEVAL_DEPTH } from '../../src/core/ranking/retrieval.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { nearestQuery } from '../../src/store/lance/indexes.js';
import { PRODUCTS_TABLE } from '../../src/store/lance/rows.js';
import { median, round } from './lib.js';

interface FloorPart {
  /** CPU (user + system, all threads of this process) per call, ms. */
  cpu_ms: number;
  p50_ms: number;
  calls: number;
}

export interface Floor {
  embed: FloorPart;
  vector: FloorPart;
  text: FloorPart;
  /** embed + vector + text CPU per call: the least CPU a search can take. */
  cpu_ms_per_search: number;
  /** 1000 / cpu_ms_per_search. */
  searches_per_core_s: number;
}

async function timed(calls: number, fn: (i: number) => Promise<unknown>): Promise<FloorPart> {
  // A few calls first: JIT, the index's first reads, onnxruntime's first run.
  for (let i = 0; i < Math.min(20, calls); i++) await fn(i);
  const walls: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await fn(i);
    walls.push(performance.now() - t);
  }
  const used = process.cpuUsage(cpu);
  return { cpu_ms: round((used.user + used.system) / 1000 / calls, 3), p50_ms: round(median(walls), 3), calls };
}

export async function measureFloor(catalogUri: string, modelsDir: string, queries: readonly string[], calls = 400): Promise<Floor> {
  const store = await LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri: catalogUri, annThreshold: 20_000, annIndex: 'ivf_hnsw_sq' });
  const info = await store.info();
  await store.close();
  const annIndex = info?.annIndex ?? 'none';
  const embedder = await createEmbedder({ provider: 'use-lite', cacheDir: modelsDir, queryCacheSize: 0 });
  const conn = await lancedb.connect(catalogUri);
  const table = await conn.openTable(PRODUCTS_TABLE);
  try {
    const pick = (i: number) => queries[i % queries.length]!;
    const vectors: Float32Array[] = [];
    const embed = await timed(calls, async (i) => {
      const [v] = await embedder.embed([toEmbeddingInput(pick(i))]);
      if (vectors.length < calls) vectors.push(v!);
    });
    const ann = annIndex === 'none' ? null : { kind: annIndex };
    const vector = await timed(calls, (i) =>
      nearestQuery(table, vectors[i % vectors.length]!, RETRIEVAL_DEPTH, ann)
        .select(['_distance'])
        .withRowId()
        .toArrow(),
    );
    const text = await timed(calls, (i) =>
      table
        .query()
        .fullTextSearch(canonicalText(pick(i)), { columns: ['search_text'] })
        .limit(RETRIEVAL_DEPTH)
        .select(['_score'])
        .withRowId()
        .toArrow(),
    );
    const cpu = embed.cpu_ms + vector.cpu_ms + text.cpu_ms;
    return { embed, vector, text, cpu_ms_per_search: round(cpu, 3), searches_per_core_s: round(1000 / cpu, 1) };
  } finally {
    table.close();
    await embedder.close();
  }
}
