/**
 * The cold-start ranking model: fitted from the catalog itself when it is imported, so a new
 * deployment ranks with weights suited to its own products rather than the hand-set fallback.
 * Synthetic requests (synthetic-requests.ts) go through the real retrieval, the features search
 * uses, and the existing fitter (ranking-fit.ts); the fitted ranker is added to the fallback's
 * weights, and the sum calibrated against the fallback's own probabilities, so relevance_score
 * and the default min_relevance_score keep their meaning. Measurements:
 * docs/relevance.md ("Cold start: a model fitted from the catalog").
 */
import PQueue from 'p-queue';
import type { CatalogStore } from '../catalog/ports.js';
import type { CatalogProduct } from '../catalog/product.js';
import { mulberry32 } from '../random.js';
import { FEATURE_NAMES, type FeatureName } from '../ranking/features.js';
import { CatalogLexicon } from '../ranking/lexical.js';
import { FALLBACK_MODEL, type RankingModel, readRankingModel, scoreRow, toProbability, weightVector } from '../ranking/ranking.js';
import { fitRankingModel, type TrainingQuery } from '../ranking/ranking-fit.js';
import { retrieveCandidates } from '../ranking/retrieval.js';
import type { Embedder } from '../shared-ports.js';
import { fitConversationModel } from '../understanding/conversation-fit.js';
import { NeedVocabulary } from '../understanding/vocabulary.js';
import { type RequestKind, type SyntheticRequest, syntheticGrade, syntheticRequests } from './synthetic-requests.js';

const COLD_START_SOURCE_PREFIX = 'cold-start';

/** A model this module fitted (and so one a later import may replace), as against one fitted on labels. */
export const isColdStartModel = (model: RankingModel): boolean => model.source.startsWith(COLD_START_SOURCE_PREFIX);

/** How many products the catalog had when this cold-start model was fitted (its source names it), or null. */
const fittedCatalogSize = (model: RankingModel): number | null => {
  const m = /^cold-start \(catalog (\d+) products/.exec(model.source);
  return m ? Number(m[1]) : null;
};

/**
 * The share of a catalog an import may change, and its size may drift from the size the model
 * was fitted on, before the cold-start model is fitted again: a fit reads a thousand synthetic
 * requests through retrieval (a minute or more on two cores), which one new product does not
 * warrant (docs/ingest.md, "Importing").
 */
const REFIT_SHARE = 0.1;

/**
 * Requests no catalog answers, for the calibration's off-topic negatives. Deliberately not the
 * list tools/relevance/labelled-set.ts evaluates calibration with, so that measurement stays unseen.
 */
const COLD_START_OFF_TOPIC = [
  'how old is the universe',
  'what is the population of brazil',
  'who discovered penicillin',
  'traffic on the highway this morning',
  'how to write a cover letter',
  'what is the boiling point of water',
  'who won the last super bowl',
  'how do airplanes fly',
  'what does html stand for',
  'how to say thank you in japanese',
  'when did the berlin wall fall',
  'what causes earthquakes',
  'how to calculate compound interest',
  'who composed the four seasons',
  'what is the tallest building in the world',
  'explain the theory of relativity',
  'how many bones are in the human body',
  'what is the stock market doing today',
  'how to improve my sleep',
  'what is a black hole',
  'define photosynthesis for a child',
  'how to change a flat tire',
  'who invented the telephone',
  'what language is spoken in brazil',
  'how to apply for a passport',
  'what is the largest ocean',
  'solve two x plus three equals seven',
  'how does the internet work',
  'what is the plot of the odyssey',
  'why is the sky blue',
];

export interface ColdStartOptions {
  /** Synthetic requests to draw (one per sampled product); fewer when the catalog is smaller. */
  requests?: number;
  seed?: number;
  kinds?: readonly RequestKind[];
  /** Retrievals in flight at once. */
  concurrency?: number;
}

/** Fewer requests that found their product than this, and the fit would be noise: the fallback serves. */
const MIN_ANSWERED_REQUESTS = 20;

export interface ColdStartFit {
  /** Null when fewer than MIN_ANSWERED_REQUESTS requests found their product (a tiny catalog). */
  model: RankingModel | null;
  products: number;
  requests: number;
  /** Requests whose source product (or a near-duplicate) the retrieval found: the ones the fit learns from. */
  answered: number;
  /** Synthetic conversations the conversation model was fitted on (0: too few, the default serves). */
  conversations?: number;
  ms: number;
}

const COLD_START_DEFAULTS = { requests: 1000, seed: 20_261_124, kinds: ['fragment'] } as const satisfies ColdStartOptions;

type RetrievalDeps = { catalog: CatalogStore; embedder: Embedder; lexicon: CatalogLexicon };

const retrieve = (deps: RetrievalDeps, text: string) =>
  retrieveCandidates(deps, { queryText: text, currentQuery: text, filter: {}, retrieval: 'hybrid', model: FALLBACK_MODEL });

/** `fn` over `items` with at most `limit` in flight, results in input order (so the fit is deterministic). */
function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const queue = new PQueue({ concurrency: Math.max(1, limit) });
  return Promise.all(items.map((item) => queue.add(() => fn(item))));
}

