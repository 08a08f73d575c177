import { describe, expect, it, vi } from 'vitest';
import { CatalogLexicon, canonicalText, editDistance, Lexicon, lexicalTerms, wordTokens } from '../../../src/core/ranking/lexical.js';
import { makeProduct, openTestCatalog, seededRandom, unitVector } from '../../helpers/catalog.js';

describe('canonicalText: one spelling for measures', () => {
  it.each([
    ['1/2 in. x 10 ft. PVC Pipe', ['0p5', 'in0p5', 'x', '10', 'ft10', 'pvc', 'pipe']],
    ['1/2 inch pvc pipe', ['0p5', 'in0p5', 'pvc', 'pipe']],
    ['1/2" pvc', ['0p5', 'in0p5', 'pvc']],
    ['1-1/2 in. copper', ['1p5', 'in1p5', 'copper']],
    ['1 1/2 copper', ['1p5', 'copper']],
    ['2x4', ['2', 'x', '4']],
    ['2 in. x 4 in. x 8 ft. Stud', ['2', 'in2', 'x', '4', 'in4', 'x', '8', 'ft8', 'stud']],
    ['.105 trimmer line', ['0p105', 'trimmer', 'line']],
    ['Whirlpool 1.9 cu. ft. Microwave', ['whirlpool', '1p9', 'cuft1p9', 'microwave']],
    ['12-Gauge Angle', ['12', 'gauge12', 'angle']],
    ['5 gallon bucket', ['5', 'gal5', 'bucket']],
    ['60 Watt bulb', ['60', 'watt60', 'bulb']],
    ["6' x 8' fence panel", ['6', 'ft6', 'x', '8', 'ft8', 'fence', 'panel']],
  ])('%s', (text, tokens) => {
    expect(wordTokens(text)).toEqual(tokens);
  });

  it('leaves numbers that are not measures alone', () => {
    expect(wordTokens('24/7 timer')).toEqual(['24', '7', 'timer']);
    expect(wordTokens('4 amazing lamps')).toEqual(['4', 'amazing', 'lamps']);
    expect(canonicalText('Model 9/11 SM-G991U')).toContain('9/11');
  });

  it('is idempotent: canonical text stays as it is (a query is canonicalised again by the full-text search)', () => {
    for (const text of [
      '1/2 in. x 10 ft. PVC Pipe',
      '1-1/2 in. copper',
      '2x4',
      'Whirlpool 1.9 cu. ft.',
      '12-Gauge Angle',
      "6' x 8' fence",
      '3x30x.75 in. filler',
    ]) {
      const once = canonicalText(text);
      expect(wordTokens(once), text).toEqual(wordTokens(text));
      expect(canonicalText(once).trim().split(/\s+/), text).toEqual(once.trim().split(/\s+/));
    }
  });

  it('stems after canonicalising, so the index and the query agree', () => {
    expect(lexicalTerms('Running Shoes, 1/2 in.')).toEqual(['run', 'shoe', '0p5', 'in0p5']);
  });
});

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and transpositions, bounded', () => {
    expect(editDistance('drill', 'drill', 2)).toBe(0);
    expect(editDistance('dril', 'drill', 2)).toBe(1);
    expect(editDistance('drlil', 'drill', 2)).toBe(1);
    expect(editDistance('brill', 'drill', 2)).toBe(1);
    expect(editDistance('screwdrvier', 'screwdriver', 2)).toBe(1);
    expect(editDistance('abc', 'xyzzy', 2)).toBe(3);
  });

  it('agrees with the textbook recurrence on random words, long ones included', () => {
    // Optimal string alignment distance, one fresh table per pair: the definition, unoptimised.
    const reference = (a: string, b: string) => {
      const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
      for (let i = 1; i <= a.length; i++) {
        for (let j = 1; j <= b.length; j++) {
          d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
          if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
        }
      }
      return d[a.length]![b.length]!;
    };
    let seed = 7;
    const random = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    const word = (n: number) => Array.from({ length: n }, () => 'abcd'[Math.floor(random() * 4)]).join('');
    for (let k = 0; k < 2000; k++) {
      const a = word(1 + Math.floor(random() * (k % 50 === 0 ? 120 : 9)));
      const b = random() < 0.5 ? word(1 + Math.floor(random() * 9)) : a.slice(0, -1) + word(1);
      const max = Math.floor(random() * 4);
      const d = reference(a, b);
      // Within the bound the distance itself; beyond it only "more than max" is promised.
      if (d <= max) expect(editDistance(a, b, max), `${a} ${b} ${max}`).toBe(d);
      else expect(editDistance(a, b, max), `${a} ${b} ${max}`).toBeGreaterThan(max);
    }
  });
});

