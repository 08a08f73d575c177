// The catalog the search, conversation and deployment benches import when they start empty.
import { readFeed } from '../../src/catalog/files/detect.js';
import type { FeedRecord } from '../../src/core/catalog/import.js';
import { syntheticCatalog } from './gen-catalog.js';

/**
 * The records of `products` (the Home Depot feed from ../shared, found with sharedPath), or, when
 * it is null, 54,667 synthetic products (seed 7): as many as Home Depot has, so figures compare.
 */
export async function benchCatalogRecords(products: string | null): Promise<AsyncIterable<FeedRecord>> {
  if (products) return (await readFeed(products, {})).records;
  return (async function* () {
    let line = 0;
    for await (const row of syntheticCatalog(54_667, 7)) yield { line: ++line, row };
  })();
}