/**
 * Every candidate the retrieval returns for each request, graded against its source. The rest
 * are unjudged (null), not judged irrelevant: many answer the request as well as the source
 * does. The ranker counts them 0, as NDCG does; the calibration leaves them out.
 */
async function syntheticTrainingQueries(deps: RetrievalDeps, requests: readonly SyntheticRequest[], concurrency = 4): Promise<TrainingQuery[]> {
  return mapLimited(requests, concurrency, async (r) => {
    const candidates = await retrieve(deps, r.text);
    return { group: `${r.kind}:${r.text}`, rows: candidates.map((c) => ({ features: c.features, grade: syntheticGrade(r, c.product) || null })) };
  });
}

const OFF_TOPIC_DEPTH = 20;

/** The first OFF_TOPIC_DEPTH candidates (by the fallback) of each off-topic request. */
function offTopicCandidates(deps: RetrievalDeps, concurrency: number): Promise<number[][][]> {
  return mapLimited(COLD_START_OFF_TOPIC, concurrency, async (text) =>
    (await retrieve(deps, text))
      .sort((a, b) => b.score - a.score)
      .slice(0, OFF_TOPIC_DEPTH)
      .map((c) => c.features),
  );
}

/**
 * How much of the fitted ranker is added to the fallback's weights, after scaling it to the
 * fallback's largest weight. The fitted ranker alone leans on features relative to each request
 * (BM25 over the request's best, ranks), so it cannot tell an off-topic request's best match from
 * a real one; the fallback's absolute evidence (cosine, coverage) can. Chosen on Home Depot's
 * first 1,500 dev queries: docs/decisions/0005-cold-start-model-from-the-catalog.md.
 */
const COLD_START_BLEND = 0.5;

function blend(ranker: RankingModel): { bias: number; weights: Record<FeatureName, number> } {
  const wf = weightVector(FALLBACK_MODEL);
  const wr = weightVector(ranker);
  const k = (COLD_START_BLEND * Math.max(...wf.map(Math.abs))) / (Math.max(...wr.map(Math.abs)) || 1);
  return {
    bias: FALLBACK_MODEL.bias,
    weights: Object.fromEntries(FEATURE_NAMES.map((n, i) => [n, round(wf[i]! + k * wr[i]!)])) as Record<FeatureName, number>,
  };
}

/**
 * The calibration keeps the fallback's scale (1) and fits only the offset, so that over every
 * retrieved candidate and off-topic candidate it predicts what the fallback predicts on the same
 * rows (a logistic fit to the fallback's probabilities as soft targets). Then the offset is
 * lowered, if need be, until no more off-topic requests have a candidate at 0.5 or above than the
 * fallback lets through, so the default min_relevance_score still answers them with nothing.
 */
