import { cp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cspSafeOrigin, ImageOrigins } from '../../../src/core/catalog/image-origins.js';
import type { LanceCatalogStore } from '../../../src/store/lance/catalog-store.js';
import { makeProduct, openTestCatalog, seededRandom, tempCatalogUri, unitVector } from '../../helpers/catalog.js';

const stores: LanceCatalogStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

async function catalogWithImages(uri: string, imageUrls: readonly string[]): Promise<LanceCatalogStore> {
  const store = await openTestCatalog(uri);
  stores.push(store);
  const random = seededRandom(7);
  const writer = await store.openWriter({ model: 'test-model', dimensions: 8, replace: false });
  await writer.write(imageUrls.map((imageUrl, i) => ({ product: makeProduct(i, { imageUrl }), vector: unitVector(random, 8) })));
  await writer.commit();
  return store;
}

describe('cspSafeOrigin', () => {
  describe.each([
    ['https://img.shop.example;sandbox/x.jpg', 'a ; that would start a CSP directive'],
    ['https://img.example%3Bsandbox/x.jpg', 'a percent-encoded ;'],
    ['https://a.example,b.example/x.jpg', 'a comma'],
    ["https://a.example'unsafe-inline'/x.jpg", 'single quotes'],
    ['https://a"b.example/x.jpg', 'a double quote'],
    ['https://a b.example/x.jpg', 'a space'],
    ['https://-img.example/x.jpg', 'a label starting with a hyphen'],
    ['https://img_cdn.example/x.jpg', 'an underscore'],
    ['https://[::1]/x.jpg', 'an IPv6 literal'],
    ['http://img.example/x.jpg', 'plain http'],
    ['data:image/png;base64,AAAA', 'a data: URL'],
    ['not a url', 'no URL at all'],
  ])('%s', (url, why) => {
    it(`is refused (${why})`, () => {
      expect(cspSafeOrigin(url)).toBeNull();
    });
  });

  describe.each([
    ['https://img.shop.example/x.jpg', 'https://img.shop.example'],
    ['https://IMG.Shop.Example:8443/a/b.png?w=200', 'https://img.shop.example:8443'],
    ['https://img.example:443/x.jpg', 'https://img.example'],
    ['https://bücher.example/x.jpg', 'https://xn--bcher-kva.example'],
    ['https://203.0.113.7/x.jpg', 'https://203.0.113.7'],
    // URL parsers (and browsers) drop tabs and newlines: the origin the image loads from is this one.
    ['https://a\tb.example/x.jpg', 'https://ab.example'],
  ])('%s', (url, origin) => {
    it(`gives ${origin}`, () => {
      expect(cspSafeOrigin(url)).toBe(origin);
    });
  });
});

describe('ImageOrigins', () => {
  it('lists only the strict-grammar https origins of a real catalog, most used first', async () => {
    const store = await catalogWithImages(tempCatalogUri(), [
      'https://img.shop.example;sandbox/x.jpg',
      "https://cdn.example,'unsafe-eval'/y.jpg",
      'https://b.example/1.jpg',
      'https://a.example/1.jpg',
      'https://a.example/2.jpg',
      'http://plain.example/3.jpg',
    ]);
    expect(await new ImageOrigins(store).list()).toEqual(['https://a.example', 'https://b.example']);
  });

  it('scans again after a failed scan instead of keeping the failure until the next import', async () => {
    const uri = tempCatalogUri();
    const store = await catalogWithImages(uri, ['https://a.example/1.jpg']);
    const origins = new ImageOrigins(store);
    // The table's data files vanish under the open store (a disk or bucket failure), then come back.
    const data = join(uri, 'products.lance', 'data');
    const aside = `${uri}-data-aside`;
    await cp(data, aside, { recursive: true });
    await rm(data, { recursive: true });
    try {
      await expect(origins.list()).rejects.toThrow();
    } finally {
      await cp(aside, data, { recursive: true });
      await rm(aside, { recursive: true });
    }
    expect(await origins.list()).toEqual(['https://a.example']);
  });
});
