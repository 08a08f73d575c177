/**
 * What ranking knows about one (query, product) pair. Every feature is cheap to compute from
 * what the two retrievals return, so the whole candidate set (up to 200) is scored in about a
 * millisecond; which ones matter, and how much, is learned (npm run calibrate) or hand-set
 * (FALLBACK_MODEL in ranking.ts). Retrieval scores and term coverage carry most of it;
 * pseudo-relevance feedback (likeness to the first ten fused results, as vectors and as title
 * words) and the title-structure features read titles written "Brand descriptors type in Colour
 * with/for ...". Why these and not others, with the measurements: docs/decisions/0004-learned-ranker.md.
 */

import type { ScoredProduct } from '../catalog/ports.js';
import type { CatalogProduct } from '../catalog/product.js';
import type { Lexicon } from './lexical.js';
import { canonicalText, lexicalTerms, wordTokens } from './lexical.js';
import { cosineOf, dotWith64, normOf } from './vectors.js';

export const FEATURE_NAMES = [
  /** BM25 over the best BM25 of this query (0..1); 0 when the lexical top-k missed it. */
  'bm25',
  /** BM25 over the summed IDF of the query terms: how much of the query it explains, comparable across queries. */
  'bm25Query',
  /** Cosine similarity to the query vector; for products the dense top-k missed, the lowest seen. */
  'cosine',
  /** IDF-weighted share of query terms found anywhere in the product text. */
  'coverage',
  /** IDF-weighted share of query terms found in the title. */
  'titleCoverage',
  /** Share of query terms in the title, unweighted. */
  'titleShare',
  /** 1 when every query term is in the title. */
  'allInTitle',
  /** Share of the query's numbers and measures (in0p5, 2 x 4) found in the product; 0.5 when it has none. */
  'numbers',
  /** The last query term (usually the head noun: "metal screws") is in the title. */
  'lastInTitle',
  'firstInTitle',
  /** Adjacent query term pairs that are adjacent in the title too. */
  'bigrams',
  /** 1 / (1 + rank) in each retrieval; 0 when absent. */
  'lexicalRank',
  'denseRank',
  'inLexical',
  'inDense',
  /** ln(1 + title terms): long titles match more words by chance. */
  'titleLength',
  /** Cosine minus the best cosine of this query. */
  'cosineGap',
  /** Cosine to the centroid of the first ten fused results (pseudo-relevance feedback). */
  'prfCosine',
  'prfGap',
  /** IDF-weighted overlap of the title with the words of the first ten fused results' titles. */
  'prfTitle',
  /** Share of the query's character trigrams found in the title's: survives typos, plurals and split or joined words. */
  'titleTrigrams',
  /** The title's product type (last word before " in ", " with ", " for ", " - ", "(" or ",") is a query term. */
  'headNoun',
  /** IDF-weighted share of query terms found in the title's head (the part before " in ", " with ", " for " ...). */
  'headCoverage',
  /** IDF-weighted share of query terms the title has only after " for " / " with ": an accessory or a part for the thing asked for. */
  'tailOnly',
  /** The brand's first word (the title's first word when there is no brand: usually the brand there) is a query term. */
  'brandInQuery',
] as const;

export type FeatureName = (typeof FEATURE_NAMES)[number];
export const FEATURE_INDEX = Object.fromEntries(FEATURE_NAMES.map((n, i) => [n, i])) as Record<FeatureName, number>;

/** The query as ranking sees it: stemmed terms, each weighted by IDF and by whether the current turn said it. */
export interface AnalyzedQuery {
  terms: { term: string; weight: number }[];
  first: string | undefined;
  last: string | undefined;
  numbers: string[];
  /** Adjacent terms of the current turn, as pairs (a term may hold a space: "2 x 4"). */
  bigrams: Array<readonly [string, string]>;
  /** Character trigrams of the current turn's words. */
  trigrams: string[];
  termSet: Set<string>;
  /**
   * A conversation's words that may be missing without counting against a product (light words
   * that were neither asked for nor name a kind of product: need.ts): shares are taken of the
   * other terms' weight only, and capped at 1. Absent for a product query, all of whose words count.
   */
  optional?: ReadonlySet<string>;
}

/** Character trigrams of words, each padded with a space on both sides ("cap" → " ca", "cap", "ap "). */
function trigramsOf(words: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const w of words) {
    const padded = ` ${w} `;
    for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3));
  }
  return out;
}

/**
 * Terms of the current query count twice as much as terms the conversation added: in
 * "waterproof ones" after "trail running shoes", a trail shoe that is not waterproof must lose
 * to one that is.
 */
