import { type ColdStartOptions, type ColdStartOutcome, refreshColdStartModel } from '../learning/cold-start.js';
import { FALLBACK_MODEL, readRankingModel } from '../ranking/ranking.js';
import type { Embedder } from '../shared-ports.js';
import { classifyChange, type ProductChange, type ProductDigests, productDigests } from './digests.js';
import { productEmbeddingText } from './embedding-text.js';
import { normalizeProduct } from './normalize.js';
import { type CatalogPlacer, feedCategory } from './placement.js';
import type { CatalogInfo, CatalogRow, CatalogStore, CatalogWriter, UnembeddedRow } from './ports.js';
import type { CatalogProduct } from './product.js';

/** One record from a feed reader: a raw row to normalise, or a record that could not be parsed. */
export type FeedRecord = { line: number; row: Record<string, unknown> } | { line: number; error: string; detail: string };

/** Counts of an import so far (docs/ingest.md, "Re-imports and deltas"). */
export interface ImportProgress {
  read: number;
  /** Products not in the catalog before. */
  imported: number;
  /** Stored products whose content changed (embedded again only when their embedded text did). */
  updated: number;
  /** Stored products of which only price, currency, availability or last update changed: written without embedding. */
  delta: number;
  /** Stored products read again exactly as stored: nothing written. */
  unchanged: number;
  /** Products embedded (new ones and those whose embedded text changed). */
  embedded: number;
  /** Products a replacing import removed because the feed no longer lists them. */
  removed: number;
  skipped: number;
}

export interface ImportOptions {
  /**
   * The feed is the whole catalog: products it does not list are removed. Products it lists
   * unchanged keep their rows and vectors; only when the embedding model changed is everything
   * embedded again.
   */
  replace: boolean;
  /** Read and validate only: nothing is embedded or written. */
  dryRun: boolean;
  batchSize?: number;
  defaults?: { merchant?: string; currency?: string; disclosureText?: string };
  onProgress?: (progress: ImportProgress) => void;
  /**
   * After a committed import, fit the catalog's cold-start ranking model and store it (unless a
   * model fitted on labelled data is stored): cold-start.ts. Off by default; `npm run ingest` and
   * the server's sample-catalog load turn it on.
   */
  fitRanking?: boolean | ColdStartOptions;
  /** Fit the ranking model even when the import changed too little to warrant it (npm run ingest -- --refit). */
  refit?: boolean;
}

interface SkippedExample {
  line: number;
  reason: string;
  detail: string;
}

export interface ImportSummary extends ImportProgress {
  skippedByReason: Record<string, number>;
  /** The first few skipped rows per reason, to show the user what to fix. */
  examples: SkippedExample[];
  /** The serving catalog after the import (the same version when nothing changed); null for a dry run or when nothing valid was read. */
  catalog: CatalogInfo | null;
  /** What the import did about the ranking model; null when fitRanking was off or nothing was committed. */
  rankingModel: ColdStartOutcome | null;
  dryRun: boolean;
  durationMs: number;
}

const emptyProgress = (): ImportProgress => ({ read: 0, imported: 0, updated: 0, delta: 0, unchanged: 0, embedded: 0, removed: 0, skipped: 0 });

const EXAMPLES_PER_REASON = 3;
/** Products compared with the stored catalog per lookup: one indexed read of their digests. */
const LOOKUP_BATCH = 2_048;

/**
 * Reads, normalises and compares products with the stored catalog in batches, embeds only those
 * whose embedded text is new or changed, writes what changed (the live fields alone for a delta)
 * and commits it all as one new catalog version. Embedding the next batch overlaps writing the
 * last. Messy rows are skipped and counted by reason. When nothing valid was read, or anything
 * throws, the import is aborted and the previous catalog keeps serving; when nothing changed, no
 * version is written.
 */
