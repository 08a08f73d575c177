import type { Table, VectorQuery } from '@lancedb/lancedb';
import * as lancedb from '@lancedb/lancedb';
import type { AnnIndexKind } from '../../core/catalog/ports.js';

/**
 * Query-time knobs of an ANN search. The index proposes `overfetch × limit` candidates, which the
 * store re-scores exactly from the stored vectors, keeping the best `limit`; `efPerResult ×
 * limit` is the HNSW beam (LanceDB's `ef`), `nprobes` the IVF partitions searched.
 */
export interface AnnTuning {
  overfetch: number;
  efPerResult: number;
  nprobes: number;
}

interface AnnConfig {
  index(rows: number): lancedb.Index;
  tuning: AnnTuning;
  /** Applies the tuning to a query that asks for `candidates` rows. */
  tune(query: VectorQuery, candidates: number, tuning: AnnTuning): VectorQuery;
}

const partitionsFor = (rows: number) => Math.max(1, Math.min(1024, Math.round(Math.sqrt(rows))));
const SMALL_CATALOG = 100_000;
const hnswPartitions = (rows: number) => (rows < SMALL_CATALOG ? Math.max(1, Math.ceil(rows / 30_000)) : Math.max(1, Math.round(partitionsFor(rows) / 8)));

const ANN: Record<Exclude<AnnIndexKind, 'none'>, AnnConfig> = {
  ivf_hnsw_sq: {
    // Fewer, larger graphs search faster at equal recall but build slower (a partition's graph is
    // built on one core), so catalogs under 100k products get one partition per 30k; larger ones
    // keep √n/8. The query settings hold recall@100 against exact search at 0.989 on Home
    // Depot's 54,667 real products for about +7 % search p50 over a 1.5× beam; a 3× beam with
    // 1.5× candidates reaches 0.997 for about +20 % (npm run bench:ann and bench:search; figures
    // in docs/decisions/0003-ann-index-exact-rescoring.md). Ranking quality was the same at both: the exact re-score, not the
    // last percent of recall, is what ranking needs.
    index: (rows) => lancedb.Index.hnswSq({ distanceType: 'cosine', numPartitions: hnswPartitions(rows) }),
    tuning: { overfetch: 1, efPerResult: 2, nprobes: 12 },
    // HNSW refuses an ef below the number of results asked for.
    tune: (q, candidates, t) => q.nprobes(t.nprobes).ef(Math.max(Math.ceil((t.efPerResult * candidates) / t.overfetch), candidates)),
  },
  ivf_pq: {
    index: (rows) => lancedb.Index.ivfPq({ distanceType: 'cosine', numPartitions: partitionsFor(rows), numSubVectors: 64 }),
    tuning: { overfetch: 1, efPerResult: 0, nprobes: 32 },
    tune: (q, _candidates, t) => q.nprobes(t.nprobes).refineFactor(10),
  },
};

export const annIndexConfig = (kind: Exclude<AnnIndexKind, 'none'>): AnnConfig => ANN[kind];

/**
 * The vector query for `limit` nearest rows: through the index kind `ann` with its tuning (then
 * asking for overfetch × limit candidates, to be re-scored exactly by the caller), or exact when
 * `ann` is null.
 */
export function nearestQuery(
  table: Table,
  vector: Float32Array,
  limit: number,
  ann: { kind: Exclude<AnnIndexKind, 'none'>; tuning?: Partial<AnnTuning> } | null,
): VectorQuery {
  if (ann === null) return table.vectorSearch(vector).distanceType('cosine').limit(limit).bypassVectorIndex();
  const config = ANN[ann.kind];
  const tuning = { ...config.tuning, ...ann.tuning };
  const candidates = Math.ceil(limit * tuning.overfetch);
  return config.tune(table.vectorSearch(vector).distanceType('cosine').limit(candidates), candidates, tuning);
}

/**
 * Brings the indexes up to date after an import. A full rebuild after a replace or the first
 * import. Otherwise, with `compactRemovingBefore`, optimize() compacts the fragments, folds the
 * new rows into every index and removes versions older than that date; without it, the scalar
 * indexes of columns rewritten in place (`rewrittenColumns`) are rebuilt, which takes
 * milliseconds where optimize() takes seconds even with nothing to fold (about 20 s on 100,000
 * products, docs/decisions/0002-keeping-catalogs-fresh.md), and rows appended by small commits
 * stay unindexed (searched exactly) until a larger commit or upkeep. The ANN index is built once
 * the catalog passes the threshold; below it exact search is fast and perfect.
 */
export async function ensureIndexes(
  table: Table,
  rows: number,
  options: {
    rebuild: boolean;
    compactRemovingBefore: Date | null;
    rewrittenColumns: ReadonlySet<string>;
    annThreshold: number;
    annIndex: Exclude<AnnIndexKind, 'none'>;
  },
): Promise<AnnIndexKind> {
  if (rows === 0) return 'none';
  const { rebuild } = options;
  // Each written batch is a data fragment; hundreds of small fragments make every query pay
  // per-fragment overhead. Compact before indexing, and remove the versions no process can still
  // be serving (catalog-store.ts, cleanupCutoff).
  if (options.compactRemovingBefore !== null) await table.optimize({ cleanupOlderThan: options.compactRemovingBefore });
  const existing = new Set((await table.listIndices()).map((i) => i.columns.join(',')));
  // Rewritten in place and not folded by a compaction above: their indexes no longer cover the rows.
  const stale = (column: string) => options.compactRemovingBefore === null && options.rewrittenColumns.has(column);
  const create = async (column: string, config: lancedb.Index) => {
    if (rebuild || !existing.has(column) || stale(column)) await table.createIndex(column, { config, replace: true });
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
  return ann;
}
