import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CatalogFilter, ScoredProduct } from '../../../src/core/catalog/ports.js';
import { RETRIEVAL_DEPTH } from '../../../src/core/ranking/retrieval.js';
import type { Embedder } from '../../../src/core/shared-ports.js';
import { LanceCatalogStore } from '../../../src/store/lance/catalog-store.js';
import { openSharedEmbedder } from '../../helpers/search.js';

// The sample catalog twice: one store warmed (it then answers exact searches from memory), one
// with the row cache off (every search scans the vector column in LanceDB, with LanceDB's filter).
let embedder: Embedder;
let memory: LanceCatalogStore;
let lance: LanceCatalogStore;

beforeAll(async () => {
  embedder = await openSharedEmbedder();
  const options = { recallDepth: RETRIEVAL_DEPTH, uri: inject('sampleCatalogDir'), annThreshold: 1_000_000, annIndex: 'ivf_hnsw_sq' } as const;
  memory = await LanceCatalogStore.open(options);
  lance = await LanceCatalogStore.open({ ...options, cacheBytes: 0 });
});

afterAll(async () => {
  await memory?.close();
  await lance?.close();
  await embedder?.close();
});

const QUERIES = ['waterproof trail running shoes', 'merino socks for hiking', 'noise cancelling headphones', 'usb-c charger'];
// Every kind of clause buildWhere writes, alone and together, with values from the sample
// catalog, odd spellings (case, spaces) and a control character, which SQL literals turn into a space.
const FILTERS: CatalogFilter[] = [
  {},
  { minPrice: 40 },
  { maxPrice: 25.5 },
  { minPrice: 20, maxPrice: 120 },
  { merchant: '  northbound   GENERAL store' },
  { brand: 'Kestrel Running' },
  { category: 'footwear > running shoes' },
  { category: 'Socks' },
  { anyCategory: ['Rain Jackets', 'Apparel > Accessories'] },
  { keywords: ['merino', 'merin'] },
  { keywords: ['waterproof'], minPrice: 50 },
  { merchant: 'Trailhead\u0001Outfitters' },
  { excludeProductIds: [] },
  // The taxonomy places an import gives the sample catalog: a subtree widening a category, and a
  // publisher's exclusions (subtrees, brands and merchants, in any case).
  { category: 'no such text', categorySubtrees: [['Apparel & Accessories', 'Clothing']] },
  { category: 'Socks', categorySubtrees: [['Electronics']] },
  { excludeSubtrees: [['Apparel & Accessories'], ['Electronics', 'Audio']] },
  { excludeBrands: ['KESTREL running', 'Norrland'], excludeMerchants: ['trailhead outfitters'] },
  { excludeSubtrees: [['Sporting Goods']], excludeBrands: ['Veyra'], minPrice: 30 },
];

const summary = (hits: ScoredProduct[]) => hits.map((h) => `${h.product.productId} ${h.score}`);

describe('exact vector search from memory', () => {
  it('takes over once the cache holds the whole version', async () => {
    expect(memory.exactSearchInMemory).toBe(false);
    await memory.warm();
    expect(memory.exactSearchInMemory).toBe(true);
    await lance.warm();
    expect(lance.exactSearchInMemory).toBe(false);
  });

  it('finds the same products, scores, order and vectors as LanceDB for every filter', async () => {
    await memory.warm();
    let compared = 0;
    for (const query of QUERIES) {
      const [vector] = await embedder.embed([query]);
      const nearest = await lance.vectorSearch(vector!, { limit: RETRIEVAL_DEPTH });
      const excluded = nearest.slice(0, 5).map((h) => h.product.productId);
      for (const filter of [...FILTERS, { excludeProductIds: excluded }, { excludeProductIds: excluded, brand: 'Norrland' }]) {
        for (const limit of [1, RETRIEVAL_DEPTH]) {
          const expected = await lance.vectorSearch(vector!, { limit, filter, withVectors: true });
          const got = await memory.vectorSearch(vector!, { limit, filter, withVectors: true });
          expect(summary(got), `${query} ${JSON.stringify(filter)} limit ${limit}`).toEqual(summary(expected));
          expect(got.map((h) => Array.from(h.vector!))).toEqual(expected.map((h) => Array.from(h.vector!)));
          compared += expected.length;
        }
      }
      // A filter nothing passes gives nothing on both paths.
      expect(await memory.vectorSearch(vector!, { limit: 10, filter: { brand: 'no such brand' } })).toEqual([]);
      expect(await lance.vectorSearch(vector!, { limit: 10, filter: { brand: 'no such brand' } })).toEqual([]);
    }
    // Each filter above matches products of the sample catalog for at least some queries.
    expect(compared).toBeGreaterThan(QUERIES.length * FILTERS.length * 20);
  });

  it('finds products each filter selects (the comparison above is not between two empty lists)', async () => {
    await memory.warm();
    const [vector] = await embedder.embed(['gear']);
    for (const filter of FILTERS) expect((await memory.vectorSearch(vector!, { limit: 5, filter })).length, JSON.stringify(filter)).toBeGreaterThan(0);
  });
});
