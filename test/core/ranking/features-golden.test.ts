import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CatalogProduct } from '../../../src/core/catalog/product.js';
import { normalizeProduct } from '../../../src/core/catalog/normalize.js';
import type { ScoredProduct } from '../../../src/core/catalog/ports.js';
import { mulberry32 } from '../../../src/core/random.js';
import { analyzeQuery } from '../../../src/core/ranking/features.js';
import { Lexicon, productText, wordTokens } from '../../../src/core/ranking/lexical.js';
import { diversify, FALLBACK_MODEL, rankCandidates } from '../../../src/core/ranking/ranking.js';

/**
 * Every feature value, score, order and explanation the ranking computes, over the sample catalog
 * with fixed candidates, hashed. Work that makes ranking cheaper must leave every one
 * of them exactly as it was: a change of the last bit of one feature of one candidate fails here.
 * When ranking changes on purpose, the new hash is recorded with the change that explains it.
 */
const GOLDEN = 'fae09208ed5836ff3e30161d6d710c8c5dc054c95e0536f82fdbca9aedd0466c';

function sampleProducts(): CatalogProduct[] {
  const lines = readFileSync(new URL('../../../data/sample-catalog.jsonl', import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean);
  return lines.flatMap((line) => {
    const r = normalizeProduct(JSON.parse(line) as unknown);
    return r.ok ? [r.product] : [];
  });
}

describe('ranking on the sample catalog, fixed candidates', () => {
  it('computes exactly the recorded features, scores, orders and matched terms', () => {
    const products = sampleProducts();
    expect(products.length).toBeGreaterThan(400);
    const lexicon = Lexicon.build(products.map(productText));
    const random = mulberry32(22);
    const randomVector = () => {
      const v = new Float32Array(32);
      for (let i = 0; i < v.length; i++) v[i] = random() * 2 - 1;
      return v;
    };
    const vectors = new Map(products.map((p) => [p.productId, randomVector()]));
    const pick = (n: number) => Array.from({ length: n }, () => products[Math.floor(random() * products.length)]!);
    const hash = createHash('sha256');
    for (let q = 0; q < 150; q++) {
      // Queries from product text: a title's words, sometimes with another title's, a number or a typo.
      const source = pick(1)[0]!;
      const words = wordTokens(source.title).slice(0, 2 + Math.floor(random() * 4));
      if (random() < 0.3) words.push(...wordTokens(pick(1)[0]!.title).slice(0, 2));
      if (random() < 0.2) words.push(String(1 + Math.floor(random() * 12)));
      if (random() < 0.2 && words[0] && words[0].length > 4) words[0] = words[0].slice(0, -1);
      const current = random() < 0.7 ? words : words.slice(-2);
      const lexical: ScoredProduct[] = pick(60)
        .map((product) => ({ product, score: random() * 20, ...(random() < 0.5 ? { vector: vectors.get(product.productId)! } : {}) }))
        .sort((a, b) => b.score - a.score);
      const dense: ScoredProduct[] = pick(60)
        .map((product) => ({ product, score: random(), vector: vectors.get(product.productId)! }))
        .sort((a, b) => a.score - b.score);
      const query = { ...analyzeQuery(words, current, lexicon), words };
      const candidates = rankCandidates(query, lexical, dense, lexicon, FALLBACK_MODEL, random() < 0.9 ? randomVector() : null);
      const ordered = diversify(
        [...candidates].sort((a, b) => b.rankScore - a.rankScore),
        10,
      );
      hash.update(JSON.stringify({ q, words, rows: candidates.map((c) => [c.product.productId, c.score, c.probability, ...c.features]) }));
      hash.update(JSON.stringify(ordered.slice(0, 10).map((c) => [c.product.productId, c.rankScore, c.matchedTerms])));
    }
    expect(hash.digest('hex')).toBe(GOLDEN);
  });
});
