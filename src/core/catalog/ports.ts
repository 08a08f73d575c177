/** The product catalog: what search, import and learning need from it (src/store/lance). */
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
  /** Matches any of these categories, each as `category` does. */
  anyCategory?: readonly string[];
  /** Every word must occur in title, description, brand, category or attributes. */
  keywords?: readonly string[];
  excludeProductIds?: readonly string[];
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
}

/**
 * One import. Rows written are invisible to readers until commit(); abort() (or a crash) leaves
 * the previous catalog version serving.
 */
export interface CatalogWriter {
  write(rows: readonly CatalogRow[]): Promise<{ inserted: number; updated: number }>;
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
  /** Stores the ranking model for this embedding model, replacing the one stored before. */
  storeRankingModel(embeddingModel: string, rankingModel: object): Promise<void>;
  /** Every product of the serving version, in batches (re-index). */
  scanProducts(): AsyncIterable<CatalogProduct[]>;
  /** Every product id and vector of the serving version (re-index, ANN evaluation). */
  scanVectors(): AsyncIterable<{ productId: string; vector: Float32Array }[]>;
  close(): Promise<void>;
}
