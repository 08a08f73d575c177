import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Table } from '@lancedb/lancedb';
import * as lancedb from '@lancedb/lancedb';
import type { Table as ArrowTable } from 'apache-arrow';
import { LRUCache } from 'lru-cache';
import { CatalogModelMismatchError } from '../../core/catalog/errors.js';
import type { AnnIndexKind, CatalogFilter, CatalogInfo, CatalogStore, CatalogWriter, ScoredProduct } from '../../core/catalog/ports.js';
import type { CatalogProduct } from '../../core/catalog/product.js';
import { canonicalText } from '../../core/ranking/lexical.js';
import { inSpan } from '../../core/spans.js';
import { acquirePidLock } from '../pid-lock.js';
import { probeAnnRecall } from './ann-probe.js';
import { LanceCatalogWriter } from './catalog-writer.js';
import { ExactScan } from './exact-scan.js';
import { rescoreExactly, withExclusions, withoutAbsent } from './exclusions.js';
import { type AnnTuning, annIndexConfig, nearestQuery } from './indexes.js';
import { cleanupCutoff, isLocal, readMeta, replaceTable, writeMeta } from './meta.js';
import {
  CALIBRATION_TABLE,
  calibrationSchema,
  decodedRows,
  digestFields,
  fromRecord,
  PLACEMENT_SQL_TYPES,
  PRODUCTS_TABLE,
  placementFields,
  productColumns,
  productSchema,
} from './rows.js';
import { acquire, type Hydrated, holding, hydratedBytes, presentOf, release, retire, type Serving } from './serving.js';
import { runUpkeep, type UpkeepReport } from './upkeep.js';
import { buildWhere, sqlString } from './where.js';

export type { UpkeepReport } from './upkeep.js';

export interface LanceCatalogOptions {
  /** Local directory or object-store URI (s3://…). */
  uri: string;
  /** Past this many products an ANN index is built; below it, search is exact. */
  annThreshold: number;
  annIndex: Exclude<AnnIndexKind, 'none'>;
  /** Bytes of decoded products (and their vectors) kept in memory per serving version; 0 turns the cache off. */
  cacheBytes?: number;
  /** Search every vector exactly even where an ANN index exists (evaluation: the same catalog with and without its index). */
  bypassVectorIndex?: boolean;
  /** How deep the ANN recall probe looks (recall@N at build time): the depth search retrieves at. */
  recallDepth: number;
  /** Overrides the index kind's query settings (tools/bench/ann.ts sweeps them). */
  annTuning?: Partial<AnnTuning>;
  /**
   * How long a version the pointer left keeps its files (default 1 hour): every process follows
   * the pointer within its refresh interval, so one still serving an older version has stopped
   * refreshing for this long. Upkeep and imports remove older versions.
   */
  versionRetentionMs?: number;
  /** Told how long each read took (vector_search, text_search, by_price, get_by_ids): the server's metrics. */
  onRead?: (call: CatalogRead, seconds: number) => void;
}

/** The catalog reads a search makes, as the metrics name them. */
export type CatalogRead = 'vector_search' | 'text_search' | 'by_price' | 'get_by_ids';

const DEFAULT_VERSION_RETENTION_MS = 3_600_000;
/** Products per batch when scanProducts answers from memory (about what a Lance scan batch holds). */
const SCAN_BATCH = 1024;

export const DEFAULT_ANN_THRESHOLD = 20_000;
const DEFAULT_PRODUCT_CACHE_BYTES = 256 * 1024 * 1024;

/**
 * The catalog in LanceDB: one products table (vectors, full-text and scalar indexes) and a
 * one-row meta table that names the serving version of the products table and the model that
 * built it. Readers pin that version; an import commits new versions and then moves the pointer
 * in one write, so a failed or killed import never becomes visible.
 */
export class LanceCatalogStore implements CatalogStore {
  private serving: Serving | null = null;
  /** The refresh under way, if any: the next one starts after it. */
  private refreshing: Promise<unknown> = Promise.resolve();
  /** What warm() was last asked to compute per product; applied again when a new version is warmed. */
  private prepare: ((product: CatalogProduct) => unknown) | null = null;
  /** Product cache lookups since the store opened (every version's cache). */
  private readonly lookups = { hits: 0, misses: 0 };

  private constructor(
    private readonly conn: lancedb.Connection,
    private readonly options: LanceCatalogOptions,
  ) {}

