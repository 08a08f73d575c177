/**
 * Global learning: a ranking model refitted from the deployment's own event log, for every
 * query, including ones nobody has searched yet.
 *
 * Each logged result carries the features it was ranked on. Per (query, product) the clicks and
 * conversions are divided by the examinations its positions predict (the position-based model's
 * θ, estimated from the same log and clipped: inverse-propensity weighting), one count per
 * (session, product); that attractiveness becomes a graded label, and a product voted not
 * relevant more often than relevant gets grade 0. The model is then moved from the serving one
 * by coordinate ascent on NDCG@10 of those labels, and proposed only if it ranks held-out
 * queries of the log better. Its relevance_score keeps the serving model's meaning: the new
 * score's Platt map is fitted to the serving model's probabilities on the same results, so
 * min_relevance_score thresholds still cut where they did.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { FEATURE_NAMES, type FeatureName } from '../ranking/features.js';
import { type RankingModel, scoreRow, toProbability, weightVector } from '../ranking/ranking.js';
import { coordinateAscentSteps, fitLogistic, queriesNdcg, type TrainingQuery } from '../ranking/ranking-fit.js';
import type { LoggedResult, QueryEvent } from './ports.js';
import { type PositionBias, positionBiasSteps } from './position-bias.js';
import { productEvidence } from './query-boosts.js';

export interface GlobalFitOptions {
  /** Examinations a (query, product) needs to be a training row. */
  minExposure: number;
  /** Pseudo-examinations at the log's overall click rate (smoothing). */
  priorExposure: number;
  /** Queries with a click needed to fit at all. */
  minQueries: number;
  /** NDCG@10 gain on held-out log queries a candidate must show to be proposed. */
  minGain: number;
  /** Position-bias EM bound (it runs on the event loop). */
  biasIterations: number;
}

export const DEFAULT_GLOBAL_FIT: GlobalFitOptions = { minExposure: 1, priorExposure: 2, minQueries: 25, minGain: 0.005, biasIterations: 200 };

export interface GlobalFitReport {
  searches: number;
  results: number;
  clicks: number;
  /** Queries with at least one click, split into training and held-out (every fifth by hash). */
  queries: number;
  trainQueries: number;
  heldOutQueries: number;
  /** NDCG@10 on the held-out queries' logged results, by the click-derived labels. */
  heldOutNdcg: { serving: number; candidate: number; incumbent?: number } | null;
  positionBias: number[];
  /** Why nothing was proposed, when nothing was. */
  skipped?: string;
  /** Milliseconds spent reading the log and fitting (set by the learner). */
  readMs?: number;
  fitMs?: number;
}

/** Labels from the log: one training query per normalised query, its rows the products shown for it. */
export function trainingFromLog(log: readonly LoggedResult[], bias: PositionBias, options: GlobalFitOptions = DEFAULT_GLOBAL_FIT): TrainingQuery[] {
  const byQuery = new Map<string, LoggedResult[]>();
  for (const r of log) {
    if (r.features.length !== FEATURE_NAMES.length || r.position < 1 || r.position > bias.relative.length) continue;
    const rows = byQuery.get(r.query);
    if (rows) rows.push(r);
    else byQuery.set(r.query, [r]);
  }
  const perQuery = [...byQuery].map(([query, rows]) => {
    const events: QueryEvent[] = rows.map((r) => ({
      sessionId: r.sessionId,
      productId: r.productId,
      position: r.position,
      clicked: r.clicked,
      converted: r.converted,
    }));
    const evidence = productEvidence(events, bias);
    const votes = new Map<string, number>();
    const features = new Map<string, readonly number[]>();
    for (const r of rows) {
      if (r.vote !== null) votes.set(r.productId, (votes.get(r.productId) ?? 0) + (r.vote ? 1 : -1));
      if (!features.has(r.productId)) features.set(r.productId, r.features); // the log is newest first
    }
    return { query, evidence, votes, features };
  });
  let exposure = 0;
  let reward = 0;
  for (const q of perQuery) {
    for (const e of q.evidence.values()) {
      exposure += e.exposure;
      reward += e.reward;
    }
  }
  if (reward === 0) return [];
  const rate = reward / exposure;
  const attractiveness = (e: { exposure: number; reward: number }) => (e.reward + options.priorExposure * rate) / (e.exposure + options.priorExposure);
  // Grades 0–3 scaled to the log's most attractive products (90th percentile of those clicked),
  // so the labels mean the same whatever the deployment's overall click rate.
  const clicked = perQuery
    .flatMap((q) => [...q.evidence.values()].filter((e) => e.reward > 0 && e.exposure >= options.minExposure).map(attractiveness))
    .sort((a, b) => a - b);
  const reference = clicked[Math.floor(0.9 * (clicked.length - 1))] ?? rate;
  const out: TrainingQuery[] = [];
  for (const q of perQuery) {
    const rows: TrainingQuery['rows'] = [];
    for (const [productId, e] of q.evidence) {
      if (e.exposure < options.minExposure) continue;
      const grade = (q.votes.get(productId) ?? 0) < 0 ? 0 : 3 * Math.min(1, attractiveness(e) / reference);
      rows.push({ features: q.features.get(productId)!, grade });
    }
    if (rows.length >= 2) out.push({ group: q.query, rows });
  }
  return out;
}