describe('Lexicon', () => {
  const lexicon = Lexicon.build([
    'Harley Davidson Shovelheads',
    'Harley Davidson Twin Cam',
    'Nutrisystem vanilla shakes',
    'Nutrisystem weight loss kit',
    'Cordless drill driver',
    'Cordless drill kit',
    'Hammer drill',
    'Screwdriver set',
    'Screwdriver bits',
    'Garden hose',
    'Garden hose reel',
    'Dril typo only once',
  ]);

  it('corrects words the catalog does not know to its most frequent word within one edit, two for long words', () => {
    expect(lexicon.correct(['cordles', 'drll']).words).toEqual(['cordless', 'drill']);
    // "Dril" is in the catalog once: a known word stays as typed, but one-off words are never offered as corrections.
    expect(lexicon.correct(['dril']).words).toEqual(['dril']);
    expect(lexicon.correct(['screwdrvier']).words).toEqual(['screwdriver']);
    expect(lexicon.correct(['gardne', 'hoes']).corrections).toEqual([
      { from: 'gardne', to: 'garden' },
      { from: 'hoes', to: 'hose' },
    ]);
  });

  it('splits a run-together word and joins words the catalog writes as one', () => {
    expect(lexicon.correct(['harleydavidson']).words).toEqual(['harley', 'davidson']);
    expect(lexicon.correct(['nutri', 'system']).words).toEqual(['nutri', 'system', 'nutrisystem']);
  });

  it('leaves known words, numbers and short words as typed', () => {
    expect(lexicon.correct(['garden', 'hose', 'in0p5', 'kti']).corrections).toEqual([]);
  });

  it("spends at most the request's budget of vocabulary scans; remembered corrections cost none", () => {
    const fresh = Lexicon.build(['Cordless drill', 'Cordless drill kit', 'Garden hose', 'Garden hose reel', 'Screwdriver set', 'Screwdriver bits']);
    const budget = { scans: 2 };
    expect(fresh.correct(['cordles', 'drll', 'gardne', 'drill'], budget).words).toEqual(['cordless', 'drill', 'gardne', 'drill']);
    expect(budget.scans).toBe(0);
    // Known words, short words and numbers never needed a scan; corrections already made are remembered.
    expect(fresh.correct(['cordles', 'drll', 'hose', 'kit', '12'], { scans: 0 }).words).toEqual(['cordless', 'drill', 'hose', 'kit', '12']);
    // A word left as typed for want of budget was not remembered as uncorrectable.
    expect(fresh.correct(['gardne'], { scans: 1 }).words).toEqual(['garden']);
  });

  it('weighs rare terms more than common ones', () => {
    expect(lexicon.idf('shovelhead')).toBeGreaterThan(lexicon.idf('drill'));
    expect(lexicon.size).toBe(12);
  });
});

describe('CatalogLexicon', () => {
  it('builds once per catalog version and rebuilds when an import moves it', async () => {
    const catalog = await openTestCatalog();
    try {
      // Imports through the catalog's own writer: each commit is a new serving version.
      const importTitles = async (titles: string[]) => {
        const random = seededRandom(titles.length);
        const writer = await catalog.openWriter({ model: 'test-model', dimensions: 8, replace: true });
        await writer.write(
          titles.map((title, i) => ({ product: makeProduct(i, { title, brand: null, category: [], description: '' }), vector: unitVector(random, 8) })),
        );
        return writer.commit();
      };
      const first = await importTitles(['Cordless drill', 'Cordless drill kit']);
      // The real scan, counted.
      const scans = vi.spyOn(catalog, 'scanProducts');
      const lexicons = new CatalogLexicon(catalog);
      const [a, b] = await Promise.all([lexicons.get(), lexicons.get()]);
      expect(a).toBe(b);
      expect(scans).toHaveBeenCalledTimes(1);
      expect(a.correct(['cordles']).words).toEqual(['cordless']);
      expect(await lexicons.get()).toBe(a);
      expect(scans).toHaveBeenCalledTimes(1);

      const second = await importTitles(['Garden hose', 'Garden hose reel']);
      expect(second.version).toBeGreaterThan(first.version);
      // Searches keep the last vocabulary while the new one is built, then get the new one.
      expect(await lexicons.get()).toBe(a);
      const next = await vi.waitUntil(
        async () => {
          const current = await lexicons.get();
          return current !== a ? current : null;
        },
        { timeout: 10_000, interval: 5 },
      );
      expect(scans).toHaveBeenCalledTimes(2);
      expect(next.correct(['gardne']).words).toEqual(['garden']);
      expect(next.correct(['cordles']).words).toEqual(['cordles']);
    } finally {
      await catalog.close();
    }
  });
});