export function analyzeQuery(matchWords: readonly string[], currentWords: readonly string[], lexicon: Lexicon): AnalyzedQuery {
  const current = new Set(currentWords.flatMap(lexicalTerms));
  const ordered = matchWords.flatMap(lexicalTerms);
  const unique = [...new Set(ordered)];
  const currentOrdered = ordered.filter((t) => current.has(t));
  const bigrams: Array<readonly [string, string]> = [];
  for (let i = 0; i + 1 < currentOrdered.length; i++) bigrams.push([currentOrdered[i]!, currentOrdered[i + 1]!]);
  return {
    terms: unique.map((term) => ({ term, weight: Math.max(0.1, lexicon.idf(term)) * (current.has(term) ? 2 : 1) })),
    first: currentOrdered[0],
    last: currentOrdered.at(-1),
    numbers: unique.filter((t) => /\d/.test(t)),
    bigrams,
    trigrams: [...trigramsOf(currentWords.flatMap(wordTokens))],
    termSet: new Set(unique),
  };
}

/**
 * A conversation's need as ranking sees it: each term weighted by IDF and by how much it carries
 * the need (understanding/need.ts; the heaviest word counts as a product query's own words do).
 */
export function analyzeNeed(words: readonly { word: string; weight: number; optional: boolean }[], lexicon: Lexicon): AnalyzedQuery {
  const weights = new Map<string, number>();
  const required = new Set<string>();
  const ordered: string[] = [];
  for (const w of words)
    for (const term of lexicalTerms(w.word)) {
      ordered.push(term);
      weights.set(term, Math.max(weights.get(term) ?? 0, w.weight));
      if (!w.optional) required.add(term);
    }
  const bigrams: Array<readonly [string, string]> = [];
  for (let i = 0; i + 1 < ordered.length; i++) bigrams.push([ordered[i]!, ordered[i + 1]!]);
  const unique = [...weights.keys()];
  return {
    terms: unique.map((term) => ({ term, weight: Math.max(0.1, lexicon.idf(term)) * 2 * weights.get(term)! })),
    first: ordered[0],
    last: ordered.at(-1),
    numbers: unique.filter((t) => /\d/.test(t)),
    bigrams,
    trigrams: [...trigramsOf(words.filter((w) => w.weight >= 0.5).flatMap((w) => wordTokens(w.word)))],
    termSet: new Set(unique),
    optional: new Set(unique.filter((t) => !required.has(t))),
  };
}

/**
 * A product's terms as ranking compares them. Kept for every product of the catalog (the store
 * warms them all), so they are ids of the shared vocabulary below rather than sets of strings,
 * which cost far more heap and objects (docs/search.md); membership is a binary search.
 */
export interface ProductTerms {
  /** Title terms with repeats, as titleLength counts them. */
  titleLength: number;
  /** Distinct title term ids, in the order they first appear (sums over the title follow it). */
  titleIds: Int32Array;
  /** Every term (title, brand, category, description, attributes): ids, sorted. */
  allIds: Int32Array;
  /** Adjacent title terms as pairKey(a, b), sorted. */
  titleBigrams: Float64Array;
  /** Character trigrams of the title's words as trigramKey, sorted. */
  titleTrigrams: Float64Array;
  /**
   * Terms of the title before its first " in ", " with ", " for ", " - ", "(" or ",". Arrays, not
   * sets: a handful of terms each.
   */
  head: readonly string[];
  /** The last non-numeric term of the head: the product type in "Brand descriptors type in Colour". */
  headNoun: string | undefined;
  /** Terms only after " for " / " with ". */
  tail: readonly string[];
  /** First term of the brand, else of the title. */
  brand: string | undefined;
}

/**
 * The vocabulary of the products ranked so far: one id and one string instance per term, shared
 * by every product that has it. It only grows, by the terms a catalog adds that were not there
 * before. A query term without an id is in no product.
 */
const vocabulary = new Map<string, number>();
const vocabularyTerms: string[] = [];

function termId(term: string): number {
  let id = vocabulary.get(term);
  if (id === undefined) {
    id = vocabularyTerms.length;
    vocabulary.set(term, id);
    vocabularyTerms.push(term);
  }
  return id;
}

const knownId = (term: string): number => vocabulary.get(term) ?? -1;
const shared = (term: string): string => vocabularyTerms[termId(term)]!;

// Keys stay exact doubles: ids below 2^26 (a vocabulary of 67 million terms) and UTF-16 code units.
const pairKey = (a: number, b: number): number => a * 67_108_864 + b;
const trigramKey = (t: string): number => t.charCodeAt(0) * 4_294_967_296 + t.charCodeAt(1) * 65_536 + t.charCodeAt(2);

