/**
 * Requests a catalog writes for itself, and their answers, for fitting a ranking model before
 * anybody has searched it (cold-start.ts). Each request is built from one sampled product — a
 * fragment of its title, its brand and product type, its category leaf, an attribute phrase —
 * and the product, its near-duplicates and (for category and attribute requests) its category
 * siblings are the relevant answers. Everything is seeded, so one catalog gives one set.
 */
import type { CatalogProduct } from '../catalog/product.js';
import { mulberry32 } from '../random.js';
import { lexicalTerms } from '../ranking/lexical.js';
import { variantKey } from '../ranking/ranking.js';

const REQUEST_KINDS = ['head', 'fragment', 'brand-type', 'measure-type', 'category', 'attribute'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];

export interface SyntheticRequest {
  text: string;
  kind: RequestKind;
  source: CatalogProduct;
}

const pick = <T>(items: readonly T[], random: () => number): T => items[Math.floor(random() * items.length)]!;

/** `count` products drawn without replacement, independent of the order the store returned them in. */
export function sampleProducts(products: readonly CatalogProduct[], count: number, random: () => number): CatalogProduct[] {
  const sorted = [...products].sort((a, b) => (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0));
  for (let i = 0; i < Math.min(count, sorted.length); i++) {
    const j = i + Math.floor(random() * (sorted.length - i));
    [sorted[i], sorted[j]] = [sorted[j]!, sorted[i]!];
  }
  return sorted.slice(0, count);
}

/** Where a title's product type ends, as features.ts reads titles: "Brand descriptors type in Colour with ...". */
const HEAD_END = /\s(?:in|with|for|w\/)\s|\s[-–]\s|[(,;]/i;
/** A word that carries a measure or a count: "1/2", "12-gauge", "2x4", "cu.". */
const MEASURE_WORD = /\d/;
const wordsOf = (text: string) =>
  text
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}.]+$/gu, ''))
    .filter((w) => w !== '');

function titleHead(p: CatalogProduct): string[] {
  const cut = HEAD_END.exec(p.title);
  return wordsOf(cut ? p.title.slice(0, cut.index) : p.title);
}

/** The head's words after the brand: "Whirlpool 1.9 cu. ft. Convection Microwave" → "1.9 cu. ft. Convection Microwave". */
function withoutBrand(p: CatalogProduct, head: string[]): string[] {
  const brandWords = p.brand ? wordsOf(p.brand).length : 1;
  const lower = head.map((w) => w.toLowerCase());
  const brand = p.brand ? wordsOf(p.brand).map((w) => w.toLowerCase()) : lower.slice(0, 1);
  return brand.every((w, i) => lower[i] === w) ? head.slice(brandWords) : head;
}

/** The head's last word that is not a measure: the product type. */
const typeWord = (head: readonly string[]) => head.findLast((w) => !MEASURE_WORD.test(w) && /\p{L}{3,}/u.test(w));

const tailOf = (words: readonly string[], n: number) => words.slice(Math.max(0, words.length - n));

