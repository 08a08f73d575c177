/** The product catalog: what search, import and learning need from it (src/store/lance). */
import type { ProductDigests } from './digests.js';
import type { CatalogProduct } from './product.js';

export type AnnIndexKind = 'none' | 'ivf_hnsw_sq' | 'ivf_pq';

/** What the serving catalog version is and which model built it. */
export interface CatalogInfo {
  model: string;
  dimensions: number;
  productCount: number;
  version: number;
  updatedAt: Date;
  annIndex: AnnIndexKind;
  /** Recall@100 of the ANN path against exact search, measured on probe queries when the index was built or updated; null without an index. */
  annRecall: number | null;
}

/** Hard constraints pushed down into every retrieval (never applied after a top-k cut). */
export interface CatalogFilter {
  minPrice?: number;
  maxPrice?: number;
  merchant?: string;
  brand?: string;
  /** Matches the category or any ancestor, case-insensitively. */
  category?: string;
  /** Widens `category`: a product in any of these taxonomy subtrees (paths from the top) matches it too. */
  categorySubtrees?: readonly (readonly string[])[];
  /** Matches any of these categories, each as `category` does. */
  anyCategory?: readonly string[];
  /** Every word must occur in title, description, brand, category or attributes. */
  keywords?: readonly string[];
  excludeProductIds?: readonly string[];
  /** Leaves out products placed in any of these taxonomy subtrees (a publisher's policy, docs/policy.md). */
  excludeSubtrees?: readonly (readonly string[])[];
  /** Leaves out products of these brands and merchants, case-insensitively; a product without one is kept. */
  excludeBrands?: readonly string[];
  excludeMerchants?: readonly string[];
}

export interface ScoredProduct {
  product: CatalogProduct;
  /** Vector search: cosine distance (0 = same direction). Text search: BM25 score (higher is better). */
  score: number;
  vector?: Float32Array;
}

export interface CatalogRow {
  product: CatalogProduct;
  vector: Float32Array;
  /** Kept with the row so the next import can tell what changed (digests.ts); without them the next import embeds the product again. */
  digests?: ProductDigests;
}

/** A product written without a new vector: its stored vector is kept (digests.ts, 'restated' and 'delta'). */
export interface UnembeddedRow {
  product: CatalogProduct;
  digests: ProductDigests;
}

/** The digests stored with a product; null for a row written without them. */
export interface StoredDigests {
  text: string | null;
  content: string | null;
  row: string | null;
}

/**
 * One import. Rows written are invisible to readers until commit(); abort() (or a crash) leaves
 * the previous catalog version serving.
 */
export interface CatalogWriter {
  /** Upserts by product id. */
  write(rows: readonly CatalogRow[]): Promise<{ inserted: number; updated: number }>;
  /** Appends products the caller knows are in neither the base version nor this import yet (cheaper than an upsert). */
  insert(rows: readonly CatalogRow[]): Promise<void>;
  /** Rewrites stored products' fields but keeps their vectors and text index entries (their embedded text is unchanged). */
  restate(rows: readonly UnembeddedRow[]): Promise<void>;
  /** Rewrites only stored products' live fields: price, currency, availability, last update. */
  applyDeltas(rows: readonly UnembeddedRow[]): Promise<void>;
  /** The vectors the version this import started from stores for these products; ids it does not hold are absent. */
  storedVectors(productIds: readonly string[]): Promise<Map<string, Float32Array>>;
  /** The digests the version this import started from stores for these products; ids it does not hold are absent. */
  storedDigests(productIds: readonly string[]): Promise<Map<string, StoredDigests>>;
  /** Every product id of the version this import started from, in batches. */
  storedIds(): AsyncIterable<string[]>;
  /** Removes these products (ids not in the catalog are ignored). */
  remove(productIds: readonly string[]): Promise<void>;
  commit(): Promise<CatalogInfo>;
  abort(): Promise<void>;
}

export interface CatalogStore {
  /** The serving version, or null for an empty catalog. */
  info(): Promise<CatalogInfo | null>;
  /**
   * Re-reads the serving pointer (a new import by another process); true when it moved. With
   * `accept`, a new version it rejects is not served: the current one keeps serving.
   */
  refresh(accept?: (info: CatalogInfo) => boolean): Promise<boolean>;
  /**
   * Loads what the store keeps in memory for searching (optional; searches work without it),
   * calling `prepare` on each product it keeps so derived data is computed ahead too.
   */
  warm?(prepare?: (product: CatalogProduct) => unknown): Promise<void>;
  /**
   * Starts an import. `replace` drops the current products on commit; otherwise rows upsert by
   * product id. Throws CatalogModelMismatchError when the model differs and `replace` is false.
   */
  openWriter(options: { model: string; dimensions: number; replace: boolean }): Promise<CatalogWriter>;
  getByIds(productIds: readonly string[]): Promise<CatalogProduct[]>;
  /** `withVectors` returns each result's vector too (the ranking's pseudo-relevance feedback uses them). */
  vectorSearch(vector: Float32Array, options: { limit: number; filter?: CatalogFilter; exact?: boolean; withVectors?: boolean }): Promise<ScoredProduct[]>;
  /** Full text over the canonical search text (measures as canonicalText writes them). */
  textSearch(query: string, options: { limit: number; filter?: CatalogFilter; withVectors?: boolean }): Promise<ScoredProduct[]>;
  /**
   * Products that pass `filter` and have a price, cheapest first (dearest with `descending`), the
   * first `limit`, and how many pass: a search whose query names only a price ("under $50").
   */
  byPrice(filter: CatalogFilter, options: { limit: number; descending: boolean }): Promise<{ products: CatalogProduct[]; total: number }>;
  /**
   * The ranking model stored with the catalog for this embedding model (fitted at import or by
   * npm run calibrate), as stored: JSON the core validates (readRankingModel in
   * core/ranking/ranking.ts). Null when none is stored.
   */
  readStoredRankingModel(embeddingModel: string): Promise<unknown>;
  /**
   * Stores the ranking model for this embedding model, replacing the one stored before; the
   * serving version, when built by that embedding model, takes it (other processes at their next
   * refresh).
   */
  storeRankingModel(embeddingModel: string, rankingModel: object): Promise<void>;
  /** The ranking model the serving version carries, as stored (validated by the core), or null; the same object until the version or its model moves. */
  servingRankingModel(): unknown;
  /** Every product of the serving version, in batches (re-index). */
  scanProducts(): AsyncIterable<CatalogProduct[]>;
  /** Every product id and vector of the serving version (re-index, ANN evaluation). */
  scanVectors(): AsyncIterable<{ productId: string; vector: Float32Array }[]>;
  close(): Promise<void>;
}
