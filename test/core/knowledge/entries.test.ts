import { describe, expect, it } from 'vitest';
import { filterKnowledge, type KnowledgeEntry, parseKnowledge } from '../../../src/core/knowledge/entries.js';
import { parseTaxonomy } from '../../../src/core/knowledge/taxonomy.js';

const taxonomy = parseTaxonomy(`# Google_Product_Taxonomy_Version: 2021-09-21
1 - Animals & Pet Supplies
2 - Animals & Pet Supplies > Pet Supplies
6 - Animals & Pet Supplies > Pet Supplies > Fish Supplies
500062 - Animals & Pet Supplies > Pet Supplies > Fish Supplies > Aquarium Temperature Controllers
536 - Home & Garden
638 - Home & Garden > Kitchen & Dining
668 - Home & Garden > Kitchen & Dining > Kitchen Tools & Utensils
3 - Sporting Goods
4 - Sporting Goods > Outdoor Recreation
`);

const entry = (type: string, category_id: number, names: string[], needs: [string, string][]): KnowledgeEntry => ({
  type,
  category_id,
  names,
  needs: needs.map(([relation, text]) => ({ relation: relation as KnowledgeEntry['needs'][number]['relation'], text })),
});

describe('parseTaxonomy', () => {
  it('reads each category with its path from the top-level vertical', () => {
    expect(taxonomy.get(500062)).toEqual({ id: 500062, path: ['Animals & Pet Supplies', 'Pet Supplies', 'Fish Supplies', 'Aquarium Temperature Controllers'] });
    expect(taxonomy.size).toBe(9);
  });

  it('refuses a line that is not an id and a path, naming it', () => {
    expect(() => parseTaxonomy('1 - Animals\nAnimals > Pets\n')).toThrow('taxonomy line 2 is not "ID - Top > … > Category": Animals > Pets');
  });
});

describe('parseKnowledge', () => {
  it('reads one entry a line, skipping blank lines', () => {
    const line = JSON.stringify(
      entry('aquarium heater', 500062, ['aquarium heater', 'fish tank heater'], [['problem', 'the water in my tropical tank feels too cold']]),
    );
    expect(parseKnowledge(`${line}\n\n${line}\n`, 'k.jsonl', taxonomy)).toHaveLength(2);
  });

  it('refuses the whole file, naming each bad line: not JSON, a field out of shape, an unknown relation or category', () => {
    const good = entry('whisk', 668, ['whisk', 'egg beater'], [['function', 'beat eggs fluffy for an omelette']]);
    const lines = [
      JSON.stringify(good),
      '{"type": "whisk",',
      JSON.stringify({ ...good, names: [] }),
      JSON.stringify({ ...good, needs: [{ relation: 'mood', text: 'when I feel like baking' }] }),
      JSON.stringify({ ...good, category_id: 999999 }),
      JSON.stringify({ ...good, colour: 'silver' }),
    ];
    let message = '';
    try {
      parseKnowledge(lines.join('\n'), 'mine.jsonl', taxonomy);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^knowledge file mine\.jsonl has 5 bad lines:/);
    expect(message).toContain('mine.jsonl:2: not JSON');
    expect(message).toContain('mine.jsonl:3: names: Too small');
    expect(message).toContain('mine.jsonl:4: needs.0.relation: Invalid option');
    expect(message).toContain('mine.jsonl:5: category_id 999999 is not in the taxonomy');
    expect(message).toContain('mine.jsonl:6: entry: Unrecognized key: "colour"');
  });
});

describe('filterKnowledge', () => {
  it('drops a need that only restates the type’s names, and keeps one in the shopper’s own words', () => {
    const { entries, report } = filterKnowledge(
      [
        entry(
          'aquarium heater',
          500062,
          ['aquarium heater', 'fish tank heater'],
          [
            ['function', 'a heater for my aquarium'],
            ['function', 'I need a fish tank heater'],
            ['problem', 'the water in my tropical tank feels too cold'],
          ],
        ),
      ],
      taxonomy,
    );
    expect(entries[0]!.needs.map((n) => n.text)).toEqual(['the water in my tropical tank feels too cold']);
    expect(report.restating).toBe(2);
  });

  it('drops a need that types of three unrelated branches share, but not one shared within a branch', () => {
    const common: [string, string] = ['occasion', 'a great birthday present'];
    const { entries, report } = filterKnowledge(
      [
        entry('aquarium heater', 500062, ['aquarium heater', 'tank heater'], [common, ['problem', 'my guppies are sluggish in winter']]),
        entry('whisk', 668, ['whisk', 'egg beater'], [common, ['function', 'beat egg whites stiff'], ['place', 'in a small kitchen drawer']]),
        entry(
          'garlic press',
          668,
          ['garlic press', 'garlic crusher'],
          [
            ['place', 'in a small kitchen drawer'],
            ['problem', 'sticky fingers from mincing cloves'],
          ],
        ),
        entry('tent', 4, ['tent', 'backpacking tent'], [common, ['activity', 'sleeping out on a two night hike']]),
      ],
      taxonomy,
    );
    expect(report.shared).toBe(3);
    expect(entries.flatMap((e) => e.needs.map((n) => n.text))).not.toContain('a great birthday present');
    // Two types of the same branch (Kitchen & Dining) may share a need.
    expect(entries.filter((e) => e.needs.some((n) => n.text === 'in a small kitchen drawer'))).toHaveLength(2);
  });

  it('drops a near-duplicate need of the same type and merges a type written twice', () => {
    const { entries, report } = filterKnowledge(
      [
        entry('whisk', 668, ['whisk', 'Egg Beater'], [['function', 'beat egg whites into stiff peaks']]),
        entry(
          'Whisk',
          668,
          ['egg beater', 'balloon whisk'],
          [
            ['function', 'beat the egg whites into stiff peaks'],
            ['activity', 'making meringue for a pavlova'],
          ],
        ),
      ],
      taxonomy,
    );
    expect(report).toMatchObject({ mergedTypes: 1, nearDuplicate: 1, duplicateNames: 1 });
    expect(entries).toEqual([
      entry(
        'whisk',
        668,
        ['whisk', 'egg beater', 'balloon whisk'],
        [
          ['function', 'beat egg whites into stiff peaks'],
          ['activity', 'making meringue for a pavlova'],
        ],
      ),
    ]);
  });

  it('drops a type left with no need', () => {
    const { entries, report } = filterKnowledge([entry('whisk', 668, ['whisk', 'egg whisk'], [['function', 'an egg whisk']])], taxonomy);
    expect(entries).toEqual([]);
    expect(report.emptyTypes).toBe(1);
  });
});
