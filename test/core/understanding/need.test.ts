import { describe, expect, it } from 'vitest';
import { isProductQuery, type Turn, understandNeed, withoutNegated } from '../../../src/core/understanding/need.js';
import { NeedVocabulary } from '../../../src/core/understanding/vocabulary.js';
import { makeProduct } from '../../helpers/catalog.js';

// A small catalog of its own, so each rule of need.ts shows on its own (docs/search.md, "Conversations").
const products = [
  ...Array.from({ length: 6 }, (_, i) =>
    makeProduct(i, {
      title: `Acme Burr Coffee Grinder ${i}`,
      description: 'Grinds whole beans for espresso and drip coffee.',
      category: ['Kitchen', 'Coffee'],
    }),
  ),
  ...Array.from({ length: 6 }, (_, i) =>
    makeProduct(10 + i, { title: `Roast Co Whole Coffee Beans ${i}`, description: 'Dark roast beans.', category: ['Grocery'] }),
  ),
  ...Array.from({ length: 6 }, (_, i) =>
    makeProduct(20 + i, {
      title: `Perch Wild Bird Feeder ${i}`,
      description: 'Holds sunflower seed for finches and other birds in the yard.',
      category: ['Garden'],
    }),
  ),
  ...Array.from({ length: 6 }, (_, i) =>
    makeProduct(30 + i, { title: `Trailmark Men's Trail Running Shoe ${i}`, description: 'Grippy outsole for muddy trails.', category: ['Footwear'] }),
  ),
  ...Array.from({ length: 4 }, (_, i) =>
    makeProduct(40 + i, { title: `Summit Tent ${i}`, description: 'A two-person tent for camping.', category: ['Outdoor'] }),
  ),
];
const vocabulary = NeedVocabulary.build(products);
const words = (query: string, context: Turn[] = []) => understandNeed(query, context, { vocabulary }).words.map((w) => w.word);
const user = (content: string): Turn => ({ role: 'user', content });

describe('withoutNegated', () => {
  it.each([
    ['We want a grill, but not a gas grill this time, charcoal please', 'gas grill'],
    ["I don't want another plastic one.", 'plastic one'],
    ['something instead of a space heater for the office', 'space heater'],
    ['Not a desk lamp, a floor lamp', 'desk lamp'],
  ])('blanks what "%s" does not want (%s)', (text, negated) => {
    const kept = withoutNegated(text);
    expect(kept).toHaveLength(text.length);
    expect(kept).not.toContain(negated);
    expect(text).toContain(negated);
  });

  it.each(["I'm not sure which tent", 'not too expensive though', "I'm not a fan of bright colors", 'I have no cookware at all, I need the basics'])(
    'keeps "%s", which negates no product',
    (text) => {
      expect(withoutNegated(text)).toBe(text);
    },
  );

  it('leaves a named product out of the need words when the person says they do not want it', () => {
    expect(words("We're going camping. I'd like something to sleep in, not a tent though, we have one.")).not.toContain('tent');
    expect(words("We're going camping. I'd like a tent for two.")).toContain('tent');
  });
});