/** One request of `kind` from `p`, or null when the product has nothing for it (no brand, no category ...). */
export function requestText(p: CatalogProduct, kind: RequestKind, random: () => number): string | null {
  const head = titleHead(p);
  const rest = withoutBrand(p, head);
  const type = typeWord(rest);
  const leaf = p.category.at(-1);
  let words: string[] | null = null;
  switch (kind) {
    case 'head': {
      // The product type and one to two words before it ("convection microwave"), measures dropped.
      const plain = rest.filter((w) => !MEASURE_WORD.test(w) && w.length > 1);
      words = plain.length >= 2 ? tailOf(plain, 2 + Math.floor(random() * 2)) : null;
      break;
    }
    case 'fragment': {
      const all = wordsOf(p.title);
      if (all.length < 3) return null;
      const n = Math.min(all.length, 2 + Math.floor(random() * 3));
      const start = Math.floor(random() * (all.length - n + 1));
      words = all.slice(start, start + n);
      break;
    }
    case 'brand-type': {
      const brand = p.brand ? wordsOf(p.brand) : head.slice(0, 1);
      words = type && brand.length > 0 && rest !== head ? [...brand, type] : null;
      break;
    }
    case 'measure-type': {
      const at = rest.findIndex((w) => MEASURE_WORD.test(w));
      if (at < 0 || !type) return null;
      // The number and up to two short unit words after it ("1/2 in.", "1.9 cu. ft.", "12-Gauge"), then the type.
      let end = at + 1;
      while (end < at + 3 && rest[end] !== undefined && rest[end] !== type && /^\p{L}{1,4}\.?$/u.test(rest[end]!)) end += 1;
      words = [...rest.slice(at, end), type];
      break;
    }
    case 'category':
      words = leaf ? wordsOf(leaf) : null;
      break;
    case 'attribute': {
      const phrases = Object.entries(p.attributes).flatMap(([k, v]) =>
        typeof v === 'string' && v.length <= 30 && !/^\d/.test(v) ? [v] : v === true ? [k.replace(/[_-]+/g, ' ')] : [],
      );
      const noun = leaf ?? type;
      words = phrases.length > 0 && noun ? [...wordsOf(pick(phrases, random)), ...wordsOf(noun)] : null;
      break;
    }
  }
  const text = words?.join(' ').toLowerCase() ?? '';
  return lexicalTerms(text).length > 0 ? text : null;
}

/**
 * One request per sampled product, of a kind drawn from `kinds` among those the product has
 * material for; products with none are skipped.
 */
export function syntheticRequests(
  products: readonly CatalogProduct[],
  options: { count: number; seed: number; kinds?: readonly RequestKind[] },
): SyntheticRequest[] {
  const random = mulberry32(options.seed);
  const kinds = options.kinds ?? REQUEST_KINDS;
  const out: SyntheticRequest[] = [];
  const seen = new Set<string>();
  for (const source of sampleProducts(products, options.count, random)) {
    const order = [...kinds].sort(() => random() - 0.5);
    for (const kind of order) {
      const text = requestText(source, kind, random);
      if (text === null || seen.has(text)) continue;
      seen.add(text);
      out.push({ text, kind, source });
      break;
    }
  }
  return out;
}

const leafOf = (p: CatalogProduct) => p.category.at(-1)?.toLowerCase() ?? '';

/** Jaccard overlap of two products' title terms. */
function titleOverlap(a: CatalogProduct, b: CatalogProduct): number {
  const x = new Set(lexicalTerms(a.title));
  const y = new Set(lexicalTerms(b.title));
  let both = 0;
  for (const t of x) if (y.has(t)) both += 1;
  return both / Math.max(1, x.size + y.size - both);
}

/** Title overlap from which two products of one category leaf count as the same product (variants, re-listings). */
const NEAR_DUPLICATE_OVERLAP = 0.6;

/**
 * The same product for a shopper: the very product, a colour/size/pack variant of it
 * (ranking.ts's variantKey), or a product of the same category leaf (both uncategorised counts
 * as the same) whose title shares at least NEAR_DUPLICATE_OVERLAP of its terms.
 */
export function isNearDuplicate(source: CatalogProduct, other: CatalogProduct): boolean {
  if (source.productId === other.productId) return true;
  if (leafOf(source) !== leafOf(other)) return false;
  return variantKey(source) === variantKey(other) || titleOverlap(source, other) >= NEAR_DUPLICATE_OVERLAP;
}

/**
 * The grade a request's candidate earns, on the labelled sets' scale (3 best): 3 for the source
 * and its near-duplicates; for a category or attribute request, which every product of the leaf
 * answers, 2 for the leaf's other products; 0 for the rest.
 */
export function syntheticGrade(request: SyntheticRequest, candidate: CatalogProduct): number {
  if (isNearDuplicate(request.source, candidate)) return 3;
  if ((request.kind === 'category' || request.kind === 'attribute') && leafOf(candidate) !== '' && leafOf(candidate) === leafOf(request.source)) return 2;
  return 0;
}
