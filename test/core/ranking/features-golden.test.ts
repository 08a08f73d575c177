import { createHash, type Hash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { normalizeProduct } from '../../../src/core/catalog/normalize.js';
import type { ScoredProduct } from '../../../src/core/catalog/ports.js';
import type { CatalogProduct } from '../../../src/core/catalog/product.js';
import { mulberry32 } from '../../../src/core/random.js';
import { analyzeQuery, FEATURE_NAMES } from '../../../src/core/ranking/features.js';
import { Lexicon, productText, wordTokens } from '../../../src/core/ranking/lexical.js';
import { diversify, FALLBACK_MODEL, rankCandidates } from '../../../src/core/ranking/ranking.js';

/**
 * Every feature value, score, order and explanation the ranking computes, over the sample catalog
 * with fixed candidates, compared with features-golden.jsonl. Work that makes ranking cheaper must
 * leave every one of them exactly as it was: a change of the last bit of one feature of one
 * candidate fails here. The file keeps, per query, its words, its top ten (SKU, rank score to six
 * significant digits, matched terms) and a digest of everything computed for it at full precision;
 * its first line has one digest per column (each feature, score, order) over all queries. A
 * failure names the queries that moved, how their top ten moved, and which columns moved.
 * When ranking changes on purpose, rewrite the file with UPDATE_GOLDEN=1 (docs/development.md)
 * and commit it with the change that explains it.
 */
const GOLDEN_FILE = fileURLToPath(new URL('./features-golden.jsonl', import.meta.url));
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const QUERIES = 150;
const TOP = 10;

/** What is compared: the columns line, then one line per query. */
interface Golden {
  columns: Record<string, string>;
  queries: GoldenQuery[];
}
interface GoldenQuery {
  q: number;
  words: string;
  /** The current turn's words, when only part of `words` (the rest is conversation). */
  current?: string;
  /** The top ten in rank order: SKU, rank score (6 significant digits), matched terms. */
  top: [string, number, string][];
  /** sha256 (first 16 hex digits) of every candidate's id, score, probability and features and the top ten, at full precision. */
  digest: string;
}

function sampleProducts(): CatalogProduct[] {
  const lines = readFileSync(new URL('../../../data/sample-catalog.jsonl', import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean);
  return lines.flatMap((line) => {
    const r = normalizeProduct(JSON.parse(line) as unknown);
    return r.ok ? [r.product] : [];
  });
}

/** Ranks the fixed queries and candidates; the draws from the seeded generator fix both. */
function rankSample(): Golden {
  const products = sampleProducts();
  expect(products.length).toBeGreaterThan(400);
  expect(new Set(products.map((p) => p.externalId)).size).toBe(products.length);
  const lexicon = Lexicon.build(products.map(productText));
  const random = mulberry32(22);
  const randomVector = () => {
    const v = new Float32Array(32);
    for (let i = 0; i < v.length; i++) v[i] = random() * 2 - 1;
    return v;
  };
  const vectors = new Map(products.map((p) => [p.productId, randomVector()]));
  const pick = (n: number) => Array.from({ length: n }, () => products[Math.floor(random() * products.length)]!);
  const columnNames = ['candidates', 'score', 'probability', ...FEATURE_NAMES, 'order', 'rankScore', 'matchedTerms'];
  const columns = new Map<string, Hash>(columnNames.map((name) => [name, createHash('sha256')]));
  const queries: GoldenQuery[] = [];
  for (let q = 0; q < QUERIES; q++) {
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
      TOP,
    ).slice(0, TOP);

    const rows = candidates.map((c) => [c.product.productId, c.score, c.probability, ...c.features]);
    const top = ordered.map((c) => [c.product.productId, c.rankScore, c.matchedTerms]);
    const digest = createHash('sha256').update(JSON.stringify({ q, words, rows })).update(JSON.stringify(top)).digest('hex').slice(0, 16);
    const perColumn: [string, unknown[]][] = [
      ['candidates', candidates.map((c) => c.product.productId)],
      ['score', candidates.map((c) => c.score)],
      ['probability', candidates.map((c) => c.probability)],
      ...FEATURE_NAMES.map((name, f): [string, unknown[]] => [name, candidates.map((c) => c.features[f])]),
      ['order', ordered.map((c) => c.product.productId)],
      ['rankScore', ordered.map((c) => c.rankScore)],
      ['matchedTerms', ordered.map((c) => c.matchedTerms)],
    ];
    for (const [name, values] of perColumn) columns.get(name)!.update(JSON.stringify(values));
    queries.push({
      q,
      words: words.join(' '),
      ...(current === words ? {} : { current: current.join(' ') }),
      top: ordered.map((c) => [c.product.externalId ?? c.product.productId, Number(c.rankScore.toPrecision(6)), c.matchedTerms.join(' ')]),
      digest,
    });
  }
  return { columns: Object.fromEntries(columnNames.map((name) => [name, columns.get(name)!.digest('hex').slice(0, 16)])), queries };
}

const serialize = (golden: Golden): string => `${[{ columns: golden.columns }, ...golden.queries].map((line) => JSON.stringify(line)).join('\n')}\n`;

function parse(text: string): Golden {
  const [head, ...lines] = text.trim().split('\n');
  return { columns: (JSON.parse(head!) as { columns: Record<string, string> }).columns, queries: lines.map((l) => JSON.parse(l) as GoldenQuery) };
}

/** What moved, one line per query or column, in words a reader can act on. */
function differences(expected: Golden, actual: Golden): string[] {
  const out: string[] = [];
  const columns = Object.keys({ ...expected.columns, ...actual.columns }).filter((name) => expected.columns[name] !== actual.columns[name]);
  if (columns.length > 0) out.push(`columns that moved (over all queries): ${columns.join(', ')}`);
  const entry = (e: [string, number, string] | undefined) => (e === undefined ? '(none)' : `${e[0]} ${e[1]} [${e[2]}]`);
  for (let q = 0; q < Math.max(expected.queries.length, actual.queries.length); q++) {
    const was = expected.queries[q];
    const now = actual.queries[q];
    if (was === undefined || now === undefined) {
      out.push(`query ${q}: ${was === undefined ? 'not in the golden file' : 'no longer generated'}`);
      continue;
    }
    if (was.digest === now.digest) continue;
    const label = `query ${q} "${now.words}"${now.current === undefined ? '' : ` (current turn "${now.current}")`}`;
    if (was.words !== now.words || was.current !== now.current) {
      out.push(`${label}: the generated query changed (was "${was.words}"${was.current === undefined ? '' : `, current "${was.current}"`})`);
      continue;
    }
    const moved: string[] = [];
    for (let k = 0; k < Math.max(was.top.length, now.top.length); k++) {
      if (JSON.stringify(was.top[k]) !== JSON.stringify(now.top[k])) moved.push(`#${k + 1} ${entry(was.top[k])} -> ${entry(now.top[k])}`);
    }
    out.push(
      moved.length > 0
        ? `${label}: ${moved.join('; ')}`
        : `${label}: top ${TOP} unchanged to 6 digits; a candidate's features or scores moved (see the columns)`,
    );
  }
  const SHOWN = 20;
  return out.length > SHOWN + 1 ? [...out.slice(0, SHOWN + 1), `... and ${out.length - SHOWN - 1} more queries`] : out;
}

describe('ranking on the sample catalog, fixed candidates', () => {
  it('computes exactly the recorded features, scores, orders and matched terms', () => {
    const actual = rankSample();
    if (UPDATE) {
      writeFileSync(GOLDEN_FILE, serialize(actual));
      console.info(`features-golden: wrote ${GOLDEN_FILE} (${actual.queries.length} queries)`);
      return;
    }
    expect(existsSync(GOLDEN_FILE), `${GOLDEN_FILE} is missing: write it with UPDATE_GOLDEN=1 (docs/development.md)`).toBe(true);
    const expected = parse(readFileSync(GOLDEN_FILE, 'utf8'));
    expect(
      differences(expected, actual),
      'ranking moved from features-golden.jsonl; if on purpose, rewrite it with UPDATE_GOLDEN=1 (docs/development.md)',
    ).toEqual([]);
    // Byte for byte too: the comparison above reads only what differs.
    expect(serialize(actual)).toBe(readFileSync(GOLDEN_FILE, 'utf8'));
  });
});
