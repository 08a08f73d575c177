import * as lancedb from '@lancedb/lancedb';
import { Schema } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productEmbeddingText } from '../../../src/core/catalog/embedding-text.js';
import { type FeedRecord, type ImportSummary, importCatalog } from '../../../src/core/catalog/import.js';
import type { CatalogProduct } from '../../../src/core/catalog/product.js';
import { productToInput } from '../../../src/core/catalog/reindex.js';
import type { Embedder } from '../../../src/core/shared-ports.js';
import type { LanceCatalogStore } from '../../../src/store/lance/catalog-store.js';
import { PRODUCTS_TABLE, productSchema, toRecord } from '../../../src/store/lance/rows.js';
import { makeProduct, openTestCatalog, tempCatalogUri } from '../../helpers/catalog.js';
import { openSharedEmbedder } from '../../helpers/search.js';

/** The suite's USE-lite embedder, counting the texts it is asked to embed. */
class CountingEmbedder implements Embedder {
  texts = 0;
  constructor(private readonly inner: Embedder) {}
  get model() {
    return this.inner.model;
  }
  get dimensions() {
    return this.inner.dimensions;
  }
  embed(texts: readonly string[]) {
    this.texts += texts.length;
    return this.inner.embed(texts);
  }
  close() {
    return Promise.resolve();
  }
}

let shared: Embedder;
let embedder: CountingEmbedder;
beforeAll(async () => {
  shared = await openSharedEmbedder();
  embedder = new CountingEmbedder(shared);
});
afterAll(() => shared.close());

const query = async (text: string) => (await shared.embed([text]))[0]!;

const KINDS = ['trail running shoe', 'espresso machine', 'camping lantern', 'wool sweater', 'cast iron skillet'];
const product = (i: number, overrides: Partial<CatalogProduct> = {}): CatalogProduct =>
  makeProduct(i, { title: `${KINDS[i % KINDS.length]} model ${i}`, description: `A ${KINDS[i % KINDS.length]} for every day, number ${i}.`, ...overrides });

async function* feed(products: readonly CatalogProduct[]): AsyncIterable<FeedRecord> {
  let line = 0;
  for (const p of products) yield { line: ++line, row: productToInput(p) };
}

async function run(catalog: LanceCatalogStore, products: readonly CatalogProduct[], replace = false): Promise<ImportSummary & { texts: number }> {
  embedder.texts = 0;
  const summary = await importCatalog(feed(products), { catalog, embedder }, { replace, dryRun: false, batchSize: 16 });
  return { ...summary, texts: embedder.texts };
}

const first = Array.from({ length: 60 }, (_, i) => product(i));

