import type { CsvMapping } from './csv.js';
import type { FeedOptions } from './detect.js';
import type { ProductRow } from './types.js';

/**
 * PromptCloud's Amazon US sample (January 2020, 28 columns). Brand Name, Asin and most other
 * columns are empty in practice; the price, image and category cells are messy and left to
 * normalizeProduct (ranges, "a.jpg|b.jpg", "A | B | C").
 */
export const AMAZON_2020_MAPPING: CsvMapping = {
  product_id: 'Uniq Id',
  title: 'Product Name',
  description: ['About Product', 'Product Description'],
  price: 'Selling Price',
  image_url: 'Image',
  url: 'Product Url',
  brand: 'Brand Name',
  category: 'Category',
  attributes: [
    'Asin',
    'Upc Ean Code',
    'Model Number',
    'List Price',
    'Color',
    'Size Quantity Variant',
    'Shipping Weight',
    'Product Dimensions',
    'Is Amazon Seller',
  ],
};

/**
 * Numeric references 128–159 and raw C1 controls in scraped text are Windows-1252 bytes (HTML's
 * rule): `&#153;` is ™. Written out because Node's TextDecoder may treat windows-1252 as Latin-1.
 */
const CP1252_C1 =
  '\u20AC\u0081\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030\u0160\u2039\u0152\u008D\u017D\u008F\u0090\u2018\u2019\u201C\u201D\u2022\u2013\u2014\u02DC\u2122\u0161\u203A\u0153\u009D\u017E\u0178';
const fromCodePoint = (code: number): string =>
  code >= 0x80 && code <= 0x9f ? CP1252_C1[code - 0x80]! : code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  reg: '®',
  trade: '™',
  copy: '©',
  deg: '°',
  hellip: '…',
};

/** Decodes HTML character references (`&#174;`, `&#x2122;`, `&amp;`) and C1 mojibake; unknown names stay. */
export function decodeHtmlText(text: string): string {
  return text
    .replace(/&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z]+));/gi, (whole, dec?: string, hex?: string, name?: string) => {
      if (dec !== undefined) return fromCodePoint(Number(dec));
      if (hex !== undefined) return fromCodePoint(Number.parseInt(hex, 16));
      return NAMED_ENTITIES[name!.toLowerCase()] ?? whole;
    })
    .replace(/[\u0080-\u009f]/g, (c) => fromCodePoint(c.charCodeAt(0)));
}

const BESTBUY_ATTRIBUTES = ['popularity', 'type', 'rating', 'free_shipping'] as const;

/**
 * Algolia's Best Buy demo records have no id (the SKU is only in the image file name, e.g.
 * `…/bestbuy-0118/4984700_sb.jpg`) and undecoded HTML entities in names and descriptions.
 */
function adaptBestBuyRow(row: ProductRow): ProductRow {
  const out: ProductRow = { ...row };
  for (const field of ['title', 'description'] as const) {
    const value = out[field];
    if (typeof value === 'string') out[field] = decodeHtmlText(value);
  }
  const sku = typeof out.image_url === 'string' ? /\/(\d+)_[a-z]+\.[a-z]+$/i.exec(out.image_url)?.[1] : undefined;
  if (out.product_id === undefined && sku !== undefined) out.product_id = sku;
  const attributes: Record<string, unknown> = typeof out.attributes === 'object' && out.attributes !== null ? { ...out.attributes } : {};
  for (const name of BESTBUY_ATTRIBUTES) {
    if (out[name] === undefined) continue;
    attributes[name] = out[name];
    delete out[name];
  }
  if (Object.keys(attributes).length > 0) out.attributes = attributes;
  return out;
}

/** Algolia's Best Buy demo export (one JSON array: name, description, brand, categories[], price, image, …). */
const BESTBUY_ALGOLIA_ADAPTER = {
  format: 'jsonl',
  merchant: 'Best Buy',
  rename: { name: 'title', image: 'image_url', objectID: 'product_id', categories: 'category' },
  adaptRow: adaptBestBuyRow,
} as const satisfies FeedOptions;

/** Named feed presets for the CLI's `--preset`; each is a set of FeedOptions that flags override. */
export const PRESETS = {
  'amazon-2020': { format: 'csv', merchant: 'Amazon', mapping: AMAZON_2020_MAPPING },
  'bestbuy-algolia': BESTBUY_ALGOLIA_ADAPTER,
} as const satisfies Record<string, FeedOptions>;

export type PresetName = keyof typeof PRESETS;
