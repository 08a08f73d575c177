import { describe, expect, it } from 'vitest';
import { expectedCalibrationError, fitLogistic, type Example } from '../../../src/core/search/calibration-fit.js';
import { mulberry32 } from '../../../tools/gen-catalog.js';

describe('calibration fitting', () => {
  it('recovers the weights of data drawn from a known logistic model', () => {
    const truth = [-2, 3, 1, 0.5, 1.5];
    const random = mulberry32(9);
    const examples: Example[] = Array.from({ length: 20_000 }, (_, i) => {
      const x: Example['x'] = [random(), random(), random(), random()];
      const p = 1 / (1 + Math.exp(-(truth[0]! + x.reduce((s, v, k) => s + v * truth[k + 1]!, 0))));
      return { x, y: random() < p ? 1 : 0, group: `q${i % 100}` };
    });
    const w = fitLogistic(examples, 0);
    w.forEach((v, k) => expect(Math.abs(v - truth[k]!), `weight ${k}`).toBeLessThan(0.25));
  });

  it('measures calibration error: zero for perfect frequencies, large for overconfidence', () => {
    const perfect = Array.from({ length: 1000 }, (_, i) => ({ p: 0.3, y: i % 10 < 3 ? 1 : 0 }));
    expect(expectedCalibrationError(perfect)).toBeCloseTo(0, 10);
    const overconfident = Array.from({ length: 1000 }, (_, i) => ({ p: 0.95, y: i % 2 }));
    expect(expectedCalibrationError(overconfident)).toBeCloseTo(0.45, 10);
  });
});
