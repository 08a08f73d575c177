import { describe, expect, it } from 'vitest';
import { demotionFactors, MIN_FACTOR } from '../../../src/core/feedback/demotion.js';

const unit = (...xs: number[]) => {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs.map((x) => x / n));
};
const q = unit(1, 0, 0);
const near = unit(1, 0.1, 0); // cosine ≈ 0.995
const far = unit(1, 1, 0); // cosine ≈ 0.71

describe('demotionFactors', () => {
  it('demotes a product voted not relevant for a near-identical query, more with more votes, never below the floor', () => {
    const one = demotionFactors(q, [{ productId: 'p', relevant: false, queryVector: near }]).get('p')!;
    const two = demotionFactors(
      q,
      Array.from({ length: 2 }, () => ({ productId: 'p', relevant: false, queryVector: near })),
    ).get('p')!;
    const many = demotionFactors(
      q,
      Array.from({ length: 50 }, () => ({ productId: 'p', relevant: false, queryVector: near })),
    ).get('p')!;
    expect(one).toBeLessThan(1);
    expect(two).toBeLessThan(one);
    expect(many).toBe(MIN_FACTOR);
  });

  it('ignores votes from dissimilar queries and lets "relevant" votes cancel "not relevant" ones', () => {
    expect(demotionFactors(q, [{ productId: 'p', relevant: false, queryVector: far }]).size).toBe(0);
    expect(
      demotionFactors(q, [
        { productId: 'p', relevant: false, queryVector: near },
        { productId: 'p', relevant: true, queryVector: near },
      ]).size,
    ).toBe(0);
  });
});