/** Every fifth query by a stable hash of its text: the same split on every process and every run. */
export function isHeldOut(query: string): boolean {
  let h = 2166136261;
  for (let i = 0; i < query.length; i++) h = Math.imul(h ^ query.charCodeAt(i), 16777619);
  return (h >>> 0) % 5 === 0;
}

async function ascend(queries: readonly TrainingQuery[], start: readonly number[]): Promise<number[]> {
  const steps = coordinateAscentSteps(queries, [start]);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    await yieldToLoop();
  }
}

/**
 * Fits a candidate from the log, or says why not. It must beat the serving model, and the
 * `incumbent` candidate already under test when there is one, on the held-out log queries. Works
 * in slices (one weight's trials at a time) with the event loop in between, so a serving process
 * keeps answering while it runs.
 */
export async function fitFromLog(
  log: readonly LoggedResult[],
  serving: RankingModel,
  source: string,
  options: GlobalFitOptions = DEFAULT_GLOBAL_FIT,
  incumbent?: RankingModel,
): Promise<{ model: RankingModel | null; report: GlobalFitReport }> {
  const shown = log.filter((r) => r.position >= 1 && r.position <= 10);
  const biasSteps = positionBiasSteps(
    shown.map((r) => ({ query: r.query, productId: r.productId, position: r.position, clicked: r.clicked })),
    { maxIterations: options.biasIterations, tolerance: 1e-4, every: 5 },
  );
  let bias: PositionBias;
  for (;;) {
    const next = biasSteps.next();
    await yieldToLoop();
    if (next.done) {
      bias = next.value;
      break;
    }
  }
  const queries = trainingFromLog(shown, bias, options).filter((q) => q.rows.some((r) => (r.grade ?? 0) > 0));
  const train = queries.filter((q) => !isHeldOut(q.group));
  const held = queries.filter((q) => isHeldOut(q.group));
  const report: GlobalFitReport = {
    searches: new Set(log.map((r) => r.requestId)).size,
    results: log.length,
    clicks: log.filter((r) => r.clicked).length,
    queries: queries.length,
    trainQueries: train.length,
    heldOutQueries: held.length,
    heldOutNdcg: null,
    positionBias: bias.relative.map((t) => Math.round(t * 1000) / 1000),
  };
  if (train.length < options.minQueries || held.length < Math.ceil(options.minQueries / 4)) {
    return {
      model: null,
      report: {
        ...report,
        skipped: `too little evidence: ${train.length} training and ${held.length} held-out queries with clicks (needs ${options.minQueries} and ${Math.ceil(options.minQueries / 4)})`,
      },
    };
  }
  const w0 = weightVector(serving);
  const trial = await ascend(train, w0);
  report.heldOutNdcg = {
    serving: queriesNdcg(held, w0),
    candidate: queriesNdcg(held, trial),
    ...(incumbent ? { incumbent: queriesNdcg(held, weightVector(incumbent)) } : {}),
  };
  const best = Math.max(report.heldOutNdcg.serving, report.heldOutNdcg.incumbent ?? 0);
  if (report.heldOutNdcg.candidate - best < options.minGain) {
    const against = incumbent
      ? `${report.heldOutNdcg.serving.toFixed(4)} serving, ${report.heldOutNdcg.incumbent!.toFixed(4)} under test`
      : report.heldOutNdcg.serving.toFixed(4);
    return {
      model: null,
      report: {
        ...report,
        skipped: `no better on held-out queries (NDCG@10 ${report.heldOutNdcg.candidate.toFixed(4)} against ${against}; needs +${options.minGain})`,
      },
    };
  }
  const w = await ascend(queries, w0);
  return { model: distil(w, serving, shown, source), report };
}

/** The fitted weights with a Platt map onto the serving model's probabilities over the logged results. */
function distil(w: readonly number[], serving: RankingModel, log: readonly LoggedResult[], source: string): RankingModel {
  const weights = Object.fromEntries(FEATURE_NAMES.map((name, k) => [name, round(w[k]!)])) as Record<FeatureName, number>;
  const servingW = weightVector(serving);
  // An even sample of at most 5,000 results: two parameters need no more, and the fit stays short.
  const all = log.filter((r) => r.features.length === FEATURE_NAMES.length);
  const stride = Math.max(1, Math.ceil(all.length / 5_000));
  const rows = all.filter((_, i) => i % stride === 0);
  const [offset, scale] = fitLogistic(
    rows.map((r) => [scoreRow(r.features, 0, w)]),
    rows.map((r) => toProbability(scoreRow(r.features, serving.bias, servingW), serving)),
    0,
  );
  return { source, bias: 0, weights, scale: round(scale!), offset: round(offset!) };
}

const round = (v: number) => Math.round(v * 1e6) / 1e6;