  static async open(options: LanceCatalogOptions): Promise<LanceCatalogStore> {
    if (isLocal(options.uri)) mkdirSync(options.uri, { recursive: true });
    const store = new LanceCatalogStore(await lancedb.connect(options.uri), options);
    await store.refresh();
    return store;
  }

  /** Whether exact vector searches of the serving version are answered from the row cache (it holds every row). */
  get exactSearchInMemory(): boolean {
    return this.serving?.exact != null;
  }

  async info(): Promise<CatalogInfo | null> {
    return this.serving?.info ?? null;
  }

  /**
   * Follows the pointer. A new version is made ready before it serves: its table opened and, in
   * a process that keeps its product cache warm, the cache filled, so no search waits on a cold
   * version. The version it replaces closes its table once the reads still using it end.
   * Refreshes run one at a time (the periodic check and an import's publish can meet).
   */
  refresh(accept?: (info: CatalogInfo) => boolean): Promise<boolean> {
    const run = this.refreshing.then(() => this.follow(accept));
    this.refreshing = run.catch(() => undefined);
    return run;
  }

  private async follow(accept?: (info: CatalogInfo) => boolean): Promise<boolean> {
    const meta = await readMeta(this.conn);
    const previous = this.serving;
    if (meta === null) {
      this.serving = null;
      retire(previous);
      return previous !== null;
    }
    const { info } = meta;
    if (previous && previous.info.version === info.version && previous.info.updatedAt.getTime() === info.updatedAt.getTime()) return false;
    if (accept && !accept(info)) return false;
    // The same products with a new ranking model (an import's fit, npm run calibrate): the rows,
    // their cache and its warmth stay; only the model moves.
    if (previous && previous.info.version === info.version) {
      // In place: a warm-up under way belongs to this same serving version and carries on.
      const rankingModel = await this.versionModel(meta);
      previous.info = info;
      previous.rankingModel = rankingModel;
      return true;
    }
    const table = await this.conn.openTable(PRODUCTS_TABLE);
    const cacheBytes = this.options.cacheBytes ?? DEFAULT_PRODUCT_CACHE_BYTES;
    const next: Serving = {
      table,
      info,
      rankingModel: null,
      rows: cacheBytes > 0 ? new LRUCache<bigint, Hydrated>({ maxSize: cacheBytes, sizeCalculation: hydratedBytes }) : null,
      warmed: null,
      exact: null,
      readers: 0,
      retired: false,
      columns: [],
      present: null,
      presentRead: false,
    };
    try {
      await table.checkout(info.version);
      next.columns = productColumns(await table.schema());
      next.rankingModel = await this.versionModel(meta);
    } catch (err) {
      // The version serving so far keeps serving; the next refresh tries again.
      retire(next);
      throw err;
    }
    // A process that warmed the previous version serves the new one warm from its first search.
    // A fill that fails does not hold the version back: it serves with what the fill cached, and
    // searches fill the rest on demand (a fill failing at every refresh would otherwise keep the
    // process on the old version for good).
    if (previous?.warmed != null && next.rows) {
      next.warmed = this.fill(next, next.rows).catch(() => undefined);
      await next.warmed;
    }
    this.serving = next;
    retire(previous);
    return true;
  }

  /** Runs `read` on the serving version (`empty` when there is none), keeping its table open until it ends. */
  private reading<T>(empty: T, read: (serving: Serving) => Promise<T>): Promise<T> {
    return this.serving ? holding(this.serving, read) : Promise.resolve(empty);
  }

  /** The ranking model the serving version carries (servingRankingModel's port contract). */
  servingRankingModel(): unknown {
    return this.serving?.rankingModel ?? null;
  }

  /** A version's model: from its pointer row, else (catalogs published before the pointer carried it) the calibration table. */
  private async versionModel(meta: { info: CatalogInfo; rankingModel: string | null }): Promise<unknown> {
    if (meta.rankingModel !== null) return JSON.parse(meta.rankingModel) as unknown;
    return this.readStoredRankingModel(meta.info.model);
  }

