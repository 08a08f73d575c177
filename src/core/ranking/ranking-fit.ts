/**
 * Fitting the ranking model and its calibration (tools/relevance/calibrate.ts, tools/relevance/eval.ts).
 *
 * The ranker is linear over the features (one dot product per candidate at query time), fitted
 * on every candidate the real retrieval returns, either as a logistic regression on each
 * candidate's NDCG gain ((2^grade − 1) / 7; candidates nobody judged count 0, as they do in
 * NDCG) or by coordinate ascent on NDCG@10 itself, whichever ranks held-out queries better
 * (fitRanker); it beat a binary target and LambdaMART trees when chosen. The
 * calibration then maps the ranker's score to P(grade ≥ 2) with Platt scaling, fitted on the
 * judged pairs plus off-topic requests.
 *
 * What was tried and measured: docs/decisions/0004-learned-ranker.md.
 */
import { FEATURE_NAMES, type FeatureName } from './features.js';
import type { RankingModel } from './ranking.js';

/**
 * Logistic regression by Newton's method on standardised features, with a small L2 penalty;
 * targets may be fractional (a soft label). Returns [bias, w1..wd] for the raw features.
 */
export function fitLogistic(X: readonly (readonly number[])[], y: readonly number[], l2 = 1e-3, iterations = 25): number[] {
  const n = X.length;
  const d = X[0]?.length ?? 0;
  const mean = new Array<number>(d).fill(0);
  const sd = new Array<number>(d).fill(0);
  for (const x of X) for (let k = 0; k < d; k++) mean[k]! += x[k]! / n;
  for (const x of X) for (let k = 0; k < d; k++) sd[k]! += (x[k]! - mean[k]!) ** 2 / n;
  for (let k = 0; k < d; k++) sd[k] = Math.sqrt(sd[k]!) || 1;
  const D = d + 1;
  let w = new Array<number>(D).fill(0);
  const z = new Array<number>(D);
  for (let it = 0; it < iterations; it++) {
    const grad = new Array<number>(D).fill(0);
    const hess = Array.from({ length: D }, () => new Array<number>(D).fill(0));
    for (let i = 0; i < n; i++) {
      const x = X[i]!;
      z[0] = 1;
      for (let k = 0; k < d; k++) z[k + 1] = (x[k]! - mean[k]!) / sd[k]!;
      let t = 0;
      for (let k = 0; k < D; k++) t += w[k]! * z[k]!;
      const p = 1 / (1 + Math.exp(-t));
      const g = p - y[i]!;
      const h = Math.max(p * (1 - p), 1e-6);
      for (let a = 0; a < D; a++) {
        const za = z[a]!;
        grad[a]! += g * za;
        const row = hess[a]!;
        for (let b = a; b < D; b++) row[b]! += h * za * z[b]!;
      }
    }
    for (let a = 0; a < D; a++) for (let b = 0; b < a; b++) hess[a]![b] = hess[b]![a]!;
    for (let a = 1; a < D; a++) {
      grad[a]! += l2 * n * w[a]!;
      hess[a]![a]! += l2 * n;
    }
    const step = solve(hess, grad);
    w = w.map((v, k) => v - step[k]!);
    if (Math.max(...step.map(Math.abs)) < 1e-7) break;
  }
  // Back to raw feature space: w·(x − m)/s = Σ (w/s)·x − Σ w·m/s.
  const raw = w.slice(1).map((v, k) => v / sd[k]!);
  return [w[0]! - raw.reduce((s, v, k) => s + v * mean[k]!, 0), ...raw];
}

/** One query's candidates: features in FEATURE_NAMES order and the judged grade (null when unjudged). */
export interface TrainingQuery {
  group: string;
  rows: { features: readonly number[]; grade: number | null }[];
}

const gain = (grade: number | null) => (grade === null ? 0 : (2 ** Math.max(0, grade) - 1) / 7);

/** Ideal DCG@10 over the judged grades of the candidates (grades outside the candidates cannot be won). */
function idealDcg(q: TrainingQuery): number {
  const grades = q.rows.map((r) => r.grade ?? 0).sort((a, b) => b - a);
  return grades.slice(0, 10).reduce((s, g, i) => s + (2 ** Math.max(0, g) - 1) / Math.log2(i + 2), 0);
}

/**
 * Queries packed for fast scoring: each query's features as one row-major array and each row's
 * gain, so a trial weight vector costs one pass over the numbers and a top-10 selection.
 */
interface Packed {
  x: Float64Array[];
  gains: Float64Array[];
  ideal: number[];
  d: number;
}

