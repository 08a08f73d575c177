/**
 * Placing a product in the Google product taxonomy (docs/ingest.md, "Placement in the taxonomy"):
 * from the category a feed names (an id or a path, used as given), else from its text. The text
 * placement matches the names a category goes by (the knowledge base's product types and names,
 * and the taxonomy's own leaf names) against the product's title, preferring the title's head
 * (the words before "with", "for", "in" or a comma: "Convection Microwave in Stainless Steel" is a
 * microwave) and the longest name there; the category text and the description count for less.
 * Given the product's embedding and its candidates' name embeddings, the whole text votes among
 * the categories its words named: "Plantronics … USB Stereo Corded Headset" is closer to audio
 * headsets than to bicycle headsets (docs/decisions/0026).
 */
import type { Taxonomy } from '../knowledge/taxonomy.js';
import { lexicalTerms } from '../ranking/lexical.js';
import { cosineOf } from '../ranking/vectors.js';
import type { Embedder } from '../shared-ports.js';
import { toEmbeddingInput } from './embedding-text.js';
import { type CatalogProduct, FEED_CATEGORY_ATTRIBUTE, type Placement } from './product.js';

export type { Placement };

/** Category names embedded per call when an import's products name categories not seen before. */
const NAME_BATCH = 256;

/** A name a category goes by, as stemmed terms. */
interface Name {
  terms: readonly string[];
  categoryId: number;
  /** Names written for a product type (the knowledge base) are more specific than a taxonomy leaf's words. */
  fromType: boolean;
}

/** What the text placement reads of a product. */
export interface PlacementText {
  title: string;
  description?: string | null;
  category?: string | null;
  brand?: string | null;
}