function coldStartCalibration(
  model: Pick<RankingModel, 'bias' | 'weights'>,
  queries: readonly TrainingQuery[],
  offTopic: readonly (readonly (readonly number[])[])[],
): { scale: number; offset: number } {
  const w = FEATURE_NAMES.map((n) => model.weights[n] ?? 0);
  const fw = weightVector(FALLBACK_MODEL);
  const score = (x: readonly number[]) => scoreRow(x, model.bias, w);
  const fallback = (x: readonly number[]) => toProbability(scoreRow(x, FALLBACK_MODEL.bias, fw), FALLBACK_MODEL);
  const rows = [...queries.flatMap((q) => q.rows.map((r) => r.features)), ...offTopic.flat()];
  const offset = fitOffset(rows.map(score), rows.map(fallback));
  const requests = offTopic.filter((r) => r.length > 0);
  const fallbackAnswers = requests.filter((r) => Math.max(...r.map(fallback)) >= 0.5).length;
  const limit = requests.map((r) => Math.max(...r.map(score))).sort((a, b) => b - a)[fallbackAnswers];
  // σ(s + offset) < 0.5 for every off-topic request's best score from `limit` down.
  return { scale: 1, offset: round(limit === undefined ? offset : Math.min(offset, -limit - 1e-6)) };
}

/** The b minimising the log loss of σ(z + b) against soft targets (Newton's method in one dimension). */
function fitOffset(z: readonly number[], target: readonly number[]): number {
  let b = 0;
  for (let it = 0; it < 50; it++) {
    let g = 0;
    let h = 0;
    z.forEach((v, i) => {
      const p = 1 / (1 + Math.exp(-(v + b)));
      g += p - target[i]!;
      h += p * (1 - p);
    });
    const step = g / Math.max(h, 1e-9);
    b -= step;
    if (Math.abs(step) < 1e-9) break;
  }
  return b;
}

const round = (v: number) => Math.round(v * 1e6) / 1e6;

/**
 * Products the fit writes its requests and conversations from, at most: past it a sample serves as
 * well (a thousand requests use a thousand products), and the fit's memory stops growing with the
 * catalog. Every catalog measured so far is below it, so their fits read every product.
 */
const MAX_FIT_PRODUCTS = 100_000;

/** Every product of the catalog, or a uniform seeded sample of `max` of them (reservoir sampling), and how many there are. */
async function sampleProducts(catalog: CatalogStore, max: number, seed: number): Promise<{ products: CatalogProduct[]; seen: number }> {
  const random = mulberry32(seed);
  const products: CatalogProduct[] = [];
  let seen = 0;
  for await (const batch of catalog.scanProducts()) {
    for (const product of batch) {
      seen += 1;
      if (products.length < max) products.push(product);
      else {
        const at = Math.floor(random() * seen);
        if (at < max) products[at] = product;
      }
    }
  }
  return { products, seen };
}

/**
 * Fits the catalog's cold-start model: samples products (seeded), writes a request from each,
 * runs them through the real retrieval, fits the ranker on the graded candidates and calibrates
 * it. Reads the catalog only; the caller decides whether to store the model.
 */
