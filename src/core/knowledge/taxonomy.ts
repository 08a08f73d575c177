/**
 * The Google product taxonomy (data/taxonomy/, docs/knowledge.md): the categories Merchant Center
 * feeds name, one a line as `ID - Top > … > Category` after a version header.
 */
interface TaxonomyCategory {
  id: number;
  /** From the top-level vertical down to this category. */
  path: readonly string[];
}

export type Taxonomy = ReadonlyMap<number, TaxonomyCategory>;

/** Parses the taxonomy's "with ids" text; throws naming the line of one that does not read. */
export function parseTaxonomy(text: string): Taxonomy {
  const categories = new Map<number, TaxonomyCategory>();
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    if (line.trim() === '' || line.startsWith('#')) return;
    const m = /^(\d+) - (.+)$/.exec(line);
    if (!m) throw new Error(`taxonomy line ${i + 1} is not "ID - Top > … > Category": ${line.slice(0, 80)}`);
    categories.set(Number(m[1]), { id: Number(m[1]), path: m[2]!.split(' > ') });
  });
  return categories;
}

/** Most subtrees one category filter or policy entry stands for ("accessories" names hundreds of categories). */
const MAX_SUBTREES = 100;

/** Each category's own name as stemmed terms, per taxonomy: built at the first word filter. */
const leafTerms = new WeakMap<Taxonomy, { category: TaxonomyCategory; terms: Set<string> }[]>();

/**
 * The taxonomy subtrees a category filter names (docs/search.md, "Filters"): an id ("638"), a path
 * ("Home & Garden > Kitchen & Dining", any case), or words ("kitchen"): every category whose own
 * name has them all ("Kitchen & Dining", "Kitchen Appliances", …), less those under another that
 * matched, at most MAX_SUBTREES. Empty when it names none.
 */
export function namedSubtrees(taxonomy: Taxonomy, text: string, terms: (text: string) => string[]): (readonly string[])[] {
  const value = text.trim();
  if (/^\d+$/.test(value)) {
    const category = taxonomy.get(Number(value));
    return category ? [category.path] : [];
  }
  const fold = (s: string) => s.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
  if (value.includes('>')) {
    const wanted = value.split('>').map(fold).join(' > ');
    for (const category of taxonomy.values()) if (category.path.map(fold).join(' > ') === wanted) return [category.path];
    return [];
  }
  const wanted = terms(value);
  if (wanted.length === 0) return [];
  let index = leafTerms.get(taxonomy);
  if (index === undefined) {
    index = [...taxonomy.values()].map((category) => ({ category, terms: new Set(terms(category.path.at(-1)!)) }));
    leafTerms.set(taxonomy, index);
  }
  const matched = index.filter((c) => wanted.every((t) => c.terms.has(t))).map((c) => c.category.path);
  return topmost(matched).slice(0, MAX_SUBTREES);
}

/** The paths not under another of them: each subtree once. */
export function topmost(paths: readonly (readonly string[])[]): (readonly string[])[] {
  const keys = new Set(paths.map((p) => p.join(' > ')));
  return paths.filter((p) => !p.some((_, i) => i < p.length - 1 && keys.has(p.slice(0, i + 1).join(' > '))));
}
