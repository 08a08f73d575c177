import { describe, expect, it } from 'vitest';
import type { CatalogProduct } from '../../../src/core/catalog/product.js';
import { analyzeQuery, computeFeatures, FEATURE_INDEX, productTerms } from '../../../src/core/ranking/features.js';
import { Lexicon, productText, wordTokens } from '../../../src/core/ranking/lexical.js';

const product = (id: string, title: string, brand: string | null = null): CatalogProduct => ({
  productId: id,
  externalId: id,
  title,
  description: '',
  url: null,
  imageUrl: null,
  priceAmount: null,
  currency: null,
  merchant: null,
  brand,
  category: [],
  availability: 'in_stock',
  disclosureText: null,
  attributes: {},
  lastUpdatedAt: null,
});

describe('title structure features', () => {
  const faucet = product('f', 'Delta Vero 1-Handle Shower Faucet Trim Kit in Chrome (Valve Not Included)');
  const cartridge = product('c', 'Delta Cartridge Assembly for Shower Faucets with Diverter');
  const lexicon = Lexicon.build([faucet, cartridge].map(productText));

  it('reads the product type before " in " / " for " / "(" and the accessory part after " for " / " with "', () => {
    const f = productTerms(faucet);
    expect(f.headNoun).toBe('kit');
    expect(f.head).not.toContain('chrome');
    expect(f.tail).toEqual([]);
    const c = productTerms(cartridge);
    expect(c.headNoun).toBe('assembl');
    expect([...c.tail].sort()).toEqual(['divert', 'faucet', 'shower']);
    expect(c.brand).toBe('delta');
    // A product's own brand wins over its first title word.
    expect(productTerms(product('b', 'Vero Shower Faucet', 'Delta')).brand).toBe('delta');
  });

  it('tells the thing asked for from a part for it', () => {
    const words = wordTokens('delta shower faucet');
    const rows = computeFeatures(
      analyzeQuery(words, words, lexicon),
      [],
      [
        { product: faucet, score: 0.4 },
        { product: cartridge, score: 0.4 },
      ],
      lexicon,
      null,
    );
    const [f, c] = [rows.find((r) => r.product === faucet)!.features, rows.find((r) => r.product === cartridge)!.features];
    expect(f[FEATURE_INDEX.headCoverage]).toBe(1);
    expect(f[FEATURE_INDEX.tailOnly]).toBe(0);
    expect(c[FEATURE_INDEX.tailOnly]).toBeGreaterThan(0.5);
    expect(c[FEATURE_INDEX.headCoverage]).toBeLessThan(0.5);
    expect(f[FEATURE_INDEX.brandInQuery]).toBe(1);
    expect(f[FEATURE_INDEX.headNoun]).toBe(0);
    const kit = wordTokens('shower faucet trim kit');
    const again = computeFeatures(analyzeQuery(kit, kit, lexicon), [], [{ product: faucet, score: 0.4 }], lexicon, null);
    expect(again[0]!.features[FEATURE_INDEX.headNoun]).toBe(1);
    expect(again[0]!.features[FEATURE_INDEX.brandInQuery]).toBe(0);
  });
});
