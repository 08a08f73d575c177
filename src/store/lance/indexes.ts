import * as lancedb from '@lancedb/lancedb';
import type { Table, VectorQuery } from '@lancedb/lancedb';
import type { AnnIndexKind } from '../../core/ports.js';

interface AnnConfig {
  index(rows: number): lancedb.Index;
  /** Query-time settings that keep recall@10 against exact search ≥ 0.95 (measured: tools/bench/ann.ts). */
  tune(query: VectorQuery, limit: number, rows: number): VectorQuery;
}

const partitionsFor = (rows: number) => Math.max(1, Math.min(1024, Math.round(Math.sqrt(rows))));
const SMALL_CATALOG = 100_000;
const hnswPartitions = (rows: number) => (rows < SMALL_CATALOG ? Math.max(1, Math.ceil(rows / 30_000)) : Math.max(1, Math.round(partitionsFor(rows) / 8)));

const ANN: Record<Exclude<AnnIndexKind, 'none'>, AnnConfig> = {
  ivf_hnsw_sq: {
    index: (rows) => lancedb.Index.hnswSq({ distanceType: 'cosine', numPartitions: hnswPartitions(rows) }),
    // Home Depot catalog, 54,667 real USE-lite vectors, 200 dev queries, limit 100, nprobes 12
    // (LanceDB clamps it to the partition count), late-materialised (row ids only):
    //   29 partitions (√n/8), ef 100: recall@10 0.984, recall@100 0.966, p50 4.0 ms, build 12 s
    //    8 partitions,        ef 100: recall@10 0.997, recall@100 0.980, p50 3.5 ms, build 25 s
    //    2 partitions,        ef 150: recall@10 0.996, recall@100 0.984, p50 2.1 ms, build 50 s
    //    1 partition,         ef 150: recall@10 0.992, recall@100 0.968, p50 1.4 ms, build 52 s
    // Fewer, larger graphs search faster at equal recall but build slower (a partition's graph is
    // built on one core), so catalogs under 100k products get one partition per 30k; larger ones
    // keep √n/8 (1M synthetic: recall@10 0.965 at nprobes 12, ef 96). HNSW refuses an ef below
    // the number of results asked for.
    tune: (q, limit, rows) => q.nprobes(12).ef(Math.max(rows < SMALL_CATALOG ? 150 : 96, limit)),
  },
  ivf_pq: {
    index: (rows) => lancedb.Index.ivfPq({ distanceType: 'cosine', numPartitions: partitionsFor(rows), numSubVectors: 64 }),
    tune: (q) => q.nprobes(32).refineFactor(10),
  },
};

export const annIndexConfig = (kind: Exclude<AnnIndexKind, 'none'>): AnnConfig => ANN[kind];

/**
 * Brings the indexes up to date after an import. A full rebuild after a replace or the first
 * import; otherwise optimize() folds the new rows into the existing indexes. The ANN index is
 * built once the catalog passes the threshold; below it exact search is fast and perfect.
 */
export async function ensureIndexes(
  table: Table,
  rows: number,
  rebuild: boolean,
  options: { annThreshold: number; annIndex: Exclude<AnnIndexKind, 'none'> },
): Promise<AnnIndexKind> {
  if (rows === 0) return 'none';
  // Each written batch is a data fragment; hundreds of small fragments make every query pay
  // per-fragment overhead. Compact before indexing (older versions stay readable: cleanup only
  // removes versions older than optimize()'s 7-day default).
  await table.optimize();
  const existing = new Set((await table.listIndices()).map((i) => i.columns.join(',')));
  const create = async (column: string, config: lancedb.Index) => {
    if (rebuild || !existing.has(column)) await table.createIndex(column, { config, replace: true });
  };
  await create('search_text', lancedb.Index.fts({ withPosition: false, stem: true, lowercase: true, removeStopWords: true, asciiFolding: true }));
  await create('product_id', lancedb.Index.btree());
  await create('price_amount', lancedb.Index.btree());
  await create('merchant_key', lancedb.Index.btree());
  await create('brand_key', lancedb.Index.btree());
  await create('availability', lancedb.Index.bitmap());
  await create('category_keys', lancedb.Index.labelList());
  let ann: AnnIndexKind = existing.has('vector') ? options.annIndex : 'none';
  if (rows >= options.annThreshold && (rebuild || !existing.has('vector'))) {
    await table.createIndex('vector', { config: annIndexConfig(options.annIndex).index(rows), replace: true });
    ann = options.annIndex;
  } else if (rows < options.annThreshold && existing.has('vector') && rebuild) {
    await table.dropIndex('vector_idx');
    ann = 'none';
  }
  // Fold the new rows into indexes that were kept (not rebuilt) above.
  if (!rebuild) await table.optimize();
  return ann;
}
