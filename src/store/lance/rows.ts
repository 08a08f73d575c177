import { Field, FixedSizeList, Float32, Float64, Int32, List, Schema, TimestampMillisecond, Utf8 } from 'apache-arrow';
import type { AttributeValue, Availability, CatalogProduct } from '../../core/catalog/product.js';
import { canonicalText } from '../../core/ranking/lexical.js';
import { categoryKeys, filterKey } from './where.js';

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
  ]);
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
  ]);

/** Columns read back for results: everything but the vector and the derived search columns. */
export const PRODUCT_COLUMNS = [
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
];

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
    category_keys: categoryKeys(product.category),
    keyword_text: filterKey([product.title, product.description, product.brand ?? '', category, attributeText(product.attributes)].join(' ')),
  };
}

export function toRecord(product: CatalogProduct, vector: Float32Array): Record<string, unknown> {
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
  };
}

const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export function fromRecord(r: Record<string, unknown>): CatalogProduct {
  const updated = r.last_updated_at;
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
  };
}
