/**
 * Position bias from a deployment's own logs (docs/learning.md): how likely a person is to look at the
 * result in position k at all. Clicks confound it with relevance: a top result is clicked more
 * because it is seen more, not only because it is better. The learners divide by it.
 *
 * Model: the position-based model (PBM), P(click | query, product, k) = θ_k · γ(query, product):
 * θ_k the examination propensity of position k, γ the probability that an examined product is
 * clicked. Fitted by expectation-maximisation (Wang et al., "Position Bias Estimation for Unbiased
 * Learning to Rank in Personal Search", WSDM 2018, with γ per query-product pair instead of a
 * regression). θ is identifiable only where the same product was shown for the same query at
 * different positions; Aisle's rankings vary by themselves (session demotion, diversification,
 * votes, catalog updates), which is what this reads.
 */

import type { ShownResult } from './ports.js';

export interface PositionBias {
  /** θ_k / θ_1 for k = 1..positions (index 0 is position 1, always 1). */
  relative: number[];
  /** Impressions the estimate rests on, per position. */
  impressions: number[];
  iterations: number;
  /** Whether the last iteration moved no θ by more than the tolerance. */
  converged: boolean;
}

export interface PositionBiasOptions {
  /** Positions estimated (results beyond are ignored). Default 10, the API's largest limit. */
  positions?: number;
  maxIterations?: number;
  /** Stop when no θ moves by more than this. */
  tolerance?: number;
  /**
   * Beta prior on each γ, as pseudo-counts (clicked, not clicked). Kept weak: on synthetic logs a
   * Beta(1, 1) pulled the γ of rarely clicked products up to 0.5 and so bent θ (position 10 came
   * out 0.03 instead of 0.1), Beta(0.05, 0.05) recovers it within 0.03 (docs/decisions/0006-position-bias-and-per-query-boosts.md).
   */
  prior?: { clicked: number; skipped: number };
  /**
   * Pseudo-impressions per position at the 1/k prior (default 10). Where a product is always
   * shown at the same position, θ·γ is all the data fixes and EM drifts along that ridge; the
   * prior holds it there, while thousands of impressions at varied positions outweigh it
   * (measured on synthetic logs: docs/decisions/0007-global-learning-from-the-event-log.md).
   */
  thetaPriorStrength?: number;
}

/** Fits θ (and γ per pair, internally) by EM; returns θ relative to position 1. */
export function estimatePositionBias(results: readonly ShownResult[], options: PositionBiasOptions = {}): PositionBias {
  const steps = positionBiasSteps(results, options);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * estimatePositionBias as a generator that pauses after every `every` EM iterations: a caller on
 * a serving process (global learning) yields to the event loop between them.
 */
export function* positionBiasSteps(
  results: readonly ShownResult[],
  options: PositionBiasOptions & { every?: number } = {},
): Generator<void, PositionBias, void> {
  const every = options.every ?? 10;
  const positions = options.positions ?? 10;
  // EM creeps along the ridge θ·γ = const: it needs hundreds of iterations, each a pass over the cells.
  const maxIterations = options.maxIterations ?? 1000;
  const tolerance = options.tolerance ?? 1e-6;
  const prior = options.prior ?? { clicked: 0.05, skipped: 0.05 };
  const strength = options.thetaPriorStrength ?? 10;

  // Pairs and positions as dense indices; impressions grouped by (pair, position, clicked).
  const pairIndex = new Map<string, number>();
  const cells = new Map<string, { pair: number; k: number; clicks: number; skips: number }>();
  const impressions = new Array<number>(positions).fill(0);
  for (const r of results) {
    if (!Number.isInteger(r.position) || r.position < 1 || r.position > positions) continue;
    const key = `${r.query}\u0000${r.productId}`;
    let pair = pairIndex.get(key);
    if (pair === undefined) {
      pair = pairIndex.size;
      pairIndex.set(key, pair);
    }
    const k = r.position - 1;
    const cellKey = `${pair}:${k}`;
    const cell = cells.get(cellKey) ?? { pair, k, clicks: 0, skips: 0 };
    if (r.clicked) cell.clicks++;
    else cell.skips++;
    cells.set(cellKey, cell);
    impressions[k]!++;
  }
  // Typed columns: the loop below runs cells × iterations times (millions), on the event loop.
  const cellCount = cells.size;
  const cellPair = new Int32Array(cellCount);
  const cellK = new Int32Array(cellCount);
  const cellClicks = new Float64Array(cellCount);
  const cellSkips = new Float64Array(cellCount);
  let c = 0;
  for (const cell of cells.values()) {
    cellPair[c] = cell.pair;
    cellK[c] = cell.k;
    cellClicks[c] = cell.clicks;
    cellSkips[c] = cell.skips;
    c++;
  }
  const pairs = pairIndex.size;

  // Start: θ_k = 1/k, γ = the prior's mean.
  const theta = Float64Array.from({ length: positions }, (_, k) => 1 / (k + 1));
  const gamma = new Float64Array(pairs).fill(prior.clicked / (prior.clicked + prior.skipped));
  const thetaNum = new Float64Array(positions);
  const gammaNum = new Float64Array(pairs);
  const gammaDen = new Float64Array(pairs);
  let iterations = 0;
  let converged = false;
  while (iterations < maxIterations && !converged) {
    iterations++;
    thetaNum.fill(0);
    gammaNum.fill(prior.clicked);
    gammaDen.fill(prior.clicked + prior.skipped);
    for (let i = 0; i < cellCount; i++) {
      const k = cellK[i]!;
      const pair = cellPair[i]!;
      const t = theta[k]!;
      const g = gamma[pair]!;
      const notClicked = 1 - t * g;
      // A click means examined and attractive. A skip was either not examined, or examined and not attractive.
      const examinedGivenSkip = notClicked > 0 ? (t * (1 - g)) / notClicked : 0;
      const attractiveGivenSkip = notClicked > 0 ? ((1 - t) * g) / notClicked : 0;
      const clicks = cellClicks[i]!;
      const skips = cellSkips[i]!;
      thetaNum[k] = thetaNum[k]! + clicks + skips * examinedGivenSkip;
      gammaNum[pair] = gammaNum[pair]! + clicks + skips * attractiveGivenSkip;
      gammaDen[pair] = gammaDen[pair]! + clicks + skips;
    }
    converged = true;
    for (let k = 0; k < positions; k++) {
      if (impressions[k]! === 0) continue;
      const next = (thetaNum[k]! + strength / (k + 1)) / (impressions[k]! + strength);
      if (Math.abs(next - theta[k]!) > tolerance) converged = false;
      theta[k] = next;
    }
    for (let p = 0; p < pairs; p++) gamma[p] = gammaNum[p]! / gammaDen[p]!;
    if (iterations % every === 0) yield;
  }
  const top = theta[0]! > 0 ? theta[0]! : 1;
  return { relative: Array.from(theta, (t) => Math.min(1, t / top)), impressions, iterations, converged };
}

/**
 * The propensity an inverse-propensity weight divides by: θ_k / θ_1, clipped from below so that
 * one click deep in the list cannot outweigh everything above it (the variance of IPS grows with
 * 1/θ).
 */
export function clippedPropensity(bias: PositionBias, position: number, floor = 0.1): number {
  const theta = bias.relative[position - 1];
  return Math.max(floor, theta === undefined ? floor : theta);
}
