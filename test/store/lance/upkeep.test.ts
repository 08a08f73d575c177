import * as lancedb from '@lancedb/lancedb';
import { afterEach, describe, expect, it } from 'vitest';
import { productDigests } from '../../../src/core/catalog/digests.js';
import { RETRIEVAL_DEPTH } from '../../../src/core/ranking/retrieval.js';
import { LanceCatalogStore } from '../../../src/store/lance/catalog-store.js';
import { PRODUCTS_TABLE } from '../../../src/store/lance/rows.js';
import { makeProduct, seededRandom, tempCatalogUri, unitVector } from '../../helpers/catalog.js';

const DIMS = 16;
const MODEL = 'test-model';
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function open(uri: string, versionRetentionMs: number): Promise<LanceCatalogStore> {
  const store = await LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri, annThreshold: 1_000_000, annIndex: 'ivf_hnsw_sq', versionRetentionMs });
  cleanups.push(() => store.close());
  return store;
}

async function seed(store: LanceCatalogStore, count: number): Promise<void> {
  const random = seededRandom(7);
  const writer = await store.openWriter({ model: MODEL, dimensions: DIMS, replace: false });
  await writer.write(
    Array.from({ length: count }, (_, i) => ({ product: makeProduct(i), vector: unitVector(random, DIMS), digests: productDigests(makeProduct(i), MODEL) })),
  );
  await writer.commit();
}

/** One small delta commit: a new price for one product. */
async function priceCommit(store: LanceCatalogStore, i: number, price: number): Promise<void> {
  const product = makeProduct(i, { priceAmount: price });
  const writer = await store.openWriter({ model: MODEL, dimensions: DIMS, replace: false });
  await writer.applyDeltas([{ product, digests: productDigests(product, MODEL) }]);
  await writer.commit();
}

async function versions(uri: string): Promise<number[]> {
  const conn = await lancedb.connect(uri);
  const table = await conn.openTable(PRODUCTS_TABLE);
  try {
    return (await table.listVersions()).map((v) => v.version);
  } finally {
    table.close();
    conn.close();
  }
}

describe('LanceCatalogStore upkeep', () => {
  it('keeps the files of versions a process may still serve and removes them once the retention window has passed', async () => {
    const uri = tempCatalogUri();
    const writer = await open(uri, 60_000);
    await seed(writer, 40);
    // A process that has not followed the pointer since: it serves the first version.
    const lagging = await open(uri, 60_000);
    const first = (await lagging.info())!.version;
    for (let k = 0; k < 5; k++) await priceCommit(writer, k, 100 + k);
    expect((await writer.upkeep()).action).toBe('done');
    expect(await versions(uri)).toContain(first);
    // Still answering from its version's files.
    expect((await lagging.getByIds([makeProduct(3).productId]))[0]?.priceAmount).toBe(13);
    expect((await lagging.textSearch('product 3', { limit: 3 })).length).toBeGreaterThan(0);

    // The same catalog kept with a window that the retired versions are all past.
    const later = await open(uri, 1);
    const report = await later.upkeep();
    expect(report).toMatchObject({ action: 'done' });
    expect(report.action === 'done' && report.versionsRemoved).toBeGreaterThan(0);
    const left = await versions(uri);
    expect(left).not.toContain(first);
    // The serving version and its products are whole.
    const serving = (await writer.info())!;
    expect(left).toContain(serving.version);
    expect((await writer.getByIds([makeProduct(3).productId]))[0]?.priceAmount).toBe(103);
    const reader = await open(uri, 60_000);
    expect((await reader.info())?.productCount).toBe(40);
    expect((await reader.textSearch('product 4', { limit: 3 })).map((h) => h.product.title)).toContain('Product 4');
  });

  it('waits for an import: skipped while one is writing, and never publishes its half-written rows', async () => {
    const uri = tempCatalogUri();
    const store = await open(uri, 3_600_000);
    await seed(store, 10);
    const writer = await store.openWriter({ model: MODEL, dimensions: DIMS, replace: false });
    await writer.insert([{ product: makeProduct(50), vector: unitVector(seededRandom(1), DIMS) }]);
    expect(await store.upkeep()).toEqual({ action: 'skipped', reason: 'an import is writing the catalog' });
    expect((await store.info())?.productCount).toBe(10);
    await writer.abort();
    expect((await store.upkeep()).action).toBe('done');
    expect((await store.info())?.productCount).toBe(10);
    expect(await store.getByIds([makeProduct(50).productId])).toEqual([]);
  });

  it('answers a catalog that has none with a skip', async () => {
    const store = await open(tempCatalogUri(), 1_000);
    expect(await store.upkeep()).toEqual({ action: 'skipped', reason: 'the catalog is empty' });
  });
});