function pack(queries: readonly TrainingQuery[]): Packed {
  const d = queries.find((q) => q.rows.length > 0)?.rows[0]?.features.length ?? 0;
  const x: Float64Array[] = [];
  const gains: Float64Array[] = [];
  const ideal: number[] = [];
  for (const q of queries) {
    const i = idealDcg(q);
    if (i === 0) continue;
    const m = new Float64Array(q.rows.length * d);
    for (const [j, r] of q.rows.entries()) m.set(r.features, j * d);
    x.push(m);
    gains.push(Float64Array.from(q.rows, (r) => 2 ** Math.max(0, r.grade ?? 0) - 1));
    ideal.push(i);
  }
  return { x, gains, ideal, d };
}

const DISCOUNT = Array.from({ length: 10 }, (_, i) => 1 / Math.log2(i + 2));

/** NDCG@10 of one query from its scores: the ten best by selection, ties kept in row order. */
function queryNdcg(z: Float64Array, gains: Float64Array, ideal: number): number {
  const n = z.length;
  const k = Math.min(10, n);
  const top: number[] = [];
  for (let i = 0; i < n; i++) {
    if (top.length === k && z[i]! <= z[top[k - 1]!]!) continue;
    let j = top.length < k ? top.length : k - 1;
    if (top.length < k) top.push(i);
    while (j > 0 && z[top[j - 1]!]! < z[i]!) {
      top[j] = top[j - 1]!;
      j--;
    }
    top[j] = i;
  }
  let dcg = 0;
  for (let i = 0; i < top.length; i++) dcg += gains[top[i]!]! * DISCOUNT[i]!;
  return dcg / ideal;
}

function scoresOf(p: Packed, w: readonly number[]): Float64Array[] {
  return p.x.map((m) => {
    const n = m.length / p.d;
    const z = new Float64Array(n);
    for (let r = 0; r < n; r++) {
      let s = 0;
      for (let k = 0; k < p.d; k++) s += w[k]! * m[r * p.d + k]!;
      z[r] = s;
    }
    return z;
  });
}

/** Mean NDCG@10 of `queries` ranked by w·x, over the queries with a positive grade. */
export const queriesNdcg = (queries: readonly TrainingQuery[], w: readonly number[]): number => meanNdcg(pack(queries), w);

/** Mean NDCG@10 of packed queries ranked by w·x (queries without a positive grade are not in the pack). */
function meanNdcg(p: Packed, w: readonly number[]): number {
  const z = scoresOf(p, w);
  let sum = 0;
  for (const [q, zq] of z.entries()) sum += queryNdcg(zq, p.gains[q]!, p.ideal[q]!);
  return p.ideal.length === 0 ? 0 : sum / p.ideal.length;
}

/**
 * Coordinate ascent on NDCG@10 itself (as RankLib's linear ranker does): each weight in turn is
 * moved by a few relative steps, keeping a move when the training NDCG rises. It starts from
 * the better of the pointwise fit and BM25 alone, so it is never worse on its training queries
 * than ranking by full text only. A trial moves one weight, so its scores are the kept scores
 * plus step × that feature. Four rounds (docs/decisions/0004-learned-ranker.md).
 */
function coordinateAscent(queries: readonly TrainingQuery[], starts: readonly (readonly number[])[], rounds = 4): number[] {
  const steps = coordinateAscentSteps(queries, starts, rounds);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * coordinateAscent as a generator that pauses after each weight: a caller on a serving process
 * (the global learner) yields to the event loop between steps, so fitting never blocks searches
 * for more than one weight's trials.
 */
export function* coordinateAscentSteps(queries: readonly TrainingQuery[], starts: readonly (readonly number[])[], rounds = 4): Generator<void, number[], void> {
  const p = pack(queries);
  let best = [...starts[0]!];
  let bestScore = meanNdcg(p, best);
  for (const start of starts.slice(1)) {
    const score = meanNdcg(p, start);
    if (score > bestScore) [best, bestScore] = [[...start], score];
  }
  let z = scoresOf(p, best);
  const trialZ = z.map((zq) => new Float64Array(zq.length));
  const scale = Math.max(...best.map(Math.abs)) || 1;
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < best.length; k++) {
      for (const step of [-1, -0.3, -0.1, 0.1, 0.3, 1]) {
        const delta = step * scale;
        let sum = 0;
        z.forEach((zq, q) => {
          const m = p.x[q]!;
          const t = trialZ[q]!;
          for (let r = 0; r < zq.length; r++) t[r] = zq[r]! + delta * m[r * p.d + k]!;
          sum += queryNdcg(t, p.gains[q]!, p.ideal[q]!);
        });
        const score = p.ideal.length === 0 ? 0 : sum / p.ideal.length;
        if (score > bestScore + 1e-6) {
          best = [...best];
          best[k]! += delta;
          bestScore = score;
          z = trialZ.map((t) => Float64Array.from(t));
        }
      }
      yield;
    }
  }
  return best;
}

