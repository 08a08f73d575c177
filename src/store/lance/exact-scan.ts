import type { CatalogFilter, ScoredProduct } from '../../core/catalog/ports.js';
import type { CatalogProduct } from '../../core/catalog/product.js';
import { cosineOf, normOf } from '../../core/ranking/vectors.js';
import { filterColumns } from './rows.js';
import { compileFilter, type FilterColumns, type FilterSubject } from './where.js';

interface Row extends FilterSubject {
  product: CatalogProduct;
  vector: Float32Array;
}

/**
 * Exact nearest-neighbour search over every product of one catalog version held in memory: what
 * the store answers a vector search with, once its row cache holds the whole version, instead of
 * scanning the vector column again. On object storage that scan was a store request per search
 * (docs/deployment.md, "Latency of a catalog on object storage"). Scores and order are those of
 * the Lance path: the exact cosine distance, nearest first, ties in row order.
 */
export class ExactScan {
  private readonly rows: Row[];
  /** Each row's vector norm, as normOf computes it. */
  private readonly norms: Float64Array;
  /** Pass 1's distances, reused by every search (nearest() runs to its end without yielding). */
  private readonly approx: Float64Array;
  /**
   * Which rows a set of exclusions (a publisher's policy) lets through, by its exclusions: a
   * policy stays the same over many searches, so each row is tested against it once, not per search.
   */
  private readonly kept = new Map<string, Uint8Array>();

  constructor(rows: Iterable<{ product: CatalogProduct; vector: Float32Array }>) {
    this.rows = [...rows].map(({ product, vector }) => {
      let columns: FilterColumns | null = null;
      return { product, vector, productId: product.productId, priceAmount: product.priceAmount, columns: () => (columns ??= filterColumns(product)) };
    });
    this.norms = Float64Array.from(this.rows, (r) => normOf(r.vector));
    this.approx = new Float64Array(this.rows.length);
  }

  get size(): number {
    return this.rows.length;
  }

  /** The rows `exclusions` keep (1) and turn away (0), computed once per set of exclusions; null for none. */
  private keptBy(exclusions: Pick<CatalogFilter, 'excludeSubtrees' | 'excludeBrands' | 'excludeMerchants'>): Uint8Array | null {
    const test = compileFilter(exclusions);
    if (test === null) return null;
    const key = JSON.stringify([exclusions.excludeSubtrees ?? [], exclusions.excludeBrands ?? [], exclusions.excludeMerchants ?? []]);
    let mask = this.kept.get(key);
    if (mask === undefined) {
      mask = Uint8Array.from(this.rows, (row) => (test(row) ? 1 : 0));
      if (this.kept.size >= KEPT_MASKS) this.kept.delete(this.kept.keys().next().value!);
      this.kept.set(key, mask);
    }
    return mask;
  }

  /** Every product, in row order, `size` at a time. */
  *productBatches(size: number): Generator<CatalogProduct[]> {
    for (let i = 0; i < this.rows.length; i += size) yield this.rows.slice(i, i + size).map((r) => r.product);
  }

  nearest(query: Float32Array, options: { limit: number; filter?: CatalogFilter; withVectors: boolean }): ScoredProduct[] {
    if (options.limit <= 0) return [];
    const { excludeSubtrees, excludeBrands, excludeMerchants, ...rest } = options.filter ?? {};
    const kept = this.keptBy({
      ...(excludeSubtrees ? { excludeSubtrees } : {}),
      ...(excludeBrands ? { excludeBrands } : {}),
      ...(excludeMerchants ? { excludeMerchants } : {}),
    });
    const passes = compileFilter(rest);
    const { rows, norms, approx } = this;
    // A copy of its own: the loops below then see one kind of array (the query may be a view).
    const q = Float32Array.from(query);
    const queryNorm = normOf(q);
    // Pass 1: every passing row's distance from a four-way dot product, about twice as fast as
    // cosineOf's one-way sum but a few ulps off it, and the `limit` smallest of those.
    // NaN for a row the filter turned away: it compares false with any bound.
    approx.fill(Number.NaN);
    const smallest: number[] = [];
    for (let r = 0; r < rows.length; r++) {
      if ((kept && kept[r] === 0) || (passes && !passes(rows[r]!))) continue;
      const d = 1 - dot4(q, rows[r]!.vector) / (queryNorm * norms[r]! || 1);
      approx[r] = d;
      if (smallest.length === options.limit && d >= smallest[smallest.length - 1]!) continue;
      let at = smallest.length;
      while (at > 0 && smallest[at - 1]! > d) at--;
      smallest.splice(at, 0, d);
      if (smallest.length > options.limit) smallest.pop();
    }
    // Pass 2: the exact distance (cosineOf, as the Lance path re-scores) of every row that could
    // be among the nearest: within a margin far above the sums' rounding.
    const bound = (smallest.length === options.limit ? smallest[smallest.length - 1]! : Number.POSITIVE_INFINITY) + 1e-9;
    const exact: { r: number; score: number }[] = [];
    for (let r = 0; r < rows.length; r++) {
      if (approx[r]! <= bound) exact.push({ r, score: 1 - cosineOf(q, rows[r]!.vector) });
    }
    // Nearest first; equal distances in row order, as a scan of the table returns them.
    exact.sort((a, b) => a.score - b.score || a.r - b.r);
    if (exact.length > options.limit) exact.length = options.limit;
    return exact.map(({ r, score }) => {
      const row = rows[r]!;
      return options.withVectors ? { product: row.product, score, vector: row.vector } : { product: row.product, score };
    });
  }
}

/** Exclusions' masks kept per scan: a few policies in use at once. */
const KEPT_MASKS = 16;

/** The dot product with four accumulators: faster, rounded differently. */
function dot4(q: Float32Array, v: Float32Array): number {
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  const end = v.length - (v.length % 4);
  for (let i = 0; i < end; i += 4) {
    a0 += q[i]! * v[i]!;
    a1 += q[i + 1]! * v[i + 1]!;
    a2 += q[i + 2]! * v[i + 2]!;
    a3 += q[i + 3]! * v[i + 3]!;
  }
  for (let i = end; i < v.length; i++) a0 += q[i]! * v[i]!;
  return a0 + a1 + a2 + a3;
}
