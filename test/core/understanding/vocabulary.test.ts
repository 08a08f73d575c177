import { describe, expect, it } from 'vitest';
import { headNounOf, NeedVocabulary, NeedVocabularyBuilder } from '../../../src/core/understanding/vocabulary.js';
import { makeProduct } from '../../helpers/catalog.js';

describe('NeedVocabulary', () => {
  it('reads a title’s product type as ranking reads titles', () => {
    expect(headNounOf('Acme Burr Coffee Grinder in Black')).toEqual({ term: 'grinder', word: 'grinder' });
    expect(headNounOf('Duracell Rechargeable AA Batteries (4-Pack)')).toEqual({ term: 'batteri', word: 'batteries' });
    expect(headNounOf('12 in.')).toBeUndefined();
  });

  it('counts words in text, in titles and as types, and the types the products using a word are', () => {
    const products = [
      ...Array.from({ length: 3 }, (_, i) => makeProduct(i, { title: `Burr Coffee Grinder ${i}`, description: 'Grinds whole beans.' })),
      ...Array.from({ length: 2 }, (_, i) => makeProduct(10 + i, { title: `Drip Coffee Maker ${i}`, description: 'Brews a full pot.' })),
    ];
    const v = NeedVocabulary.build(products);
    expect(v.size).toBe(5);
    expect(v.df('coffe')).toBe(5);
    expect(v.titleDf('grinder')).toBe(3);
    expect(v.titleDf('grind')).toBe(0);
    expect(v.headDf('grinder')).toBe(3);
    expect(v.typeWord('grinder')).toBe('grinder');
    expect(v.typesOf('bean')).toEqual([['grinder', 3]]);
    // A word two types share points at both, the commoner first; one product alone is no association.
    expect(v.typesOf('coffe')).toEqual([
      ['grinder', 3],
      ['maker', 2],
    ]);
  });

  it('samples a large catalog evenly for the associations, and counts every product', () => {
    const builder = new NeedVocabularyBuilder(120_000);
    for (let i = 0; i < 1_000; i++) builder.add(makeProduct(i, { title: `Camp Lantern ${i}`, description: 'Bright light for tents.' }));
    const v = builder.finish();
    expect(v.size).toBe(1_000);
    expect(v.df('lantern')).toBe(1_000);
    expect(v.sampledProducts).toBe(500);
    expect(v.typesOf('tent')).toEqual([['lantern', 500]]);
  });
});
