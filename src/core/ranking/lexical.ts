/**
 * Lexical normalisation shared by the full-text index and the query: measures written the way
 * a catalog writes them and the way a person types them must meet on one token. "1/2 in.",
 * "1/2 inch", '1/2"' and "0.5 in" all become `0p5 in0p5`; "2 in. x 4 in. x 8 ft." becomes
 * `2 in2 x 4 in4 x 8 ft8`, so the query "2x4" (`2 x 4`) matches it on both numbers.
 * The number stays a token of its own beside the number-with-unit token, so a query that omits
 * the unit still matches, and one that names it matches more precisely.
 */
import { stemmer } from 'stemmer';
import { PerCatalogVersion } from '../catalog/per-version.js';
import type { CatalogStore } from '../catalog/ports.js';

/** Canonical unit names, longest spellings first so "gallon" is not read as "gal" + "lon". */
export const UNIT_NAMES = [
  'in',
  'ft',
  'lb',
  'oz',
  'gal',
  'qt',
  'cuft',
  'sqft',
  'mm',
  'cm',
  'volt',
  'watt',
  'amp',
  'gauge',
  'btu',
  'gpm',
  'psi',
  'pack',
  'light',
];
const UNITS: readonly [RegExp, string][] = [
  [/^(?:inch(?:es)?|in\.?|"|'')/, 'in'],
  [/^(?:feet|foot|ft\.?|')/, 'ft'],
  [/^(?:pounds?|lbs?\.?)/, 'lb'],
  [/^(?:ounces?|oz\.?)/, 'oz'],
  [/^(?:gallons?|gal\.?)/, 'gal'],
  [/^(?:quarts?|qt\.?)/, 'qt'],
  [/^(?:cu\.?\s?ft\.?|cubic\s+f(?:ee|oo)t)/, 'cuft'],
  [/^(?:sq\.?\s?ft\.?|square\s+f(?:ee|oo)t)/, 'sqft'],
  [/^(?:millimet(?:er|re)s?|mm)/, 'mm'],
  [/^(?:centimet(?:er|re)s?|cm)/, 'cm'],
  [/^(?:volts?|v)/, 'volt'],
  [/^(?:watts?|w)/, 'watt'],
  [/^(?:amperes?|amps?|a)/, 'amp'],
  [/^(?:gauge|gage|ga\.?)/, 'gauge'],
  [/^btus?/, 'btu'],
  [/^gpm/, 'gpm'],
  [/^psi/, 'psi'],
  [/^(?:packs?|pieces?|pcs?|pk|count|ct)/, 'pack'],
  [/^lights?/, 'light'],
];

/** Denominators that make a fraction a measure; "24/7" or "9/11" stay as they are. */
const MEASURE_DENOMINATORS = new Set([2, 3, 4, 8, 16, 32, 64]);

const decimal = (x: number): string => String(Math.round(x * 10_000) / 10_000);

/** Text with measures in one canonical spelling (see the module comment); lower-case. */
export function canonicalText(text: string): string {
  let s = text.normalize('NFKC').toLowerCase().replace(/[″“”]/g, '"').replace(/[′’‘]/g, "'");
  // ".105 trimmer line" → "0.105"
  s = s.replace(/(^|[^\d.])\.(\d)/g, '$10.$2');
  // "1-1/2" and "1 1/2" → 1.5
  s = s.replace(/(\d+)(?:\s+|-)(\d+)\/(\d+)/g, (m, a: string, b: string, c: string) =>
    MEASURE_DENOMINATORS.has(Number(c)) && Number(b) < Number(c) ? decimal(Number(a) + Number(b) / Number(c)) : m,
  );
  s = s.replace(/(\d+)\/(\d+)/g, (m, b: string, c: string) =>
    MEASURE_DENOMINATORS.has(Number(c)) && Number(b) < Number(c) ? decimal(Number(b) / Number(c)) : m,
  );
  // "2x4" → "2 x 4"
  s = s.replace(/(\d)\s*x\s*(?=\d)/g, '$1 x ');
  // A number that starts a word ("12-gauge", "1.5 in."), not the tail of one ("in0p5", "sm-g991u"),
  // followed by a unit that ends a word. The output must come out of this function unchanged
  // (queries pass through it twice), hence the unit-first token: "in0p5" cannot match again.
  s = s.replace(/(?<![\p{L}\p{N}])(\d+(?:\.\d+)?)\s*-?\s*([a-z"'][a-z.]*(?:\s?[a-z.]+)?)(?![\p{L}\p{N}])/gu, (m, num: string, rest: string) => {
    for (const [re, unit] of UNITS) {
      const u = re.exec(rest);
      if (!u) continue;
      const after = rest.slice(u[0].length);
      // "4 inches" yes, "4 amazing" no: the unit must end the word.
      if (/^[a-z]/.test(after) && !u[0].endsWith('.')) continue;
      const n = num.replace('.', 'p');
      return ` ${n} ${unit}${n} ${after}`;
    }
    return m;
  });
  // The full-text tokenizer splits on ".", which would turn 1.5 into 1 and 5.
  return s.replace(/(\d)\.(\d)/g, '$1p$2');
}

/** The stop words of the full-text index (Lucene's English list, which LanceDB's tokenizer uses). */
const INDEX_STOPWORDS = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
);

/** Canonical word tokens without stop words, unstemmed (spelling correction works on these). */
export function wordTokens(text: string): string[] {
  return (canonicalText(text).match(/[\p{L}\p{N}]+/gu) ?? []).filter((t) => !INDEX_STOPWORDS.has(t));
}

const stems = new Map<string, string>();
/** Porter stem, memoised: the same few thousand words recur in every search. */
export function stem(token: string): string {
  let s = stems.get(token);
  if (s === undefined) {
    s = stemmer(token);
    if (stems.size > 200_000) stems.clear();
    stems.set(token, s);
  }
  return s;
}

/** What the lexical features compare: canonical, stop words removed, stemmed. */
export function lexicalTerms(text: string): string[] {
  return wordTokens(text).map(stem);
}

/** Bounded Damerau-Levenshtein distance; returns max + 1 as soon as the distance must exceed max. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const width = b.length + 1;
  if (rows.length < 3 * width) rows = new Int32Array(3 * width * 2);
  // Three rows of one scratch buffer (two back, one back, this one), rotated by offset: the
  // vocabulary scan calls this thousands of times a query, so nothing is allocated per call.
  let prev2 = 0;
  let prev = width;
  let row = 2 * width;
  for (let j = 0; j <= b.length; j++) rows[prev + j] = j;
  for (let i = 1; i <= a.length; i++) {
    const ai = a.charCodeAt(i - 1);
    rows[row] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const bj = b.charCodeAt(j - 1);
      let v = Math.min(rows[prev + j]! + 1, rows[row + j - 1]! + 1, rows[prev + j - 1]! + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) v = Math.min(v, rows[prev2 + j - 2]! + 1);
      rows[row + j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    const free = prev2;
    prev2 = prev;
    prev = row;
    row = free;
  }
  return rows[prev + b.length]!;
}

let rows = new Int32Array(96);

/** The set of letters a–z in a word, as bits. */
function letterMask(word: string): number {
  let mask = 0;
  for (let i = 0; i < word.length; i++) mask |= 1 << (word.charCodeAt(i) - 97);
  return mask;
}

function bitCount(x: number): number {
  let n = 0;
  for (let v = x; v !== 0; v &= v - 1) n++;
  return n;
}

/**
 * A lower bound of the edit distance from the letter sets alone: every letter one word has and
 * the other lacks needs an edit of its own (a transposition adds or removes none). It rules out
 * most of the vocabulary before the distance is computed, and never a word within reach.
 */
const lettersApart = (a: number, b: number) => Math.max(bitCount(a & ~b), bitCount(b & ~a));

export interface Correction {
  from: string;
  to: string;
}

/**
 * How many vocabulary scans one request may still spend on words not corrected before (shared by
 * all its correct() calls). Without it, a long conversation of made-up words costs a scan each.
 */
export interface CorrectionBudget {
  scans: number;
}

/**
 * Document frequencies of the serving catalog's words, built once per catalog version: the IDF
 * that weighs query terms, and the vocabulary that corrects what the catalog has never heard of.
 */
export class Lexicon {
  private readonly wordDf = new Map<string, number>();
  private readonly termDf = new Map<string, number>();
  private readonly byLength = new Map<number, string[]>();
  /** letterMask of each word of byLength, at the same index. */
  private readonly masksByLength = new Map<number, number[]>();
  /** Corrections already worked out: a scan of the vocabulary costs about a millisecond per unknown word. */
  private readonly corrected = new Map<string, string[] | null>();
  private documents = 0;

  /** One text per product: its title, brand, category and description. */
  static build(texts: Iterable<string>): Lexicon {
    const lexicon = new Lexicon();
    for (const text of texts) lexicon.add(text);
    for (const [word, df] of lexicon.wordDf) {
      // Only words seen twice are offered as corrections: a catalog's own typos must not spread.
      if (df < 2 || word.length < 3 || !/^[a-z]+$/.test(word)) continue;
      const list = lexicon.byLength.get(word.length) ?? [];
      const masks = lexicon.masksByLength.get(word.length) ?? [];
      list.push(word);
      masks.push(letterMask(word));
      lexicon.byLength.set(word.length, list);
      lexicon.masksByLength.set(word.length, masks);
    }
    return lexicon;
  }

  private add(text: string): void {
    this.documents++;
    const words = new Set(wordTokens(text));
    for (const w of words) this.wordDf.set(w, (this.wordDf.get(w) ?? 0) + 1);
    for (const t of new Set([...words].map(stem))) this.termDf.set(t, (this.termDf.get(t) ?? 0) + 1);
  }

  get size(): number {
    return this.documents;
  }

  /** BM25's IDF of a stemmed term: ln(1 + (N − df + 0.5) / (df + 0.5)). */
  idf(term: string): number {
    const df = this.termDf.get(term) ?? 0;
    return Math.log(1 + (this.documents - df + 0.5) / (df + 0.5));
  }

  /**
   * Query words the catalog does not know, corrected against it: the most frequent catalog word
   * within one edit (two for words of eight letters or more), or a split into two known words
   * ("harleydavidson"). Adjacent words that the catalog writes as one ("nutri system" →
   * "nutrisystem") are added beside them. Numbers, short words and known words stay as typed.
   */
  correct(words: readonly string[], budget?: CorrectionBudget): { words: string[]; corrections: Correction[] } {
    const out: string[] = [];
    const corrections: Correction[] = [];
    for (const w of words) {
      const fixed = this.correctWord(w, budget);
      if (fixed !== null) corrections.push({ from: w, to: fixed.join(' ') });
      out.push(...(fixed ?? [w]));
    }
    for (let i = 0; i + 1 < words.length; i++) {
      const joined = words[i]! + words[i + 1]!;
      if (/^[a-z]+$/.test(joined) && (this.wordDf.get(joined) ?? 0) >= 2) {
        out.push(joined);
        corrections.push({ from: `${words[i]} ${words[i + 1]}`, to: joined });
      }
    }
    return { words: out, corrections };
  }

  private correctWord(word: string, budget: CorrectionBudget | undefined): string[] | null {
    const known = this.corrected.get(word);
    if (known !== undefined) return known;
    if (!this.needsScan(word)) return null;
    // Past the request's budget a word stays as typed (and is not remembered as uncorrectable).
    if (budget !== undefined) {
      if (budget.scans <= 0) return null;
      budget.scans--;
    }
    const fixed = this.findCorrection(word);
    // Bounded: the words people type are many, but each one is cheap to work out again.
    if (this.corrected.size >= 20_000) this.corrected.clear();
    this.corrected.set(word, fixed);
    return fixed;
  }

  /** Whether `word` is one a correction is looked for: long enough, letters only, and unknown to the catalog. */
  private needsScan(word: string): boolean {
    if (this.documents === 0 || word.length < 4 || !/^[a-z]+$/.test(word)) return false;
    return (this.wordDf.get(word) ?? 0) === 0 && (this.termDf.get(stem(word)) ?? 0) === 0;
  }

  /** A scan of the vocabulary for `word` (which needsScan): about 0.2 ms on a 50k-product catalog. */
  private findCorrection(word: string): string[] | null {
    const max = word.length >= 8 ? 2 : 1;
    let best: string | null = null;
    let bestDistance = max + 1;
    let bestDf = 0;
    const mask = letterMask(word);
    for (let length = word.length - max; length <= word.length + max; length++) {
      const candidates = this.byLength.get(length) ?? [];
      const masks = this.masksByLength.get(length) ?? [];
      for (let k = 0; k < candidates.length; k++) {
        const bound = Math.min(max, bestDistance);
        if (lettersApart(mask, masks[k]!) > bound) continue;
        const candidate = candidates[k]!;
        const d = editDistance(word, candidate, bound);
        const df = this.wordDf.get(candidate)!;
        if (d < bestDistance || (d === bestDistance && d <= max && df > bestDf)) {
          best = candidate;
          bestDistance = d;
          bestDf = df;
        }
      }
    }
    for (let k = 3; k <= word.length - 3; k++) {
      const a = word.slice(0, k);
      const b = word.slice(k);
      const dfa = this.wordDf.get(a) ?? 0;
      const dfb = this.wordDf.get(b) ?? 0;
      // A split into two known words beats a two-edit guess, or a one-edit guess rarer than both halves.
      if (dfa > 0 && dfb > 0 && (best === null || bestDistance > 1 || Math.min(dfa, dfb) > bestDf)) return [a, b];
    }
    return best === null ? null : [best];
  }
}

/** The text of a product that its vocabulary is built from. */
export const productText = (p: { title: string; brand: string | null; category: readonly string[]; description: string }): string =>
  [p.title, p.brand ?? '', p.category.join(' '), p.description].join(' ');

/**
 * The Lexicon of the serving catalog version, rebuilt when the version moves (an import
 * committed). Concurrent searches share one build; until a rebuild finishes they keep the last.
 */
export class CatalogLexicon {
  private readonly current: PerCatalogVersion<Lexicon>;

  constructor(catalog: Pick<CatalogStore, 'info' | 'scanProducts'>) {
    this.current = new PerCatalogVersion(catalog, async () => {
      const texts: string[] = [];
      for await (const batch of catalog.scanProducts()) for (const p of batch) texts.push(productText(p));
      return Lexicon.build(texts);
    });
  }

  get(): Promise<Lexicon> {
    return this.current.get();
  }
}