  async openWriter(options: { model: string; dimensions: number; replace: boolean }): Promise<CatalogWriter> {
    const current = (await readMeta(this.conn))?.info ?? null;
    if (current && !options.replace && (current.model !== options.model || current.dimensions !== options.dimensions)) {
      throw new CatalogModelMismatchError(current.model, current.dimensions, options.model, options.dimensions);
    }
    const lock = isLocal(this.options.uri)
      ? acquirePidLock(join(this.options.uri, 'import.lock'), (pid) => `Another import (process ${pid}) is writing this catalog; wait for it to finish.`)
      : null;
    try {
      const names = await this.conn.tableNames();
      let table: Table;
      let startsEmpty = options.replace || current === null;
      if (!names.includes(PRODUCTS_TABLE)) {
        table = await this.conn.createEmptyTable(PRODUCTS_TABLE, productSchema(options.dimensions), { mode: 'create' });
      } else {
        table = await this.conn.openTable(PRODUCTS_TABLE);
        if (current !== null && (await table.version()) !== current.version) {
          // Discard commits of an import that died before moving the pointer.
          await table.checkout(current.version);
          await table.restore();
        }
        if (current === null || (options.replace && current.dimensions !== options.dimensions)) {
          table = await this.conn.createEmptyTable(PRODUCTS_TABLE, productSchema(options.dimensions), { mode: 'overwrite' });
        } else if (options.replace) {
          await table.delete('true');
        }
      }
      startsEmpty = startsEmpty || (await table.countRows()) === 0;
      // The version the import starts from, read through its own handle: this import's writes
      // never change what it compares against, and its indexes stay whole while the import runs.
      const base = startsEmpty ? null : await this.conn.openTable(PRODUCTS_TABLE);
      if (base !== null) await base.checkout(current!.version);
      const baseFields = new Set(base === null ? [] : (await base.schema()).fields.map((f) => f.name));
      // Catalogs written before digests were kept get the columns (null: every product embeds once
      // more); before placement, its columns (each product is placed by its next import).
      const columns = new Set((await table.schema()).fields.map((f) => f.name));
      const missing = [...digestFields(), ...placementFields()].filter((f) => !columns.has(f.name));
      if (missing.length > 0)
        await table.addColumns(missing.map((f) => ({ name: f.name, valueSql: `CAST(NULL AS ${PLACEMENT_SQL_TYPES[f.name] ?? 'STRING'})` })));
      return new LanceCatalogWriter(
        this,
        this.conn,
        table,
        current?.version ?? null,
        startsEmpty,
        options,
        lock,
        base,
        { digests: baseFields.has('row_digest'), placement: baseFields.has('category_id') },
        startsEmpty ? 0 : current!.productCount,
      );
    } catch (err) {
      lock?.release();
      throw err;
    }
  }

  async readStoredRankingModel(model: string): Promise<unknown> {
    if (!(await this.conn.tableNames()).includes(CALIBRATION_TABLE)) return null;
    const table = await this.conn.openTable(CALIBRATION_TABLE);
    try {
      const rows = (await table
        .query()
        .where(`model = ${sqlString(model)}`)
        .limit(1)
        .toArray()) as Record<string, unknown>[];
      return rows[0] ? (JSON.parse(String(rows[0].calibration)) as unknown) : null;
    } finally {
      table.close();
    }
  }

  /** One row per model; replacing the table is a single commit. */
  async storeRankingModel(model: string, rankingModel: object): Promise<void> {
    let others: Record<string, unknown>[] = [];
    if ((await this.conn.tableNames()).includes(CALIBRATION_TABLE)) {
      const table = await this.conn.openTable(CALIBRATION_TABLE);
      try {
        others = (await table
          .query()
          .where(`model <> ${sqlString(model)}`)
          .toArray()) as Record<string, unknown>[];
      } finally {
        table.close();
      }
    }
    const rows = [...others.map((r) => ({ model: String(r.model), calibration: String(r.calibration) })), { model, calibration: JSON.stringify(rankingModel) }];
    await replaceTable(this.conn, CALIBRATION_TABLE, rows, calibrationSchema());
    // The serving version takes the model: its pointer is written again with it, so every
    // process that follows the pointer serves the new model at its next check, with no restart.
    const meta = await readMeta(this.conn);
    if (meta !== null && meta.info.model === model) await this.publish({ ...meta.info, updatedAt: new Date() }, JSON.stringify(rankingModel));
  }