describe('importCatalog against a stored catalog', () => {
  it('writes nothing and makes no version when a feed is imported again unchanged', async () => {
    const catalog = await openTestCatalog();
    try {
      const created = await run(catalog, first);
      expect(created).toMatchObject({ imported: 60, embedded: 60, texts: 60 });
      const again = await run(catalog, first);
      expect(again).toMatchObject({ imported: 0, updated: 0, delta: 0, unchanged: 60, embedded: 0, texts: 0 });
      expect(again.catalog?.version).toBe(created.catalog?.version);
      const replaced = await run(catalog, first, true);
      expect(replaced).toMatchObject({ unchanged: 60, removed: 0, texts: 0 });
      expect(replaced.catalog?.version).toBe(created.catalog?.version);
    } finally {
      await catalog.close();
    }
  });

  it('embeds only the products whose text changed, writes price and availability changes alone, and keeps restated products’ vectors', async () => {
    const catalog = await openTestCatalog();
    try {
      await run(catalog, first);
      const [before] = await catalog.getByIds([product(3).productId]);
      // Product 24's stored vector, found among every product's.
      const vectorOf24 = async () =>
        (await catalog.vectorSearch(await query(product(24).title), { limit: 100, withVectors: true })).find(
          (h) => h.product.productId === product(24).productId,
        )?.vector;
      const storedVector = await vectorOf24();
      expect(storedVector).toBeInstanceOf(Float32Array);

      const next = first.map((p, i) => {
        if (i < 6) return product(i, { title: `${KINDS[(i + 1) % KINDS.length]} deluxe ${i}` }); // text: embedded again
        if (i < 20) return { ...p, priceAmount: 500 + i, availability: 'out_of_stock' as const, lastUpdatedAt: new Date('2026-11-20T00:00:00Z') }; // delta
        if (i === 24) return { ...p, url: 'https://shop.example.com/new/24', attributes: { color: 'green' } }; // restated
        return p;
      });
      const summary = await run(catalog, [...next, product(100)]);
      expect(summary).toMatchObject({ imported: 1, updated: 7, delta: 14, unchanged: 39, embedded: 6 + 1, texts: 7 });

      // The delta is served: the new price filters and shows; the text and vector paths still find the product.
      const delta = product(10).productId;
      const [byPrice] = await catalog.textSearch('espresso machine model 11', { limit: 1, filter: { minPrice: 511, maxPrice: 511 } });
      expect(byPrice?.product).toMatchObject({ productId: product(11).productId, priceAmount: 511, availability: 'out_of_stock' });
      const [vectorHit] = await catalog.vectorSearch(await query(productEmbeddingText(product(10))), { limit: 1 });
      expect(vectorHit?.product).toMatchObject({ productId: delta, priceAmount: 510 });
      expect((await catalog.getByIds([delta]))[0]?.lastUpdatedAt?.toISOString()).toBe('2026-11-20T00:00:00.000Z');

      // Restated: the new url and attributes, the very same vector.
      const [restated] = await catalog.getByIds([product(24).productId]);
      expect(restated).toMatchObject({ url: 'https://shop.example.com/new/24', attributes: { color: 'green' } });
      expect(Array.from((await vectorOf24()) ?? [])).toEqual(Array.from(storedVector!));

      // The changed title is searched by its new text.
      const [changed] = await catalog.textSearch('deluxe 3', { limit: 1 });
      expect(changed?.product.productId).toBe(before?.productId);
      expect(changed?.product.title).toBe('cast iron skillet deluxe 3');
      expect((await catalog.info())?.productCount).toBe(61);
    } finally {
      await catalog.close();
    }
  });

  it('removes what a replacing feed no longer lists and embeds none of what it keeps', async () => {
    const catalog = await openTestCatalog();
    try {
      await run(catalog, first);
      const kept = first.slice(0, 45);
      const summary = await run(catalog, [...kept, product(200)], true);
      expect(summary).toMatchObject({ imported: 1, unchanged: 45, removed: 15, texts: 1 });
      expect((await catalog.info())?.productCount).toBe(46);
      expect(await catalog.getByIds([first[50]!.productId])).toEqual([]);
      expect((await catalog.getByIds([first[44]!.productId]))[0]?.title).toBe(first[44]!.title);
    } finally {
      await catalog.close();
    }
  });

  it('applies large price deltas to a catalog whose rows were partly deleted and rewritten', async () => {
    const catalog = await openTestCatalog();
    try {
      const many = Array.from({ length: 300 }, (_, i) => product(i));
      await run(catalog, many);
      // Deleted rows (a replacing import), a row rewritten whole (a delta under 1 % of the
      // catalog), then deltas large enough to be written column-wise, twice.
      await run(catalog, many.slice(0, 250), true);
      await run(catalog, [{ ...many[0]!, priceAmount: 1 }]);
      for (const price of [700, 800]) {
        const summary = await run(
          catalog,
          many.slice(0, 120).map((p) => ({ ...p, priceAmount: price })),
        );
        expect(summary).toMatchObject({ delta: 120, texts: 0 });
        const stored = await catalog.getByIds(many.slice(0, 250).map((p) => p.productId));
        expect(stored.filter((p) => p.priceAmount === price)).toHaveLength(120);
        expect(stored).toHaveLength(250);
      }
    } finally {
      await catalog.close();
    }
  });

  it('writes a product listed twice once, as its last listing says', async () => {
    const catalog = await openTestCatalog();
    try {
      await run(catalog, first.slice(0, 10));
      // 20 rows apart, so with a lookup batch of 2,048 both fall in one batch, and across batches when many rows sit between.
      const filler = Array.from({ length: 2_100 }, (_, i) => product(1_000 + i));
      const summary = await run(catalog, [product(5, { priceAmount: 1 }), ...filler, product(5, { priceAmount: 2, title: 'final listing five' })]);
      expect(summary.imported).toBe(2_100);
      const [five] = await catalog.getByIds([product(5).productId]);
      expect(five).toMatchObject({ priceAmount: 2, title: 'final listing five' });
      expect((await catalog.info())?.productCount).toBe(2_110);
    } finally {
      await catalog.close();
    }
  });

  it('embeds once more the products of a catalog written before digests were kept, then never again', async () => {
    const uri = tempCatalogUri();
    // A catalog as the earlier code wrote it: the products table without the digest columns.
    const conn = await lancedb.connect(uri);
    const schema = new Schema(productSchema(embedder.dimensions).fields.filter((f) => !f.name.endsWith('_digest')));
    const table = await conn.createEmptyTable(PRODUCTS_TABLE, schema);
    const vectors = await embedder.embed(first.slice(0, 20).map((p) => p.title));
    await table.add(
      first.slice(0, 20).map((p, i) => {
        const { text_digest: _t, content_digest: _c, row_digest: _r, ...record } = toRecord(p, vectors[i]!);
        return record;
      }),
    );
    const version = await table.version();
    table.close();
    conn.close();
    const catalog = await openTestCatalog(uri);
    try {
      await catalog.publish({
        model: embedder.model,
        dimensions: embedder.dimensions,
        productCount: 20,
        version,
        updatedAt: new Date(),
        annIndex: 'none',
        annRecall: null,
      });
      const once = await run(catalog, first.slice(0, 20));
      expect(once).toMatchObject({ updated: 20, texts: 20 });
      const twice = await run(catalog, first.slice(0, 20));
      expect(twice).toMatchObject({ unchanged: 20, texts: 0 });
    } finally {
      await catalog.close();
    }
  });
});
