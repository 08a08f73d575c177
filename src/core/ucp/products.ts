import { toMinorUnits } from '../catalog/currency.js';
import type { CatalogProduct } from '../catalog/product.js';
import type { AdResponse } from '../schemas/search.js';
import type { UcpMessage, UcpProduct } from '../schemas/ucp.js';
import { DEFAULT_DISCLOSURE } from '../search/results.js';

/** A search result as the catalog product it shows (what toUcpProduct reads of it). */
export const productOfResult = (r: AdResponse): CatalogProduct => ({
  productId: r.product_id,
  externalId: r.external_id,
  title: r.title,
  description: r.description,
  url: r.url === '' ? null : r.url,
  imageUrl: r.image_url === '' ? null : r.image_url,
  priceAmount: r.price_amount,
  currency: r.currency,
  merchant: r.merchant === '' ? null : r.merchant,
  brand: r.brand === '' ? null : r.brand,
  category: r.category === '' ? [] : r.category.split(' > '),
  availability: r.availability,
  disclosureText: r.disclosure_text,
  attributes: {},
  lastUpdatedAt: r.last_updated_at === null ? null : new Date(r.last_updated_at),
});

const AVAILABILITY: Record<CatalogProduct['availability'], { available: boolean; status: string } | null> = {
  in_stock: { available: true, status: 'in_stock' },
  out_of_stock: { available: false, status: 'out_of_stock' },
  preorder: { available: true, status: 'preorder' },
  unknown: null,
};

/** A URL UCP accepts (`format: uri`): absolute http(s). Feeds carry the odd relative or broken one. */
function absoluteUrl(value: string | null): string | null {
  if (value === null) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}

/**
 * A product as UCP describes it (docs/commerce.md, "Products"): Aisle has one offer per product, so
 * one variant whose id is the product's; prices in minor units; the brand, the disclosure and
 * what `metadata` adds (impression, click link, attribution) under `metadata`. Null for a product
 * without a price, which UCP cannot represent.
 */
export function toUcpProduct(p: CatalogProduct, metadata: Record<string, unknown> = {}, inputs?: { id: string; match: 'exact' }[]): UcpProduct | null {
  if (p.priceAmount === null) return null;
  const currency = p.currency ?? 'USD';
  const price = { amount: toMinorUnits(p.priceAmount, currency), currency };
  const description = { plain: p.description };
  const url = absoluteUrl(p.url);
  const image = absoluteUrl(p.imageUrl);
  const availability = AVAILABILITY[p.availability];
  // The taxonomy place by id, as UCP's category example gives one ("1604"), then the feed's own.
  const categories = [
    ...(p.taxonomy ? [{ value: String(p.taxonomy.categoryId), taxonomy: 'google_product_category' }] : []),
    ...(p.category.length > 0 ? [{ value: p.category.join(' > '), taxonomy: 'merchant' }] : []),
  ];
  return {
    id: p.productId,
    title: p.title,
    description,
    ...(url === null ? {} : { url }),
    ...(categories.length > 0 ? { categories } : {}),
    price_range: { min: price, max: price },
    ...(image === null ? {} : { media: [{ type: 'image', url: image, alt_text: p.title }] }),
    variants: [
      {
        id: p.productId,
        title: p.title,
        description,
        price,
        ...(p.externalId === null ? {} : { sku: p.externalId }),
        ...(url === null ? {} : { url }),
        ...(availability === null ? {} : { availability }),
        ...(p.merchant === null ? {} : { seller: { name: p.merchant } }),
        ...(inputs === undefined ? {} : { inputs }),
      },
    ],
    metadata: {
      ...(p.brand === null ? {} : { brand: p.brand }),
      disclosure_text: p.disclosureText ?? DEFAULT_DISCLOSURE,
      last_updated_at: p.lastUpdatedAt?.toISOString() ?? null,
      ...metadata,
    },
  };
}

/**
 * The disclosure of each product as UCP's own disclosure message: a warning the platform must
 * show next to the product it points at and must not hide.
 */
export const disclosureMessages = (products: readonly UcpProduct[], path: (i: number) => string): UcpMessage[] =>
  products.map((p, i) => ({
    type: 'warning',
    code: 'affiliate_disclosure',
    presentation: 'disclosure',
    path: path(i),
    content: String(p.metadata?.disclosure_text ?? DEFAULT_DISCLOSURE),
  }));
