import { describe, expect, it } from 'vitest';
import type { CatalogProduct } from '../../../src/core/catalog/product.js';
import { type Candidate, diversify, variantKey } from '../../../src/core/ranking/ranking.js';
import { makeProduct } from '../../helpers/catalog.js';

const product = (id: string, title: string, attributes: CatalogProduct['attributes'] = {}): CatalogProduct =>
  makeProduct(0, { productId: id, externalId: id, title, description: '', brand: 'Ridgeway', category: [], attributes });

const candidate = (p: CatalogProduct, score: number): Candidate => ({
  product: p,
  features: [],
  cosine: 0,
  matchedTerms: [],
  score,
  probability: score,
  rankScore: score,
});

// Twelve sizes of one pipe, all near-certain, then three other products well below them.
const pipes = Array.from({ length: 12 }, (_, i) => candidate(product(`pipe-${i}`, `Ridgeway 1/2 in. x ${i + 2} ft. Copper Pipe`), 0.97 - i * 0.001));
const others = ['Pipe Cutter', 'Pipe Insulation', 'Pipe Strap'].map((t, i) => candidate(product(`other-${i}`, `Ridgeway ${t}`), 0.6 - i * 0.01));
const fresh = () => [...pipes, ...others].map((c) => ({ ...c, rankScore: c.probability }));

describe('diversify', () => {
  it('treats sizes and colours of one product as one family', () => {
    expect(variantKey(pipes[0]!.product)).toBe(variantKey(pipes[11]!.product));
    expect(variantKey(product('a', 'Trail Shoe', { color: 'Forest Green' }))).toBe(variantKey(product('b', 'Trail Shoe', { color: 'Slate' })));
    expect(variantKey(pipes[0]!.product)).not.toBe(variantKey(others[0]!.product));
  });

  it('lets a third of a page of 10 go to one family on its own score, and demotes each further variant', () => {
    const page = diversify(fresh(), 10).slice(0, 10);
    expect(page.slice(0, 3).map((c) => c.product.productId)).toEqual(['pipe-0', 'pipe-1', 'pipe-2']);
    expect(page.slice(0, 3).map((c) => c.rankScore)).toEqual([0.97, 0.969, 0.968]);
    // The fourth variant keeps 0.7 of its score, the fifth 0.49: other products come between.
    expect(page[3]!.product.productId).toBe('pipe-3');
    expect(page[3]!.rankScore).toBeCloseTo(0.967 * 0.7, 10);
    expect(page.map((c) => c.product.productId)).toEqual(expect.arrayContaining(['other-0', 'other-1', 'other-2']));
    expect(page.filter((c) => c.product.productId.startsWith('pipe')).length).toBeLessThanOrEqual(7);
  });

  it('on a short page only the best variant ranks freely', () => {
    const page = diversify(fresh(), 3).slice(0, 3);
    expect(page.map((c) => c.product.productId)).toEqual(['pipe-0', 'pipe-1', 'other-0']);
    expect(page[1]!.rankScore).toBeCloseTo(0.969 * 0.7, 10);
  });

  it('fills the page with one family when nothing else is there', () => {
    const page = diversify(
      pipes.map((c) => ({ ...c, rankScore: c.probability })),
      10,
    );
    expect(page.slice(0, 10).map((c) => c.product.productId.replace(/-\d+$/, ''))).toEqual(Array(10).fill('pipe'));
  });
});
