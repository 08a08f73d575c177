import type { Table as ArrowTable } from 'apache-arrow';
import { Field, FixedSizeList, Float32, Float64, Int32, List, Schema, TimestampMillisecond, Utf8 } from 'apache-arrow';
import type { ProductDigests } from '../../core/catalog/digests.js';
import type { AttributeValue, Availability, CatalogProduct, Placement } from '../../core/catalog/product.js';
import { canonicalText } from '../../core/ranking/lexical.js';
import { categoryKeys, filterKey, taxonomyKeys } from './where.js';

export const PRODUCTS_TABLE = 'products';
export const META_TABLE = 'catalog_meta';
export const CALIBRATION_TABLE = 'calibration';

export const calibrationSchema = (): Schema => new Schema([new Field('model', new Utf8(), false), new Field('calibration', new Utf8(), false)]);

export function productSchema(dimensions: number): Schema {
  const text = (name: string, nullable = true) => new Field(name, new Utf8(), nullable);
  return new Schema([
    text('product_id', false),
    text('external_id'),
    text('title', false),
    text('description', false),
    text('url'),
    text('image_url'),
    new Field('price_amount', new Float64(), true),
    text('currency'),
    text('merchant'),
    text('merchant_key'),
    text('brand'),
    text('brand_key'),
    text('category', false),
    new Field('category_keys', new List(new Field('item', new Utf8(), true)), false),
    text('availability', false),
    text('disclosure_text'),
    text('attributes_json', false),
    new Field('last_updated_at', new TimestampMillisecond(), true),
    text('search_text', false),
    text('keyword_text', false),
    new Field('vector', new FixedSizeList(dimensions, new Field('item', new Float32(), true)), false),
    ...digestFields(),
    ...placementFields(),
  ]);
}

/**
 * The product's place in the Google product taxonomy (core/catalog/placement.ts), null when
 * nothing placed it. The path is kept beside the id so a result needs no taxonomy to name it.
 */
export const placementFields = (): Field[] => [
  new Field('category_id', new Int32(), true),
  new Field('category_path', new Utf8(), true),
  new Field('category_confidence', new Float32(), true),
];
/** The SQL type addColumns gives each placement column of a catalog written before placement. */
export const PLACEMENT_SQL_TYPES: Record<string, string> = { category_id: 'INT', category_path: 'STRING', category_confidence: 'FLOAT' };

/**
 * The change digests kept with each product (core/catalog/digests.ts), null for rows written
 * without them (catalogs imported before digests were kept, rows a test writes directly).
 */
export const digestFields = (): Field[] => ['text_digest', 'content_digest', 'row_digest'].map((name) => new Field(name, new Utf8(), true));

/**
 * Columns a restated product rewrites (its embedded text is unchanged): all but the vector and
 * the full-text column, so the vector and text indexes stay valid for its row.
 */
const RESTATE_EXCLUDED = new Set(['vector', 'search_text', 'text_digest']);
/** Columns a delta rewrites: the live fields and the row digest. */
const DELTA_COLUMNS = ['product_id', 'price_amount', 'currency', 'availability', 'last_updated_at', 'row_digest'];

/** The schema of a partial row write: the product schema's fields of `kind`. */
export function partialSchema(dimensions: number, kind: 'restate' | 'delta'): Schema {
  const fields = productSchema(dimensions).fields.filter((f) => (kind === 'delta' ? DELTA_COLUMNS.includes(f.name) : !RESTATE_EXCLUDED.has(f.name)));
  return new Schema(fields);
}

/** A partial row of `kind` (partialSchema): a delta's few fields, or a restated product's record without its vector and text. */
export function partialRecord(kind: 'restate' | 'delta', product: CatalogProduct, digests: ProductDigests): Record<string, unknown> {
  if (kind === 'delta') {
    const { productId, priceAmount, currency, availability, lastUpdatedAt } = product;
    return { product_id: productId, price_amount: priceAmount, currency, availability, last_updated_at: lastUpdatedAt, row_digest: digests.row };
  }
  const record = toRecord(product, new Float32Array(0), digests);
  for (const name of RESTATE_EXCLUDED) delete record[name];
  return record;
}

export const metaSchema = (): Schema =>
  new Schema([
    new Field('model', new Utf8(), false),
    new Field('dimensions', new Int32(), false),
    new Field('products_version', new Float64(), false),
    new Field('product_count', new Float64(), false),
    new Field('ann_index', new Utf8(), false),
    new Field('updated_at', new TimestampMillisecond(), false),
    new Field('ann_recall', new Float64(), true),
    // The ranking model this version serves (JSON as stored), so a process moving to the version
    // moves to its model in the same read; null when none was fitted or calibrated for it.
    new Field('ranking_model', new Utf8(), true),
    // JSON [{version, at}]: versions the pointer left, and when, within the retention window:
    // a process may still serve them, so upkeep keeps their files (catalog-store.ts, cleanupCutoff).
    new Field('retired', new Utf8(), true),
  ]);

/** Columns read back for results: everything but the vector and the derived search columns. */
const PRODUCT_COLUMNS = [
  'product_id',
  'external_id',
  'title',
  'description',
  'url',
  'image_url',
  'price_amount',
  'currency',
  'merchant',
  'brand',
  'category',
  'availability',
  'disclosure_text',
  'attributes_json',
  'last_updated_at',
  'category_id',
  'category_path',
  'category_confidence',
];

