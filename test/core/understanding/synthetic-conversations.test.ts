import { describe, expect, it } from 'vitest';
import { syntheticConversations } from '../../../src/core/understanding/synthetic-conversations.js';
import { NeedVocabulary } from '../../../src/core/understanding/vocabulary.js';
import { makeProduct } from '../../helpers/catalog.js';

const products = [
  ...Array.from({ length: 40 }, (_, i) =>
    makeProduct(i, { title: `Perch Wild Bird Feeder ${i}`, description: 'Holds sunflower seed for finches in the yard.', brand: 'Perch' }),
  ),
  ...Array.from({ length: 40 }, (_, i) =>
    makeProduct(100 + i, { title: `Trailmark Trail Running Shoe ${i}`, description: 'Grippy outsole for muddy trails.', brand: 'Trailmark' }),
  ),
];
const vocabulary = NeedVocabulary.build(products);

describe('syntheticConversations', () => {
  it('writes one conversation per sampled product, the same ones from the same seed', () => {
    const a = syntheticConversations(products, vocabulary, { count: 60, seed: 3 });
    expect(a).toHaveLength(60);
    expect(syntheticConversations(products, vocabulary, { count: 60, seed: 3 })).toEqual(a);
    expect(syntheticConversations(products, vocabulary, { count: 60, seed: 4 })).not.toEqual(a);
  });

  it('states the need around the product’s type, plainly, loosely or as a fragment, with talk before it', () => {
    const conversations = syntheticConversations(products, vocabulary, { count: 80, seed: 5 });
    expect(new Set(conversations.map((c) => c.style))).toEqual(new Set(['plain', 'loose', 'fragment']));
    for (const c of conversations) {
      expect(c.query.trim(), c.query).not.toBe('');
      expect(c.core, c.source.title).toMatch(/\b(?:feeder|shoe)$/);
      for (const t of c.context) expect(['user', 'assistant']).toContain(t.role);
      // Loose requests name what the product is for, not the product: its type is not in the message.
      if (c.style === 'loose') expect(c.query.toLowerCase(), c.query).not.toMatch(/\b(?:feeder|shoe)\b/);
    }
    expect(conversations.some((c) => c.context.length > 0)).toBe(true);
  });
});
