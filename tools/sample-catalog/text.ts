/** Small text and number helpers shared by the templates. */
import type { Rng } from './random.js';

export const COLORS = [
  'Black',
  'Charcoal',
  'Slate Grey',
  'Stone',
  'Off-White',
  'Navy',
  'Forest Green',
  'Olive',
  'Sage',
  'Rust',
  'Burgundy',
  'Sand',
  'Sky Blue',
  'Teal',
  'Mustard',
  'Coral',
] as const;

export const NEUTRALS = ['Black', 'White', 'Graphite', 'Silver', 'Space Grey', 'Matte Black'] as const;

/** "Norrland Vela 2" → "norrland-vela-2", capped at `maxWords` words. */
export function slugify(text: string, maxWords = 8): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(/\s+/)
    .slice(0, maxWords)
    .join('-');
}

/** Round to cents, avoiding float noise such as 19.990000000000002. */
export function cents(value: number): number {
  return Math.round(value * 100) / 100;
}

/**
 * A realistic shelf price in [min, max]: small items end in .99/.49, mid-range in 9.99/4.95,
 * expensive items in whole dollars ending 9 or 5.
 */
export function shelfPrice(rng: Rng, min: number, max: number): number {
  const raw = min + rng.float() * (max - min);
  let price: number;
  if (raw < 20) {
    price = Math.floor(raw) + rng.pick([0.99, 0.49, 0.95]);
  } else if (raw < 250) {
    price = Math.floor(raw / 5) * 5 + rng.pick([4.99, 4.95, -0.01, 4.0]);
  } else {
    price = Math.floor(raw / 10) * 10 + rng.pick([9, 9.99, -1, 5]);
  }
  return cents(Math.min(Math.max(price, min), max));
}

/**
 * Join a lead sentence with `n` distinct feature sentences picked from `features`. Empty strings
 * are dropped, so a list can hold conditional entries: `wireless ? 'Bluetooth 5.3.' : ''`.
 */
export function describe(rng: Rng, lead: string, features: readonly string[], n = 2): string {
  return [
    lead,
    ...rng.sample(
      features.filter((f) => f !== ''),
      n,
    ),
  ].join(' ');
}

export const SHOE_SIZES_US = ['7', '7.5', '8', '8.5', '9', '9.5', '10', '10.5', '11', '11.5', '12', '13'];
export const APPAREL_SIZES = ['XS', 'S', 'M', 'L', 'XL', 'XXL'];

/** A contiguous run of sizes, e.g. US 7–12, so listings don't all carry the same range. */
export function sizeRun(rng: Rng, sizes: readonly string[], minLen: number): string[] {
  const start = rng.int(0, Math.max(0, sizes.length - minLen));
  const end = rng.int(Math.min(sizes.length, start + minLen), sizes.length);
  return sizes.slice(start, end);
}

/** "stonewashed linen" → "Stonewashed Linen". */
export function titleCase(text: string): string {
  return text.replace(/(^|[\s-])([a-z])/g, (_m, sep: string, ch: string) => sep + ch.toUpperCase());
}

/** Snap a computed price to a shelf-style ending: keeps .00/.49/.50/.95/.99, else → .99. */
export function charm(price: number): number {
  const fraction = Math.round((price - Math.floor(price)) * 100);
  if ([0, 49, 50, 95, 99].includes(fraction)) return cents(price);
  return cents(Math.floor(price) + 0.99);
}
