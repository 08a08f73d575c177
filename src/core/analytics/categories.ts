import type { Taxonomy } from '../knowledge/taxonomy.js';
import type { CategoryOrder, TopCategory } from '../schemas/analytics.js';
import { parseAmount, toCents } from './money.js';
import type { CategoryFigures } from './ports.js';
import { ratio } from './time-range.js';

/** How top_categories groups, ranks and cuts (docs/analytics.md, "Top categories"). */
export interface CategoryRanking {
  /** Taxonomy level, 1 = the top-level vertical. */
  level: number;
  orderBy: CategoryOrder;
  limit: number;
}

export const DEFAULT_CATEGORY_RANKING: CategoryRanking = { level: 2, orderBy: 'impressions', limit: 10 };

interface Group {
  id: number | null;
  path: string | null;
  impressions: number;
  clicks: number;
  conversions: number;
  /** Exact amounts (units of 0.0001) per currency and over all of them. */
  revenue: Map<string, bigint>;
  total: bigint;
}

/** Each taxonomy path ("A > B") to its category id, per taxonomy, built at the first use. */
const idsByPath = new WeakMap<Taxonomy, Map<string, number>>();

function idOfPath(taxonomy: Taxonomy, path: string): number | null {
  let index = idsByPath.get(taxonomy);
  if (index === undefined) {
    index = new Map([...taxonomy.values()].map((c) => [c.path.join(' > '), c.id]));
    idsByPath.set(taxonomy, index);
  }
  return index.get(path) ?? null;
}

/**
 * The category a leaf counts under at `level`: its ancestor there, or itself when it sits at or
 * above that level. Unplaced stays unplaced; an id the taxonomy does not know keeps its id without
 * a path (the taxonomy was replaced since, or none was given).
 */
function categoryAt(taxonomy: Taxonomy | undefined, leaf: number | null, level: number): { id: number | null; path: string | null } {
  if (leaf === null) return { id: null, path: null };
  const category = taxonomy?.get(leaf);
  if (taxonomy === undefined || category === undefined) return { id: leaf, path: null };
  if (category.path.length <= level) return { id: leaf, path: category.path.join(' > ') };
  const path = category.path.slice(0, level).join(' > ');
  return { id: idOfPath(taxonomy, path), path };
}

const measure = (g: Group, order: CategoryOrder): bigint => (order === 'revenue' ? g.total : BigInt(order === 'impressions' ? g.impressions : g.clicks));
const desc = (a: bigint | number, b: bigint | number): number => (a === b ? 0 : a > b ? -1 : 1);
/** By code point, the same on every machine; null (unplaced) last. */
const byPath = (a: string | null, b: string | null): number => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);

function compare(a: Group, b: Group, order: CategoryOrder): number {
  return (
    desc(measure(a, order), measure(b, order)) ||
    desc(a.impressions, b.impressions) ||
    desc(a.clicks, b.clicks) ||
    desc(a.total, b.total) ||
    byPath(a.path, b.path) ||
    (a.id ?? Number.MAX_SAFE_INTEGER) - (b.id ?? Number.MAX_SAFE_INTEGER)
  );
}

/**
 * Top categories from the figures of every leaf category: each leaf rolled up to its category at
 * `ranking.level`, ranked by `ranking.orderBy` (ties: impressions, clicks, revenue, path, id), cut
 * to `ranking.limit`. Money is added exactly and rounded to the cent at the end.
 */
export function rankCategories(leaves: readonly CategoryFigures[], taxonomy: Taxonomy | undefined, ranking: CategoryRanking): TopCategory[] {
  const groups = new Map<string, Group>();
  for (const leaf of leaves) {
    const { id, path } = categoryAt(taxonomy, leaf.categoryId, ranking.level);
    const key = `${id}|${path}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = { id, path, impressions: 0, clicks: 0, conversions: 0, revenue: new Map(), total: 0n };
      groups.set(key, group);
    }
    group.impressions += leaf.impressions;
    group.clicks += leaf.clicks;
    group.conversions += leaf.conversions;
    for (const { currency, revenue } of leaf.revenueByCurrency) {
      const amount = parseAmount(revenue);
      group.revenue.set(currency, (group.revenue.get(currency) ?? 0n) + amount);
      group.total += amount;
    }
  }
  return [...groups.values()]
    .sort((a, b) => compare(a, b, ranking.orderBy))
    .slice(0, ranking.limit)
    .map((g) => ({
      category_id: g.id,
      category_path: g.path,
      impressions: g.impressions,
      clicks: g.clicks,
      ctr: ratio(g.clicks, g.impressions),
      conversions: g.conversions,
      revenue: toCents(g.total),
      revenue_by_currency: Object.fromEntries([...g.revenue.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([c, units]) => [c, toCents(units)])),
    }));
}
