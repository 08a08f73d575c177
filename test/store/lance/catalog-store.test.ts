import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { CatalogModelMismatchError } from '../../../src/core/catalog/errors.js';
import type { CatalogRow } from '../../../src/core/catalog/ports.js';
import { readRankingModel } from '../../../src/core/ranking/ranking.js';
import { RETRIEVAL_DEPTH } from '../../../src/core/ranking/retrieval.js';
import { LanceCatalogStore } from '../../../src/store/lance/catalog-store.js';
import { buildWhere } from '../../../src/store/lance/where.js';
import { makeProduct, openTestCatalog, seededRandom, tempCatalogUri, unitVector } from '../../helpers/catalog.js';

const DIMS = 16;
const stores: LanceCatalogStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

async function open(uri?: string, annThreshold?: number) {
  const store = await openTestCatalog(uri, annThreshold);
  stores.push(store);
  return store;
}

function rows(from: number, to: number, seed = 1): CatalogRow[] {
  const random = seededRandom(seed);
  return Array.from({ length: to - from }, (_, k) => ({ product: makeProduct(from + k), vector: unitVector(random, DIMS) }));
}

async function importRows(store: LanceCatalogStore, data: CatalogRow[], replace = false, model = 'test-model') {
  const writer = await store.openWriter({ model, dimensions: DIMS, replace });
  for (let i = 0; i < data.length; i += 100) await writer.write(data.slice(i, i + 100));
  return writer.commit();
}

