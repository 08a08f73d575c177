import type { CatalogInfo, CatalogRow, CatalogStore } from './ports.js';
import type { Embedder } from '../shared-ports.js';
import { refreshColdStartModel, type ColdStartOptions, type ColdStartOutcome } from '../learning/cold-start.js';
import { productEmbeddingText } from './embedding-text.js';
import { normalizeProduct } from './normalize.js';
import type { CatalogProduct } from './product.js';

/** One record from a feed reader: a raw row to normalise, or a record that could not be parsed. */
export type FeedRecord = { line: number; row: Record<string, unknown> } | { line: number; error: string; detail: string };

export interface ImportProgress {
  read: number;
  imported: number;
  updated: number;
  skipped: number;
}

export interface ImportOptions {
  /** Replace the whole catalog instead of upserting by product id. */
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
}

export interface SkippedExample {
  line: number;
  reason: string;
  detail: string;
}

export interface ImportSummary extends ImportProgress {
  skippedByReason: Record<string, number>;
  /** The first few skipped rows per reason, to show the user what to fix. */
  examples: SkippedExample[];
  /** The serving catalog after the import; null for a dry run or when nothing was imported. */
  catalog: CatalogInfo | null;
  /** What the import did about the ranking model; null when fitRanking was off or nothing was committed. */
  rankingModel: ColdStartOutcome | null;
  dryRun: boolean;
  durationMs: number;
}

const EXAMPLES_PER_REASON = 3;

/**
 * Reads, normalises, embeds and writes products in batches, then commits them as one new
 * catalog version. Messy rows are skipped and counted by reason. When nothing valid was read,
 * or anything throws, the import is aborted and the previous catalog keeps serving.
 */
export async function importCatalog(
  records: AsyncIterable<FeedRecord>,
  deps: { catalog: CatalogStore; embedder: Embedder },
  options: ImportOptions,
): Promise<ImportSummary> {
  const started = Date.now();
  const batchSize = options.batchSize ?? 256;
  const progress: ImportProgress = { read: 0, imported: 0, updated: 0, skipped: 0 };
  const skippedByReason: Record<string, number> = {};
  const examples: SkippedExample[] = [];
  const skip = (line: number, reason: string, detail: string) => {
    progress.skipped += 1;
    skippedByReason[reason] = (skippedByReason[reason] ?? 0) + 1;
    if (skippedByReason[reason]! <= EXAMPLES_PER_REASON) examples.push({ line, reason, detail });
  };

  const writer = options.dryRun
    ? null
    : await deps.catalog.openWriter({ model: deps.embedder.model, dimensions: deps.embedder.dimensions, replace: options.replace });
  let batch: CatalogProduct[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const products = batch;
    batch = [];
    if (writer === null) {
      progress.imported += products.length;
      return;
    }
    const vectors = await deps.embedder.embed(products.map(productEmbeddingText));
    const rows: CatalogRow[] = products.map((product, i) => ({ product, vector: vectors[i]! }));
    const { inserted, updated } = await writer.write(rows);
    progress.imported += inserted;
    progress.updated += updated;
  };

  let catalog: CatalogInfo | null = null;
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
      if (batch.length >= batchSize) {
        await flush();
        options.onProgress?.({ ...progress });
      }
    }
    await flush();
    options.onProgress?.({ ...progress });
    if (writer !== null) {
      if (progress.imported + progress.updated === 0) await writer.abort();
      else catalog = await writer.commit();
    }
  } catch (err) {
    await writer?.abort();
    throw err;
  }
  // Outside the try: the import is committed and serving, so a failed fit must not abort it.
  const rankingModel = catalog !== null && options.fitRanking ? await refreshColdStartModel(deps, options.fitRanking === true ? {} : options.fitRanking) : null;
  return { ...progress, skippedByReason, examples, catalog, rankingModel, dryRun: options.dryRun, durationMs: Date.now() - started };
}