/** PRODUCT_COLUMNS a version's schema has: a catalog written before placement has none of its columns until the next import. */
export const productColumns = (schema: { fields: readonly { name: string }[] }): string[] => {
  const names = new Set(schema.fields.map((f) => f.name));
  return PRODUCT_COLUMNS.filter((c) => names.has(c));
};

const attributeText = (attrs: Record<string, AttributeValue>) =>
  Object.entries(attrs)
    .map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(' ') : String(v)}`)
    .join(' ');

/** The filter columns of a product: what buildWhere's clauses test (and compileFilter's predicate, in memory). */
export function filterColumns(product: CatalogProduct): {
  merchant_key: string | null;
  brand_key: string | null;
  category_keys: string[];
  keyword_text: string;
} {
  const category = product.category.join(' > ');
  return {
    merchant_key: product.merchant === null ? null : filterKey(product.merchant),
    brand_key: product.brand === null ? null : filterKey(product.brand),
    category_keys: [...categoryKeys(product.category), ...taxonomyKeys(product.taxonomy?.path ?? [])],
    keyword_text: filterKey([product.title, product.description, product.brand ?? '', category, attributeText(product.attributes)].join(' ')),
  };
}

export function toRecord(product: CatalogProduct, vector: Float32Array, digests?: ProductDigests): Record<string, unknown> {
  const category = product.category.join(' > ');
  const filters = filterColumns(product);
  return {
    product_id: product.productId,
    external_id: product.externalId,
    title: product.title,
    description: product.description,
    url: product.url,
    image_url: product.imageUrl,
    price_amount: product.priceAmount,
    currency: product.currency,
    merchant: product.merchant,
    merchant_key: filters.merchant_key,
    brand: product.brand,
    brand_key: filters.brand_key,
    category,
    category_keys: filters.category_keys,
    availability: product.availability,
    disclosure_text: product.disclosureText,
    attributes_json: JSON.stringify(product.attributes),
    last_updated_at: product.lastUpdatedAt,
    // The title twice: a match there says more than one deep in a description (as BM25F would
    // weigh it). Measures in one spelling (canonicalText), the same the query gets.
    search_text: [product.title, product.title, product.brand ?? '', category, product.description].map(canonicalText).join(' \n '),
    keyword_text: filters.keyword_text,
    vector,
    text_digest: digests?.text ?? null,
    content_digest: digests?.content ?? null,
    row_digest: digests?.row ?? null,
    category_id: product.taxonomy?.categoryId ?? null,
    category_path: product.taxonomy ? product.taxonomy.path.join(' > ') : null,
    category_confidence: product.taxonomy?.confidence ?? null,
  };
}

const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export function fromRecord(r: Record<string, unknown>): CatalogProduct {
  const updated = r.last_updated_at;
  const taxonomy = placementOf(r);
  return {
    productId: String(r.product_id),
    externalId: str(r.external_id),
    title: String(r.title),
    description: String(r.description ?? ''),
    url: str(r.url),
    imageUrl: str(r.image_url),
    priceAmount: r.price_amount === null || r.price_amount === undefined ? null : Number(r.price_amount),
    currency: str(r.currency),
    merchant: str(r.merchant),
    brand: str(r.brand),
    category: r.category ? String(r.category).split(' > ') : [],
    availability: String(r.availability) as Availability,
    disclosureText: str(r.disclosure_text),
    attributes: JSON.parse(String(r.attributes_json ?? '{}')) as Record<string, AttributeValue>,
    lastUpdatedAt: updated === null || updated === undefined ? null : new Date(Number(updated instanceof Date ? updated.getTime() : updated)),
    // Left out when unplaced, as a product is before an import places it.
    ...(taxonomy ? { taxonomy } : {}),
  };
}

/** A few thousand categories for a million products: each path is split once and shared. */
const PATHS = new Map<string, readonly string[]>();

function placementOf(r: Record<string, unknown>): Placement | null {
  if (r.category_id === null || r.category_id === undefined || r.category_path == null) return null;
  const text = String(r.category_path);
  let path = PATHS.get(text);
  if (path === undefined) {
    path = Object.freeze(text.split(' > '));
    PATHS.set(text, path);
  }
  // Float32 keeps 0.83 as 0.8299999833: the two decimals it was written with.
  return { categoryId: Number(r.category_id), path, confidence: Math.round(Number(r.category_confidence ?? 0) * 100) / 100 };
}

/** Rows read column by column from the Arrow table: faster than toArray()'s row proxies (docs/search.md). */
export function* decodedRows(
  table: Pick<ArrowTable, 'numRows' | 'getChild'>,
  names: readonly string[],
): Generator<{ rowId: bigint; row: Record<string, unknown>; vector: Float32Array }> {
  const columns = names.map((name) => [name, table.getChild(name)] as const);
  const rowIds = table.getChild('_rowid');
  const vectors = table.getChild('vector');
  for (let i = 0; i < table.numRows; i++) {
    const row: Record<string, unknown> = {};
    for (const [name, column] of columns) row[name] = column?.get(i);
    const vector = vectors?.get(i) as { toArray(): ArrayLike<number> } | null | undefined;
    yield { rowId: rowIds!.get(i) as bigint, row, vector: Float32Array.from(vector?.toArray() ?? []) };
  }
}
