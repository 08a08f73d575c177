import type { CatalogFilter } from '../../core/catalog/ports.js';

/** A string value as a Lance SQL literal holds it: control characters turned into spaces. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes.
const literalValue = (value: string) => value.replace(/[\u0000-\u001f]/g, ' ');

/** Lance SQL string literal: single quotes doubled, control characters dropped. */
export function sqlString(value: string): string {
  return `'${literalValue(value).replaceAll("'", "''")}'`;
}

const finite = (n: number) => {
  if (!Number.isFinite(n)) throw new Error(`not a finite number: ${n}`);
  return String(n);
};

/** Lower-case, whitespace-folded key used for case-insensitive equality on merchant, brand, category. */
export const filterKey = (value: string): string => value.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * The only place a LanceDB `where` clause is built. Columns are fixed here (never taken from
 * input) and every value is a number checked for finiteness or an escaped string literal.
 * Returns undefined when there is nothing to filter.
 */
export function buildWhere(filter: CatalogFilter | undefined): string | undefined {
  if (!filter) return undefined;
  const clauses: string[] = [];
  if (filter.minPrice !== undefined) clauses.push(`price_amount >= ${finite(filter.minPrice)}`);
  if (filter.maxPrice !== undefined) clauses.push(`price_amount <= ${finite(filter.maxPrice)}`);
  if (filter.merchant !== undefined) clauses.push(`merchant_key = ${sqlString(filterKey(filter.merchant))}`);
  if (filter.brand !== undefined) clauses.push(`brand_key = ${sqlString(filterKey(filter.brand))}`);
  if (filter.category !== undefined)
    clauses.push(
      `(${categoryKeysOf(filter)
        .map((k) => `array_has(category_keys, ${sqlString(k)})`)
        .join(' OR ')})`,
    );
  if (filter.anyCategory !== undefined && filter.anyCategory.length > 0) {
    clauses.push(`(${filter.anyCategory.map((c) => `array_has(category_keys, ${sqlString(categoryKey(c))})`).join(' OR ')})`);
  }
  for (const w of necessaryKeywords(filter.keywords ?? [])) clauses.push(`strpos(keyword_text, ${sqlString(w)}) > 0`);
  if (filter.excludeProductIds && filter.excludeProductIds.length > 0) {
    clauses.push(`product_id NOT IN (${filter.excludeProductIds.map(sqlString).join(', ')})`);
  }
  // One test of the row's keys against them all: cheaper than a clause per subtree.
  if (filter.excludeSubtrees?.length)
    clauses.push(`NOT array_has_any(category_keys, make_array(${filter.excludeSubtrees.map((p) => sqlString(taxonomyKey(p))).join(', ')}))`);
  // A product without a brand (merchant) is not one of the excluded: NULL NOT IN (…) alone would drop it.
  if (filter.excludeBrands?.length)
    clauses.push(`(brand_key IS NULL OR brand_key NOT IN (${filter.excludeBrands.map((b) => sqlString(filterKey(b))).join(', ')}))`);
  if (filter.excludeMerchants?.length) {
    clauses.push(`(merchant_key IS NULL OR merchant_key NOT IN (${filter.excludeMerchants.map((m) => sqlString(filterKey(m))).join(', ')}))`);
  }
  return clauses.length === 0 ? undefined : clauses.join(' AND ');
}

/** The derived columns buildWhere's clauses read (rows.ts computes them for a product). */
export interface FilterColumns {
  merchant_key: string | null;
  brand_key: string | null;
  category_keys: readonly string[];
  keyword_text: string;
}

/** One product as compileFilter's predicate sees it: the columns are computed only when a clause needs them. */
export interface FilterSubject {
  productId: string;
  priceAmount: number | null;
  columns(): FilterColumns;
}

/**
 * buildWhere's clauses as a predicate over a product in memory, for searches the store answers
 * from its cache: the same keys and the same tests (a null price, merchant or brand fails a
 * comparison, as NULL does in SQL). Returns null when there is nothing to filter.
 */
