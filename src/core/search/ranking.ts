import type { CatalogProduct } from '../catalog/product.js';
import type { ScoredProduct } from '../ports.js';
import { queryTerms, stem } from './query-text.js';

export interface Candidate {
  product: CatalogProduct;
  /** Cosine similarity to the query vector; for products the dense top-k missed, a bound (the lowest seen). */
  cosine: number;
  /** BM25 over the best lexical score of this query (0..1); 0 when the lexical top-k missed it. */
  bm25: number;
  /** Share of query terms found in the title. */
  titleCoverage: number;
  /** Share of query terms found anywhere in the product text. */
  coverage: number;
  matchedTerms: string[];
  /** Calibrated probability of relevance. */
  probability: number;
  /** What ranking sorts on: the probability, adjusted by session signals. */
  rankScore: number;
}

/**
 * Logistic calibration over the fusion features: P(relevant) = σ(bias + Σ wᵢ·xᵢ).
 * `npm run calibrate` fits these on labelled data; FALLBACK_CALIBRATION is used until then.
 */
export interface Calibration {
  source: string;
  bias: number;
  cosine: number;
  bm25: number;
  coverage: number;
  titleCoverage: number;
}

/**
 * Hand-set until a fitted calibration exists: a product whose title holds every query term and
 * whose vector is close (cosine ≈ 0.6) scores ≈ 0.9; an unrelated product (cosine ≈ 0.25, no
 * shared terms) ≈ 0.02, so the default min_relevance_score 0.5 answers off-topic queries with
 * nothing rather than with an irrelevant ad.
 */
export const FALLBACK_CALIBRATION: Calibration = { source: 'fallback', bias: -6.2, cosine: 6.5, bm25: 1.2, coverage: 2.2, titleCoverage: 1.6 };

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

export function calibrate(c: Pick<Candidate, 'cosine' | 'bm25' | 'coverage' | 'titleCoverage'>, k: Calibration): number {
  return sigmoid(k.bias + k.cosine * c.cosine + k.bm25 * c.bm25 + k.coverage * c.coverage + k.titleCoverage * c.titleCoverage);
}

function productWords(p: CatalogProduct): { title: Set<string>; all: Set<string> } {
  const words = (s: string) => new Set(queryTerms(s).map(stem));
  const attributes = Object.entries(p.attributes).map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(' ') : String(v)}`).join(' ');
  const title = words(p.title);
  const all = words([p.title, p.brand ?? '', p.category.join(' '), p.description, attributes].join(' '));
  // Boolean attributes say "waterproof: true"; the word that matters is the key.
  for (const [key, value] of Object.entries(p.attributes)) if (value === true) all.add(stem(key.toLowerCase()));
  return { title, all };
}

/**
 * Merges the two retrievals into scored candidates. Terms of the current query count twice as
 * much as terms the conversation added: in "waterproof ones" after "trail running shoes", a
 * trail shoe that is not waterproof must lose to one that is.
 */
export function fuseCandidates(
  queryText: string,
  currentQuery: string,
  lexical: readonly ScoredProduct[],
  dense: readonly ScoredProduct[],
  calibration: Calibration,
): Candidate[] {
  const terms = [...new Set(queryTerms(queryText))];
  const primary = new Set(queryTerms(currentQuery).map(stem));
  const weight = (t: string) => (primary.has(stem(t)) ? 2 : 1);
  const totalWeight = terms.reduce((sum, t) => sum + weight(t), 0);
  const share = (ts: readonly string[]) => (totalWeight === 0 ? 0 : ts.reduce((sum, t) => sum + weight(t), 0) / totalWeight);
  const maxBm25 = Math.max(1e-9, ...lexical.map((r) => r.score));
  const cosines = new Map(dense.map((r) => [r.product.productId, 1 - r.score]));
  const lowestCosine = dense.length > 0 ? Math.min(...cosines.values()) : 0;
  const bm25s = new Map(lexical.map((r) => [r.product.productId, r.score / maxBm25]));
  const products = new Map<string, CatalogProduct>();
  for (const r of [...dense, ...lexical]) products.set(r.product.productId, r.product);

  return [...products.values()].map((product) => {
    const words = productWords(product);
    const matchedTerms = terms.filter((t) => words.all.has(stem(t)));
    const inTitle = terms.filter((t) => words.title.has(stem(t)));
    const features = {
      cosine: cosines.get(product.productId) ?? lowestCosine,
      bm25: bm25s.get(product.productId) ?? 0,
      coverage: share(matchedTerms),
      titleCoverage: share(inTitle),
    };
    const probability = calibrate(features, calibration);
    return { product, ...features, matchedTerms, probability, rankScore: probability };
  });
}

/** Title without colour, size and pack words: variants of one product share it. */
export function variantKey(p: CatalogProduct): string {
  const colourWords = new Set(
    [p.attributes.color, p.attributes.colour].flatMap((c) => (typeof c === 'string' ? c.toLowerCase().split(/[\s/-]+/) : [])),
  );
  return `${(p.brand ?? '').toLowerCase()}|${p.title
    .toLowerCase()
    .replace(/\(.*?\)/g, ' ')
    .split(/[\s,/–-]+/)
    .filter((w) => w !== '' && !colourWords.has(w) && !/^(?:xxs|xs|s|m|l|xl|xxl|\d+(?:\.\d+)?(?:-pack)?)$/.test(w) && !COLOURS.has(w))
    .join(' ')}`;
}

const COLOURS = new Set(
  'black white grey gray silver gold red blue navy green olive teal yellow orange pink purple brown beige tan sand cream ivory charcoal graphite slate midnight forest coral mint burgundy maroon khaki'.split(' '),
);

// Each further variant of a product already ranked keeps this share of its score per variant
// before it: three colours of one shoe at 0.93 become 0.93, 0.79, 0.67, so other good products
// come between them, while a family of genuinely relevant products still beats unrelated ones.
const VARIANT_DECAY = 0.85;

/** Demotes further colour/size variants of a product so they cannot fill every slot. Input in rank order. */
export function diversify(ranked: readonly Candidate[]): Candidate[] {
  const seen = new Map<string, number>();
  for (const c of ranked) {
    const key = variantKey(c.product);
    const before = seen.get(key) ?? 0;
    c.rankScore *= VARIANT_DECAY ** before;
    seen.set(key, before + 1);
  }
  return [...ranked].sort((a, b) => b.rankScore - a.rankScore);
}
