import { createHash } from 'node:crypto';
import { isUuid } from '../ids.js';
import { type AttributeValue, type Availability, type CatalogProduct, FEED_CATEGORY_ATTRIBUTE, ProductInputSchema } from './product.js';

/** Why a row was skipped; stable strings, counted per reason in import summaries. */
type SkipReason = 'not_an_object' | 'missing_title' | 'title_too_long' | 'invalid_price' | 'invalid_currency' | 'invalid_field_type';

export type NormalizeResult = { ok: true; product: CatalogProduct } | { ok: false; reason: SkipReason; detail: string };

// Fixed namespace for Aisle product ids (UUIDv5): never change it, or every re-import duplicates.
const PRODUCT_NAMESPACE = '6f1d9a52-1c7e-5b0a-9d3e-4a8f2b7c0e11';
const MAX_TITLE = 500;
const MAX_DESCRIPTION = 10_000;

/** RFC 4122 UUIDv5 (SHA-1, name-based). */
export function uuidV5(name: string, namespace = PRODUCT_NAMESPACE): string {
  const ns = Buffer.from(namespace.replaceAll('-', ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const h = hash.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

const clean = (v: string | undefined): string | null => {
  if (v === undefined) return null;
  const s = v.replace(/\s+/g, ' ').trim();
  return s === '' ? null : s;
};

/** A value quoted for a skip message, cut short: feeds put whole pages of junk in price cells. */
const excerpt = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…"` : text;
};

const CURRENCY_SYMBOLS: Record<string, string> = { $: 'USD', '€': 'EUR', '£': 'GBP', '¥': 'JPY' };

/**
 * Parses 12.99, "12.99", "$1,299.00", "12.99 USD", "USD 12.99". A range ("$10 - $15") takes its
 * low end. Returns null for an empty value and 'invalid' for text that is not a price.
 */
export function parsePrice(value: number | string | undefined): { amount: number; currency: string | null } | null | 'invalid' {
  if (value === undefined) return null;
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? { amount: round2(value), currency: null } : 'invalid';
  const text = value.trim();
  if (text === '') return null;
  const m = /^(?:([A-Z]{3})\s*)?([$€£¥])?\s*(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?\s*(?:([A-Z]{3}))?(?:\s*[-–]\s*.*)?$/.exec(text);
  if (!m) return 'invalid';
  const amount = Number(`${m[3]!.replaceAll(',', '')}.${m[4] ?? '0'}`);
  if (!Number.isFinite(amount)) return 'invalid';
  const currency = m[1] ?? m[5] ?? (m[2] ? (CURRENCY_SYMBOLS[m[2]] ?? null) : null);
  return { amount: round2(amount), currency };
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** First http(s) URL in a cell; feeds sometimes pack several ("a.jpg|b.jpg", space separated). */
export function firstUrl(value: string | undefined): string | null {
  if (value === undefined) return null;
  for (const part of value.split(/[|\s,]+/)) {
    try {
      const url = new URL(part.trim());
      if (url.protocol === 'http:' || url.protocol === 'https:') return url.toString();
    } catch {
      // not a URL; try the next part
    }
  }
  return null;
}

export function parseAvailability(value: string | boolean | undefined): Availability {
  if (value === undefined) return 'unknown';
  if (typeof value === 'boolean') return value ? 'in_stock' : 'out_of_stock';
  const v = value.toLowerCase().replace(/[^a-z]/g, '');
  if (['instock', 'available', 'true', 'yes', 'limitedavailability', 'onlineonly', 'instoreonly'].includes(v)) return 'in_stock';
  if (['outofstock', 'soldout', 'unavailable', 'false', 'no', 'discontinued'].includes(v)) return 'out_of_stock';
  if (['preorder', 'backorder', 'comingsoon'].includes(v)) return 'preorder';
  return 'unknown';
}

/** "A > B > C", "A | B", "A/B" (only when no spaces suggest a name like "AC/DC"), or an array. */
export function parseCategory(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const parts = Array.isArray(value) ? value : value.split(/\s*(?:>|\||›|»)\s*/);
  return parts
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter((p) => p !== '')
    .slice(0, 10);
}

/** A feed's google_product_category field joins the attributes, where placement reads it (placement.ts); one already among them stays. */
function withFeedCategory(attributes: Record<string, AttributeValue>, value: string | undefined): Record<string, AttributeValue> {
  const text = clean(value);
  if (text === null || attributes[FEED_CATEGORY_ATTRIBUTE] !== undefined) return attributes;
  return { ...attributes, [FEED_CATEGORY_ATTRIBUTE]: text.slice(0, 1000) };
}

function parseAttributes(value: Record<string, unknown> | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const [key, v] of Object.entries(value ?? {})) {
    const k = key.trim().slice(0, 100);
    if (k === '' || v === null || v === undefined) continue;
    if (typeof v === 'string') {
      const s = v.trim();
      if (s !== '') out[k] = s.slice(0, 1000);
    } else if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
    else if (typeof v === 'boolean') out[k] = v;
    else if (Array.isArray(v))
      out[k] = v
        .filter((x) => ['string', 'number'].includes(typeof x))
        .map(String)
        .slice(0, 50);
  }
  return out;
}

function parseTimestamp(value: string | undefined): Date | null {
  if (value === undefined || value.trim() === '') return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

/**
 * Turns one input row into a catalog product, or says why it cannot be used. Unusable optional
 * fields (a bad URL, an unknown availability, an unparseable timestamp) become empty rather than
 * costing the whole product; a bad title or price skips the row.
 */
export function normalizeProduct(row: unknown, defaults: { currency?: string; merchant?: string; disclosureText?: string } = {}): NormalizeResult {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return { ok: false, reason: 'not_an_object', detail: 'row is not a JSON object' };
  const parsed = ProductInputSchema.safeParse(row);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') ?? '';
    if (field === 'title') return { ok: false, reason: 'missing_title', detail: 'title is missing or not text' };
    return { ok: false, reason: 'invalid_field_type', detail: `${field}: ${issue?.message ?? 'invalid'}` };
  }
  const p = parsed.data;
  const title = clean(p.title);
  if (title === null) return { ok: false, reason: 'missing_title', detail: 'title is empty' };
  if (title.length > MAX_TITLE) return { ok: false, reason: 'title_too_long', detail: `title has ${title.length} characters (max ${MAX_TITLE})` };

  const price = parsePrice(p.price);
  const sale = parsePrice(p.sale_price);
  if (price === 'invalid') return { ok: false, reason: 'invalid_price', detail: `price ${excerpt(p.price)} is not a price` };
  const effective = sale !== null && sale !== 'invalid' && (price === null || sale.amount < price.amount) ? sale : price;
  const currencyText = clean(p.currency)?.toUpperCase() ?? effective?.currency ?? defaults.currency ?? 'USD';
  if (!/^[A-Z]{3}$/.test(currencyText)) return { ok: false, reason: 'invalid_currency', detail: `currency ${excerpt(p.currency)} is not ISO 4217` };

  const merchant = clean(p.merchant) ?? defaults.merchant ?? null;
  const feedId = clean(p.product_id) ?? clean(p.id) ?? null;
  const sku = clean(p.sku);
  let productId: string;
  let externalId: string | null;
  if (feedId !== null && isUuid(feedId)) {
    productId = feedId.toLowerCase();
    externalId = sku;
  } else {
    externalId = feedId ?? sku;
    const url = firstUrl(p.url);
    productId = uuidV5(`${merchant ?? ''}:${externalId ?? url ?? title}`);
  }

  return {
    ok: true,
    product: {
      productId,
      externalId,
      title,
      description: (clean(p.description) ?? '').slice(0, MAX_DESCRIPTION),
      url: firstUrl(p.url),
      imageUrl: firstUrl(p.image_url),
      priceAmount: effective?.amount ?? null,
      currency: effective === null ? null : currencyText,
      merchant,
      brand: clean(p.brand),
      category: parseCategory(p.category),
      availability: parseAvailability(p.availability),
      disclosureText: clean(p.disclosure_text) ?? defaults.disclosureText ?? null,
      attributes: withFeedCategory(parseAttributes(p.attributes), p.google_product_category),
      lastUpdatedAt: parseTimestamp(p.last_updated_at),
    },
  };
}
