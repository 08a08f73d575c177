import { join } from 'node:path';
import { uuidV5 } from '../../src/core/catalog/normalize.js';
import type { CatalogProduct } from '../../src/core/catalog/product.js';
import { mulberry32 } from '../../src/core/random.js';
import { RETRIEVAL_DEPTH } from '../../src/core/ranking/retrieval.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { tempDir } from './process.js';

export const tempCatalogUri = (): string => join(tempDir('catalog'), 'catalog');

export function openTestCatalog(uri = tempCatalogUri(), annThreshold = 1_000_000): Promise<LanceCatalogStore> {
  return LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri, annThreshold, annIndex: 'ivf_hnsw_sq' });
}

/** Deterministic pseudo-random numbers, so vector tests are repeatable. */
export const seededRandom = mulberry32;

export function unitVector(random: () => number, dims: number): Float32Array {
  const v = Float32Array.from({ length: dims }, () => random() * 2 - 1);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

export function makeProduct(i: number, overrides: Partial<CatalogProduct> = {}): CatalogProduct {
  return {
    productId: uuidV5(`test:${i}`),
    externalId: `sku-${i}`,
    title: `Product ${i}`,
    description: `Description of product ${i}`,
    url: `https://shop.example.com/p/${i}`,
    imageUrl: null,
    priceAmount: 10 + i,
    currency: 'USD',
    merchant: i % 2 === 0 ? 'Even Shop' : 'Odd Shop',
    brand: `Brand ${i % 5}`,
    category: i % 3 === 0 ? ['Footwear', 'Running Shoes', 'Trail'] : ['Kitchen', 'Coffee'],
    availability: 'in_stock',
    disclosureText: 'Sample disclosure',
    attributes: { color: i % 2 === 0 ? 'red' : 'blue' },
    lastUpdatedAt: new Date('2026-11-01T00:00:00.000Z'),
    ...overrides,
  };
}
