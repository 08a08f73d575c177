/**
 * What a catalog says about its own words, for reading a conversation in the catalog's terms
 * (need.ts): how often a word is in product text at all and in titles, how often it is a title's
 * product type (its head noun: "Burr Coffee Grinder in Black" → grinder), and which product types
 * the products that use a word are (a product whose description says "grinds whole beans" is a
 * grinder). Built from the catalog's products alone, per catalog version, so it fits any catalog
 * without labels.
 */

import { PerCatalogVersion } from '../catalog/per-version.js';
import type { CatalogStore } from '../catalog/ports.js';
import type { CatalogProduct } from '../catalog/product.js';
import { canonicalText, lexicalTerms, productText, stem, wordTokens } from '../ranking/lexical.js';

/** Where a title's product type ends, as ranking reads titles: "Brand descriptors type in Colour with …". */
const HEAD_END = /\s(?:in|with|for|w\/)\s|\s[-–]\s|[(,;]/;

/** The product type of a title: its last non-numeric word before HEAD_END, stemmed and as written. */
export function headNounOf(title: string): { term: string; word: string } | undefined {
  const canonical = canonicalText(title);
  const cut = HEAD_END.exec(canonical);
  const word = wordTokens(cut ? canonical.slice(0, cut.index) : canonical).findLast((w) => !/\d/.test(w) && w.length > 2);
  return word === undefined ? undefined : { term: stem(word), word };
}

/** Products read for the word-to-type associations: a sample of a larger catalog says the same. */
const ASSOCIATION_SAMPLE = 60_000;
/** Associations kept per word: the types most often used with it. */
const TYPES_PER_WORD = 12;

const increment = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);

/** A map's entry, made empty on first use. */
function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

export class NeedVocabulary {
  private products = 0;
  private readonly allDf = new Map<string, number>();
  private readonly titleCounts = new Map<string, number>();
  private readonly headCounts = new Map<string, number>();
  /** A type's stem → the word titles most often write it with ("batteri" → "batteries"). */
  private readonly headWord = new Map<string, string>();
  /** term → [type, products of that type using the term][], most frequent first. */
  private readonly types = new Map<string, [string, number][]>();
  private sampled = 0;

  /** All at once, for a catalog held in memory (the import's fit). */
  static build(products: Iterable<CatalogProduct>, total?: number): NeedVocabulary {
    const builder = new NeedVocabularyBuilder(total);
    for (const p of products) builder.add(p);
    return builder.finish();
  }

  /** @internal NeedVocabularyBuilder fills it. */
  static fill(
    v: NeedVocabulary,
    parts: {
      products: number;
      sampled: number;
      allDf: Map<string, number>;
      titleDf: Map<string, number>;
      headDf: Map<string, number>;
      spellings: Map<string, Map<string, number>>;
      pairs: Map<string, Map<string, number>>;
    },
  ): NeedVocabulary {
    v.products = parts.products;
    v.sampled = parts.sampled;
    for (const [k, n] of parts.allDf) v.allDf.set(k, n);
    for (const [k, n] of parts.titleDf) v.titleCounts.set(k, n);
    for (const [k, n] of parts.headDf) v.headCounts.set(k, n);
    const byCount = (a: [string, number], b: [string, number]) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1);
    for (const [head, spellings] of parts.spellings) v.headWord.set(head, [...spellings].sort(byCount)[0]![0]);
    for (const [t, row] of parts.pairs) {
      const top = [...row].filter(([, n]) => n >= 2).sort(byCount);
      if (top.length > 0) v.types.set(t, top.slice(0, TYPES_PER_WORD));
    }
    return v;
  }

  get size(): number {
    return this.products;
  }

  /** Products whose text (title, brand, category, description) has the stemmed term. */
  df(term: string): number {
    return this.allDf.get(term) ?? 0;
  }

  /** Products whose title has the stemmed term. */
  titleDf(term: string): number {
    return this.titleCounts.get(term) ?? 0;
  }

  /** Products whose type (head noun) is the stemmed term. */
  headDf(term: string): number {
    return this.headCounts.get(term) ?? 0;
  }

  /** The word titles most often write a type's stem with. */
  typeWord(term: string): string {
    return this.headWord.get(term) ?? term;
  }

  /** The product types whose products use `term`, with how many of the sampled products do. */
  typesOf(term: string): readonly [string, number][] {
    return this.types.get(term) ?? [];
  }

  /** Products read for typesOf (every product of a catalog up to ASSOCIATION_SAMPLE, else an even sample). */
  get sampledProducts(): number {
    return this.sampled;
  }
}

/** Builds a NeedVocabulary from products one at a time (a catalog scan's batches need not be held). */
export class NeedVocabularyBuilder {
  private products = 0;
  private sampled = 0;
  private next = 0;
  private readonly every: number;
  private readonly allDf = new Map<string, number>();
  private readonly titleDf = new Map<string, number>();
  private readonly headDf = new Map<string, number>();
  private readonly spellings = new Map<string, Map<string, number>>();
  private readonly pairs = new Map<string, Map<string, number>>();

  /** `total`: how many products will come, so that a larger catalog is sampled evenly. */
  constructor(total?: number) {
    this.every = total !== undefined && total > ASSOCIATION_SAMPLE ? total / ASSOCIATION_SAMPLE : 1;
  }

  add(p: CatalogProduct): void {
    const index = this.products++;
    const title = new Set(lexicalTerms(p.title));
    const all = new Set([...title, ...lexicalTerms(productText(p))]);
    for (const t of all) increment(this.allDf, t);
    for (const t of title) increment(this.titleDf, t);
    const head = headNounOf(p.title);
    if (head === undefined) return;
    increment(this.headDf, head.term);
    increment(
      entry(this.spellings, head.term, () => new Map<string, number>()),
      head.word,
    );
    if (index < this.next) return;
    this.next += this.every;
    this.sampled++;
    for (const t of all)
      if (t !== head.term && !/\d/.test(t))
        increment(
          entry(this.pairs, t, () => new Map<string, number>()),
          head.term,
        );
  }

  finish(): NeedVocabulary {
    const { products, sampled, allDf, titleDf, headDf, spellings, pairs } = this;
    return NeedVocabulary.fill(new NeedVocabulary(), { products, sampled, allDf, titleDf, headDf, spellings, pairs });
  }
}

/** The NeedVocabulary of the serving catalog version, rebuilt when the version moves, as CatalogLexicon is. */
export class CatalogVocabulary {
  private readonly current: PerCatalogVersion<NeedVocabulary>;

  constructor(catalog: Pick<CatalogStore, 'info' | 'scanProducts'>) {
    this.current = new PerCatalogVersion(catalog, async (info) => {
      const builder = new NeedVocabularyBuilder(info?.productCount);
      for await (const batch of catalog.scanProducts()) for (const p of batch) builder.add(p);
      return builder.finish();
    });
  }

  get(): Promise<NeedVocabulary> {
    return this.current.get();
  }
}
