import type { CatalogStore, ScoredProduct } from '../catalog/ports.js';
import type { CatalogProduct } from '../catalog/product.js';
import { type ConversationModel, parseConversationModel } from '../understanding/conversation-model.js';
import {
  type AnalyzedQuery,
  computeFeatures,
  FEATURE_INDEX,
  FEATURE_NAMES,
  type FeatureName,
  FIRST_PASS_WEIGHTS,
  hasTerm,
  type ProductTerms,
} from './features.js';
import { type Lexicon, lexicalTerms, UNIT_NAMES } from './lexical.js';

export interface Candidate {
  product: CatalogProduct;
  /** Features in FEATURE_NAMES order (features.ts). */
  features: number[];
  /** Cosine similarity to the query vector (also x[cosine]); kept by name for explanations. */
  cosine: number;
  /** Query words found in the product, as the explanation shows them. */
  matchedTerms: string[];
  /** The ranking model's score: a logit, higher is better. */
  score: number;
  /** Calibrated probability of relevance (grade ≥ 2 on the labelled sets). */
  probability: number;
  /** What ranking sorts on: the probability, adjusted by session signals. */
  rankScore: number;
}

/**
 * A linear ranking model over the features, and its calibration: score = bias + Σ wᵢ·xᵢ orders
 * the candidates; P(relevant) = σ(scale·score + offset) is the relevance_score. One monotone
 * map from score to probability keeps the order of results and the order of their scores the
 * same. `npm run calibrate` fits both on labelled data (stored with the catalog, per embedding
 * model); FALLBACK_MODEL serves until then.
 */
export interface RankingModel {
  source: string;
  bias: number;
  weights: Partial<Record<FeatureName, number>>;
  scale: number;
  offset: number;
  /** How conversations are scored on this catalog (understanding/conversation-model.ts); the default when absent. */
  conversation?: ConversationModel;
}

/**
 * Hand-set: a product whose title holds every query term and whose vector is close (cosine ≈
 * 0.6) scores ≈ 0.9; an unrelated product (cosine ≈ 0.25, no shared terms) ≈ 0.02, so the
 * default min_relevance_score 0.5 answers off-topic queries with nothing rather than with an
 * irrelevant ad. Measured on the labelled dev sets: docs/relevance.md.
 */
export const FALLBACK_MODEL: RankingModel = {
  source: 'fallback',
  bias: -6.2,
  weights: FIRST_PASS_WEIGHTS,
  scale: 1,
  offset: 0,
};

/** A stored model, or null when it is from an older release (different features): the fallback serves then. */
/** The ranking model the catalog stores for this embedding model, or null when none (or an unreadable one) is. */
export async function readRankingModel(catalog: Pick<CatalogStore, 'readStoredRankingModel'>, embeddingModel: string): Promise<RankingModel | null> {
  return parseRankingModel(await catalog.readStoredRankingModel(embeddingModel));
}

export function parseRankingModel(value: unknown): RankingModel | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (typeof v.bias !== 'number' || typeof v.scale !== 'number' || typeof v.offset !== 'number' || typeof v.weights !== 'object' || v.weights === null)
    return null;
  const weights: Partial<Record<FeatureName, number>> = {};
  for (const [name, w] of Object.entries(v.weights)) {
    if (!(name in FEATURE_INDEX) || typeof w !== 'number' || !Number.isFinite(w)) return null;
    weights[name as FeatureName] = w;
  }
  const conversation = parseConversationModel(v.conversation);
  return { source: String(v.source ?? 'stored'), bias: v.bias, weights, scale: v.scale, offset: v.offset, ...(conversation ? { conversation } : {}) };
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** The model's weights in FEATURE_NAMES order, for scoring many rows. */
export function weightVector(model: RankingModel): number[] {
  return FEATURE_NAMES.map((n) => model.weights[n] ?? 0);
}

export function scoreRow(x: readonly number[], bias: number, w: readonly number[]): number {
  let z = bias;
  for (let i = 0; i < w.length; i++) z += w[i]! * x[i]!;
  return z;
}

export const FEATURE_BM25 = FEATURE_INDEX.bm25;

export const toProbability = (score: number, model: RankingModel): number => sigmoid(model.scale * score + model.offset);

/** Canonical measure tokens read back as people write them: in0p5 → 0.5 in, 0p5 → 0.5. */
const MEASURE = new RegExp(`^(${UNIT_NAMES.join('|')})(\\d+(?:p\\d+)?)$`);
const displayWord = (w: string) => {
  const m = MEASURE.exec(w);
  return (m ? `${m[2]} ${m[1]}` : w).replace(/(\d)p(\d)/g, '$1.$2');
};

