import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../src/core/random.js';
import { FEATURE_INDEX, FEATURE_NAMES } from '../../../src/core/ranking/features.js';
import { scoreRow, toProbability, weightVector } from '../../../src/core/ranking/ranking.js';
import { expectedCalibrationError, fitLogistic, fitRankingModel, type TrainingQuery } from '../../../src/core/ranking/ranking-fit.js';

describe('ranking model fitting', () => {
  it('recovers the weights of data drawn from a known logistic model', () => {
    const truth = [-2, 3, 1, 0.5, 1.5];
    const random = mulberry32(9);
    const X: number[][] = [];
    const y: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      const x = [random(), random() * 4, random(), random() - 0.5];
      const p = 1 / (1 + Math.exp(-(truth[0]! + x.reduce((s, v, k) => s + v * truth[k + 1]!, 0))));
      X.push(x);
      y.push(random() < p ? 1 : 0);
    }
    const w = fitLogistic(X, y, 0);
    for (const [k, v] of w.entries()) expect(Math.abs(v - truth[k]!), `weight ${k}`).toBeLessThan(0.25);
  });

  it('learns which feature predicts relevance, and calibrates its score into matching probabilities', () => {
    // Relevance depends on cosine only; bm25 is noise. The fitted ranker must weigh cosine and
    // its probabilities must match the observed frequencies (low ECE on fresh data).
    const random = mulberry32(4);
    const draw = (n: number): TrainingQuery[] =>
      Array.from({ length: n }, (_, q) => ({
        group: `q${q}`,
        rows: Array.from({ length: 30 }, () => {
          const x = FEATURE_NAMES.map(() => random());
          const p = 1 / (1 + Math.exp(-(8 * x[FEATURE_INDEX.cosine]! - 5)));
          return { features: x, grade: random() < p ? 3 : 0 };
        }),
      }));
    const model = fitRankingModel(draw(300), [], 'test');
    expect(model.weights.cosine!).toBeGreaterThan(5 * Math.abs(model.weights.bm25!));
    const w = weightVector(model);
    const fresh = draw(200)
      .flatMap((q) => q.rows)
      .map((r) => ({ p: toProbability(scoreRow(r.features, model.bias, w), model), y: r.grade! >= 2 ? 1 : 0 }));
    expect(expectedCalibrationError(fresh)).toBeLessThan(0.03);
  });

  it('measures calibration error: zero for perfect frequencies, large for overconfidence', () => {
    const perfect = Array.from({ length: 1000 }, (_, i) => ({ p: 0.3, y: i % 10 < 3 ? 1 : 0 }));
    expect(expectedCalibrationError(perfect)).toBeCloseTo(0, 10);
    const overconfident = Array.from({ length: 1000 }, (_, i) => ({ p: 0.95, y: i % 2 }));
    expect(expectedCalibrationError(overconfident)).toBeCloseTo(0.45, 10);
  });
});