export async function fitColdStartModel(
  deps: { catalog: CatalogStore; embedder: Embedder; lexicon?: CatalogLexicon },
  options: ColdStartOptions = {},
): Promise<ColdStartFit> {
  const started = performance.now();
  const o = { ...COLD_START_DEFAULTS, concurrency: 4, ...options };
  const retrievalDeps = { catalog: deps.catalog, embedder: deps.embedder, lexicon: deps.lexicon ?? new CatalogLexicon(deps.catalog) };
  const { products, seen } = await sampleProducts(deps.catalog, MAX_FIT_PRODUCTS, o.seed);
  const requests = syntheticRequests(products, { count: o.requests, seed: o.seed, kinds: o.kinds });
  const queries = await syntheticTrainingQueries(retrievalDeps, requests, o.concurrency);
  const offTopic = await offTopicCandidates(retrievalDeps, o.concurrency);
  const answered = queries.filter((q) => q.rows.some((r) => (r.grade ?? 0) > 0)).length;
  const summary = { products: seen, requests: requests.length, answered };
  if (answered < MIN_ANSWERED_REQUESTS) return { model: null, ...summary, ms: Math.round(performance.now() - started) };
  const source = `${COLD_START_SOURCE_PREFIX} (catalog ${seen} products, ${requests.length} synthetic requests)`;
  // Coordinate ascent on the synthetic NDCG@10: the held-out choice fitRankingModel makes
  // otherwise would be made on synthetic queries too, and picked the weaker fit (docs/decisions/0005-cold-start-model-from-the-catalog.md).
  const blended = blend(fitRankingModel(queries, offTopic.flat(), source, { ranker: 'ascent' }));
  const ranking: RankingModel = { source, ...blended, ...coldStartCalibration(blended, queries, offTopic) };
  // How conversations are scored on this catalog, fitted with the ranking model just made.
  const conversation = await fitConversationModel(retrievalDeps, products, NeedVocabulary.build(products, products.length), ranking, {
    concurrency: o.concurrency,
  });
  const model: RankingModel = conversation === null ? ranking : { ...ranking, conversation: conversation.model };
  return { model, ...summary, conversations: conversation?.conversations ?? 0, ms: Math.round(performance.now() - started) };
}

/** What an import did about the ranking model. */
export type ColdStartOutcome =
  | { action: 'fitted'; source: string; products: number; requests: number; answered: number; conversations: number; ms: number }
  | { action: 'kept'; source: string; reason: string };

/**
 * Fits the catalog's cold-start model and stores it for the embedder's model, unless the catalog
 * already holds a model fitted on labelled data (npm run calibrate), which is better and is kept.
 * Replaces an absent or earlier cold-start model; given an import's `change`, keeps one fitted on
 * a catalog the import changed little (under REFIT_SHARE of its products, and its size within
 * REFIT_SHARE of the fitted one).
 */
export async function refreshColdStartModel(
  deps: { catalog: CatalogStore; embedder: Embedder },
  options: ColdStartOptions = {},
  change?: { products: number; changed: number },
): Promise<ColdStartOutcome> {
  const stored = await readRankingModel(deps.catalog, deps.embedder.model);
  if (stored !== null && !isColdStartModel(stored)) {
    return { action: 'kept', source: stored.source, reason: 'the catalog holds a model fitted on labelled data (npm run calibrate)' };
  }
  const fittedOn = stored === null ? null : fittedCatalogSize(stored);
  if (change && stored !== null && fittedOn !== null) {
    const small = change.changed < REFIT_SHARE * change.products && Math.abs(change.products - fittedOn) < REFIT_SHARE * fittedOn;
    if (small) {
      const reason = `${change.changed} of ${change.products} products changed, and the model was fitted on ${fittedOn}: an import that changes a tenth of the catalog, or a catalog a tenth larger or smaller, fits it again (--refit fits it now)`;
      return { action: 'kept', source: stored.source, reason };
    }
  }
  const fit = await fitColdStartModel(deps, options);
  if (fit.model === null) {
    const reason = `only ${fit.answered} of ${fit.requests} synthetic requests found their product (${MIN_ANSWERED_REQUESTS} needed): the catalog is too small to fit on`;
    return { action: 'kept', source: stored?.source ?? FALLBACK_MODEL.source, reason };
  }
  await deps.catalog.storeRankingModel(deps.embedder.model, fit.model);
  return {
    action: 'fitted',
    source: fit.model.source,
    products: fit.products,
    requests: fit.requests,
    answered: fit.answered,
    conversations: fit.conversations ?? 0,
    ms: fit.ms,
  };
}