/** A query word as explanations show it, and the terms a product must have to match it. */
interface WordTerms {
  shown: string;
  terms: string[];
}

/**
 * A candidate whose matched words are worked out when an explanation asks for them: only the
 * returned few ever do, and doing it for all ~200 candidates was a fifth of what a search
 * allocated (148 of 816 KB, V8 sampling heap profile on the Home Depot catalog).
 */
class RankedCandidate implements Candidate {
  private matched: string[] | null = null;

  constructor(
    readonly product: CatalogProduct,
    readonly features: number[],
    readonly score: number,
    public probability: number,
    public rankScore: number,
    private readonly terms: ProductTerms,
    private readonly wordTerms: readonly WordTerms[],
  ) {}

  get cosine(): number {
    return this.features[FEATURE_INDEX.cosine]!;
  }

  get matchedTerms(): string[] {
    this.matched ??= [...new Set(this.wordTerms.filter((q) => q.terms.every((t) => hasTerm(this.terms, t))).map((q) => q.shown))];
    return this.matched;
  }
}

/** Merges the two retrievals into scored candidates. */
export function rankCandidates(
  query: AnalyzedQuery & { words: readonly string[] },
  lexical: readonly ScoredProduct[],
  dense: readonly ScoredProduct[],
  lexicon: Lexicon,
  model: RankingModel,
  queryVector: Float32Array | null,
): Candidate[] {
  const w = weightVector(model);
  // A query word matches a product when all its terms are the product's ("1/2 in." is two).
  const wordTerms = query.words.map((word) => ({ shown: displayWord(word), terms: lexicalTerms(word) })).filter((q) => q.terms.length > 0);
  return computeFeatures(query, lexical, dense, lexicon, queryVector).map(({ product, terms, features: x }) => {
    const score = scoreRow(x, model.bias, w);
    const probability = toProbability(score, model);
    return new RankedCandidate(product, x, score, probability, probability, terms, wordTerms);
  });
}

/** Title without colour, size and pack words: variants of one product share it. */
export function variantKey(p: CatalogProduct): string {
  const colourWords = new Set([p.attributes.color, p.attributes.colour].flatMap((c) => (typeof c === 'string' ? c.toLowerCase().split(/[\s/-]+/) : [])));
  return `${(p.brand ?? '').toLowerCase()}|${p.title
    .toLowerCase()
    .replace(/\(.*?\)/g, ' ')
    .split(/[\s,/–-]+/)
    .filter((w) => w !== '' && !colourWords.has(w) && !/^(?:xxs|xs|s|m|l|xl|xxl|\d+(?:\.\d+)?(?:-pack)?)$/.test(w) && !COLOURS.has(w))
    .join(' ')}`;
}

/**
 * Per product object, as features.ts keeps its terms (the store hands back the same object for a
 * row it keeps decoded, so a key never outlives the text it came from): a search needs ~200.
 */
const variantKeys = new WeakMap<CatalogProduct, string>();

function cachedVariantKey(p: CatalogProduct): string {
  let key = variantKeys.get(p);
  if (key === undefined) {
    key = variantKey(p);
    variantKeys.set(p, key);
  }
  return key;
}

const COLOURS = new Set(
  'black white grey gray silver gold red blue navy green olive teal yellow orange pink purple brown beige tan sand cream ivory charcoal graphite slate midnight forest coral mint burgundy maroon khaki'.split(
    ' ',
  ),
);

// Each variant of a product beyond its share of the page keeps this share of its score per
// variant before it: three colours of one shoe at 0.97 become 0.97, 0.68, 0.48, so other good
// products come between them, while a family of genuinely relevant products still beats
// unrelated ones (≤ 0.3). 0.85 was too gentle once IDF weighting made a named product's variants
// near-certain.
const VARIANT_DECAY = 0.7;

/**
 * How many variants of one product rank on their own score: a third of the requested page (at
 * least one). People choosing between sizes want to see a few; a page of one product's sizes
 * shows nothing else (measurements: docs/relevance.md, "Variants on a page").
 */
const variantsShownFreely = (limit: number) => Math.max(1, Math.floor(limit / 3));

/** Demotes colour/size variants of a product beyond a third of the page, so they cannot fill it. Input in rank order. */
export function diversify(ranked: readonly Candidate[], limit: number): Candidate[] {
  const free = variantsShownFreely(limit);
  const seen = new Map<string, number>();
  for (const c of ranked) {
    const key = cachedVariantKey(c.product);
    const before = seen.get(key) ?? 0;
    if (before >= free) c.rankScore *= VARIANT_DECAY ** (before - free + 1);
    seen.set(key, before + 1);
  }
  return [...ranked].sort((a, b) => b.rankScore - a.rankScore);
}
