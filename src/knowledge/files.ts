import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FilterReport, filterKnowledge, type KnowledgeEntry, parseKnowledge } from '../core/knowledge/entries.js';
import { parseTaxonomy, type Taxonomy } from '../core/knowledge/taxonomy.js';

/** What ships in data/ (docs/knowledge.md): the taxonomy, and the knowledge base written for Aisle. */
const DATA = fileURLToPath(new URL('../../data/', import.meta.url));
const TAXONOMY_FILE = join(DATA, 'taxonomy', 'google-product-taxonomy-2021-09-21.txt');
const KNOWLEDGE_DIR = join(DATA, 'knowledge');

export async function loadTaxonomy(file = TAXONOMY_FILE): Promise<Taxonomy> {
  return parseTaxonomy(await readFile(file, 'utf8'));
}

export interface LoadedKnowledge {
  entries: KnowledgeEntry[];
  /** What the filters took out (docs/knowledge.md, "How it was written"). */
  report: FilterReport;
  /** Entries read per file, before the filters. */
  files: { file: string; entries: number }[];
}

/**
 * The shipped knowledge base (every data/knowledge/*.jsonl) and an operator's own files of the same
 * format (AISLE_KNOWLEDGE_FILE), parsed against the taxonomy and filtered. A file with a bad line
 * is refused whole, naming its lines: a typo in an operator's file stops the start rather than
 * silently losing entries.
 */
export async function loadKnowledge(taxonomy: Taxonomy, extraFiles: readonly string[] = [], dir = KNOWLEDGE_DIR): Promise<LoadedKnowledge> {
  const shipped = (await readdir(dir)).filter((f) => f.endsWith('.jsonl')).sort();
  const files = [...shipped.map((f) => join(dir, f)), ...extraFiles];
  const all: KnowledgeEntry[] = [];
  const counts: LoadedKnowledge['files'] = [];
  for (const file of files) {
    const entries = parseKnowledge(await readFile(file, 'utf8'), shipped.includes(basename(file)) ? `data/knowledge/${basename(file)}` : file, taxonomy);
    counts.push({ file, entries: entries.length });
    all.push(...entries);
  }
  const { entries, report } = filterKnowledge(all, taxonomy);
  return { entries, report, files: counts };
}
