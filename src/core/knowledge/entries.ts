/**
 * The shopper's knowledge base (docs/knowledge.md): one product type a line, keyed on the Google
 * product taxonomy, with the names people and catalogs use and needs in a shopper's own voice.
 * Parsing and the filters here are pure; src/knowledge/ reads the files.
 */
import { z } from 'zod';
import { stem, wordTokens } from '../ranking/lexical.js';
import { TALK_WORDS } from '../understanding/words.js';
import type { Taxonomy } from './taxonomy.js';

const RELATIONS = ['function', 'problem', 'activity', 'occasion', 'place', 'audience', 'used_with'] as const;
export type Relation = (typeof RELATIONS)[number];

const KnowledgeEntrySchema = z
  .object({
    type: z.string().trim().min(2).max(80),
    category_id: z.number().int().positive(),
    names: z.array(z.string().trim().min(2).max(80)).min(1).max(30),
    needs: z
      .array(z.object({ relation: z.enum(RELATIONS), text: z.string().trim().min(3).max(200) }).strict())
      .min(1)
      .max(60),
  })
  .strict();
export type KnowledgeEntry = z.infer<typeof KnowledgeEntrySchema>;

/** How many lines' problems a failed parse lists before "and N more". */
const LISTED_PROBLEMS = 10;

/**
 * Reads a knowledge file's lines; every line must be an entry whose category is in the taxonomy.
 * Throws one Error listing the first problems by `source:line`, so a bad file is refused whole.
 */
export function parseKnowledge(text: string, source: string, taxonomy: Taxonomy): KnowledgeEntry[] {
  const entries: KnowledgeEntry[] = [];
  const problems: string[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const where = `${source}:${i + 1}`;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (err) {
      problems.push(`${where}: not JSON (${(err as Error).message})`);
      continue;
    }
    const parsed = KnowledgeEntrySchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      problems.push(`${where}: ${issue.path.join('.') || 'entry'}: ${issue.message}`);
    } else if (!taxonomy.has(parsed.data.category_id)) problems.push(`${where}: category_id ${parsed.data.category_id} is not in the taxonomy`);
    else entries.push(parsed.data);
  }
  if (problems.length > 0) {
    const more = problems.length > LISTED_PROBLEMS ? `\n  and ${problems.length - LISTED_PROBLEMS} more` : '';
    throw new Error(`knowledge file ${source} has ${problems.length} bad lines:\n  ${problems.slice(0, LISTED_PROBLEMS).join('\n  ')}${more}`);
  }
  return entries;
}

/** The stems of a text's content words: its words less the words of talk, as the search reads them. */
export function contentStems(text: string): string[] {
  return [
    ...new Set(
      wordTokens(text.toLowerCase())
        .filter((w) => w.length > 1 && !TALK_WORDS.has(w))
        .map(stem),
    ),
  ];
}

export interface FilterOptions {
  /** A need met in types from this many different branches (second-level categories) or more is too common to tell them apart. */
  sharedBranches: number;
  /** Two needs of a type whose content stems overlap this much (Jaccard) say the same thing: the later goes. */
  nearDuplicate: number;
}

const FILTER_DEFAULTS: Readonly<FilterOptions> = Object.freeze({ sharedBranches: 3, nearDuplicate: 0.75 });

export interface FilterReport {
  /** Entries of a type already seen, merged into the first (names and needs joined). */
  mergedTypes: number;
  /** Needs whose content words are all the type's own names' words: they tell nothing the name does not. */
  restating: number;
  /** Needs met in types of `sharedBranches` or more unrelated branches. */
  shared: number;
  /** Needs saying what an earlier need of the type says. */
  nearDuplicate: number;
  /** Names repeated within a type. */
  duplicateNames: number;
  /** Types left without a need. */
  emptyTypes: number;
}

const jaccard = (a: readonly string[], b: readonly string[]): number => {
  const set = new Set(a);
  const shared = b.filter((w) => set.has(w)).length;
  return shared / (a.length + b.length - shared || 1);
};

/**
 * The filters COSMO applies to machine-written knowledge, for ours: merge repeated types, drop a
 * need that only restates the type's names, a need that many unrelated types share, and a need
 * that repeats an earlier one of its type. Pure: the same entries give the same result.
 */
export function filterKnowledge(
  entries: readonly KnowledgeEntry[],
  taxonomy: Taxonomy,
  options: FilterOptions = FILTER_DEFAULTS,
): { entries: KnowledgeEntry[]; report: FilterReport } {
  const report: FilterReport = { mergedTypes: 0, restating: 0, shared: 0, nearDuplicate: 0, duplicateNames: 0, emptyTypes: 0 };
  const byType = new Map<string, KnowledgeEntry>();
  for (const e of entries) {
    const key = e.type.toLowerCase();
    const seen = byType.get(key);
    if (seen === undefined) byType.set(key, { ...e, type: key, names: [...e.names], needs: [...e.needs] });
    else {
      report.mergedTypes += 1;
      seen.names.push(...e.names);
      seen.needs.push(...e.needs);
    }
  }
  const branch = (id: number) => (taxonomy.get(id)?.path ?? []).slice(0, 2).join(' > ');
  // Which branches each need's words occur in, across the whole base.
  const branchesOf = new Map<string, Set<string>>();
  for (const e of byType.values()) {
    for (const need of e.needs) {
      const key = contentStems(need.text).sort().join(' ');
      const set = branchesOf.get(key) ?? new Set<string>();
      set.add(branch(e.category_id));
      branchesOf.set(key, set);
    }
  }
  const kept: KnowledgeEntry[] = [];
  for (const e of byType.values()) {
    const names = [...new Set(e.names.map((n) => n.toLowerCase()))];
    report.duplicateNames += e.names.length - names.length;
    const nameStems = new Set([e.type, ...names].flatMap(contentStems));
    const needs: KnowledgeEntry['needs'] = [];
    const keptStems: string[][] = [];
    for (const need of e.needs) {
      const stems = contentStems(need.text);
      if (stems.every((s) => nameStems.has(s))) report.restating += 1;
      else if ((branchesOf.get([...stems].sort().join(' '))?.size ?? 0) >= options.sharedBranches) report.shared += 1;
      else if (keptStems.some((k) => jaccard(k, stems) >= options.nearDuplicate)) report.nearDuplicate += 1;
      else {
        needs.push(need);
        keptStems.push(stems);
      }
    }
    if (needs.length === 0) report.emptyTypes += 1;
    else kept.push({ ...e, names, needs });
  }
  return { entries: kept, report };
}
