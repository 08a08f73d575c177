import type { CatalogProduct } from '../catalog/product.js';
import type { AdResponse } from '../schemas/search.js';
import type { UcpMessage, UcpProduct } from '../schemas/ucp.js';
import { DEFAULT_DISCLOSURE } from '../search/search-service.js';
import { toMinorUnits } from '../catalog/currency.js';

/** The catalog fields a UCP product is made of, from a search result or from the catalog itself. */
export interface ProductView {
  id: string;
  externalId: string | null;
  title: string;
  description: string;
  url: string | null;
  imageUrl: string | null;
  priceAmount: number | null;
  currency: string | null;
  merchant: string | null;
  brand: string | null;
  category: readonly string[];
  availability: CatalogProduct['availability'];
  disclosureText: string;
  lastUpdatedAt: string | null;
}

export const viewOfCatalogProduct = (p: CatalogProduct): ProductView => ({
  id: p.productId,
  externalId: p.externalId,
  title: p.title,
  description: p.description,
  url: p.url,
  imageUrl: p.imageUrl,
  priceAmount: p.priceAmount,
  currency: p.currency,
  merchant: p.merchant,
  brand: p.brand,
  category: p.category,
  availability: p.availability,
  disclosureText: p.disclosureText ?? DEFAULT_DISCLOSURE,
  lastUpdatedAt: p.lastUpdatedAt?.toISOString() ?? null,
});

export const viewOfResult = (r: AdResponse): ProductView => ({
  id: r.product_id,
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
  lastUpdatedAt: r.last_updated_at,
});

const AVAILABILITY: Record<ProductView['availability'], { available: boolean; status: string } | null> = {
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
export function toUcpProduct(p: ProductView, metadata: Record<string, unknown> = {}, inputs?: { id: string; match: 'exact' }[]): UcpProduct | null {
  if (p.priceAmount === null) return null;
  const currency = p.currency ?? 'USD';
  const price = { amount: toMinorUnits(p.priceAmount, currency), currency };
  const description = { plain: p.description };
  const url = absoluteUrl(p.url);
  const image = absoluteUrl(p.imageUrl);
  const availability = AVAILABILITY[p.availability];
  return {
    id: p.id,
    title: p.title,
    description,
    ...(url === null ? {} : { url }),
    ...(p.category.length > 0 ? { categories: [{ value: p.category.join(' > '), taxonomy: 'merchant' }] } : {}),
    price_range: { min: price, max: price },
    ...(image === null ? {} : { media: [{ type: 'image', url: image, alt_text: p.title }] }),
    variants: [
      {
        id: p.id,
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
      disclosure_text: p.disclosureText,
      last_updated_at: p.lastUpdatedAt,
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
