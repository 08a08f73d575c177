import { editDistance } from '../../core/ranking/lexical.js';
import type { ProductField } from './types.js';

/**
 * Names exports commonly give each product field's column, lower case. A header that matches
 * none of a field's names exactly is compared with them to suggest a mapping (`id` is left
 * out: it is product_id's alias).
 */
const FIELD_NAMES: Readonly<Record<Exclude<ProductField, 'id'>, readonly string[]>> = {
  title: ['title', 'name', 'product name', 'product title', 'item name', 'item title'],
  product_id: ['product id', 'id', 'uniq id', 'unique id', 'item id', 'product code'],
  sku: ['sku', 'item number', 'article number'],
  description: ['description', 'product description', 'about product', 'details', 'summary'],
  url: ['url', 'link', 'product url', 'product link', 'page url'],
  image_url: ['image url', 'image', 'image link', 'picture', 'photo', 'thumbnail'],
  price: ['price', 'selling price', 'unit price', 'cost'],
  sale_price: ['sale price', 'discount price', 'offer price'],
  currency: ['currency', 'currency code'],
  merchant: ['merchant', 'seller', 'store', 'shop', 'retailer', 'vendor'],
  brand: ['brand', 'brand name', 'manufacturer'],
  category: ['category', 'categories', 'product type', 'department', 'category path'],
  google_product_category: ['google product category', 'google category', 'gpc'],
  availability: ['availability', 'stock', 'in stock', 'stock status'],
  disclosure_text: ['disclosure', 'disclosure text'],
  last_updated_at: ['last updated', 'updated at', 'last modified'],
};

/**
 * A column must score this much against a field's names to be suggested for it: more than half
 * its words ("Brand Name" is only half like "name"), or a near spelling ("Titel").
 */
const SUGGEST_FROM = 0.6;
/** Edit similarity from which two names are spelled alike ("Titel" and "title": 0.8). */
const NEAR_SPELLING = 0.7;
/** Columns named among the closest to a title: at least half alike ("Brand Name", "Product Url"). */
const CLOSE_FROM = 0.5;

/** Lower-case words of a header: "ProductName", "product_name" and "Product Name" all give product, name. */
const words = (name: string): string[] =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');

/**
 * How much a header looks like a field name, 0–1: the larger of the share of words they have in
 * common (of the longer's) and, for a near spelling, the edit similarity of the two run together
 * (1 − distance / length). Below NEAR_SPELLING short names are alike by chance ("image", "name").
 */
export function nameSimilarity(header: string, name: string): number {
  const a = words(header);
  const b = words(name);
  if (a.length === 0 || b.length === 0) return 0;
  const shared = a.filter((w) => b.includes(w)).length / Math.max(a.length, b.length);
  const x = a.join('');
  const y = b.join('');
  const longest = Math.max(x.length, y.length);
  const spelling = 1 - editDistance(x, y, longest) / longest;
  return Math.max(shared, spelling >= NEAR_SPELLING ? spelling : 0);
}

const fieldScore = (header: string, field: Exclude<ProductField, 'id'>): number => Math.max(...FIELD_NAMES[field].map((name) => nameSimilarity(header, name)));

export interface MappingSuggestion {
  /** The columns most like a title, best first (at most three; none when no column is at all alike). */
  closestToTitle: string[];
  /** A column for each field that has a likely one (title first), each column used once. */
  mapping: Partial<Record<ProductField, string>>;
}

/**
 * Suggests a mapping for a header where no column maps to title: the fields not in `mapped`,
 * each to the unused column most like it (at least SUGGEST_FROM), title chosen first.
 */
export function suggestMapping(header: readonly string[], mapped: ReadonlySet<ProductField>, usedColumns: ReadonlySet<number>): MappingSuggestion {
  const free = header.map((name, index) => ({ name, index })).filter((c) => !usedColumns.has(c.index) && c.name.trim() !== '');
  const titleScores = free.map((c) => ({ ...c, score: fieldScore(c.name, 'title') })).sort((p, q) => q.score - p.score);
  const closestToTitle = titleScores
    .filter((c) => c.score >= CLOSE_FROM)
    .slice(0, 3)
    .map((c) => c.name);
  const mapping: Partial<Record<ProductField, string>> = {};
  const taken = new Set<number>();
  const best = titleScores[0];
  if (best !== undefined && best.score >= SUGGEST_FROM) {
    mapping.title = best.name;
    taken.add(best.index);
  }
  const fields = (Object.keys(FIELD_NAMES) as Exclude<ProductField, 'id'>[]).filter((f) => f !== 'title' && !mapped.has(f));
  const pairs = fields
    .flatMap((field) => free.map((c) => ({ field, column: c, score: fieldScore(c.name, field) })))
    .filter((p) => p.score >= SUGGEST_FROM)
    .sort((p, q) => q.score - p.score);
  for (const { field, column } of pairs) {
    if (mapping[field] !== undefined || taken.has(column.index)) continue;
    mapping[field] = column.name;
    taken.add(column.index);
  }
  return { closestToTitle, mapping };
}