  /**
   * Rebuilds (or drops, with 'none') the vector index of the serving version and publishes the
   * result as a new version: for switching index kinds and for measuring them (tools/bench/ann.ts).
   */
  async rebuildVectorIndex(kind: AnnIndexKind): Promise<CatalogInfo> {
    const current = (await readMeta(this.conn))?.info ?? null;
    if (current === null) throw new Error('the catalog is empty');
    const table = await this.conn.openTable(PRODUCTS_TABLE);
    try {
      await table.checkout(current.version);
      await table.restore();
      const hasIndex = (await table.listIndices()).some((i) => i.columns.includes('vector'));
      if (kind === 'none') {
        if (hasIndex) await table.dropIndex('vector_idx');
      } else {
        await table.createIndex('vector', { config: annIndexConfig(kind).index(current.productCount), replace: true });
      }
      const annRecall = kind === 'none' ? null : await probeAnnRecall(table, current.productCount, { kind }, this.options.recallDepth);
      const info: CatalogInfo = { ...current, annIndex: kind, annRecall, version: await table.version(), updatedAt: new Date() };
      await this.publish(info);
      return info;
    } finally {
      table.close();
    }
  }

  /**
   * Fills the decoded-row cache from one sequential scan, up to its byte budget, so the first
   * searches do not pay for decoding rows one take at a time (about two thirds of a search's CPU,
   * docs/search.md). Idempotent per catalog version.
   */
  warm(prepare?: (product: CatalogProduct) => unknown): Promise<void> {
    if (prepare) this.prepare = prepare;
    const serving = this.serving;
    if (!serving?.rows) return Promise.resolve();
    serving.warmed ??= this.fill(serving, serving.rows);
    return serving.warmed;
  }

  private async fill(serving: Serving, rows: LRUCache<bigint, Hydrated>): Promise<void> {
    const prepare = this.prepare;
    const scanOrder: bigint[] = [];
    acquire(serving);
    try {
      for await (const batch of serving.table
        .query()
        .select([...serving.columns, 'vector'])
        .withRowId()) {
        if (serving.retired) return;
        for (const { rowId, row, vector } of decodedRows(batch, serving.columns)) {
          scanOrder.push(rowId);
          if (rows.has(rowId)) continue;
          const hydrated = { product: fromRecord(row), vector };
          // Stop at the budget rather than evict what searches have already pulled in.
          if (rows.calculatedSize + hydratedBytes(hydrated) > rows.maxSize) return;
          rows.set(rowId, hydrated);
          prepare?.(hydrated.product);
        }
      }
      // The whole version fits: nothing will be evicted, so exact searches can scan the cache.
      const all = scanOrder.map((id) => rows.peek(id));
      if (all.every((h) => h !== undefined)) serving.exact = new ExactScan(all);
    } catch (err) {
      // The version was replaced mid-scan: nothing to warm any more.
      if (!serving.retired) throw err;
    } finally {
      release(serving);
    }
  }

  getByIds(productIds: readonly string[]): Promise<CatalogProduct[]> {
    return this.timed('get_by_ids', [], (serving) => this.productsById(serving, productIds));
  }

  private async productsById(serving: Serving, productIds: readonly string[]): Promise<CatalogProduct[]> {
    if (productIds.length === 0) return [];
    const rows = await serving.table
      .query()
      .where(`product_id IN (${productIds.map(sqlString).join(', ')})`)
      .select(serving.columns)
      .toArray();
    return rows.map((r) => fromRecord(r as Record<string, unknown>));
  }

  /**
   * Nearest products by cosine. Whatever the path, each result's score is the exact cosine
   * distance from the stored full-precision vectors, and results are ordered by it: an ANN index
   * only proposes candidates (more than `limit`, see indexes.ts), which are re-scored here, so the
   * ranking features never see a quantised distance and the top `limit` match exact search's.
   */
  vectorSearch(vector: Float32Array, options: { limit: number; filter?: CatalogFilter; exact?: boolean; withVectors?: boolean }): Promise<ScoredProduct[]> {
    return this.timed('vector_search', [], (serving) => this.nearest(serving, vector, options));
  }

  private async nearest(
    serving: Serving,
    vector: Float32Array,
    options: { limit: number; filter?: CatalogFilter; exact?: boolean; withVectors?: boolean },
  ): Promise<ScoredProduct[]> {
    const kind = serving.info.annIndex;
    const ann = options.exact || this.options.bypassVectorIndex || kind === 'none' ? null : { kind, tuning: this.options.annTuning ?? {} };
    if (ann === null && serving.exact)
      return serving.exact.nearest(vector, { limit: options.limit, filter: options.filter, withVectors: options.withVectors ?? false });
    const filter = withoutAbsent(() => presentOf(serving), options.filter);
    return withExclusions(options.limit, filter, async (limit, pushed) => {
      const search = nearestQuery(serving.table, vector, limit, ann);
      const where = buildWhere(pushed);
      const query = (where ? search.where(where) : search).select(['_distance']).withRowId();
      const hits = await this.hydrate(serving, await query.toArrow(), '_distance', true);
      return rescoreExactly(vector, hits, limit, options.withVectors ?? false);
    });
  }

