import { describe, expect, it } from 'vitest';
import type { QueryEvent } from '../../../src/core/learning/ports.js';
import type { PositionBias } from '../../../src/core/learning/position-bias.js';
import { queryBoosts } from '../../../src/core/learning/query-boosts.js';

/** Examination 1/k, as the simulator's η = 1 users look. */
const bias: PositionBias = {
  relative: Array.from({ length: 10 }, (_, k) => 1 / (k + 1)),
  impressions: new Array(10).fill(1000),
  iterations: 1,
  converged: true,
};

/** `views` sessions each shown `productId` at `position`, the first `clicks` of them clicking it. */
const shown = (productId: string, position: number, views: number, clicks: number, prefix = productId): QueryEvent[] =>
  Array.from({ length: views }, (_, i) => ({ sessionId: `${prefix}-${i}`, productId, position, clicked: i < clicks, converted: false }));

describe('queryBoosts', () => {
  it('rewards clicks beyond what the position predicts, not raw click-through', () => {
    // A on top is clicked by 30 % of viewers (attractiveness 0.3); B at position 3 by 20 %, but
    // only a third of people look that far: its attractiveness is 0.6. Raw CTR ranks A first.
    const boosts = queryBoosts([...shown('A', 1, 100, 30), ...shown('B', 3, 100, 20), ...shown('C', 2, 100, 5)], bias);
    expect(boosts.get('B')!).toBeGreaterThan(1);
    expect(boosts.get('A')!).toBeLessThan(boosts.get('B')!);
    expect(boosts.get('C')!).toBeLessThan(1);
  });

  it('moves nothing without evidence: below the exposure floor, or no click for the query at all', () => {
    const boosts = queryBoosts([...shown('A', 1, 100, 30), ...shown('rare', 5, 5, 5)], bias);
    // 5 views at position 5 are 5 × 0.2 = 1 examination: under the floor of 3.
    expect(boosts.has('rare')).toBe(false);
    expect(queryBoosts([...shown('A', 1, 100, 0), ...shown('B', 2, 100, 0)], bias).size).toBe(0);
  });

  it('counts each session once per product, at its best position, so one busy session cannot push a product', () => {
    const base = [...shown('A', 1, 50, 10), ...shown('B', 2, 50, 5)];
    const spam: QueryEvent[] = Array.from({ length: 200 }, () => ({ sessionId: 'one-person', productId: 'B', position: 2, clicked: true, converted: false }));
    const once: QueryEvent[] = [{ sessionId: 'one-person', productId: 'B', position: 2, clicked: true, converted: false }];
    expect(queryBoosts([...base, ...spam], bias)).toEqual(queryBoosts([...base, ...once], bias));
  });

  it('is bounded: a runaway favourite gains at most 1.5×, a product nobody clicks loses at most a third', () => {
    const boosts = queryBoosts([...shown('star', 4, 400, 400), ...shown('dud', 1, 400, 0), ...shown('A', 2, 400, 40)], bias);
    expect(boosts.get('star')).toBe(1.5);
    expect(boosts.get('dud')).toBe(0.67);
  });

  it('counts a conversion on top of its click', () => {
    const events = [...shown('A', 1, 100, 20), ...shown('B', 1, 100, 20, 'b')];
    const converted = events.map((e) => (e.productId === 'B' && e.clicked ? { ...e, converted: true } : e));
    const boosts = queryBoosts(converted, bias);
    expect(boosts.get('B')!).toBeGreaterThan(boosts.get('A')!);
  });
});
