/**
 * Assembles the sample catalog: hand-written fixtures plus template-generated products, then
 * assigns merchants' SKUs, URLs, stock status and update times. Pure and deterministic.
 */
import { NEAR_MISSES_AND_VARIANTS } from './fixed-near-misses.js';
import { TRAIL_SHOES } from './fixed-trail-shoes.js';
import { MERCHANTS, type MerchantId } from './merchants.js';
import { Rng } from './random.js';
import { APPAREL_TEMPLATES } from './templates-apparel.js';
import { AUTO_TOOLS_TEMPLATES } from './templates-auto-tools.js';
import { BABY_PET_TEMPLATES } from './templates-baby-pet.js';
import { BAGS_WATCHES_TEMPLATES } from './templates-bags-watches.js';
import { BEAUTY_HEALTH_TEMPLATES } from './templates-beauty-health.js';
import { ELECTRONICS_TEMPLATES } from './templates-electronics.js';
import { FOOTWEAR_TEMPLATES } from './templates-footwear.js';
import { GROCERY_TEMPLATES } from './templates-grocery.js';
import { HOME_GARDEN_TEMPLATES } from './templates-home-garden.js';
import { KITCHEN_TEMPLATES } from './templates-kitchen.js';
import { OFFICE_STATIONERY_TEMPLATES } from './templates-office-stationery.js';
import { OUTDOOR_TEMPLATES } from './templates-outdoor.js';
import { SPORTS_TOYS_TEMPLATES } from './templates-sports-toys.js';
import { cents, charm, shelfPrice, slugify } from './text.js';
import type { Availability, FixedProduct, Product, Template } from './types.js';

const TEMPLATES: readonly Template[] = [
  ...FOOTWEAR_TEMPLATES,
  ...OUTDOOR_TEMPLATES,
  ...KITCHEN_TEMPLATES,
  ...ELECTRONICS_TEMPLATES,
  ...HOME_GARDEN_TEMPLATES,
  ...OFFICE_STATIONERY_TEMPLATES,
  ...SPORTS_TOYS_TEMPLATES,
  ...BABY_PET_TEMPLATES,
  ...BEAUTY_HEALTH_TEMPLATES,
  ...APPAREL_TEMPLATES,
  ...BAGS_WATCHES_TEMPLATES,
  ...GROCERY_TEMPLATES,
  ...AUTO_TOOLS_TEMPLATES,
];

const FIXED: readonly FixedProduct[] = [...TRAIL_SHOES, ...NEAR_MISSES_AND_VARIANTS];

/** Timestamps fall in the 30 days before this instant. */
const CATALOG_AS_OF = Date.UTC(2026, 10, 20); // 2026-11-20T00:00:00.000Z
const WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

/** Random stock-outs and pre-orders among generated products (≈8% with the fixed preorder). */
const OUT_OF_STOCK = 25;
const PREORDER = 14;

/** A product before merchant-specific fields are assigned. */
interface Pending extends FixedProduct {
  availability: Availability;
  /** Fixed products keep their availability. */
  pinned: boolean;
}

function fromFixed(p: FixedProduct): Pending {
  return { ...p, price: cents(p.price), availability: p.availability ?? 'in_stock', pinned: true };
}

function generate(template: Template, takenTitles: Set<string>): Pending[] {
  const rng = Rng.for(template.category);
  const out: Pending[] = [];
  // Round-robin over a shuffled merchant list keeps each template's merchant mix proportional.
  const merchants = rng.shuffle(template.merchants);
  for (let i = 0; i < template.count; i++) {
    const merchant = merchants[i % merchants.length];
    if (merchant === undefined) throw new Error(`${template.category}: no merchants`);
    for (let attempt = 0; ; attempt++) {
      if (attempt >= 50) throw new Error(`${template.category}: could not make a unique title`);
      const brand = rng.pick(template.brands);
      const draft = template.make({ rng, brand });
      if (takenTitles.has(draft.title)) continue;
      takenTitles.add(draft.title);
      const price = draft.price === undefined ? shelfPrice(rng, template.price[0], template.price[1]) : charm(draft.price);
      out.push({ category: template.category, merchant, brand, ...draft, price, availability: 'in_stock', pinned: false });
      break;
    }
  }
  return out;
}

function compare(a: Pending, b: Pending): number {
  if (a.category !== b.category) return a.category < b.category ? -1 : 1;
  if (a.title !== b.title) return a.title < b.title ? -1 : 1;
  return 0;
}

function assignStock(items: Pending[]): void {
  const rng = Rng.for('availability');
  const eligible = rng.shuffle(items.filter((p) => !p.pinned));
  for (const p of eligible.slice(0, OUT_OF_STOCK)) p.availability = 'out_of_stock';
  for (const p of eligible.slice(OUT_OF_STOCK, OUT_OF_STOCK + PREORDER)) p.availability = 'preorder';
}

export function buildCatalog(): Product[] {
  const titles = new Set<string>();
  const pending: Pending[] = [];
  for (const fixed of FIXED) {
    if (titles.has(fixed.title)) throw new Error(`duplicate fixed title: ${fixed.title}`);
    titles.add(fixed.title);
    pending.push(fromFixed(fixed));
  }
  for (const template of TEMPLATES) pending.push(...generate(template, titles));
  pending.sort(compare);
  assignStock(pending);

  const skuCounters = new Map<MerchantId, number>();
  const clock = Rng.for('last_updated_at');
  return pending.map((p): Product => {
    const shop = MERCHANTS[p.merchant];
    const n = (skuCounters.get(p.merchant) ?? 0) + 1;
    skuCounters.set(p.merchant, n);
    const sku = shop.sku(n);
    const slug = `${slugify(p.title)}-${slugify(sku)}`;
    const updatedAt = CATALOG_AS_OF - 1 - clock.int(0, WINDOW_MS - 1);
    return {
      sku,
      title: p.title,
      description: p.description,
      url: `https://${shop.host}/p/${slug}`,
      image_url: `https://img.${shop.host}/${slug}.jpg`,
      price: p.price,
      currency: 'USD',
      merchant: shop.name,
      brand: p.brand,
      category: p.category,
      availability: p.availability,
      disclosure_text: shop.disclosure,
      attributes: p.attributes,
      last_updated_at: new Date(updatedAt).toISOString(),
    };
  });
}
