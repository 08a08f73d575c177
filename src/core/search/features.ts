/**
 * What ranking knows about one (query, product) pair. Every feature is cheap to compute from
 * what the two retrievals return, so the whole candidate set (up to 200) is scored in about a
 * millisecond; which ones matter, and how much, is learned (npm run calibrate) or hand-set
 * (FALLBACK_MODEL in ranking.ts). Retrieval scores and term coverage carry most of it;
 * pseudo-relevance feedback (likeness to the first ten fused results, as vectors and as title
 * words) and the title-structure features read titles written "Brand descriptors type in Colour
 * with/for ...". Why these and not others, with the measurements: docs/relevance.md.
 */
import type { CatalogProduct } from '../catalog/product.js';
import type { ScoredProduct } from '../ports.js';
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
  bigrams: string[];
  /** Character trigrams of the current turn's words. */
  trigrams: string[];
  termSet: Set<string>;
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
  const bigrams: string[] = [];
  for (let i = 0; i + 1 < currentOrdered.length; i++) bigrams.push(`${currentOrdered[i]} ${currentOrdered[i + 1]}`);
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

export interface ProductTerms {
  title: string[];
  titleSet: Set<string>;
  /** Adjacent title terms, "a b". */
  titleBigrams: Set<string>;
  titleTrigrams: Set<string>;
  all: Set<string>;
  /**
   * Terms of the title before its first " in ", " with ", " for ", " - ", "(" or ",". Arrays, not
   * sets: a handful of terms each, kept for every product of the catalog.
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
  const attributes = Object.entries(p.attributes).map(([k, v]) => (v === true ? k : typeof v === 'boolean' ? '' : `${k} ${Array.isArray(v) ? v.join(' ') : String(v)}`));
  const title = lexicalTerms(p.title);
  const all = new Set([...title, ...lexicalTerms([p.brand ?? '', p.category.join(' '), p.description, attributes.join(' ')].join(' '))]);
  const titleBigrams = new Set<string>();
  for (let i = 0; i + 1 < title.length; i++) titleBigrams.add(`${title[i]} ${title[i + 1]}`);
  const canonical = canonicalText(p.title);
  const cut = HEAD_END.exec(canonical);
  const headTerms = lexicalTerms(cut ? canonical.slice(0, cut.index) : canonical);
  const head = [...new Set(headTerms)];
  const tailCut = TAIL_START.exec(canonical);
  const tail = tailCut ? [...new Set(lexicalTerms(canonical.slice(tailCut.index)))].filter((t) => !head.includes(t)) : NO_TERMS;
  const headNoun = headTerms.findLast((t) => !/\d/.test(t));
  const brand = (p.brand ? lexicalTerms(p.brand)[0] : undefined) ?? title[0];
  return { title, titleSet: new Set(title), titleBigrams, titleTrigrams: trigramsOf(wordTokens(p.title)), all, head, headNoun, tail, brand };
}

const NO_TERMS: readonly string[] = Object.freeze([]);
const HEAD_END = /\s(?:in|with|for|w\/)\s|\s[-–]\s|[(,;]/;
const TAIL_START = /\s(?:with|for|w\/)\s/;

export interface FeatureRow {
  product: CatalogProduct;
  terms: ProductTerms;
  /** Features in FEATURE_NAMES order. */
  x: number[];
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

/** How many of `items` are in `set`. */
function countIn(items: readonly string[], set: ReadonlySet<string>): number {
  let n = 0;
  for (let i = 0; i < items.length; i++) if (set.has(items[i]!)) n += 1;
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
  const idfSum = query.terms.reduce((s, t) => s + t.weight, 0) || 1;
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
  // this loop runs for every candidate of every search (measured on 300 Home Depot queries at
  // ~200 candidates: the rank step 2.3 → 2.0 ms).
  const qTerms = query.terms;
  const rows: FeatureRow[] = [];
  for (const product of products.values()) {
    const terms = productTerms(product);
    const lex = lexicalById.get(product.productId);
    const den = denseById.get(product.productId);
    // A product only the full text found has no distance from the vector search; its own vector
    // gives the exact cosine, else the lowest the vector search returned bounds it.
    const vector = vectors.get(product.productId);
    const cosine = den?.cosine ?? (vector && queryVector ? cosineOf(queryVector, vector) : lowestCosine);
    let covered = 0;
    let titleCovered = 0;
    let inTitle = 0;
    let headCovered = 0;
    let tailCovered = 0;
    for (let i = 0; i < qTerms.length; i++) {
      const { term, weight } = qTerms[i]!;
      if (terms.all.has(term)) covered += weight;
      if (terms.titleSet.has(term)) {
        titleCovered += weight;
        inTitle += 1;
      }
      if (terms.head.includes(term)) headCovered += weight;
      if (terms.tail.length > 0 && terms.tail.includes(term)) tailCovered += weight;
    }
    const x = new Array<number>(FEATURE_NAMES.length).fill(0);
    x[FEATURE_INDEX.bm25] = lex ? lex.bm25 / maxBm25 : 0;
    x[FEATURE_INDEX.bm25Query] = lex ? lex.bm25 / idfSum : 0;
    x[FEATURE_INDEX.cosine] = cosine;
    x[FEATURE_INDEX.coverage] = covered / idfSum;
    x[FEATURE_INDEX.titleCoverage] = titleCovered / idfSum;
    x[FEATURE_INDEX.titleShare] = qTerms.length ? inTitle / qTerms.length : 0;
    x[FEATURE_INDEX.allInTitle] = qTerms.length > 0 && inTitle === qTerms.length ? 1 : 0;
    x[FEATURE_INDEX.numbers] = query.numbers.length ? countIn(query.numbers, terms.all) / query.numbers.length : 0.5;
    x[FEATURE_INDEX.lastInTitle] = query.last !== undefined && terms.titleSet.has(query.last) ? 1 : 0;
    x[FEATURE_INDEX.firstInTitle] = query.first !== undefined && terms.titleSet.has(query.first) ? 1 : 0;
    x[FEATURE_INDEX.bigrams] = query.bigrams.length ? countIn(query.bigrams, terms.titleBigrams) / query.bigrams.length : 0;
    x[FEATURE_INDEX.lexicalRank] = lex ? 1 / (1 + lex.rank) : 0;
    x[FEATURE_INDEX.denseRank] = den ? 1 / (1 + den.rank) : 0;
    x[FEATURE_INDEX.inLexical] = lex ? 1 : 0;
    x[FEATURE_INDEX.inDense] = den ? 1 : 0;
    x[FEATURE_INDEX.titleLength] = Math.log(1 + terms.title.length);
    x[FEATURE_INDEX.cosineGap] = cosine - bestCosine;
    x[FEATURE_INDEX.titleTrigrams] = query.trigrams.length ? countIn(query.trigrams, terms.titleTrigrams) / query.trigrams.length : 0;
    x[FEATURE_INDEX.headNoun] = terms.headNoun !== undefined && query.termSet.has(terms.headNoun) ? 1 : 0;
    x[FEATURE_INDEX.headCoverage] = headCovered / idfSum;
    x[FEATURE_INDEX.tailOnly] = tailCovered / idfSum;
    x[FEATURE_INDEX.brandInQuery] = terms.brand !== undefined && query.termSet.has(terms.brand) ? 1 : 0;
    rows.push({ product, terms, x });
  }

  addFeedbackFeatures(rows, vectors, lexicon);
  return rows;
}

/** prfCosine, prfGap and prfTitle: likeness to the first PRF_DEPTH candidates of the first pass. */
function addFeedbackFeatures(rows: FeatureRow[], vectors: Map<string, Float32Array>, lexicon: Lexicon): void {
  const top = rows
    .map((r) => ({ r, s: firstPass(r.x) }))
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
  const titleWeights = new Map<string, number>();
  for (const r of top) for (const t of r.terms.titleSet) titleWeights.set(t, (titleWeights.get(t) ?? 0) + lexicon.idf(t));

  let bestPrf = -1;
  let bestTitle = 1e-9;
  const title = rows.map((r) => {
    let s = 0;
    for (const t of r.terms.titleSet) s += titleWeights.get(t) ?? 0;
    s /= Math.sqrt(r.terms.titleSet.size || 1);
    bestTitle = Math.max(bestTitle, s);
    return s;
  });
  rows.forEach((r) => {
    const v = vectors.get(r.product.productId);
    let cos = 0;
    if (v && dims > 0) cos = dotWith64(centroid, v) / centroidNorm / (normOf(v) || 1);
    r.x[FEATURE_INDEX.prfCosine] = cos;
    bestPrf = Math.max(bestPrf, cos);
  });
  rows.forEach((r, i) => {
    r.x[FEATURE_INDEX.prfGap] = r.x[FEATURE_INDEX.prfCosine]! - bestPrf;
    r.x[FEATURE_INDEX.prfTitle] = title[i]! / bestTitle;
  });
}
