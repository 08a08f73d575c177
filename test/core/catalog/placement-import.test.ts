import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FeedRecord, importCatalog, type ProductPlacer } from '../../../src/core/catalog/import.js';
import type { CatalogPlacer } from '../../../src/core/catalog/placement.js';
import type { Embedder } from '../../../src/core/shared-ports.js';
import { openPlacer } from '../../../src/knowledge/placer.js';
import type { LanceCatalogStore } from '../../../src/store/lance/catalog-store.js';
import { openTestCatalog } from '../../helpers/catalog.js';
import { openSharedEmbedder } from '../../helpers/search.js';

/** The shipped placer, counting the products it is asked to place. */
class CountingPlacer implements ProductPlacer {
  placed = 0;
  constructor(private readonly inner: CatalogPlacer) {}
  place(items: Parameters<CatalogPlacer['place']>[0]) {
    this.placed += items.length;
    return this.inner.place(items);
  }
}

let embedder: Embedder;
let placer: CountingPlacer;
let catalog: LanceCatalogStore;
beforeAll(async () => {
  embedder = await openSharedEmbedder();
  placer = new CountingPlacer(await openPlacer(embedder));
  catalog = await openTestCatalog();
}, 60_000);
afterAll(async () => {
  await catalog.close();
  await embedder.close();
});

const SKILLETS = 662;
const COOKWARE = 654;
const MICROWAVES = 753;

async function* rows(list: readonly Record<string, unknown>[]): AsyncIterable<FeedRecord> {
  let line = 0;
  for (const row of list) yield { line: ++line, row };
}

const products: Record<string, unknown>[] = [
  { id: 'by-id', title: 'Acme Pan', google_product_category: String(MICROWAVES), price: 10 },
  { id: 'by-path', title: 'Acme Thing', google_product_category: 'Home & Garden > Kitchen & Dining > Cookware & Bakeware > Cookware', price: 11 },
  { id: 'in-attributes', title: 'Acme Other', attributes: { google_product_category: String(SKILLETS) }, price: 12 },
  { id: 'from-text', title: 'Lodge 10.25 in. Cast Iron Skillet', description: 'Pre-seasoned, oven safe.', price: 13 },
  { id: 'unknown-id', title: 'Lodge 12 in. Cast Iron Skillet', google_product_category: '99999999', price: 14 },
  { id: 'nothing', title: 'The Deluxe Edition, No. 7', price: 15 },
];

const run = (list: readonly Record<string, unknown>[]) => {
  placer.placed = 0;
  return importCatalog(rows(list), { catalog, embedder, placer }, { replace: false, dryRun: false, defaults: { merchant: 'Acme' } });
};

async function placements(): Promise<Map<string, { id: number | null; path: string | null; confidence: number | null }>> {
  const out = new Map<string, { id: number | null; path: string | null; confidence: number | null }>();
  for await (const batch of catalog.scanProducts()) {
    for (const p of batch) {
      out.set(p.externalId!, { id: p.taxonomy?.categoryId ?? null, path: p.taxonomy?.path.join(' > ') ?? null, confidence: p.taxonomy?.confidence ?? null });
    }
  }
  return out;
}

describe('placement at import', () => {
  it("keeps the feed's own category as given, and places the rest from their text", async () => {
    const summary = await run(products);
    expect(summary.imported).toBe(products.length);
    expect(placer.placed).toBe(products.length);
    const placed = await placements();
    expect(placed.get('by-id')).toEqual({ id: MICROWAVES, path: 'Home & Garden > Kitchen & Dining > Kitchen Appliances > Microwave Ovens', confidence: 1 });
    expect(placed.get('by-path')).toMatchObject({ id: COOKWARE, confidence: 1 });
    expect(placed.get('in-attributes')).toMatchObject({ id: SKILLETS, confidence: 1 });
    // From its text: a skillet, said clearly but not by the feed.
    expect(placed.get('from-text')?.id).toBe(SKILLETS);
    expect(placed.get('from-text')!.confidence!).toBeGreaterThan(0.5);
    expect(placed.get('from-text')!.confidence!).toBeLessThan(1);
    // An id the taxonomy does not have is no placement from the feed: the text decides.
    expect(placed.get('unknown-id')?.id).toBe(SKILLETS);
    expect(placed.get('nothing')).toEqual({ id: null, path: null, confidence: null });
  });

  it('does not place again what a re-import finds unchanged or changed only in price', async () => {
    const again = await run(products.map((p) => (p.id === 'from-text' ? { ...p, price: 99 } : p)));
    expect(again).toMatchObject({ unchanged: products.length - 1, delta: 1 });
    expect(placer.placed).toBe(0);
    expect((await placements()).get('from-text')).toMatchObject({ id: SKILLETS });
  });

  it('places a product again when what it is placed by changes, with its stored vector voting', async () => {
    const before = (await placements()).get('from-text')!;
    // A new link only (restated: its text and vector are unchanged): the same place.
    const restated = await run(products.map((p) => (p.id === 'from-text' ? { ...p, price: 99, url: 'https://acme.example/skillet' } : p)));
    expect(restated).toMatchObject({ updated: 1, embedded: 0 });
    expect(placer.placed).toBe(1);
    expect((await placements()).get('from-text')).toEqual(before);
    // The feed names a category now: it wins, without embedding the product again.
    const named = products.map((p) =>
      p.id === 'from-text' ? { ...p, price: 99, url: 'https://acme.example/skillet', google_product_category: String(COOKWARE) } : p,
    );
    expect(await run(named)).toMatchObject({ updated: 1, embedded: 0 });
    expect((await placements()).get('from-text')).toMatchObject({ id: COOKWARE, confidence: 1 });
    // A new title is embedded and placed again.
    const retitled = await run(named.map((p) => (p.id === 'nothing' ? { ...p, title: 'Panasonic Countertop Microwave Oven' } : p)));
    expect(retitled).toMatchObject({ updated: 1, embedded: 1 });
    expect((await placements()).get('nothing')?.id).toBe(MICROWAVES);
  });
});
