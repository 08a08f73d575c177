import { describe, expect, it } from 'vitest';
import { clickProbability, examineProbability, react, type Shown, type UserModel } from '../../../src/core/learning/simulated-shopper.js';
import { mulberry32 } from '../../../src/core/random.js';

const model: UserModel = { eta: 1, noise: 0.1, maxGrade: 3, conversionRate: 0.2, voteRate: 0.05 };

describe('the simulated shopper', () => {
  it('looks at rank k with probability (1/k)^η and clicks by grade, noise included', () => {
    expect(examineProbability(1, 1)).toBe(1);
    expect(examineProbability(4, 1)).toBe(0.25);
    expect(examineProbability(4, 0.5)).toBe(0.5);
    expect(clickProbability(0, model)).toBeCloseTo(0.1);
    expect(clickProbability(null, model)).toBeCloseTo(0.1);
    expect(clickProbability(3, model)).toBe(1);
    expect(clickProbability(2, model)).toBeCloseTo(0.1 + 0.9 * (2 / 3));
  });

  it('produces, over many people, the click-through the model implies per rank and grade', () => {
    const shown: Shown[] = [
      { productId: 'a', grade: 3 },
      { productId: 'b', grade: 0 },
      { productId: 'c', grade: 2 },
    ];
    const rnd = mulberry32(5);
    const n = 20_000;
    const clicks = [0, 0, 0];
    let conversions = 0;
    for (let i = 0; i < n; i++) {
      const r = react(shown, model, rnd);
      for (const c of r.clicked) clicks[c]!++;
      conversions += r.converted.length;
      for (const c of r.clicked) expect(r.examined).toContain(c);
    }
    expect(clicks[0]! / n).toBeCloseTo(1 * 1, 1);
    expect(clicks[1]! / n).toBeCloseTo(0.5 * 0.1, 2);
    expect(clicks[2]! / n).toBeCloseTo((1 / 3) * (0.1 + 0.9 * (2 / 3)), 2);
    // Only the top-grade product converts, at 20 % of its clicks.
    expect(conversions / clicks[0]!).toBeCloseTo(0.2, 1);
  });
});
