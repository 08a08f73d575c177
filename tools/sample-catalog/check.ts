/** Validation and summary statistics for the sample catalog (used by write.ts). */
import type { Product } from './types.js';

const AVAILABILITY = new Set(['in_stock', 'out_of_stock', 'preorder']);
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TRAIL = 'Footwear > Running Shoes > Trail Running Shoes';

/** Returns a list of problems; empty means the catalog is valid. */
export function validate(products: readonly Product[]): string[] {
  const problems: string[] = [];
  const skus = new Set<string>();
  const urls = new Set<string>();
  for (const p of products) {
    const where = `${p.merchant} ${p.sku}`;
    const key = `${p.merchant}\u0000${p.sku}`;
    if (skus.has(key)) problems.push(`${where}: duplicate sku for merchant`);
    skus.add(key);
    if (urls.has(p.url)) problems.push(`${where}: duplicate url`);
    urls.add(p.url);
    if (!(p.price > 0) || Math.round(p.price * 100) / 100 !== p.price) problems.push(`${where}: bad price ${p.price}`);
    if (p.price < 3 || p.price > 2500) problems.push(`${where}: price ${p.price} outside $3–$2,500`);
    if (p.currency !== 'USD') problems.push(`${where}: currency ${p.currency}`);
    if (p.category.split(' > ').length !== 3) problems.push(`${where}: category "${p.category}"`);
    if (!AVAILABILITY.has(p.availability)) problems.push(`${where}: availability ${p.availability}`);
    if (!ISO_MS.test(p.last_updated_at)) problems.push(`${where}: last_updated_at ${p.last_updated_at}`);
    if (!/^https:\/\/[a-z0-9-]+\.example\.com\/p\/[a-z0-9-]+$/.test(p.url)) problems.push(`${where}: url ${p.url}`);
    if (!/^https:\/\/img\.[a-z0-9-]+\.example\.com\/[a-z0-9-]+\.jpg$/.test(p.image_url)) problems.push(`${where}: image_url ${p.image_url}`);
    for (const field of ['sku', 'title', 'description', 'merchant', 'brand', 'disclosure_text'] as const) {
      if (p[field].trim() === '') problems.push(`${where}: empty ${field}`);
    }
    if (/undefined|NaN|\s{2}/.test(`${p.title} ${p.description}`)) problems.push(`${where}: suspicious text "${p.title}"`);
  }
  return problems;
}

export function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return new Map([...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));
}

export interface TrailScenario {
  total: number;
  waterproofUnder120: number;
  waterproofUnder120InStock: number;
  waterproofAtOrOver120: number;
  notWaterproofUnder120: number;
  notWaterproofAtOrOver120: number;
}

export function trailScenario(products: readonly Product[]): TrailScenario {
  const trail = products.filter((p) => p.category === TRAIL);
  const wp = (p: Product): boolean => p.attributes.waterproof === true && /waterproof/i.test(`${p.title} ${p.description}`);
  const dry = (p: Product): boolean => p.attributes.waterproof === false;
  return {
    total: trail.length,
    waterproofUnder120: trail.filter((p) => wp(p) && p.price < 120).length,
    waterproofUnder120InStock: trail.filter((p) => wp(p) && p.price < 120 && p.availability === 'in_stock').length,
    waterproofAtOrOver120: trail.filter((p) => wp(p) && p.price >= 120).length,
    notWaterproofUnder120: trail.filter((p) => dry(p) && p.price < 120).length,
    notWaterproofAtOrOver120: trail.filter((p) => dry(p) && p.price >= 120).length,
  };
}
