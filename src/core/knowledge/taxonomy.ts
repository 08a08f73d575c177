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
