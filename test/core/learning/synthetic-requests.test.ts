import { describe, expect, it } from 'vitest';
import type { CatalogProduct } from '../../../src/core/catalog/product.js';
import { isNearDuplicate, requestText, type SyntheticRequest, syntheticGrade, syntheticRequests } from '../../../src/core/learning/synthetic-requests.js';
import { mulberry32 as seededRandom } from '../../../src/core/random.js';
import { makeProduct } from '../../helpers/catalog.js';

const product = (id: string, title: string, overrides: Partial<CatalogProduct> = {}): CatalogProduct =>
  makeProduct(0, { productId: id, externalId: id, title, brand: null, category: [], attributes: {}, ...overrides });

const microwave = product('mw', 'Whirlpool 1.9 cu. ft. Over the Range Convection Microwave in Stainless Steel with Sensor Cooking', { brand: 'Whirlpool' });
const socks = product('socks', 'Fellwalker Merino Hiking Socks, 6 Pairs', {
  brand: 'Fellwalker',
  category: ['Apparel', 'Accessories', 'Socks'],
  attributes: { material: 'Merino wool blend', waterproof: false },
});

const catalog = Array.from({ length: 200 }, (_, i) =>
  product(
    `p-${String(i).padStart(3, '0')}`,
    `Brand${i % 7} ${['Steel', 'Copper', 'Brass'][i % 3]} ${['Pipe', 'Valve', 'Elbow', 'Strap'][i % 4]} ${(i % 5) + 1}/2 in. x ${i} ft.`,
    {
      category: i % 2 === 0 ? ['Plumbing', 'Pipe'] : ['Plumbing', 'Fittings'],
    },
  ),
);

describe('requestText', () => {
  it('writes each kind of request the way a shopper types it, from the product alone', () => {
    const random = seededRandom(1);
    expect(requestText(microwave, 'brand-type', random)).toBe('whirlpool microwave');
    expect(requestText(microwave, 'measure-type', random)).toBe('1.9 cu. ft. microwave');
    expect(['range convection microwave', 'convection microwave']).toContain(requestText(microwave, 'head', random));
    expect(microwave.title.toLowerCase()).toContain(requestText(microwave, 'fragment', random)!);
    expect(requestText(socks, 'category', random)).toBe('socks');
    expect(requestText(socks, 'attribute', random)).toBe('merino wool blend socks');
  });

  it('gives no request of a kind the product has nothing for', () => {
    const random = seededRandom(1);
    expect(requestText(microwave, 'category', random)).toBeNull();
    expect(requestText(microwave, 'attribute', random)).toBeNull();
    expect(requestText(product('x', 'Lamp'), 'fragment', random)).toBeNull();
  });
});

describe('syntheticRequests', () => {
  it('draws the same requests from the same catalog and seed, whatever order the store returned it in', () => {
    const a = syntheticRequests(catalog, { count: 50, seed: 7 });
    const b = syntheticRequests([...catalog].reverse(), { count: 50, seed: 7 });
    expect(a.length).toBeGreaterThan(40);
    expect(b.map((r) => [r.text, r.kind, r.source.productId])).toEqual(a.map((r) => [r.text, r.kind, r.source.productId]));
    expect(syntheticRequests(catalog, { count: 50, seed: 8 }).map((r) => r.text)).not.toEqual(a.map((r) => r.text));
  });

  it('draws each product at most once and never repeats a request text', () => {
    const requests = syntheticRequests(catalog, { count: 500, seed: 3 });
    expect(requests.length).toBeLessThanOrEqual(catalog.length);
    expect(new Set(requests.map((r) => r.source.productId)).size).toBe(requests.length);
    expect(new Set(requests.map((r) => r.text)).size).toBe(requests.length);
  });

  it('uses only the kinds asked for', () => {
    const requests = syntheticRequests(catalog, { count: 100, seed: 3, kinds: ['fragment'] });
    expect(new Set(requests.map((r) => r.kind))).toEqual(new Set(['fragment']));
  });
});

describe('near-duplicates and grades', () => {
  const red = product('shoe-red', 'Ridgeway Trail Shoe 10', { brand: 'Ridgeway', category: ['Footwear', 'Trail'], attributes: { color: 'Red' } });
  const blue = product('shoe-blue', 'Ridgeway Trail Shoe 11', { brand: 'Ridgeway', category: ['Footwear', 'Trail'], attributes: { color: 'Blue' } });
  const relisted = product('shoe-relisted', 'Ridgeway Trail Shoe Waterproof', { brand: 'Ridgeway', category: ['Footwear', 'Trail'] });
  const road = product('road', 'Ridgeway Road Racer', { brand: 'Ridgeway', category: ['Footwear', 'Trail'] });
  const laces = product('laces', 'Ridgeway Trail Shoe 10', { brand: 'Ridgeway', category: ['Footwear', 'Laces'] });

  it('counts the product, its colour and size variants and a close re-listing in the same leaf as the same product', () => {
    expect(isNearDuplicate(red, red)).toBe(true);
    expect(isNearDuplicate(red, blue)).toBe(true);
    expect(isNearDuplicate(red, relisted)).toBe(true);
    expect(isNearDuplicate(red, road)).toBe(false);
    // The same words in another category leaf are another product.
    expect(isNearDuplicate(red, laces)).toBe(false);
  });

  it('grades the source and its near-duplicates 3, the leaf 2 for category requests only, the rest 0', () => {
    const fragment: SyntheticRequest = { text: 'trail shoe', kind: 'fragment', source: red };
    const category: SyntheticRequest = { text: 'trail', kind: 'category', source: red };
    expect([red, blue, relisted, road, laces].map((p) => syntheticGrade(fragment, p))).toEqual([3, 3, 3, 0, 0]);
    expect([red, blue, relisted, road, laces].map((p) => syntheticGrade(category, p))).toEqual([3, 3, 3, 2, 0]);
  });
});
