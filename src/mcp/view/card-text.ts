/** Card wording shared by the MCP Apps view and the console's playground. */

export type Availability = 'in_stock' | 'out_of_stock' | 'preorder' | 'unknown';

export const AVAILABILITY: Record<Availability, string> = {
  in_stock: 'In stock',
  out_of_stock: 'Out of stock',
  preorder: 'Preorder',
  unknown: 'Availability unknown',
};

/** "price checked 3 h ago" from last_updated_at; the price may be stale, so the age is always shown. */
export function freshness(lastUpdatedAt: string | null, now = Date.now()): string {
  const t = lastUpdatedAt === null ? Number.NaN : Date.parse(lastUpdatedAt);
  if (Number.isNaN(t)) return 'price freshness unknown';
  const minutes = Math.max(0, Math.round((now - t) / 60_000));
  if (minutes < 1) return 'price checked just now';
  if (minutes < 60) return `price checked ${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `price checked ${hours} h ago`;
  return `price checked ${Math.round(hours / 24)} days ago; it may have changed`;
}

/** A neutral picture-frame icon (24×24 path) for products without a usable image. */
export const PLACEHOLDER_PATH =
  'M4 4h16a1 1 0 0 1 1 1v14a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1V5a1 1 0 0 1 1-1zm1 2v10l4-4 3 3 3-4 4 5V6H5zm4 1.5a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3z';
