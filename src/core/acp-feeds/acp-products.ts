import { fromMinorUnits } from '../catalog/currency.js';
import { uuidV5 } from '../catalog/normalize.js';
import type { AcpProduct, AcpVariant } from '../schemas/feeds.js';

/** The name ACP (and UCP) give Google's product taxonomy in a category's `taxonomy`. */
const GOOGLE_TAXONOMY = 'google_product_category';

/** A raw product row as importers pass it to normalizeProduct(). */
type ProductRow = Record<string, unknown>;

/**
 * ACP feed products as rows of Aisle's own product format (docs/commerce.md, "Product feeds").
 * Aisle has one offer per product and ACP puts prices on variants, so each variant is one Aisle
 * product. Its id is derived from the namespace (the feed, for the Feed API) and the variant id,
 * so two feeds, or two accounts, can never write over each other's products.
 */

/** Availability statuses ACP knows, as Aisle's four. */
const AVAILABILITY: Readonly<Record<string, string>> = {
  in_stock: 'in_stock',
  limited_stock: 'in_stock',
  backorder: 'preorder',
  preorder: 'preorder',
  out_of_stock: 'out_of_stock',
  discontinued: 'out_of_stock',
};

/** A variant that is never shown: discontinued, ACP's way of removing one (the Feed API has no delete). */
export const isSearchable = (v: AcpVariant): boolean => v.availability?.status !== 'discontinued';

const text = (d: AcpProduct['description']): string | undefined =>
  d === undefined
    ? undefined
    : (d.plain ??
      d.markdown ??
      d.html
        ?.replace(/<[^>]*>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim());

function availability(v: AcpVariant): string | undefined {
  const status = v.availability?.status;
  if (status !== undefined && status in AVAILABILITY) return AVAILABILITY[status];
  if (v.availability?.available !== undefined) return v.availability.available ? 'in_stock' : 'out_of_stock';
  return undefined;
}

/** The Aisle product id of a variant in `namespace`. */
export const variantProductId = (namespace: string, variantId: string): string => uuidV5(`acp:${namespace}:${variantId}`);

/** One Aisle product row per variant (searchable or not: the caller decides what to do with discontinued ones). */
export function acpVariantRows(product: AcpProduct, namespace: string, updatedAt: Date): { variant: AcpVariant; row: ProductRow }[] {
  return product.variants.map((v) => {
    const price = v.price;
    const image = [...(v.media ?? []), ...(product.media ?? [])].find((m) => m.type === 'image');
    const attributes: Record<string, unknown> = { acp_product_id: product.id };
    for (const o of v.variant_options ?? []) attributes[o.name] = o.value;
    if (v.condition?.length) attributes.condition = v.condition.join(', ');
    for (const b of v.barcodes ?? []) attributes[b.type.toLowerCase()] = b.value;
    if (v.list_price) attributes.list_price = fromMinorUnits(v.list_price.amount, v.list_price.currency);
    const row: ProductRow = {
      product_id: variantProductId(namespace, v.id),
      sku: v.id,
      title: v.title || product.title || '',
      attributes,
      last_updated_at: updatedAt.toISOString(),
    };
    const description = text(v.description) ?? text(product.description);
    if (description !== undefined) row.description = description;
    const url = v.url ?? product.url;
    if (url !== undefined) row.url = url;
    if (image !== undefined) row.image_url = image.url;
    if (price !== undefined) {
      row.price = fromMinorUnits(price.amount, price.currency);
      row.currency = price.currency;
    }
    const merchant = v.seller?.name ?? v.marketplace?.name;
    if (merchant !== undefined) row.merchant = merchant;
    const category = v.categories?.find((c) => c.taxonomy !== GOOGLE_TAXONOMY)?.value ?? v.categories?.[0]?.value;
    if (category !== undefined) row.category = category;
    // A category in Google's taxonomy is the product's place as given (core/catalog/placement.ts).
    const google = v.categories?.find((c) => c.taxonomy === GOOGLE_TAXONOMY)?.value;
    if (google !== undefined) row.google_product_category = google;
    const available = availability(v);
    if (available !== undefined) row.availability = available;
    return { variant: v, row };
  });
}
