import type { Table } from '@lancedb/lancedb';
import * as lancedb from '@lancedb/lancedb';
import type { Table as ArrowTable } from 'apache-arrow';
import type { AnnIndexKind, CatalogInfo, CatalogRow, CatalogWriter, StoredDigests, UnembeddedRow } from '../../core/catalog/ports.js';
import type { PidLock } from '../pid-lock.js';
import { probeAnnRecall } from './ann-probe.js';
import { ensureIndexes } from './indexes.js';
import { PRODUCTS_TABLE, partialRecord, partialSchema, toRecord } from './rows.js';
import { sqlString } from './where.js';

/** Ids per `product_id IN (…)` filter (idFilters). */
const ID_LIST_CHUNK = 1_000;
/**
 * Share of the catalog from which rewrites without new vectors go column-wise in place rather
 * than as whole rows, and from which a commit compacts and folds its rows into the indexes; below
 * it the rows are few, searched unindexed until upkeep folds them (docs/ingest.md).
 */
const IN_PLACE_MIN_SHARE = 0.01;
/**
 * Fragments past which a commit compacts whatever it wrote: each fragment adds to every query's
 * cost, and compacting rewrites the fragments the small ones are merged into, so it is amortised
 * over this many small commits (docs/ingest.md, "Catalog upkeep").
 */
const MAX_FRAGMENTS = 32;

/** What a writer asks of the store that opened it (LanceCatalogStore, catalog-store.ts). */
interface WriterStore {
  info(): Promise<CatalogInfo | null>;
  publish(info: CatalogInfo): Promise<void>;
  cleanupCutoff(table: Table): Promise<Date>;
  readonly annOptions: { annThreshold: number; annIndex: Exclude<AnnIndexKind, 'none'>; recallDepth: number };
}

export class LanceCatalogWriter implements CatalogWriter {
  private readonly written = new Set<string>();
  private finished = false;
  /** Whether any vector was written or removed: without, the base version's measured ANN recall still holds. */
  private vectorsChanged = false;
  /** Rows appended (new, or rewritten whole) or removed by this import: past a share of the catalog, the commit compacts and folds indexes. */
  private rowsWritten = 0;
  /** Columns rewritten in place: their scalar indexes no longer cover the rows and are rebuilt at commit. */
  private readonly rewrittenColumns = new Set<string>();

  constructor(
    private readonly store: WriterStore,
    private readonly conn: lancedb.Connection,
    private readonly table: Table,
    private readonly baseVersion: number | null,
    private readonly startsEmpty: boolean,
    private readonly options: { model: string; dimensions: number; replace: boolean },
    private readonly lock: PidLock | null,
    /** The serving version when the import opened (null when it starts empty). */
    private readonly base: Table | null,
    /** Which of the columns later versions added the base version has: without them its products count as changed (storedDigests). */
    private readonly baseHas: { digests: boolean; placement: boolean },
    /** Products of the base version (0 when the import starts empty). */
    private readonly baseRows: number,
  ) {}