export async function importCatalog(
  records: AsyncIterable<FeedRecord>,
  deps: { catalog: CatalogStore; embedder: Embedder; placer?: ProductPlacer },
  options: ImportOptions,
): Promise<ImportSummary> {
  const started = Date.now();
  const embedBatch = options.batchSize ?? 256;
  const progress = emptyProgress();
  const skippedByReason: Record<string, number> = {};
  const examples: SkippedExample[] = [];
  const skip = (line: number, reason: string, detail: string) => {
    progress.skipped += 1;
    skippedByReason[reason] = (skippedByReason[reason] ?? 0) + 1;
    if (skippedByReason[reason]! <= EXAMPLES_PER_REASON) examples.push({ line, reason, detail });
  };

  const { model, dimensions } = deps.embedder;
  const current = await deps.catalog.info();
  // A replacing import of a catalog built by the same model keeps what it reads unchanged and
  // removes the rest at the end; only a new model drops every row up front.
  const dropAll = options.replace && (current === null || current.model !== model || current.dimensions !== dimensions);
  const writer = options.dryRun ? null : await deps.catalog.openWriter({ model, dimensions, replace: dropAll });
  const applier = writer === null ? null : new BatchApplier(writer, deps.embedder, embedBatch, progress, deps.placer ?? null);
  let batch: CatalogProduct[] = [];
  const flush = async () => {
    const products = batch;
    batch = [];
    if (applier === null) progress.imported += products.length;
    else await applier.apply(products);
    options.onProgress?.({ ...progress });
  };

  let catalog: CatalogInfo | null = null;
  let contentChanged = false;
  try {
    for await (const record of records) {
      progress.read += 1;
      if ('error' in record) {
        skip(record.line, record.error, record.detail);
      } else {
        const result = normalizeProduct(record.row, options.defaults);
        if (result.ok) batch.push(result.product);
        else skip(record.line, result.reason, result.detail);
      }
      if (batch.length >= LOOKUP_BATCH) await flush();
    }
    await flush();
    if (writer !== null && applier !== null) {
      await applier.drain();
      const valid = progress.imported + progress.updated + progress.delta + progress.unchanged;
      if (valid > 0 && options.replace && !dropAll) progress.removed = await applier.removeUnseen();
      contentChanged = progress.imported + progress.updated + progress.removed > 0;
      if (valid === 0) {
        await writer.abort();
      } else if (!contentChanged && progress.delta === 0) {
        // Every product as stored: no new version, nothing for other processes to load.
        await writer.abort();
        catalog = current;
      } else {
        catalog = await writer.commit();
      }
      options.onProgress?.({ ...progress });
    }
  } catch (err) {
    // A write still in flight finishes (or fails) before the import's commits are discarded.
    await applier?.drain().catch(() => undefined);
    await writer?.abort();
    throw err;
  }
  // Outside the try: the import is committed and serving, so a failed fit must not abort it.
  // Prices and availability are not what the model ranks by, so a delta-only import keeps it
  // (unless asked to fit it again).
  let rankingModel: ColdStartOutcome | null = null;
  if (catalog !== null && options.fitRanking) {
    rankingModel =
      contentChanged || options.refit
        ? await refreshColdStartModel(
            deps,
            options.fitRanking === true ? {} : options.fitRanking,
            options.refit ? undefined : { products: catalog.productCount, changed: progress.imported + progress.updated + progress.removed },
          )
        : {
            action: 'kept',
            source: (await readRankingModel(deps.catalog, model))?.source ?? FALLBACK_MODEL.source,
            reason: 'no product was added, removed or changed beyond price and availability',
          };
  }
  return { ...progress, skippedByReason, examples, catalog, rankingModel, dryRun: options.dryRun, durationMs: Date.now() - started };
}

/** What places an import's products in the taxonomy (placement.ts; src/knowledge/placer.ts opens the shipped one). */
export type ProductPlacer = Pick<CatalogPlacer, 'place'>;

/**
 * One import's writes: each batch is classified against the stored digests (digests.ts), the
 * products to embed are embedded in `embedBatch`-sized calls, and the writes of a batch run while
 * the next batch is read and embedded (one write in flight; its failure fails the import).
 */