/** Where in the product a name was found, and how much that counts. */
const FIELD_WEIGHT = { head: 1, title: 0.6, category: 0.5, description: 0.25 } as const;
/** Words that end a title's head: what follows describes the thing rather than names it. */
const HEAD_END = /\s(?:with|for|in|by|featuring|includes?|and\s+\d)\s|,|\s-\s|\(/i;
/** How much the embedding's vote weighs against the strongest lexical score (1): fitted on the dev split (docs/decisions/0026). */
const VOTE_WEIGHT = 4;
/** The longest name matched, in terms. */
const MAX_NAME_TERMS = 6;

export class TaxonomyPlacer {
  /** Names by their first term, longest first. */
  private readonly byFirst = new Map<string, Name[]>();
  private readonly byPath = new Map<string, number>();

  constructor(
    private readonly taxonomy: Taxonomy,
    types: readonly { categoryId: number; names: readonly string[] }[],
    /** Each category's names embedded (placementNames' texts, same model as the products'): the vote of fromText's `vector`. */
    private readonly nameVectors: ReadonlyMap<number, readonly Float32Array[]> | null = null,
  ) {
    for (const category of taxonomy.values()) {
      this.byPath.set(normalPath(category.path.join(' > ')), category.id);
      for (const part of leafNames(category.path.at(-1)!)) this.add(part, category.id, false);
    }
    for (const type of types) for (const name of type.names) this.add(name, type.categoryId, true);
    for (const names of this.byFirst.values()) names.sort((a, b) => b.terms.length - a.terms.length);
  }

  private add(name: string, categoryId: number, fromType: boolean): void {
    const terms = lexicalTerms(name);
    if (terms.length === 0 || terms.length > MAX_NAME_TERMS) return;
    const list = this.byFirst.get(terms[0]!) ?? [];
    if (!list.some((n) => n.categoryId === categoryId && sameTerms(n.terms, terms))) list.push({ terms, categoryId, fromType });
    this.byFirst.set(terms[0]!, list);
  }

  /** The category a feed names: a taxonomy id ("1604") or path ("Apparel & Accessories > Clothing"), else null. */
  fromFeed(value: string | number | null | undefined): Placement | null {
    if (value === null || value === undefined) return null;
    const text = String(value).trim();
    if (text === '') return null;
    const id = /^\d+$/.test(text) ? Number(text) : this.byPath.get(normalPath(text));
    const category = id === undefined ? undefined : this.taxonomy.get(id);
    return category ? { categoryId: category.id, path: category.path, confidence: 1 } : null;
  }

  /**
   * The category the product's text names most clearly, or null when it names none. With the
   * product's embedding (and name vectors), each named category's score adds VOTE_WEIGHT times the
   * closest of its names to the product, the lexical scores scaled to the strongest. `lexical` is
   * candidates(product), when the caller has it already.
   */
  fromText(product: PlacementText, vector?: Float32Array, lexical: ReadonlyMap<number, number> = this.candidates(product)): Placement | null {
    if (!vector || !this.nameVectors || lexical.size === 0) return this.best(lexical, lexical);
    const strongest = Math.max(...lexical.values());
    const voted = new Map<number, number>();
    for (const [id, score] of lexical) {
      let closest = 0;
      for (const v of this.nameVectors.get(id) ?? []) closest = Math.max(closest, cosineOf(vector, v));
      voted.set(id, score / strongest + VOTE_WEIGHT * closest);
    }
    return this.best(voted, lexical);
  }

  /** Every category the product's text names, with how strongly (see the module comment). */
  candidates(product: PlacementText): Map<number, number> {
    const title = product.title;
    const cut = HEAD_END.exec(title);
    const head = cut && cut.index > 0 ? title.slice(0, cut.index) : title;
    const scores = new Map<number, number>();
    const credit = (text: string | null | undefined, weight: number, headAt: boolean) => {
      if (!text) return;
      const terms = lexicalTerms(text);
      for (const match of this.matches(terms)) {
        // In the head, the name that ends it is the thing itself ("cordless drill bit set" is a set of bits).
        const endsHead = headAt && match.end === terms.length ? 0.5 : 0;
        const score = weight * (match.name.terms.length + (match.name.fromType ? 0.5 : 0) + endsHead);
        scores.set(match.name.categoryId, Math.max(scores.get(match.name.categoryId) ?? 0, score));
      }
    };
    credit(head, FIELD_WEIGHT.head, true);
    credit(title, FIELD_WEIGHT.title, false);
    credit(product.category, FIELD_WEIGHT.category, false);
    credit(product.description?.slice(0, 600), FIELD_WEIGHT.description, false);
    return scores;
  }

  /**
   * The strongest of `scores`, or null for none. Its confidence is half how far it stands above the
   * next (all of it when it stands alone) and half how strongly the words named it (a name of three
   * words or more in the title's head, or a product type's two-word name that ends it, counts in
   * full; one word in the description for little).
   */
  private best(scores: ReadonlyMap<number, number>, lexical: ReadonlyMap<number, number>): Placement | null {
    let best: { id: number; score: number } | null = null;
    let second = 0;
    for (const [id, score] of scores) {
      if (best === null || score > best.score || (score === best.score && id < best.id)) {
        if (best) second = Math.max(second, best.score);
        best = { id, score };
      } else second = Math.max(second, score);
    }
    if (best === null) return null;
    const category = this.taxonomy.get(best.id)!;
    const margin = best.score > 0 ? (best.score - second) / best.score : 0;
    const named = Math.min(lexical.get(best.id) ?? 0, 3) / 3;
    return { categoryId: category.id, path: category.path, confidence: Math.round((margin / 2 + named / 2) * 100) / 100 };
  }

  /** Every name found in `terms`, as contiguous terms, with where it ends. */
  private *matches(terms: readonly string[]): Generator<{ name: Name; end: number }> {
    for (let i = 0; i < terms.length; i++) {
      for (const name of this.byFirst.get(terms[i]!) ?? []) {
        if (i + name.terms.length > terms.length) continue;
        let k = 1;
        while (k < name.terms.length && terms[i + k] === name.terms[k]) k++;
        if (k === name.terms.length) yield { name, end: i + k };
      }
    }
  }
}

/**
 * The names a leaf goes by: "Coffee Makers & Espresso Machines" by both halves; a lone word among
 * longer parts takes their shared word, so "Bath & Beach Towels" goes by "Bath Towels" and
 * "Acne Treatments & Kits" by "Acne Kits", never by "Kits" alone.
 */
function leafNames(leaf: string): string[] {
  const parts = leaf.split(/\s*(?:&|,|\band\b)\s*/).filter((p) => p !== '');
  const longer = parts.filter((p) => p.includes(' '));
  if (parts.length < 2 || longer.length === 0) return parts;
  const noun = longer.at(-1)!.split(' ').at(-1)!;
  const modifier = longer[0]!.split(' ')[0]!;
  return parts.map((p, i) => (p.includes(' ') ? p : i < parts.length - 1 && parts.at(-1)!.includes(' ') ? `${p} ${noun}` : `${modifier} ${p}`));
}

/**
 * The texts whose embeddings vote for each category: the names its product types go by, and its
 * place in the taxonomy (the leaf with its parent, "Headphones & Headsets Headsets").
 */
function placementNames(taxonomy: Taxonomy, types: readonly { categoryId: number; names: readonly string[] }[]): { categoryId: number; text: string }[] {
  const out: { categoryId: number; text: string }[] = [];
  for (const type of types) for (const text of new Set(type.names)) out.push({ categoryId: type.categoryId, text });
  for (const category of taxonomy.values()) out.push({ categoryId: category.id, text: category.path.slice(-2).join(' ').toLowerCase() });
  return out;
}

/**
 * An import's placement (docs/ingest.md, "Placement in the taxonomy"): the feed's own category
 * when it names one in the taxonomy, else the text placement with the product's embedding voting.
 * Category names are embedded the first time a product names their category, by the import's own
 * embedder, and kept for the process: an import embeds only the names its products call on.
 */
export class CatalogPlacer {
  private readonly placer: TaxonomyPlacer;
  private readonly namesOf = new Map<number, string[]>();
  private readonly vectors = new Map<number, Float32Array[]>();

  constructor(
    readonly taxonomy: Taxonomy,
    types: readonly { categoryId: number; names: readonly string[] }[],
    /** The model the products' vectors come from; null places from words alone. */
    private readonly embedder: Embedder | null,
  ) {
    for (const { categoryId, text } of placementNames(taxonomy, types)) {
      const list = this.namesOf.get(categoryId) ?? [];
      list.push(text);
      this.namesOf.set(categoryId, list);
    }
    this.placer = new TaxonomyPlacer(taxonomy, types, embedder === null ? null : this.vectors);
  }

  /** Each product's place (null where neither its feed nor its text names one); `vector` is its embedding, when at hand. */
  async place(items: readonly { product: CatalogProduct; vector: Float32Array | null }[]): Promise<(Placement | null)[]> {
    const fromFeed = items.map(({ product }) => this.placer.fromFeed(feedCategory(product)));
    // Each product's named categories, once: their names are embedded first if new, then they vote.
    const lexical = items.map(({ product }, i) => (fromFeed[i] === null ? this.placer.candidates(placementText(product)) : null));
    if (this.embedder !== null) {
      const missing = new Set<number>();
      items.forEach(({ vector }, i) => {
        if (lexical[i] === null || vector === null) return;
        for (const id of lexical[i]!.keys()) if (!this.vectors.has(id)) missing.add(id);
      });
      await this.embedNames([...missing]);
    }
    return items.map(({ product, vector }, i) => fromFeed[i] ?? this.placer.fromText(placementText(product), vector ?? undefined, lexical[i]!));
  }

  private async embedNames(ids: readonly number[]): Promise<void> {
    const names = ids.flatMap((categoryId) => (this.namesOf.get(categoryId) ?? []).map((text) => ({ categoryId, text })));
    const fresh = new Map<number, Float32Array[]>(ids.map((id) => [id, []]));
    for (let i = 0; i < names.length; i += NAME_BATCH) {
      const batch = names.slice(i, i + NAME_BATCH);
      const vectors = await this.embedder!.embed(batch.map((n) => toEmbeddingInput(n.text)));
      for (const [k, n] of batch.entries()) fresh.get(n.categoryId)!.push(vectors[k]!);
    }
    // Set once all are embedded: a vote never sees some of a category's names.
    for (const [id, list] of fresh) this.vectors.set(id, list);
  }
}

/** The category a product's feed named, as kept among its attributes. */
export function feedCategory(product: Pick<CatalogProduct, 'attributes'>): string | null {
  const value = product.attributes[FEED_CATEGORY_ATTRIBUTE];
  return typeof value === 'string' || typeof value === 'number' ? String(value) : null;
}

const placementText = (p: CatalogProduct): PlacementText => ({ title: p.title, description: p.description, category: p.category.join(' > '), brand: p.brand });

const normalPath = (path: string) =>
  path
    .split('>')
    .map((p) => p.trim().toLowerCase())
    .join(' > ');

const sameTerms = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((t, i) => t === b[i]);