  async write(rows: readonly CatalogRow[]): Promise<{ inserted: number; updated: number }> {
    if (this.finished) throw new Error('import already finished');
    const byId = new Map<string, CatalogRow>();
    for (const row of rows) {
      this.checkVector(row);
      byId.set(row.product.productId, row);
    }
    const records = [...byId.values()].map((r) => toRecord(r.product, r.vector, r.digests));
    if (records.length === 0) return { inserted: 0, updated: 0 };
    const fresh = this.startsEmpty && [...byId.keys()].every((id) => !this.written.has(id));
    for (const id of byId.keys()) this.written.add(id);
    this.vectorsChanged = true;
    this.rowsWritten += records.length;
    if (fresh) {
      // Nothing to match against: a plain append is far cheaper than a merge.
      await this.table.add(records);
      return { inserted: records.length, updated: 0 };
    }
    const result = await this.table.mergeInsert('product_id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(records);
    return { inserted: result.numInsertedRows, updated: result.numUpdatedRows };
  }

  async insert(rows: readonly CatalogRow[]): Promise<void> {
    if (this.finished) throw new Error('import already finished');
    if (rows.length === 0) return;
    for (const row of rows) this.checkVector(row);
    for (const row of rows) this.written.add(row.product.productId);
    this.vectorsChanged = true;
    this.rowsWritten += rows.length;
    await this.table.add(rows.map((r) => toRecord(r.product, r.vector, r.digests)));
  }

  restate(rows: readonly UnembeddedRow[]): Promise<void> {
    return this.rewrite('restate', rows);
  }

  applyDeltas(rows: readonly UnembeddedRow[]): Promise<void> {
    return this.rewrite('delta', rows);
  }

  /**
   * Stored products rewritten without new vectors. Column-wise in place (LanceDB's merge with only
   * the changed columns) keeps the rows' addresses, vectors and text index entries, and rewrites
   * those columns for every row of the fragments they sit in: a delta's five small columns always
   * go so, a restate's many columns only for many products. Otherwise whole rows are written with
   * their stored vectors into a small new fragment and the old rows marked deleted.
   */
  private async rewrite(kind: 'restate' | 'delta', rows: readonly UnembeddedRow[]): Promise<void> {
    if (this.finished) throw new Error('import already finished');
    if (rows.length === 0) return;
    // A delta rewrites a few small columns, cheap in place at any size; a restate rewrites most of
    // a row, cheaper as whole rows when few.
    if (kind === 'delta' || rows.length >= IN_PLACE_MIN_SHARE * this.baseRows) {
      try {
        return await this.mergePartial(kind, rows);
      } catch (err) {
        // LanceDB refuses a column-wise merge into fragments that carry deleted rows ("run
        // compaction to materialize deletions first"); whole rows are written instead.
        if (!/materialize deletions/.test((err as Error).message)) throw err;
      }
    }
    const vectors = await this.storedVectors(rows.map((r) => r.product.productId));
    const whole = rows.flatMap((r) => {
      const vector = vectors.get(r.product.productId);
      return vector === undefined ? [] : [{ product: r.product, vector, digests: r.digests }];
    });
    if (whole.length !== rows.length) throw new Error('a product to rewrite is not in the catalog version the import started from');
    for (const row of whole) this.written.add(row.product.productId);
    this.rowsWritten += whole.length;
    await this.table
      .mergeInsert('product_id')
      .whenMatchedUpdateAll()
      .execute(whole.map((r) => toRecord(r.product, r.vector, r.digests)));
  }

  async storedVectors(productIds: readonly string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    if (this.base === null) return out;
    for await (const batch of byIds(this.base, productIds, ['product_id', 'vector'])) {
      const ids = batch.getChild('product_id')!;
      const vectors = batch.getChild('vector')!;
      for (let r = 0; r < batch.numRows; r++) {
        out.set(String(ids.get(r)), Float32Array.from((vectors.get(r) as { toArray(): ArrayLike<number> }).toArray()));
      }
    }
    return out;
  }

  private async mergePartial(kind: 'restate' | 'delta', rows: readonly UnembeddedRow[]): Promise<void> {
    if (this.finished) throw new Error('import already finished');
    if (rows.length === 0) return;
    const schema = partialSchema(this.options.dimensions, kind);
    const data = lancedb.makeArrowTable(
      rows.map((r) => partialRecord(kind, r.product, r.digests)),
      { schema },
    );
    for (const row of rows) this.written.add(row.product.productId);
    for (const field of schema.fields) this.rewrittenColumns.add(field.name);
    await this.table.mergeInsert('product_id').whenMatchedUpdateAll().execute(data);
  }

  async storedDigests(productIds: readonly string[]): Promise<Map<string, StoredDigests>> {
    const out = new Map<string, StoredDigests>();
    if (this.base === null || productIds.length === 0) return out;
    const columns = this.baseHas.digests ? ['product_id', 'text_digest', 'content_digest', 'row_digest'] : ['product_id'];
    const str = (v: unknown) => (v === null || v === undefined ? null : String(v));
    // A version written before placement: its products' text is as stored, the rest is not, so
    // each is restated (and placed) once without being embedded again.
    const placed = this.baseHas.placement;
    for await (const batch of byIds(this.base, productIds, columns)) {
      const get = (name: string) => batch.getChild(name);
      for (let r = 0; r < batch.numRows; r++) {
        out.set(String(get('product_id')!.get(r)), {
          text: str(get('text_digest')?.get(r)),
          content: placed ? str(get('content_digest')?.get(r)) : null,
          row: placed ? str(get('row_digest')?.get(r)) : null,
        });
      }
    }
    return out;
  }

  async *storedIds(): AsyncIterable<string[]> {
    if (this.base === null) return;
    for await (const batch of this.base.query().select(['product_id'])) {
      const ids = batch.getChild('product_id')!;
      yield Array.from({ length: batch.numRows }, (_, i) => String(ids.get(i)));
    }
  }

  private checkVector(row: CatalogRow): void {
    if (row.vector.length !== this.options.dimensions) throw new Error(`vector of ${row.vector.length} dimensions; expected ${this.options.dimensions}`);
  }

  async remove(productIds: readonly string[]): Promise<void> {
    if (this.finished) throw new Error('import already finished');
    for (const id of productIds) this.written.delete(id);
    if (productIds.length > 0) this.vectorsChanged = true;
    this.rowsWritten += productIds.length;
    for (const filter of idFilters(productIds)) await this.table.delete(filter);
  }

  async commit(): Promise<CatalogInfo> {
    if (this.finished) throw new Error('import already finished');
    try {
      const productCount = await this.table.countRows();
      const rebuild = this.options.replace || this.baseVersion === null;
      // A small commit leaves its few rows unindexed (searched exactly) and compaction to upkeep:
      // compacting rewrites the fragments the rows join, far more than the commit wrote.
      const compact =
        rebuild || this.rowsWritten >= IN_PLACE_MIN_SHARE * this.baseRows || (await this.table.stats()).fragmentStats.numFragments > MAX_FRAGMENTS;
      const annIndex = await ensureIndexes(this.table, productCount, {
        rebuild,
        compactRemovingBefore: compact ? await this.store.cleanupCutoff(this.table) : null,
        rewrittenColumns: this.rewrittenColumns,
        ...this.store.annOptions,
      });
      const info: CatalogInfo = {
        model: this.options.model,
        dimensions: this.options.dimensions,
        productCount,
        version: await this.table.version(),
        updatedAt: new Date(),
        annIndex,
        annRecall: annIndex === 'none' ? null : await this.annRecall(annIndex, productCount),
      };
      await this.store.publish(info);
      return info;
    } finally {
      this.finish();
    }
  }

  /** Recall@depth of the ANN path: measured again unless only live fields changed since the base version measured it. */
  private async annRecall(kind: Exclude<AnnIndexKind, 'none'>, rows: number): Promise<number> {
    const base = await this.store.info();
    if (!this.vectorsChanged && base?.version === this.baseVersion && base.annIndex === kind && base.annRecall !== null) return base.annRecall;
    return probeAnnRecall(this.table, rows, { kind }, this.store.annOptions.recallDepth);
  }

  async abort(): Promise<void> {
    if (this.finished) return;
    try {
      if (this.baseVersion !== null) {
        await this.table.checkout(this.baseVersion);
        await this.table.restore();
      } else {
        await this.conn.dropTable(PRODUCTS_TABLE);
      }
    } finally {
      this.finish();
    }
  }

  private finish(): void {
    this.finished = true;
    this.table.close();
    this.base?.close();
    this.lock?.release();
  }
}

/** `product_id IN (…)` filters over `productIds`, split so no single filter grows with the import. */
function idFilters(productIds: readonly string[]): string[] {
  const filters: string[] = [];
  for (let i = 0; i < productIds.length; i += ID_LIST_CHUNK)
    filters.push(
      `product_id IN (${productIds
        .slice(i, i + ID_LIST_CHUNK)
        .map(sqlString)
        .join(', ')})`,
    );
  return filters;
}

/** `columns` of the rows of `table` with these product ids, a batch per filter. */
async function* byIds(table: Table, productIds: readonly string[], columns: string[]): AsyncGenerator<ArrowTable> {
  for (const filter of idFilters(productIds)) yield await table.query().where(filter).select(columns).toArrow();
}
