import { type FeedRecord, importCatalog } from '../../src/core/catalog/import.js';
import type { POLICY_PRESETS } from '../../src/core/schemas/policy.js';
import { openPlacer } from '../../src/knowledge/placer.js';
import type { SampleCatalog } from './search.js';

/** Products of every policy preset, placed by the category their feed names (the sample catalog has none of them). */
export const RESTRICTED: Record<string, { title: string; category: number; preset: (typeof POLICY_PRESETS)[number] }> = {
  wine: { title: 'Hollow Oak Cabernet Sauvignon Red Wine, 750 ml Bottle', category: 421, preset: 'alcohol' },
  cigars: { title: 'Maduro Hand-Rolled Cigars, Box of 10', category: 3682, preset: 'tobacco' },
  holster: { title: 'Leather Concealed Carry Gun Holster', category: 1783, preset: 'weapons' },
  novel: { title: 'Erotic Romance Novel Collection, 3 Books', category: 779, preset: 'adult' },
  chips: { title: 'Clay Poker Chip Set, 500 Chips with Aluminum Case', category: 5403, preset: 'gambling' },
  vitamins: { title: 'Daily Multivitamin Tablets, 90 Count', category: 525, preset: 'drugs_and_medicine' },
  giftcard: { title: 'Coffee Shop Gift Card, $50', category: 53, preset: 'financial' },
};

async function* restricted(): AsyncIterable<FeedRecord> {
  let line = 0;
  for (const [id, p] of Object.entries(RESTRICTED)) {
    yield {
      line: ++line,
      row: {
        id,
        title: p.title,
        description: p.title,
        price: 20 + line,
        merchant: 'Corner Shop',
        brand: `Brand ${id}`,
        google_product_category: String(p.category),
      },
    };
  }
}

/** Adds RESTRICTED to a copy of the sample catalog (openSampleCatalog({ copy: true })), placed as an import places them. */
export async function addRestrictedProducts(sample: SampleCatalog): Promise<void> {
  await importCatalog(restricted(), { ...sample, placer: await openPlacer(sample.embedder) }, { replace: false, dryRun: false });
}

/** Whether a taxonomy path is `prefix` or under it. */
export const under = (path: string | null, prefix: string): boolean => path !== null && (path === prefix || path.startsWith(`${prefix} > `));
