/**
 * The knowledge base that ships in data/knowledge/ (docs/knowledge.md): it reads against the
 * taxonomy, covers what it promises after the filters, says so in its README, and was not written
 * from the evaluation conversations.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type KnowledgeEntry, parseKnowledge } from '../../src/core/knowledge/entries.js';
import type { Taxonomy } from '../../src/core/knowledge/taxonomy.js';
import { type LoadedKnowledge, loadKnowledge, loadTaxonomy } from '../../src/knowledge/files.js';

let taxonomy: Taxonomy;
let base: LoadedKnowledge;
beforeAll(async () => {
  taxonomy = await loadTaxonomy();
  base = await loadKnowledge(taxonomy);
});

const relations = (e: KnowledgeEntry) => new Set(e.needs.map((n) => n.relation)).size;

describe('the shipped knowledge base', () => {
  it('covers at least 3,000 product types in 2,000 categories of all 21 verticals, each with 2 names and 8 needs over 3 relations after the filters', () => {
    expect(base.entries.length).toBeGreaterThanOrEqual(3_000);
    expect(new Set(base.entries.map((e) => e.category_id)).size).toBeGreaterThanOrEqual(2_000);
    const verticals = new Set([...taxonomy.values()].map((c) => c.path[0]));
    expect(verticals.size).toBe(21);
    expect(new Set(base.entries.map((e) => taxonomy.get(e.category_id)!.path[0]))).toEqual(verticals);
    const short = base.entries.filter((e) => e.names.length < 2 || e.needs.length < 8 || relations(e) < 3).map((e) => e.type);
    expect(short).toEqual([]);
  });

  it('states in its README the figures the files give', () => {
    const readme = readFileSync('data/knowledge/README.md', 'utf8');
    const needs = base.entries.reduce((n, e) => n + e.needs.length, 0);
    const names = base.entries.reduce((n, e) => n + e.names.length, 0);
    const read = base.files.reduce((n, f) => n + f.entries, 0);
    const categories = new Set(base.entries.map((e) => e.category_id)).size;
    const figure = (n: number) => n.toLocaleString('en-US');
    for (const [what, n] of [
      ['entries read', read],
      ['types', base.entries.length],
      ['needs', needs],
      ['names', names],
      ['categories', categories],
      ['restating', base.report.restating],
      ['shared', base.report.shared],
      ['near-duplicates', base.report.nearDuplicate],
      ['merged types', base.report.mergedTypes],
    ] as const) {
      expect(readme, what).toContain(`${figure(n)} ${what}`);
    }
  });

  it('shares no run of six words with any evaluation conversation', () => {
    const files = ['data/eval/conversation', '../shared/data/eval/conversation']
      .filter((dir) => existsSync(dir))
      .flatMap((dir) =>
        readdirSync(dir)
          .filter((f) => f.endsWith('.jsonl'))
          .map((f) => join(dir, f)),
      );
    const runs = new Set<string>();
    const words = (text: string) => text.toLowerCase().match(/[a-z0-9']+/g) ?? [];
    for (const file of files) {
      for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
        const c = JSON.parse(line) as { query: string; conversation_context?: { content: string }[] };
        for (const text of [c.query, ...(c.conversation_context ?? []).map((t) => t.content)]) {
          const w = words(text);
          for (let i = 0; i + 6 <= w.length; i++) runs.add(w.slice(i, i + 6).join(' '));
        }
      }
    }
    expect(runs.size).toBeGreaterThan(1_000);
    // Every need as written, before the filters: a copied need must not hide behind a filter.
    const written = readdirSync('data/knowledge')
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) => parseKnowledge(readFileSync(join('data/knowledge', f), 'utf8'), f, taxonomy));
    const copied = written.flatMap((e) =>
      e.needs.filter((n) => {
        const w = words(n.text);
        for (let i = 0; i + 6 <= w.length; i++) if (runs.has(w.slice(i, i + 6).join(' '))) return true;
        return false;
      }),
    );
    expect(copied).toEqual([]);
  });
});
