/**
 * Global learning on synthetic logs with a known answer: relevance follows one feature, the
 * serving model ranks by another, people examine position k with probability 1/k and click what
 * is relevant. The fit must find the relevant feature from clicks alone.
 */
import { describe, expect, it } from 'vitest';
import { fitFromLog, isHeldOut, trainingFromLog } from '../../../src/core/learning/global-fit.js';
import type { LoggedResult } from '../../../src/core/learning/ports.js';
import { estimatePositionBias } from '../../../src/core/learning/position-bias.js';
import { mulberry32 } from '../../../src/core/random.js';
import { FEATURE_INDEX, FEATURE_NAMES } from '../../../src/core/ranking/features.js';
import { FALLBACK_MODEL, type RankingModel, scoreRow, toProbability, weightVector } from '../../../src/core/ranking/ranking.js';
import { queriesNdcg } from '../../../src/core/ranking/ranking-fit.js';

const D = FEATURE_NAMES.length;
const TRUTH = FEATURE_INDEX.titleCoverage;
const DECOY = FEATURE_INDEX.cosine;

/** Serves by the decoy feature (plus a little of the truth), as a mis-tuned model would. */
const SERVING: RankingModel = { source: 'serving', bias: -2, weights: { cosine: 4, titleCoverage: 0.5 }, scale: 1, offset: 0 };

interface Product {
  id: string;
  x: number[];
  relevance: number;
}

function makeQueries(n: number, random: () => number): Map<string, Product[]> {
  const queries = new Map<string, Product[]>();
  for (let q = 0; q < n; q++) {
    const products = Array.from({ length: 20 }, (_, j) => {
      const x = new Array<number>(D).fill(0).map(() => random() * 0.2);
      x[TRUTH] = random();
      x[DECOY] = random();
      return { id: `q${q}-p${j}`, x, relevance: x[TRUTH]! > 0.7 ? 0.8 : x[TRUTH]! > 0.4 ? 0.3 : 0.02 };
    });
    queries.set(`query ${q}`, products);
  }
  return queries;
}

function simulate(
  queries: Map<string, Product[]>,
  model: RankingModel,
  searchesPerQuery: number,
  random: () => number,
  options: { botClicks?: boolean } = {},
): LoggedResult[] {
  const w = weightVector(model);
  const log: LoggedResult[] = [];
  let search = 0;
  for (let round = 0; round < searchesPerQuery; round++) {
    for (const [query, products] of queries) {
      // A little noise in the order, as sessions and catalog updates give real rankings.
      const shown = [...products].sort((a, b) => scoreRow(b.x, model.bias, w) + random() * 0.3 - (scoreRow(a.x, model.bias, w) + random() * 0.3)).slice(0, 10);
      search++;
      shown.forEach((p, i) => {
        const examined = random() < 1 / (i + 1);
        const clicked = examined && random() < p.relevance;
        log.push({
          requestId: `s${search}`,
          sessionId: `session ${search}`,
          query,
          productId: p.id,
          position: i + 1,
          features: p.x,
          clicked: options.botClicks ? false : clicked,
          converted: false,
          vote: null,
        });
      });
    }
  }
  return log.reverse();
}

/** NDCG@10 over all 20 products of each query by true relevance (what a person would judge). */
function trueNdcg(queries: Map<string, Product[]>, model: RankingModel, heldOutOnly: boolean): number {
  const training = [...queries]
    .filter(([q]) => !heldOutOnly || isHeldOut(q))
    .map(([q, ps]) => ({ group: q, rows: ps.map((p) => ({ features: p.x, grade: p.relevance > 0.5 ? 3 : p.relevance > 0.1 ? 1 : 0 })) }));
  return queriesNdcg(training, weightVector(model));
}

describe('global learning from a click log', () => {
  it('finds the feature relevance follows, from position-biased clicks on a mis-ranked log, and ranks unseen products of held-out queries better', async () => {
    const random = mulberry32(42);
    const queries = makeQueries(150, random);
    const log = simulate(queries, SERVING, 12, random);
    const { model, report } = await fitFromLog(log, SERVING, 'learned test');
    expect(report.skipped).toBeUndefined();
    expect(model).not.toBeNull();
    expect(report.heldOutNdcg!.candidate).toBeGreaterThan(report.heldOutNdcg!.serving + 0.02);
    // The truth's weight rose relative to the decoy's.
    const w = model!.weights;
    expect(w.titleCoverage! / Math.abs(w.cosine!)).toBeGreaterThan(SERVING.weights.titleCoverage! / SERVING.weights.cosine!);
    // On held-out queries judged over all their products (not only the shown ones).
    expect(trueNdcg(queries, model!, true)).toBeGreaterThan(trueNdcg(queries, SERVING, true) + 0.02);
    // relevance_score keeps its meaning: the mean probability over the log stays close to the serving model's.
    const mean = (m: RankingModel) => log.reduce((s, r) => s + toProbability(scoreRow(r.features, m.bias, weightVector(m)), m), 0) / log.length;
    expect(Math.abs(mean(model!) - mean(SERVING))).toBeLessThan(0.05);
  });

  it('proposes nothing without clicks (bots and previews are not in the log as clicks), or with too few queries', async () => {
    const random = mulberry32(5);
    const noClicks = await fitFromLog(simulate(makeQueries(150, random), SERVING, 5, random, { botClicks: true }), SERVING, 'x');
    expect(noClicks.model).toBeNull();
    expect(noClicks.report.skipped).toMatch(/too little evidence/);
    const few = await fitFromLog(simulate(makeQueries(10, random), SERVING, 20, random), SERVING, 'x');
    expect(few.model).toBeNull();
  });

  it('proposes nothing when the serving model already ranks by the truth', async () => {
    const random = mulberry32(9);
    const good: RankingModel = { ...FALLBACK_MODEL, source: 'good', bias: -2, weights: { titleCoverage: 6 } };
    const { model, report } = await fitFromLog(simulate(makeQueries(150, random), good, 10, random), good, 'x');
    expect(model).toBeNull();
    expect(report.skipped).toMatch(/no better on held-out queries/);
  });

  it('counts one click per session and product, and a not-relevant vote zeroes the label', () => {
    const x = new Array<number>(D).fill(0.1);
    const row = (session: string, product: string, position: number, clicked: boolean, vote: boolean | null = null): LoggedResult => ({
      requestId: `${session}-${position}`,
      sessionId: session,
      query: 'q',
      productId: product,
      position,
      features: x,
      clicked,
      converted: false,
      vote,
    });
    const bias = estimatePositionBias([]);
    // One session clicking p1 five times counts as one person; p2 was clicked by two people; p3 by three but voted not relevant.
    const log = [
      ...Array.from({ length: 5 }, () => row('s1', 'p1', 1, true)),
      row('s2', 'p1', 1, false),
      row('s3', 'p1', 1, false),
      row('s1', 'p2', 2, false),
      row('s2', 'p2', 2, true),
      row('s3', 'p2', 2, true),
      row('s1', 'p3', 3, true),
      row('s2', 'p3', 3, true),
      row('s3', 'p3', 3, true, false),
    ];
    const [q] = trainingFromLog(log, { ...bias, relative: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1] });
    const grade = (i: number) => q!.rows[i]!.grade!;
    expect(q!.rows).toHaveLength(3);
    expect(grade(0)).toBeLessThan(grade(1)); // p1: 1 of 3 sessions; p2: 2 of 3
    expect(grade(2)).toBe(0);
  });
});
