import { describe, expect, it } from 'vitest';
import type { ShownResult } from '../../../src/core/learning/ports.js';
import { clippedPropensity, estimatePositionBias } from '../../../src/core/learning/position-bias.js';
import { mulberry32 } from '../../../src/core/random.js';

/**
 * Logs drawn from a known position-based model: `queries` queries of 10 candidate products each
 * with attractiveness γ ~ U(0, 1), shown `searches` times each in an order that is the relevance
 * order with some shuffling (as rankings vary in practice), clicked with probability θ_k · γ.
 */
function syntheticLogs(options: { eta: number; queries: number; searches: number; shuffle: number; seed: number }): { logs: ShownResult[]; theta: number[] } {
  const rnd = mulberry32(options.seed);
  const theta = Array.from({ length: 10 }, (_, k) => (1 / (k + 1)) ** options.eta);
  const logs: ShownResult[] = [];
  for (let q = 0; q < options.queries; q++) {
    const gamma = Array.from({ length: 10 }, () => rnd());
    const byRelevance = gamma
      .map((g, i) => ({ g, i }))
      .sort((a, b) => b.g - a.g)
      .map((x) => x.i);
    for (let s = 0; s < options.searches; s++) {
      // Adjacent swaps with probability `shuffle` per slot: mostly the same order, never the same always.
      const order = [...byRelevance];
      for (let k = 0; k < order.length - 1; k++) if (rnd() < options.shuffle) [order[k], order[k + 1]] = [order[k + 1]!, order[k]!];
      for (const [k, product] of order.entries())
        logs.push({ query: `q${q}`, productId: `p${product}`, position: k + 1, clicked: rnd() < theta[k]! * gamma[product]! });
    }
  }
  return { logs, theta };
}

describe('estimatePositionBias', () => {
  it.each([1, 0.5, 1.5])('recovers θ_k = (1/k)^η from clicks alone, η = %s', (eta) => {
    const { logs, theta } = syntheticLogs({ eta, queries: 300, searches: 40, shuffle: 0.3, seed: 7 });
    const bias = estimatePositionBias(logs);
    expect(bias.converged).toBe(true);
    expect(bias.impressions).toEqual(new Array(10).fill(300 * 40));
    for (let k = 0; k < 10; k++) expect(Math.abs(bias.relative[k]! - theta[k]!), `position ${k + 1}: ${bias.relative[k]} vs ${theta[k]}`).toBeLessThan(0.05);
  });

  it('is not fooled by relevance: raw click-through by position falls much faster than θ', () => {
    const { logs, theta } = syntheticLogs({ eta: 1, queries: 300, searches: 40, shuffle: 0.3, seed: 11 });
    // The naive estimate (CTR at k over CTR at 1) mixes examination with the better products on top.
    const ctr = (k: number) => logs.filter((r) => r.position === k && r.clicked).length / logs.filter((r) => r.position === k).length;
    const naive5 = ctr(5) / ctr(1);
    const bias = estimatePositionBias(logs);
    expect(naive5).toBeLessThan(theta[4]! - 0.05);
    expect(Math.abs(bias.relative[4]! - theta[4]!)).toBeLessThan(0.05);
  });

  it('drifts far less where rankings barely vary (θ is hardly identified there): the 1/k prior holds it', () => {
    // 125 queries searched twice in a fixed order: what a deployment's log holds on its second day.
    const { logs, theta } = syntheticLogs({ eta: 1, queries: 125, searches: 2, shuffle: 0, seed: 7 });
    const maxError = (strength?: number) =>
      Math.max(
        ...estimatePositionBias(logs, {
          maxIterations: 200,
          tolerance: 1e-4,
          ...(strength === undefined ? {} : { thetaPriorStrength: strength }),
        }).relative.map((t, k) => Math.abs(t - theta[k]!)),
      );
    expect(maxError(0)).toBeGreaterThan(0.6);
    expect(maxError()).toBeLessThan(0.45);
  });

  it('ignores positions past the ones asked for and malformed positions, and clips propensities', () => {
    const bias = estimatePositionBias(
      [
        { query: 'a', productId: 'x', position: 1, clicked: true },
        { query: 'a', productId: 'x', position: 2, clicked: false },
        { query: 'a', productId: 'y', position: 0, clicked: true },
        { query: 'a', productId: 'y', position: 1.5, clicked: true },
        { query: 'a', productId: 'y', position: 4, clicked: true },
      ],
      { positions: 3 },
    );
    expect(bias.impressions).toEqual([1, 1, 0]);
    expect(bias.relative[0]).toBe(1);
    expect(clippedPropensity(bias, 2)).toBeGreaterThanOrEqual(0.1);
    expect(clippedPropensity(bias, 9)).toBe(0.1);
    expect(estimatePositionBias([]).relative).toHaveLength(10);
  });
});