describe('understandNeed', () => {
  it('passes a product query through as typed, and reads anything with talk as a conversation', () => {
    expect(isProductQuery('coffee grinder', [])).toBe(true);
    expect(isProductQuery('trash can lids', [])).toBe(true);
    expect(isProductQuery('i robot', [])).toBe(true);
    expect(isProductQuery('I need a coffee grinder', [])).toBe(false);
    expect(isProductQuery('which grinder is best?', [])).toBe(false);
    expect(isProductQuery('coffee grinder', [user('hi')])).toBe(false);
    expect(isProductQuery('Need a new garden hose that reaches the back beds', [])).toBe(false);
    expect(isProductQuery('a garden hose that reaches the back beds and does not kink when pulled', [])).toBe(false);
    expect(isProductQuery('1/2 in. x 12in. black steel schedule 40 cut pipe for the gas line', [])).toBe(true);
    const need = understandNeed('coffee grinder', [], { vocabulary });
    expect(need).toMatchObject({ kind: 'query', interpreted: 'coffee grinder' });
  });

  it('keeps the words the catalog uses and drops the words of talk', () => {
    const need = understandNeed('I realised I have nothing to grind them with', [user('I just bought whole coffee beans.')], { vocabulary });
    expect(need.kind).toBe('conversation');
    const said = need.words.map((w) => w.word);
    expect(said).toEqual(expect.arrayContaining(['coffee', 'beans']));
    for (const talk of ['realised', 'nothing', 'bought', 'just', 'i']) expect(said).not.toContain(talk);
    expect(need.interpreted.split(' ')).toEqual(said);
  });

  it('adds the product type the catalog associates with the words, and says it was inferred', () => {
    const need = understandNeed('how do I get more of them to visit the yard?', [user('I love watching birds from my window.')], { vocabulary });
    const feeder = need.words.find((w) => w.word === 'feeder');
    expect(feeder, need.interpreted).toMatchObject({ source: 'type', turn: null });
  });

  it('weighs the last message over earlier turns, and the person over the assistant', () => {
    const need = understandNeed('a tent, which one?', [user('We want grippy trail shoes.'), { role: 'assistant', content: 'Or a coffee grinder?' }], {
      vocabulary,
    });
    const weight = (w: string) => need.words.find((x) => x.word === w)?.weight ?? 0;
    expect(weight('tent')).toBe(1);
    expect(weight('trail')).toBeGreaterThan(0);
    expect(weight('trail')).toBeLessThan(weight('tent'));
    expect(weight('grinder')).toBeLessThan(weight('trail'));
    expect(need.words.find((x) => x.word === 'trail')?.turn).toBe('We want grippy trail shoes.');
  });

  it('lets a last message that names what it wants outweigh the earlier turns further', () => {
    const context = [user('We want grippy trail shoes.')];
    const named = understandNeed('I need a tent', context, { vocabulary }).words.find((w) => w.word === 'trail')?.weight ?? 0;
    const open = understandNeed('what else for the trip?', context, { vocabulary }).words.find((w) => w.word === 'trail')?.weight ?? 0;
    expect(named).toBeLessThan(open);
  });

  it('reads a recipient as the modifier it means, where the catalog uses it, and dates as nothing', () => {
    const said = words('a gift for my dad who likes coffee, by Saturday');
    expect(said).toContain('coffee');
    expect(said).not.toContain('dad');
    expect(said).not.toContain('saturday');
    // The modifier counts a little: enough when little else is said ("Men's" is in the trail shoes' titles).
    expect(words('what should I get my dad for the trail?')).toEqual(expect.arrayContaining(['trail', 'mens']));
    // A catalog without "girls" gets nothing from a daughter.
    expect(words('what should I get my daughter for the trail?')).not.toContain('girls');
  });

  it('reads a gerund before a noun as the kind of thing, not an action', () => {
    expect(words('I need trail running shoes')).toEqual(['trail', 'running', 'shoes']);
  });

  it('corrects a word the catalog has never seen, when a correction is offered', () => {
    const need = understandNeed('I want a coffe grindr', [], {
      vocabulary,
      correct: (w) => ({ coffe: ['coffee'], grindr: ['grinder'] })[w] ?? null,
    });
    expect(need.words.map((w) => w.word)).toEqual(['coffee', 'grinder']);
  });

  it('reads only the latest turns of a long conversation', () => {
    const context = [user('I need a tent'), ...Array.from({ length: 6 }, () => user('We chatted about the weather.'))];
    expect(words('what else?', context)).not.toContain('tent');
    expect(words('what else?', context.slice(0, 3))).toContain('tent');
  });

  it('leaves nothing to search when nothing said is a catalog word', () => {
    const need = understandNeed('how do I politely ask for an extension?', [], { vocabulary });
    expect(need.words).toEqual([]);
    expect(need.interpreted).toBe('');
  });
});