export class BatchApplier {
  /** Every product id this import has read: a second occurrence is written in full, and a replacing import removes the ids it did not see. */
  private readonly seen = new Set<string>();
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly writer: CatalogWriter,
    private readonly embedder: Embedder,
    private readonly embedBatch: number,
    /** Counted into as batches are written. */
    readonly progress: ImportProgress = emptyProgress(),
    /** Places each product it writes in full (new, changed, restated); without one they are written unplaced. */
    private readonly placer: ProductPlacer | null = null,
  ) {}

  async apply(batch: readonly CatalogProduct[]): Promise<void> {
    if (batch.length === 0) return;
    // The last occurrence of an id within the batch wins, as it would across batches.
    const byId = new Map(batch.map((p) => [p.productId, p]));
    const stored = await this.writer.storedDigests([...byId.keys()].filter((id) => !this.seen.has(id)));
    const fresh: { product: CatalogProduct; digests: ProductDigests }[] = [];
    const upserts: { product: CatalogProduct; digests: ProductDigests }[] = [];
    const restated: UnembeddedRow[] = [];
    const deltas: UnembeddedRow[] = [];
    for (const [id, product] of byId) {
      const digests = productDigests(product, this.embedder.model);
      const change: ProductChange = this.seen.has(id) ? 'changed' : classifyChange(stored.get(id), digests);
      this.seen.add(id);
      if (change === 'new') fresh.push({ product, digests });
      else if (change === 'changed') upserts.push({ product, digests });
      else if (change === 'restated') restated.push({ product, digests });
      else if (change === 'delta') deltas.push({ product, digests });
      else this.progress.unchanged += 1;
    }
    const embedded = await this.embed([...fresh, ...upserts]);
    this.progress.embedded += embedded.length;
    const placedRows = await this.placed(embedded);
    const placedRestated = await this.placed(await this.withStoredVectors(restated));
    const newRows = placedRows.slice(0, fresh.length);
    const changedRows = placedRows.slice(fresh.length);
    await this.pending;
    this.pending = (async () => {
      await this.writer.insert(newRows);
      await this.writer.write(changedRows);
      await this.writer.restate(placedRestated);
      await this.writer.applyDeltas(deltas);
      this.progress.imported += newRows.length;
      this.progress.updated += changedRows.length + restated.length;
      this.progress.delta += deltas.length;
    })();
    // Seen by the next await of `pending`; marked handled so a failure waiting there is not reported as unhandled first.
    this.pending.catch(() => undefined);
  }

  /**
   * The rows with their products placed in the taxonomy. A delta keeps the place stored (the
   * fields placement reads are unchanged); an unchanged product is not read again.
   */
  private async placed<R extends { product: CatalogProduct; vector: Float32Array | null }>(rows: R[]): Promise<R[]> {
    if (this.placer === null || rows.length === 0) return rows;
    const places = await this.placer.place(rows);
    return rows.map((row, i) => ({ ...row, product: { ...row.product, taxonomy: places[i] ?? null } }));
  }

  /**
   * Restated products with the vector their text placement votes with: stored, since their embedded
   * text is unchanged (null for one whose feed names its category: the vote is not needed).
   */
  private async withStoredVectors(rows: UnembeddedRow[]): Promise<(UnembeddedRow & { vector: Float32Array | null })[]> {
    const wanted = this.placer === null ? [] : rows.filter((r) => feedCategory(r.product) === null).map((r) => r.product.productId);
    const vectors = wanted.length > 0 ? await this.writer.storedVectors(wanted) : new Map<string, Float32Array>();
    return rows.map((r) => ({ ...r, vector: vectors.get(r.product.productId) ?? null }));
  }

  /** Waits for the last batch's writes. */
  drain(): Promise<void> {
    return this.pending;
  }

  /** Removes the stored products this import did not read; returns how many. */
  async removeUnseen(): Promise<number> {
    const gone: string[] = [];
    for await (const ids of this.writer.storedIds()) for (const id of ids) if (!this.seen.has(id)) gone.push(id);
    await this.writer.remove(gone);
    return gone.length;
  }

  private async embed(items: readonly { product: CatalogProduct; digests: ProductDigests }[]): Promise<CatalogRow[]> {
    const rows: CatalogRow[] = [];
    for (let i = 0; i < items.length; i += this.embedBatch) {
      const slice = items.slice(i, i + this.embedBatch);
      const vectors = await this.embedder.embed(slice.map((item) => productEmbeddingText(item.product)));
      for (const [k, item] of slice.entries()) rows.push({ ...item, vector: vectors[k]! });
    }
    return rows;
  }
}