function sortedInts(values: Iterable<number>): Int32Array {
  return Int32Array.from(new Set(values)).sort();
}

function sortedKeys(values: Iterable<number>): Float64Array {
  return Float64Array.from(new Set(values)).sort();
}

// Two functions rather than one over both array kinds: each stays monomorphic on the hot path.
function hasInt(sorted: Int32Array, x: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v === x) return true;
    if (v < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

function hasKey(sorted: Float64Array, x: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v === x) return true;
    if (v < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

function titleHas(terms: ProductTerms, id: number): boolean {
  const ids = terms.titleIds;
  for (let i = 0; i < ids.length; i++) if (ids[i] === id) return true;
  return false;
}

/** Whether the product has the term anywhere (title, brand, category, description, attributes). */
export function hasTerm(terms: ProductTerms, term: string): boolean {
  const id = knownId(term);
  return id >= 0 && hasInt(terms.allIds, id);
}

/**
 * Products recur across searches and tokenising a description costs more than every other
 * feature together, so terms are kept per product object: the catalog store hands back the same
 * object for a row it keeps decoded (a re-import makes new rows and new objects), so an entry
 * can never describe changed text, and it goes when the store drops the row.
 */
const termsCache = new WeakMap<CatalogProduct, ProductTerms>();

export function productTerms(p: CatalogProduct): ProductTerms {
  let terms = termsCache.get(p);
  if (!terms) {
    terms = computeProductTerms(p);
    termsCache.set(p, terms);
  }
  return terms;
}

/** The product's words as ranking compares them; boolean attributes count by their key ("waterproof"). */
function computeProductTerms(p: CatalogProduct): ProductTerms {
  const attributes = Object.entries(p.attributes).map(([k, v]) =>
    v === true ? k : typeof v === 'boolean' ? '' : `${k} ${Array.isArray(v) ? v.join(' ') : String(v)}`,
  );
  const title = lexicalTerms(p.title).map(termId);
  const allIds = sortedInts([...title, ...lexicalTerms([p.brand ?? '', p.category.join(' '), p.description, attributes.join(' ')].join(' ')).map(termId)]);
  const bigrams: number[] = [];
  for (let i = 0; i + 1 < title.length; i++) bigrams.push(pairKey(title[i]!, title[i + 1]!));
  const canonical = canonicalText(p.title);
  const cut = HEAD_END.exec(canonical);
  const headTerms = lexicalTerms(cut ? canonical.slice(0, cut.index) : canonical);
  const head = [...new Set(headTerms)].map(shared);
  const tailCut = TAIL_START.exec(canonical);
  const tail = tailCut ? [...new Set(lexicalTerms(canonical.slice(tailCut.index)))].filter((t) => !head.includes(t)).map(shared) : NO_TERMS;
  const headNoun = headTerms.findLast((t) => !/\d/.test(t));
  const brandTerm = p.brand ? lexicalTerms(p.brand)[0] : undefined;
  const brand = brandTerm !== undefined ? shared(brandTerm) : title[0] !== undefined ? vocabularyTerms[title[0]] : undefined;
  return {
    titleLength: title.length,
    titleIds: Int32Array.from(new Set(title)),
    allIds,
    titleBigrams: sortedKeys(bigrams),
    titleTrigrams: sortedKeys([...trigramsOf(wordTokens(p.title))].map(trigramKey)),
    head,
    headNoun: headNoun === undefined ? undefined : shared(headNoun),
    tail,
    brand,
  };
}

const NO_TERMS: readonly string[] = Object.freeze([]);
const HEAD_END = /\s(?:in|with|for|w\/)\s|\s[-–]\s|[(,;]/;
const TAIL_START = /\s(?:with|for|w\/)\s/;

export interface FeatureRow {
  product: CatalogProduct;
  terms: ProductTerms;
  /** Features in FEATURE_NAMES order. */
  features: number[];
}

const PRF_DEPTH = 10;

/**
 * Orders candidates for the pseudo-relevance feedback, and is the hand-set fallback model's
 * weighting too (ranking.ts). Fixed rather than learned, so the feedback features mean the same
 * at fitting time and at serving time.
 */
export const FIRST_PASS_WEIGHTS = { cosine: 6.5, bm25: 1.2, coverage: 2.2, titleCoverage: 1.6 } as const satisfies Partial<Record<FeatureName, number>>;
const FIRST_PASS = Object.entries(FIRST_PASS_WEIGHTS).map(([name, w]) => [FEATURE_INDEX[name as FeatureName], w] as const);
const firstPass = (x: readonly number[]) => {
  let s = 0;
  for (const [i, w] of FIRST_PASS) s += w * x[i]!;
  return s;
};

/** How many of `ids` (-1: unknown, in no product) are in `sorted`. */
function countIds(ids: readonly number[], sorted: Int32Array): number {
  let n = 0;
  for (let i = 0; i < ids.length; i++) if (ids[i]! >= 0 && hasInt(sorted, ids[i]!)) n += 1;
  return n;
}

function countKeys(keys: readonly number[], sorted: Float64Array): number {
  let n = 0;
  for (let i = 0; i < keys.length; i++) if (keys[i]! >= 0 && hasKey(sorted, keys[i]!)) n += 1;
  return n;
}

/** Features for the union of both retrievals. */
export function computeFeatures(
  query: AnalyzedQuery,
  lexical: readonly ScoredProduct[],
  dense: readonly ScoredProduct[],
  lexicon: Lexicon,
  queryVector: Float32Array | null,
): FeatureRow[] {
  const maxBm25 = Math.max(1e-9, ...lexical.map((r) => r.score));
  const optional = query.optional;
  const idfSum = query.terms.reduce((s, t) => (optional?.has(t.term) ? s : s + t.weight), 0) || query.terms.reduce((s, t) => s + t.weight, 0) || 1;
  const requiredCount = optional ? query.terms.filter((t) => !optional.has(t.term)).length || query.terms.length : query.terms.length;
  // Shares are capped only where optional words can push the matched weight past the required.
  const share = optional ? (v: number) => Math.min(1, v) : (v: number) => v;
  const lexicalById = new Map(lexical.map((r, rank) => [r.product.productId, { bm25: r.score, rank }]));
  const denseById = new Map(dense.map((r, rank) => [r.product.productId, { cosine: 1 - r.score, rank }]));
  const bestCosine = dense.length > 0 ? 1 - dense[0]!.score : 0;
  const lowestCosine = dense.length > 0 ? 1 - dense.at(-1)!.score : 0;
  const vectors = new Map<string, Float32Array>();
  const products = new Map<string, CatalogProduct>();
  for (const r of [...dense, ...lexical]) {
    products.set(r.product.productId, r.product);
    if (r.vector) vectors.set(r.product.productId, r.vector);
  }

  // One pass over the query's terms per candidate, without closures or intermediate arrays:
  // this loop runs for every candidate of every search.
  const qTerms = query.terms;
  // Every candidate's terms first: a term enters the vocabulary with the first product that has it.
  const candidateTerms = new Map<CatalogProduct, ProductTerms>();
  for (const product of products.values()) candidateTerms.set(product, productTerms(product));
  // The query in the products' terms: ids and keys, looked up once per search.
  const qIds = qTerms.map((t) => knownId(t.term));
  const numberIds = query.numbers.map(knownId);
  const firstId = query.first === undefined ? -1 : knownId(query.first);
  const lastId = query.last === undefined ? -1 : knownId(query.last);
  const bigramKeys = query.bigrams.map(([a, b]) => {
    const ia = knownId(a);
    const ib = knownId(b);
    return ia < 0 || ib < 0 ? -1 : pairKey(ia, ib);
  });
  const trigramKeys = query.trigrams.map(trigramKey);
  const rows: FeatureRow[] = [];
  for (const [product, terms] of candidateTerms) {
    const lex = lexicalById.get(product.productId);
    const den = denseById.get(product.productId);
    // A product only the full text found has no distance from the vector search; its own vector
    // gives the exact cosine, else the lowest the vector search returned bounds it.
    const vector = vectors.get(product.productId);
    const cosine = den?.cosine ?? (vector && queryVector ? cosineOf(queryVector, vector) : lowestCosine);
    let covered = 0;
    let titleCovered = 0;
    let inTitle = 0;
    let requiredInTitle = 0;
    let headCovered = 0;
    let tailCovered = 0;
    for (let i = 0; i < qTerms.length; i++) {
      const { term, weight } = qTerms[i]!;
      const id = qIds[i]!;
      if (id >= 0 && hasInt(terms.allIds, id)) covered += weight;
      if (id >= 0 && titleHas(terms, id)) {
        titleCovered += weight;
        inTitle += 1;
        if (optional !== undefined && !optional.has(term)) requiredInTitle += 1;
      }
      if (terms.head.includes(term)) headCovered += weight;
      if (terms.tail.length > 0 && terms.tail.includes(term)) tailCovered += weight;
    }
    const x = new Array<number>(FEATURE_NAMES.length).fill(0);
    x[FEATURE_INDEX.bm25] = lex ? lex.bm25 / maxBm25 : 0;
    x[FEATURE_INDEX.bm25Query] = lex ? lex.bm25 / idfSum : 0;
    x[FEATURE_INDEX.cosine] = cosine;
    x[FEATURE_INDEX.coverage] = share(covered / idfSum);
    x[FEATURE_INDEX.titleCoverage] = share(titleCovered / idfSum);
    const titled = optional !== undefined && requiredCount < qTerms.length ? requiredInTitle : inTitle;
    x[FEATURE_INDEX.titleShare] = requiredCount ? titled / requiredCount : 0;
    x[FEATURE_INDEX.allInTitle] = requiredCount > 0 && titled === requiredCount ? 1 : 0;
    x[FEATURE_INDEX.numbers] = numberIds.length ? countIds(numberIds, terms.allIds) / numberIds.length : 0.5;
    x[FEATURE_INDEX.lastInTitle] = lastId >= 0 && titleHas(terms, lastId) ? 1 : 0;
    x[FEATURE_INDEX.firstInTitle] = firstId >= 0 && titleHas(terms, firstId) ? 1 : 0;
    x[FEATURE_INDEX.bigrams] = bigramKeys.length ? countKeys(bigramKeys, terms.titleBigrams) / bigramKeys.length : 0;
    x[FEATURE_INDEX.lexicalRank] = lex ? 1 / (1 + lex.rank) : 0;
    x[FEATURE_INDEX.denseRank] = den ? 1 / (1 + den.rank) : 0;
    x[FEATURE_INDEX.inLexical] = lex ? 1 : 0;
    x[FEATURE_INDEX.inDense] = den ? 1 : 0;
    x[FEATURE_INDEX.titleLength] = Math.log(1 + terms.titleLength);
    x[FEATURE_INDEX.cosineGap] = cosine - bestCosine;
    x[FEATURE_INDEX.titleTrigrams] = trigramKeys.length ? countKeys(trigramKeys, terms.titleTrigrams) / trigramKeys.length : 0;
    x[FEATURE_INDEX.headNoun] = terms.headNoun !== undefined && query.termSet.has(terms.headNoun) ? 1 : 0;
    x[FEATURE_INDEX.headCoverage] = share(headCovered / idfSum);
    x[FEATURE_INDEX.tailOnly] = share(tailCovered / idfSum);
    x[FEATURE_INDEX.brandInQuery] = terms.brand !== undefined && query.termSet.has(terms.brand) ? 1 : 0;
    rows.push({ product, terms, features: x });
  }

  addFeedbackFeatures(rows, vectors, lexicon);
  return rows;
}

/** prfCosine, prfGap and prfTitle: likeness to the first PRF_DEPTH candidates of the first pass. */
function addFeedbackFeatures(rows: FeatureRow[], vectors: Map<string, Float32Array>, lexicon: Lexicon): void {
  const top = rows
    .map((r) => ({ r, s: firstPass(r.features) }))
    .sort((a, b) => b.s - a.s)
    .slice(0, PRF_DEPTH)
    .map((t) => t.r);
  const dims = vectors.values().next().value?.length ?? 0;
  const centroid = new Float64Array(dims);
  for (const r of top) {
    const v = vectors.get(r.product.productId);
    if (v) for (let d = 0; d < dims; d++) centroid[d]! += v[d]!;
  }
  const centroidNorm = Math.sqrt(centroid.reduce((s, v) => s + v * v, 0)) || 1;
  const titleWeights = new Map<number, number>();
  for (const r of top) for (const id of r.terms.titleIds) titleWeights.set(id, (titleWeights.get(id) ?? 0) + lexicon.idf(vocabularyTerms[id]!));

  let bestPrf = -1;
  let bestTitle = 1e-9;
  const title = rows.map((r) => {
    let s = 0;
    for (const id of r.terms.titleIds) s += titleWeights.get(id) ?? 0;
    s /= Math.sqrt(r.terms.titleIds.length || 1);
    bestTitle = Math.max(bestTitle, s);
    return s;
  });
  rows.forEach((r) => {
    const v = vectors.get(r.product.productId);
    let cos = 0;
    if (v && dims > 0) cos = dotWith64(centroid, v) / centroidNorm / (normOf(v) || 1);
    r.features[FEATURE_INDEX.prfCosine] = cos;
    bestPrf = Math.max(bestPrf, cos);
  });
  rows.forEach((r, i) => {
    r.features[FEATURE_INDEX.prfGap] = r.features[FEATURE_INDEX.prfCosine]! - bestPrf;
    r.features[FEATURE_INDEX.prfTitle] = title[i]! / bestTitle;
  });
}