type RankerFit = (queries: readonly TrainingQuery[]) => number[];

/** Coordinate ascent starts from the pointwise fit of the same queries: fitted once, not twice. */
const pointwiseFits = new WeakMap<readonly TrainingQuery[], number[]>();
const pointwiseFit: RankerFit = (queries) => {
  let w = pointwiseFits.get(queries);
  if (!w) {
    const rows = queries.flatMap((q) => q.rows);
    w = fitLogistic(
      rows.map((r) => r.features),
      rows.map((r) => gain(r.grade)),
    ).slice(1);
    pointwiseFits.set(queries, w);
  }
  return w;
};
const bm25Only = FEATURE_NAMES.map((name) => (name === 'bm25' ? 1 : 0));
const ascentFit: RankerFit = (queries) => coordinateAscent(queries, [pointwiseFit(queries), bm25Only]);

/**
 * Which fit generalises is a property of the data: coordinate ascent won on Home Depot (7,077
 * queries) and overfitted CrowdFlower's 125 training queries, where the pointwise fit did
 * better. So the choice is made on held-out queries (every fifth), then the winner is refitted
 * on all of them.
 */
function fitRanker(queries: readonly TrainingQuery[]): number[] {
  const held = queries.filter((_, i) => i % 5 === 4);
  const train = queries.filter((_, i) => i % 5 !== 4);
  const packed = pack(held);
  const fits: RankerFit[] = [pointwiseFit, ascentFit];
  const scores = fits.map((fitWith) => meanNdcg(packed, fitWith(train)));
  return fits[scores.indexOf(Math.max(...scores))]!(queries);
}

/**
 * The ranker from every candidate of `queries`, and its calibration from the judged ones plus
 * `offTopic` candidates (requests no product fits, labelled 0). `ranker` forces one fit instead
 * of choosing on held-out queries (cold-start.ts, where the held-out queries are synthetic too).
 */
export function fitRankingModel(
  queries: readonly TrainingQuery[],
  offTopic: readonly (readonly number[])[],
  source: string,
  options: { ranker?: 'pointwise' | 'ascent' } = {},
): RankingModel {
  const w = options.ranker === undefined ? fitRanker(queries) : (options.ranker === 'ascent' ? ascentFit : pointwiseFit)(queries);
  // Only the order matters to the ranker; the bias and scale are the calibration's to set.
  const weights = Object.fromEntries(FEATURE_NAMES.map((name, k) => [name, round(w[k]!)])) as Record<FeatureName, number>;
  const ranker: RankingModel = { source, bias: 0, weights, scale: 1, offset: 0 };
  const score = (x: readonly number[]) => ranker.bias + FEATURE_NAMES.reduce((s, name, k) => s + weights[name] * x[k]!, 0);
  const judged = queries.flatMap((q) => q.rows).filter((r) => r.grade !== null);
  const platt = fitLogistic(
    [...judged.map((r) => [score(r.features)]), ...offTopic.map((x) => [score(x)])],
    [...judged.map((r) => (r.grade! >= 2 ? 1 : 0)), ...offTopic.map(() => 0)],
    0,
  );
  return { ...ranker, offset: round(platt[0]!), scale: round(platt[1]!) };
}

const round = (v: number) => Math.round(v * 1e6) / 1e6;

/** Gaussian elimination with partial pivoting: small dense systems only. */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[pivot]![c]!)) pivot = r;
    [m[c], m[pivot]] = [m[pivot]!, m[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c || m[c]![c] === 0) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

/** Expected calibration error over 10 equal-width probability bins. */
export function expectedCalibrationError(predictions: readonly { p: number; y: number }[]): number {
  const bins = Array.from({ length: 10 }, () => ({ n: 0, p: 0, y: 0 }));
  for (const { p, y } of predictions) {
    const bin = bins[Math.min(9, Math.floor(p * 10))]!;
    bin.n += 1;
    bin.p += p;
    bin.y += y;
  }
  return bins.reduce((sum, b) => (b.n === 0 ? sum : sum + (b.n / predictions.length) * Math.abs(b.p / b.n - b.y / b.n)), 0);
}