  textSearch(text: string, options: { limit: number; filter?: CatalogFilter; withVectors?: boolean }): Promise<ScoredProduct[]> {
    return this.timed('text_search', [], (serving) => this.fullText(serving, text, options));
  }

  private async fullText(serving: Serving, text: string, options: { limit: number; filter?: CatalogFilter; withVectors?: boolean }): Promise<ScoredProduct[]> {
    if (text.trim() === '') return [];
    const filter = withoutAbsent(() => presentOf(serving), options.filter);
    return withExclusions(options.limit, filter, async (limit, pushed) => {
      const search = serving.table.query().fullTextSearch(canonicalText(text), { columns: ['search_text'] });
      const where = buildWhere(pushed);
      const query = (where ? search.where(where) : search).limit(limit).select(['_score']).withRowId();
      return this.hydrate(serving, await query.toArrow(), '_score', options.withVectors ?? false);
    });
  }

  /**
   * Reads only the price column of the rows that pass, keeping the best `limit` addresses as it
   * goes, then decodes those few rows: a search with nothing but a price to go on costs one
   * column scan (docs/search.md, "A query that is only a price").
   */
  byPrice(filter: CatalogFilter, options: { limit: number; descending: boolean }): Promise<{ products: CatalogProduct[]; total: number }> {
    return this.timed('by_price', { products: [], total: 0 }, (serving) => this.cheapest(serving, filter, options));
  }

  private async cheapest(
    serving: Serving,
    filter: CatalogFilter,
    options: { limit: number; descending: boolean },
  ): Promise<{ products: CatalogProduct[]; total: number }> {
    const where = ['price_amount IS NOT NULL', buildWhere(filter)].filter((c) => c !== undefined).join(' AND ');
    const sign = options.descending ? -1 : 1;
    // Ascending by sign × price; a tie keeps the row seen first, so the order is stable.
    const best: { rowId: bigint; key: number }[] = [];
    let total = 0;
    for await (const batch of serving.table.query().where(where).select(['price_amount']).withRowId()) {
      total += batch.numRows;
      const prices = batch.getChild('price_amount')!.toArray() as Float64Array;
      const rowIds = batch.getChild('_rowid')!.toArray() as BigUint64Array;
      for (let i = 0; i < batch.numRows; i++) {
        const key = sign * prices[i]!;
        if (best.length === options.limit && key >= best[best.length - 1]!.key) continue;
        let at = best.length;
        while (at > 0 && best[at - 1]!.key > key) at--;
        best.splice(at, 0, { rowId: rowIds[i]!, key });
        if (best.length > options.limit) best.pop();
      }
    }
    const rows = await this.rowsAt(
      serving,
      best.map((b) => b.rowId),
    );
    return { products: best.flatMap((b) => rows.get(b.rowId)?.product ?? []), total };
  }

  /**
   * Late materialisation: both retrievals return row addresses and scores only, and the rows are
   * decoded here, from the cache or with one take of the misses: decoding was two thirds of a
   * search's CPU (docs/search.md), and products recur across searches, so most are decoded once.
   */
  private async hydrate(serving: Serving, hits: ArrowTable, scoreColumn: '_distance' | '_score', withVectors: boolean): Promise<ScoredProduct[]> {
    // Whole columns as typed arrays: Arrow's per-cell get() walks a visitor for every value.
    const ids: bigint[] = hits.numRows > 0 ? Array.from(hits.getChild('_rowid')!.toArray() as BigUint64Array) : [];
    const scores: ArrayLike<number> = hits.numRows > 0 ? (hits.getChild(scoreColumn)!.toArray() as Float32Array) : [];
    const found = await this.rowsAt(serving, ids);
    const out: ScoredProduct[] = [];
    ids.forEach((id, i) => {
      const h = found.get(id);
      // A row address from this version always resolves; skip rather than fail if it ever does not.
      if (h) out.push({ product: h.product, score: Number(scores[i]), ...(withVectors ? { vector: h.vector } : {}) });
    });
    return out;
  }

