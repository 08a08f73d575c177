import { type ProductRow, withMerchant } from './types.js';

/** The Google Merchant Center namespace; `g:` is its usual prefix, but any bound prefix counts. */
export const GMC_NAMESPACE = 'http://base.google.com/ns/1.0';

/** GMC attribute name → values, in feed order (an item may repeat an attribute). */
export type GmcFields = Map<string, string[]>;

/** GMC attributes kept as product attributes rather than mapped to a ProductInput field. */
const ATTRIBUTE_NAMES = [
  'gtin',
  'mpn',
  'condition',
  'color',
  'size',
  'material',
  'pattern',
  'gender',
  'age_group',
  'size_type',
  'size_system',
  'item_group_id',
  'multipack',
  'is_bundle',
  'adult',
  'additional_image_link',
] as const;

/** Attributes whose one cell (in TSV) may hold a comma-separated list. */
export const LIST_ATTRIBUTES: ReadonlySet<string> = new Set(['additional_image_link']);

/** `g:image_link`, `Image Link`, `image_link` → `image_link`. */
export const gmcAttributeName = (name: string): string =>
  name
    .trim()
    .replace(/^[a-z]+:/i, '')
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

export function addGmcValue(fields: GmcFields, name: string, value: string): void {
  const values = fields.get(name);
  if (values === undefined) fields.set(name, [value]);
  else values.push(value);
}

const first = (fields: GmcFields, name: string): string | undefined => fields.get(name)?.find((v) => v.trim() !== '');

/**
 * Maps one GMC item (from TSV or XML) onto ProductInput fields as raw strings: id → product_id,
 * link → url, image_link → image_url, product_type → category (else google_product_category
 * when it is a text path, not a numeric id), google_product_category, identifiers and variant
 * traits → attributes.
 */
export function mapGmcItem(fields: GmcFields, merchant: string | undefined): ProductRow {
  const row: ProductRow = {};
  const direct: Array<[string, string | undefined]> = [
    ['product_id', first(fields, 'id')],
    ['title', first(fields, 'title')],
    ['description', first(fields, 'description') ?? first(fields, 'summary')],
    ['url', first(fields, 'link') ?? first(fields, 'mobile_link')],
    ['image_url', first(fields, 'image_link')],
    ['price', first(fields, 'price')],
    ['sale_price', first(fields, 'sale_price')],
    ['availability', first(fields, 'availability')],
    ['brand', first(fields, 'brand')],
  ];
  for (const [field, value] of direct) if (value !== undefined) row[field] = value;

  const googleCategory = first(fields, 'google_product_category');
  const googleCategoryIsId = googleCategory !== undefined && /^\s*\d+\s*$/.test(googleCategory);
  const category = first(fields, 'product_type') ?? (googleCategoryIsId ? undefined : googleCategory);
  if (category !== undefined) row.category = category;

  const attributes: Record<string, string | string[]> = {};
  for (const name of ATTRIBUTE_NAMES) {
    const values = (fields.get(name) ?? []).map((v) => v.trim()).filter((v) => v !== '');
    if (values.length > 0) attributes[name] = LIST_ATTRIBUTES.has(name) ? values : values[0]!;
  }
  // Kept as given, an id or a path: the product's place in the taxonomy (core/catalog/placement.ts).
  if (googleCategory !== undefined) attributes.google_product_category = googleCategory.trim();
  if (Object.keys(attributes).length > 0) row.attributes = attributes;
  return withMerchant(row, merchant);
}
