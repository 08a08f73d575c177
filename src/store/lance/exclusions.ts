import type { Table } from '@lancedb/lancedb';
import type { CatalogFilter, ScoredProduct } from '../../core/catalog/ports.js';
import type { CatalogProduct } from '../../core/catalog/product.js';
import { cosineOf } from '../../core/ranking/vectors.js';
import { compileExclusions, filterKey, taxonomyKeys } from './where.js';

/**
 * A publisher's exclusions (subtrees, brands, merchants) on LanceDB's paths. Pushed into the
 * query as a filter they cost every search a test of the whole catalog (about 2.3 ms on 54,667
 * products, a third of a search's CPU; docs/policy.md). Instead the query runs without them for
 * OVERFETCH× the rows and the excluded are dropped from what it found: when at least `limit`
 * remain they are exactly the first `limit` that pass (the same order, the excluded only removed).
 * When fewer remain and more rows were there to find, it asks once more for as many as the share
 * kept says are needed (at most MAX_OVERFETCH×); failing that, the query runs with the exclusions
 * pushed in, so the answer fills however much of the catalog the policy excludes.
 */
export async function withExclusions(
  limit: number,
  filter: CatalogFilter | undefined,
  run: (limit: number, filter: CatalogFilter | undefined) => Promise<ScoredProduct[]>,
): Promise<ScoredProduct[]> {
  const { excludeSubtrees, excludeBrands, excludeMerchants, ...rest } = filter ?? {};
  if (!excludeSubtrees?.length && !excludeBrands?.length && !excludeMerchants?.length) return run(limit, filter);
  const pushed = Object.keys(rest).length > 0 ? rest : undefined;
  const excluded = compileExclusions({
    ...(excludeSubtrees ? { excludeSubtrees } : {}),
    ...(excludeBrands ? { excludeBrands } : {}),
    ...(excludeMerchants ? { excludeMerchants } : {}),
  })!;
  let wide = Math.ceil(limit * OVERFETCH);
  for (let attempt = 0; attempt < 2; attempt++) {
    const found = await run(wide, pushed);
    const kept = found.filter((h) => !excluded(exclusionKeys(h.product)));
    if (kept.length >= limit || found.length < wide) return kept.slice(0, limit);
    // Once more, as much wider as the share kept says is needed (and a fifth more), within bounds.
    const share = Math.max(kept.length, 1) / found.length;
    wide = Math.ceil(Math.min((limit / share) * 1.2, limit * MAX_OVERFETCH));
    if (wide <= found.length) break;
  }
  return run(limit, filter);
}

/** The keys a whole catalog version answers to: exclusions of anything else leave nothing out. */
export interface PresentKeys {
  taxonomy: Set<string>;
  brands: Set<string>;
  merchants: Set<string>;
}

/** The keys of every product of a version, from one scan of its three key columns. */
export async function presentKeys(table: Table): Promise<PresentKeys> {
  const present: PresentKeys = { taxonomy: new Set(), brands: new Set(), merchants: new Set() };
  for await (const batch of table.query().select(['category_keys', 'brand_key', 'merchant_key'])) {
    const keys = batch.getChild('category_keys');
    const brands = batch.getChild('brand_key');
    const merchants = batch.getChild('merchant_key');
    for (let i = 0; i < batch.numRows; i++) {
      for (const key of (keys?.get(i)?.toArray() ?? []) as string[]) if (key.startsWith('gpc:')) present.taxonomy.add(key);
      const brand = brands?.get(i) as string | null;
      const merchant = merchants?.get(i) as string | null;
      if (brand != null) present.brands.add(brand);
      if (merchant != null) present.merchants.add(merchant);
    }
  }
  return present;
}

/**
 * `filter` without the exclusions that match nothing in the version (a policy's presets often
 * name what a catalog does not sell): they then cost a search nothing. `present` is asked only for
 * a filter with exclusions; unchanged while it answers null.
 */
export function withoutAbsent(presentNow: () => PresentKeys | null, filter: CatalogFilter | undefined): CatalogFilter | undefined {
  if (filter === undefined || (!filter.excludeSubtrees?.length && !filter.excludeBrands?.length && !filter.excludeMerchants?.length)) return filter;
  const present = presentNow();
  if (present === null) return filter;
  const { excludeSubtrees, excludeBrands, excludeMerchants, ...rest } = filter;
  const subtrees = excludeSubtrees?.filter((path) => present.taxonomy.has(taxonomyKeys(path).at(-1)!)) ?? [];
  const brands = excludeBrands?.filter((b) => present.brands.has(filterKey(b))) ?? [];
  const merchants = excludeMerchants?.filter((m) => present.merchants.has(filterKey(m))) ?? [];
  return {
    ...rest,
    ...(subtrees.length > 0 ? { excludeSubtrees: subtrees } : {}),
    ...(brands.length > 0 ? { excludeBrands: brands } : {}),
    ...(merchants.length > 0 ? { excludeMerchants: merchants } : {}),
  };
}

/** How many rows an excluding search asks for, per row it needs; and at most, on its second try. */
const OVERFETCH = 1.5;
const MAX_OVERFETCH = 4;

/** A product's keys as the exclusions compare them (its taxonomy keys are all they need of its category keys), once per decoded product. */
const keysOf = new WeakMap<CatalogProduct, { category_keys: string[]; brand_key: string | null; merchant_key: string | null }>();

function exclusionKeys(p: CatalogProduct): { category_keys: string[]; brand_key: string | null; merchant_key: string | null } {
  let keys = keysOf.get(p);
  if (keys === undefined) {
    keys = {
      category_keys: taxonomyKeys(p.taxonomy?.path ?? []),
      brand_key: p.brand === null ? null : filterKey(p.brand),
      merchant_key: p.merchant === null ? null : filterKey(p.merchant),
    };
    keysOf.set(p, keys);
  }
  return keys;
}

/** Exact cosine distances for `hits`, nearest first, the first `limit` of them. */
export function rescoreExactly(query: Float32Array, hits: ScoredProduct[], limit: number, withVectors: boolean): ScoredProduct[] {
  const rescored = hits.map((h) => ({ product: h.product, score: 1 - cosineOf(query, h.vector!), vector: h.vector! }));
  rescored.sort((a, b) => a.score - b.score);
  if (rescored.length > limit) rescored.length = limit;
  return withVectors ? rescored : rescored.map(({ product, score }) => ({ product, score }));
}