describe('LanceCatalogStore', () => {
  it('imports, records the model, and finds by vector, text and id', async () => {
    const store = await open();
    expect(await store.info()).toBeNull();
    const data = rows(0, 300);
    const info = await importRows(store, data);
    expect(info).toMatchObject({ model: 'test-model', dimensions: DIMS, productCount: 300, annIndex: 'none' });
    const target = data[42]!;
    const [best] = await store.vectorSearch(target.vector, { limit: 1 });
    expect(best?.product).toEqual(target.product);
    expect(best?.score).toBeCloseTo(0, 5);
    const text = await store.textSearch('product 42', { limit: 5 });
    expect(text.map((r) => r.product.productId)).toContain(target.product.productId);
    expect(await store.getByIds([target.product.productId])).toEqual([target.product]);
  });

  it('pushes filters down before the top-k cut', async () => {
    const store = await open();
    const data = rows(0, 300);
    await importRows(store, data);
    const query = data[0]!.vector;
    // The product nearest to the query costs 10; ask for prices the 200 nearest mostly do not have.
    const unfiltered = await store.vectorSearch(query, { limit: 200, exact: true });
    const expensive = (await store.vectorSearch(query, { limit: 300, exact: true })).filter((r) => r.product.priceAmount! >= 300);
    const filtered = await store.vectorSearch(query, { limit: 5, filter: { minPrice: 300 } });
    expect(filtered.map((r) => r.product.productId)).toEqual(expensive.slice(0, 5).map((r) => r.product.productId));
    expect(unfiltered.filter((r) => r.product.priceAmount! >= 300).length).toBeLessThan(200);

    const check = async (filter: Parameters<typeof store.vectorSearch>[1]['filter'], pred: (p: ReturnType<typeof makeProduct>) => boolean) => {
      const found = await store.vectorSearch(query, { limit: 300, filter });
      const expected = data.filter((r) => pred(r.product)).length;
      expect(found.length, JSON.stringify(filter)).toBe(expected);
      for (const r of found) expect(pred(r.product), JSON.stringify(filter)).toBe(true);
    };
    await check({ minPrice: 50, maxPrice: 60 }, (p) => p.priceAmount! >= 50 && p.priceAmount! <= 60);
    await check({ merchant: 'EVEN shop' }, (p) => p.merchant === 'Even Shop');
    await check({ brand: ' brand  3 ' }, (p) => p.brand === 'Brand 3');
    await check({ category: 'footwear' }, (p) => p.category[0] === 'Footwear');
    await check({ category: 'Footwear > Running Shoes' }, (p) => p.category[0] === 'Footwear');
    await check({ category: 'running shoes' }, (p) => p.category[0] === 'Footwear');
    await check({ category: 'Running Shoes > Trail' }, () => false);
    await check({ keywords: ['product', '7'] }, (p) => p.title.includes('7'));
    await check({ keywords: ['RED'] }, (p) => p.attributes.color === 'red');
    // Repeated keywords and keywords inside another are tested once: the same products pass.
    await check({ keywords: ['produ', 'Product', 'product', '7', 'uct'] }, (p) => p.title.includes('7'));
    expect(buildWhere({ keywords: ['produ', 'Product', 'product', '7', 'uct'] })).toBe("strpos(keyword_text, 'product') > 0 AND strpos(keyword_text, '7') > 0");
    await check(
      { excludeProductIds: [data[0]!.product.productId, data[1]!.product.productId] },
      (p) => p.productId !== data[0]!.product.productId && p.productId !== data[1]!.product.productId,
    );
    await check({ brand: "O'Brien'); DROP TABLE products; --" }, () => false);
    const text = await store.textSearch('product', { limit: 300, filter: { maxPrice: 20 } });
    expect(text.map((r) => r.product.priceAmount).every((p) => p! <= 20)).toBe(true);
    expect(text).toHaveLength(11);
  });

  it('lists the products that pass a filter by price, over every row, and counts them', async () => {
    const store = await open();
    // Prices out of row order, every seventh missing, many tied (50 distinct prices over 300 rows).
    const data = rows(0, 300).map((r, i) => ({ ...r, product: { ...r.product, priceAmount: i % 7 === 0 ? null : 500 - (i % 50) * 10 } }));
    await importRows(store, data);
    const priced = data.map((r) => r.product).filter((p) => p.priceAmount !== null);
    const expected = (filter: (p: (typeof priced)[number]) => boolean, descending: boolean) =>
      priced
        .filter(filter)
        .map((p, k) => ({ p, k }))
        .sort((a, b) => (descending ? b.p.priceAmount! - a.p.priceAmount! : a.p.priceAmount! - b.p.priceAmount!) || a.k - b.k)
        .map(({ p }) => p.productId);

    const cheapest = await store.byPrice({}, { limit: 7, descending: false });
    expect(cheapest.total).toBe(priced.length);
    expect(cheapest.products.map((p) => p.productId)).toEqual(expected(() => true, false).slice(0, 7));

    const filter = { maxPrice: 300, merchant: 'even shop', excludeProductIds: [cheapest.products[0]!.productId] };
    const dearest = await store.byPrice(filter, { limit: 10, descending: true });
    const passes = (p: (typeof priced)[number]) => p.priceAmount! <= 300 && p.merchant === 'Even Shop' && p.productId !== cheapest.products[0]!.productId;
    expect(dearest.total).toBe(priced.filter(passes).length);
    expect(dearest.products.map((p) => p.productId)).toEqual(expected(passes, true).slice(0, 10));
    expect(await store.byPrice({ minPrice: 10_000 }, { limit: 3, descending: false })).toEqual({ products: [], total: 0 });
  });

  it('upserts by product id and replaces on request', async () => {
    const store = await open();
    await importRows(store, rows(0, 100));
    const changed = rows(50, 150).map((r) => ({ ...r, product: { ...r.product, priceAmount: 1 } }));
    const writer = await store.openWriter({ model: 'test-model', dimensions: DIMS, replace: false });
    expect(await writer.write(changed)).toEqual({ inserted: 50, updated: 50 });
    const info = await writer.commit();
    expect(info.productCount).toBe(150);
    expect((await store.getByIds([changed[0]!.product.productId]))[0]?.priceAmount).toBe(1);
    const replaced = await importRows(store, rows(500, 510), true);
    expect(replaced.productCount).toBe(10);
    expect(await store.getByIds([changed[0]!.product.productId])).toEqual([]);
  });

  it('serves the new version of a changed product after an upsert, never a cached old row', async () => {
    const store = await open();
    const data = rows(0, 100);
    await importRows(store, data);
    const target = data[7]!;
    // Twice: the second search answers from the decoded-row cache.
    for (let i = 0; i < 2; i++) {
      expect((await store.vectorSearch(target.vector, { limit: 1, withVectors: true }))[0]).toMatchObject({ product: target.product, vector: target.vector });
      expect((await store.textSearch('product 7', { limit: 3 })).map((r) => r.product)).toContainEqual(target.product);
    }
    const writer = await store.openWriter({ model: 'test-model', dimensions: DIMS, replace: false });
    await writer.write([{ ...target, product: { ...target.product, title: 'Product 7 renamed', priceAmount: 1 } }]);
    await writer.commit();
    const [best] = await store.vectorSearch(target.vector, { limit: 1 });
    expect(best?.product).toMatchObject({ productId: target.product.productId, title: 'Product 7 renamed', priceAmount: 1 });
    expect(best?.vector).toBeUndefined();
    expect((await store.textSearch('renamed', { limit: 3 }))[0]?.product.title).toBe('Product 7 renamed');
  });

  it('answers the same with the decoded-row cache turned off', async () => {
    const uri = tempCatalogUri();
    const cached = await open(uri);
    const data = rows(0, 200);
    await importRows(cached, data);
    const uncached = await LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri, annThreshold: 1_000_000, annIndex: 'ivf_hnsw_sq', cacheBytes: 0 });
    stores.push(uncached);
    for (const r of data.slice(0, 20)) {
      const a = await cached.vectorSearch(r.vector, { limit: 10, withVectors: true });
      expect(await uncached.vectorSearch(r.vector, { limit: 10, withVectors: true })).toEqual(a);
    }
    expect(await uncached.textSearch('product 12', { limit: 10 })).toEqual(await cached.textSearch('product 12', { limit: 10 }));
  });

  it('refuses a different embedding model unless replacing, naming the re-index command', async () => {
    const store = await open();
    await importRows(store, rows(0, 10));
    await expect(store.openWriter({ model: 'other-model', dimensions: 8, replace: false })).rejects.toThrow(CatalogModelMismatchError);
    await expect(store.openWriter({ model: 'other-model', dimensions: 8, replace: false })).rejects.toThrow(/npm run ingest -- --reindex/);
    const writer = await store.openWriter({ model: 'other-model', dimensions: 8, replace: true });
    const random = seededRandom(5);
    await writer.write([{ product: makeProduct(1), vector: unitVector(random, 8) }]);
    expect(await writer.commit()).toMatchObject({ model: 'other-model', dimensions: 8, productCount: 1 });
  });

  it('keeps serving the previous version until commit, and after an abort', async () => {
    const uri = tempCatalogUri();
    const store = await open(uri);
    await importRows(store, rows(0, 100));
    const reader = await open(uri);
    const writer = await store.openWriter({ model: 'test-model', dimensions: DIMS, replace: true });
    await writer.write(rows(200, 250, 7));
    expect(await reader.refresh()).toBe(false);
    expect((await reader.info())?.productCount).toBe(100);
    await writer.abort();
    expect((await store.info())?.productCount).toBe(100);
    const writer2 = await store.openWriter({ model: 'test-model', dimensions: DIMS, replace: false });
    await writer2.write(rows(100, 120, 9));
    await writer2.commit();
    expect(await reader.refresh()).toBe(true);
    expect((await reader.info())?.productCount).toBe(120);
  });

  it('moves to a new version only once it is warm', async () => {
    const uri = tempCatalogUri();
    const store = await open(uri);
    await importRows(store, rows(0, 300));
    const reader = await open(uri);
    await reader.warm();
    expect(reader.exactSearchInMemory).toBe(true);
    await importRows(store, rows(300, 320, 3));
    expect(await reader.refresh()).toBe(true);
    // Serving the new version from memory as it starts to serve: no search waits on a cold table.
    expect(reader.exactSearchInMemory).toBe(true);
    expect((await reader.info())?.productCount).toBe(320);
  });

  it('finishes the searches under way on the version a refresh leaves', async () => {
    const uri = tempCatalogUri();
    const store = await open(uri);
    await importRows(store, rows(0, 300));
    // No cache: every search reads the table twice (the query, then a take of its rows), so a
    // refresh lands between the two reads of some searches.
    const reader = await LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri, annThreshold: 1_000_000, annIndex: 'ivf_hnsw_sq', cacheBytes: 0 });
    stores.push(reader);
    const random = seededRandom(5);
    for (let round = 0; round < 5; round++) {
      await importRows(store, rows(300 + round, 301 + round, 10 + round));
      const searches = Array.from({ length: 20 }, () => reader.vectorSearch(unitVector(random, DIMS), { limit: 10 }));
      expect(await reader.refresh()).toBe(true);
      for (const found of await Promise.all(searches)) expect(found).toHaveLength(10);
    }
    expect((await reader.info())?.productCount).toBe(305);
  });

  it('leaves the previous catalog intact when an import process is killed mid-way', async () => {
    const uri = tempCatalogUri();
    const store = await open(uri);
    const data = rows(0, 100);
    await importRows(store, data);
    await store.close();
    stores.length = 0;

    for (const mode of ['upsert', 'replace']) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/store/lance/fixtures/partial-import.ts', uri, mode], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => d.toString().includes('written') && resolve());
        child.on('exit', (code) => reject(new Error(`child exited early with ${code}`)));
      });
      child.kill('SIGKILL');
      await new Promise((r) => child.on('exit', r));

      const after = await open(uri);
      expect((await after.info())?.productCount).toBe(100);
      expect((await after.textSearch('crashed import', { limit: 10 })).length).toBe(0);
      const [best] = await after.vectorSearch(data[7]!.vector, { limit: 1 });
      expect(best?.product.productId).toBe(data[7]!.product.productId);
    }
    // The next import discards the dead one's partial commits and takes over its lock.
    const store2 = await open(uri);
    const info = await importRows(store2, rows(100, 110, 3));
    expect(info.productCount).toBe(110);
    expect((await store2.textSearch('crashed import', { limit: 10 })).length).toBe(0);
  });

  it('stores a relevance calibration per embedding model', async () => {
    const store = await open();
    expect(await readRankingModel(store, 'm1')).toBeNull();
    const k = { source: 'test', bias: -1, weights: { cosine: 2, bm25: 0.5, coverage: 1 }, scale: 1.5, offset: -0.2 };
    await store.storeRankingModel('m1', k);
    await store.storeRankingModel('m2', { ...k, bias: -2 });
    expect(await readRankingModel(store, 'm1')).toEqual(k);
    expect((await readRankingModel(store, 'm2'))?.bias).toBe(-2);
    expect(await readRankingModel(store, "m3' OR '1'='1")).toBeNull();
    // A model stored by an older release (other features) reads as none: the fallback serves.
    await store.storeRankingModel('old', { source: 'old', bias: -1, cosine: 2 } as unknown as typeof k);
    expect(await readRankingModel(store, 'old')).toBeNull();
  });

  it('builds an ANN index past the threshold and still finds exact matches', async () => {
    const store = await open(undefined, 1000);
    const data = rows(0, 3000, 11);
    const info = await importRows(store, data);
    expect(info.annIndex).toBe('ivf_hnsw_sq');
    let hits = 0;
    for (const r of data.slice(0, 50)) {
      const [best] = await store.vectorSearch(r.vector, { limit: 1 });
      if (best?.product.productId === r.product.productId) hits++;
    }
    expect(hits).toBeGreaterThanOrEqual(48);
    // Search asks for 100 candidates per retrieval: more than the index's default ef.
    expect(await store.vectorSearch(data[0]!.vector, { limit: 150, filter: { maxPrice: 2000 } })).toHaveLength(150);
  });
});