export function compileFilter(filter: CatalogFilter | undefined): ((row: FilterSubject) => boolean) | null {
  if (!filter) return null;
  const tests: ((row: FilterSubject) => boolean)[] = [];
  // A bound that is not a finite number is refused up front, as buildWhere refuses it.
  const min = filter.minPrice === undefined ? undefined : Number(finite(filter.minPrice));
  const max = filter.maxPrice === undefined ? undefined : Number(finite(filter.maxPrice));
  if (min !== undefined) tests.push((r) => r.priceAmount !== null && r.priceAmount >= min);
  if (max !== undefined) tests.push((r) => r.priceAmount !== null && r.priceAmount <= max);
  if (filter.merchant !== undefined) {
    const key = literalValue(filterKey(filter.merchant));
    tests.push((r) => r.columns().merchant_key === key);
  }
  if (filter.brand !== undefined) {
    const key = literalValue(filterKey(filter.brand));
    tests.push((r) => r.columns().brand_key === key);
  }
  if (filter.category !== undefined) {
    const keys = new Set(categoryKeysOf(filter).map(literalValue));
    tests.push((r) => r.columns().category_keys.some((k) => keys.has(k)));
  }
  if (filter.anyCategory !== undefined && filter.anyCategory.length > 0) {
    const keys = filter.anyCategory.map((c) => literalValue(categoryKey(c)));
    tests.push((r) => keys.some((k) => r.columns().category_keys.includes(k)));
  }
  for (const w of necessaryKeywords(filter.keywords ?? []).map(literalValue)) tests.push((r) => r.columns().keyword_text.includes(w));
  if (filter.excludeProductIds && filter.excludeProductIds.length > 0) {
    const excluded = new Set(filter.excludeProductIds.map(literalValue));
    tests.push((r) => !excluded.has(r.productId));
  }
  const excluded = compileExclusions(filter);
  if (excluded) tests.push((r) => !excluded(r.columns()));
  return tests.length === 0 ? null : (row) => tests.every((t) => t(row));
}

/** The keys a category filter matches: the feed's own category text, and each taxonomy subtree it widens to. */
const categoryKeysOf = (filter: CatalogFilter): string[] => [categoryKey(filter.category!), ...(filter.categorySubtrees ?? []).map(taxonomyKey)];

/** The keys a publisher's exclusions read: a product's taxonomy keys among its category keys, its brand and merchant keys. */
type ExclusionKeys = Pick<FilterColumns, 'category_keys' | 'brand_key' | 'merchant_key'>;

/**
 * Whether a product is excluded by the filter's exclusions (subtrees, brands, merchants), as
 * buildWhere's clauses test them: a product without a brand (merchant) is not excluded by brands
 * (merchants). Null when the filter has none. The exact scan and the store's drop after a
 * search (exclusions.ts) both test with it.
 */
export function compileExclusions(filter: CatalogFilter): ((keys: ExclusionKeys) => boolean) | null {
  const subtrees = new Set((filter.excludeSubtrees ?? []).map((p) => literalValue(taxonomyKey(p))));
  const brands = new Set((filter.excludeBrands ?? []).map((b) => literalValue(filterKey(b))));
  const merchants = new Set((filter.excludeMerchants ?? []).map((m) => literalValue(filterKey(m))));
  if (subtrees.size + brands.size + merchants.size === 0) return null;
  return (k) =>
    (subtrees.size > 0 && k.category_keys.some((key) => subtrees.has(key))) ||
    (k.brand_key !== null && brands.has(k.brand_key)) ||
    (k.merchant_key !== null && merchants.has(k.merchant_key));
}

/**
 * The keywords as filter keys, each once, without those inside another ("shoe" in "shoes"): a
 * product containing the longer one contains the shorter, so its test adds nothing but a scan.
 */
function necessaryKeywords(words: readonly string[]): string[] {
  const keys = [...new Set(words.map(filterKey).filter((w) => w !== ''))];
  return keys.filter((w) => !keys.some((other) => other !== w && other.includes(w)));
}

/**
 * A category filter matches a product's category or any ancestor: "Footwear" and
 * "footwear > running shoes" both match ["Footwear", "Running Shoes", "Trail"]. A single name
 * also matches that name at any depth ("Running Shoes").
 */
function categoryKey(category: string): string {
  return category
    .split(/\s*(?:>|\|)\s*/)
    .map(filterKey)
    .filter((p) => p !== '')
    .join(' > ');
}

/**
 * The keys a product's place in the Google taxonomy answers to, one per ancestor and itself
 * ("gpc:home & garden", "gpc:home & garden > kitchen & dining", …), kept beside its own category's
 * keys: a taxonomy filter or exclusion of a category matches its whole subtree with one key.
 */
export function taxonomyKeys(path: readonly string[]): string[] {
  const keys: string[] = [];
  for (let i = 0; i < path.length; i++) keys.push(taxonomyKey(path.slice(0, i + 1)));
  return keys;
}

const taxonomyKey = (path: readonly string[]) => `gpc:${path.map(filterKey).join(' > ')}`;

/** Every key a product's category path answers to: each ancestor path and each single level name. */
export function categoryKeys(path: readonly string[]): string[] {
  const keys = new Set<string>();
  const parts = path.map(filterKey).filter((p) => p !== '');
  for (let i = 0; i < parts.length; i++) {
    keys.add(parts.slice(0, i + 1).join(' > '));
    keys.add(parts[i]!);
  }
  return [...keys];
}