  /** The decoded rows at these addresses of the serving version: from the cache, the misses with one take. */
  private async rowsAt(serving: Serving, ids: readonly bigint[]): Promise<Map<bigint, Hydrated>> {
    const found = new Map<bigint, Hydrated>();
    const misses: bigint[] = [];
    for (const id of ids) {
      const cached = serving.rows?.get(id);
      if (cached) found.set(id, cached);
      else misses.push(id);
    }
    if (serving.rows) {
      this.lookups.hits += ids.length - misses.length;
      this.lookups.misses += misses.length;
    }
    if (misses.length > 0) {
      const table = await serving.table
        .takeRowIds(misses)
        .select([...serving.columns, 'vector'])
        .withRowId()
        .toArrow();
      for (const { rowId, row, vector } of decodedRows(table, serving.columns)) {
        const hydrated = { product: fromRecord(row), vector };
        found.set(rowId, hydrated);
        serving.rows?.set(rowId, hydrated);
      }
    }
    return found;
  }

  /** Every product of the serving version: from memory when the cache holds them all (a refresh's vocabulary rebuild), else one scan. */
  async *scanProducts(): AsyncIterable<CatalogProduct[]> {
    const serving = this.serving;
    if (!serving) return;
    if (serving.exact) {
      yield* serving.exact.productBatches(SCAN_BATCH);
      return;
    }
    acquire(serving);
    try {
      for await (const batch of serving.table.query().select(serving.columns)) {
        yield batch.toArray().map((r) => fromRecord(r as Record<string, unknown>));
      }
    } finally {
      release(serving);
    }
  }

  async *scanVectors(): AsyncIterable<{ productId: string; vector: Float32Array }[]> {
    const serving = this.serving;
    if (!serving) return;
    acquire(serving);
    try {
      yield* this.vectorBatches(serving);
    } finally {
      release(serving);
    }
  }

  private async *vectorBatches(serving: Serving): AsyncIterable<{ productId: string; vector: Float32Array }[]> {
    for await (const batch of serving.table.query().select(['product_id', 'vector'])) {
      const ids = batch.getChild('product_id');
      const vectors = batch.getChild('vector');
      const out: { productId: string; vector: Float32Array }[] = [];
      for (let i = 0; i < batch.numRows; i++) {
        out.push({ productId: String(ids?.get(i)), vector: Float32Array.from(vectors?.get(i)?.toArray() ?? []) });
      }
      yield out;
    }
  }

  async close(): Promise<void> {
    await this.refreshing;
    // As a refresh would: a read still under way finishes before the table closes.
    retire(this.serving);
    this.serving = null;
    this.conn.close();
  }

  /** Writes the pointer (meta.ts, writeMeta) and follows it at once. */
  async publish(info: CatalogInfo, rankingModel?: string | null): Promise<void> {
    await writeMeta(this.conn, info, rankingModel, this.retentionMs);
    await this.refresh();
  }

  /** The product cache as the metrics read it: lookups so far, and the bytes the serving version's cache holds and may hold. */
  cacheStats(): { hits: number; misses: number; bytes: number; budgetBytes: number } {
    return { ...this.lookups, bytes: this.serving?.rows?.calculatedSize ?? 0, budgetBytes: this.options.cacheBytes ?? DEFAULT_PRODUCT_CACHE_BYTES };
  }

  /**
   * A read of the serving version (`empty` when there is none) in a span of its own
   * (`catalog.<call>`), timed for the metrics when someone listens.
   */
  private timed<T>(call: CatalogRead, empty: T, read: (serving: Serving) => Promise<T>): Promise<T> {
    return inSpan(`catalog.${call}`, { 'aisle.catalog.version': this.serving?.info.version ?? 0 }, async () => {
      const started = performance.now();
      try {
        return await this.reading(empty, read);
      } finally {
        this.options.onRead?.(call, (performance.now() - started) / 1000);
      }
    });
  }

  private get retentionMs(): number {
    return this.options.versionRetentionMs ?? DEFAULT_VERSION_RETENTION_MS;
  }

  /** The date before which versions of `table` may be removed (meta.ts, cleanupCutoff). */
  cleanupCutoff(table: Table): Promise<Date> {
    return cleanupCutoff(this.conn, table, this.retentionMs);
  }

  /** Catalog upkeep (upkeep.ts, runUpkeep). */
  upkeep(): Promise<UpkeepReport> {
    return runUpkeep(this.conn, this.options.uri, this);
  }

  get annOptions(): Pick<LanceCatalogOptions, 'annThreshold' | 'annIndex' | 'recallDepth'> {
    return { annThreshold: this.options.annThreshold, annIndex: this.options.annIndex, recallDepth: this.options.recallDepth };
  }
}
