import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/core/random.js';
import { POLICY_PRESETS } from '../../src/core/schemas/policy.js';
import { loadTaxonomy } from '../../src/knowledge/files.js';
import { call, createKey, expectStatus, type TestApp } from '../helpers/app.js';
import { mcpRequest, startOAuthApp } from '../helpers/oauth.js';
import { addRestrictedProducts, under } from '../helpers/policy.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

/**
 * Random policies, queries, filters and conversations, over REST and MCP: no answer may hold a
 * product the policy excludes, fall below its floor, answer before its turn, or answer a session
 * past its cap. AISLE_POLICY_FUZZ_SEARCHES sets how many searches (the suite runs 800; the figure
 * in docs/policy.md is a run of 10,000).
 */
const SEARCHES = Number(process.env.AISLE_POLICY_FUZZ_SEARCHES ?? 800);
/** Searches under one policy before the next is drawn. */
const PER_POLICY = 25;

interface Result {
  title: string;
  brand: string;
  merchant: string;
  category_path: string | null;
  relevance_score: number;
}
interface Answer {
  results: Result[];
  metadata: { session_id: string; no_fill_reason: string | null };
}
interface Turn {
  role: 'user' | 'assistant';
  content: string;
}

const fold = (s: string) => s.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();

let sample: SampleCatalog;
let t: TestApp;
let base: string;
let agent: { key: string; id: string };
const products: { title: string; brand: string | null; merchant: string | null; categoryId: number | null; path: readonly string[] }[] = [];
const conversations: { query: string; conversation_context?: Turn[] }[] = [];
beforeAll(async () => {
  sample = await openSampleCatalog({ copy: true });
  await addRestrictedProducts(sample);
  for await (const batch of sample.catalog.scanProducts()) {
    for (const p of batch)
      products.push({ title: p.title, brand: p.brand, merchant: p.merchant, categoryId: p.taxonomy?.categoryId ?? null, path: p.taxonomy?.path ?? [] });
  }
  for (const file of ['crowdflower_more_dev.jsonl', 'no_need_dev.jsonl']) {
    for (const line of readFileSync(join('data', 'eval', 'conversation', file), 'utf8').split('\n')) {
      if (line.trim() !== '') conversations.push(JSON.parse(line) as { query: string; conversation_context?: Turn[] });
    }
  }
  ({ t, base } = await startOAuthApp({ search: sample }));
  agent = await createKey(t.app, t.adminKey, { name: 'fuzzed agent', scopes: ['search'], rate_limit_per_minute: 1_000_000 });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await sample?.close();
});

describe('publisher policy under fuzz', () => {
  it(`holds over ${SEARCHES} random searches, REST and MCP`, async () => {
    const random = mulberry32(5_202);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    const some = <T>(list: readonly T[], max: number): T[] => Array.from({ length: Math.floor(random() * (max + 1)) }, () => pick(list));
    const placed = products.filter((p) => p.categoryId !== null);
    const brands = [...new Set(products.flatMap((p) => (p.brand ? [p.brand] : [])))];
    const merchants = [...new Set(products.flatMap((p) => (p.merchant ? [p.merchant] : [])))];
    const words = ['kitchen', 'shoes', 'coffee', 'camping', 'baby', 'tools', 'Apparel & Accessories', '499676', 'Home & Garden > Kitchen & Dining'];
    const idOf = new Map([...(await loadTaxonomy()).values()].map((c) => [c.path.join(' > '), c.id]));
    const seen = { searches: 0, answered: 0, silenced: 0, results: 0, excludedInCatalog: 0 };
    const sessions = new Map<string, { answers: number; turns: number }>();

    while (seen.searches < SEARCHES) {
      // A policy: presets, ids at any depth of products the catalog holds, brands, merchants, limits.
      const policy: Record<string, unknown> = {
        excluded_categories: [
          ...some(POLICY_PRESETS, 3),
          ...some(placed, 6).map((p) => idOf.get(p.path.slice(0, 1 + Math.floor(random() * p.path.length)).join(' > '))!),
        ],
        excluded_brands: some(brands, 8).map((b) => (random() < 0.5 ? b.toUpperCase() : b)),
        excluded_merchants: some(merchants, 2),
        ...(random() < 0.4 ? { min_turns: 1 + Math.floor(random() * 4) } : {}),
        ...(random() < 0.4 ? { max_product_answers_per_session: Math.floor(random() * 3) } : {}),
        ...(random() < 0.3 ? { min_relevance_score: Math.round(random() * 90) / 100 } : {}),
      };
      const forKey = random() < 0.4;
      const put = await call(t.app, t.adminKey, 'PUT', forKey ? `/v1/keys/${agent.id}/policy` : '/v1/policy', policy);
      expectStatus(put, 200);
      // The rules as the server states them for the key that searches.
      const stated = forKey ? (put.json() as { effective: Effective }).effective : (put.json() as Effective);
      if (!forKey) expectStatus(await call(t.app, t.adminKey, 'PUT', `/v1/keys/${agent.id}/policy`, {}), 200);
      seen.excludedInCatalog += products.filter((p) => excluded(stated, p.path.join(' > '), p.brand, p.merchant)).length;

      for (let i = 0; i < PER_POLICY && seen.searches < SEARCHES; i++) {
        const conversation = random() < 0.35 ? pick(conversations) : null;
        const session = random() < 0.5 && sessions.size > 0 ? pick([...sessions.keys()]) : null;
        const request: Record<string, unknown> = {
          query: conversation?.query ?? (random() < 0.5 ? pick(products).title : pick(words)),
          limit: 1 + Math.floor(random() * 10),
          min_relevance_score: random() < 0.5 ? 0 : Math.round(random() * 100) / 100,
          ...(conversation?.conversation_context && random() < 0.8 ? { conversation_context: conversation.conversation_context } : {}),
          ...(random() < 0.2 ? { filters: { category: pick(words) } } : random() < 0.1 ? { filters: { max_price: 50 } } : {}),
          ...(session ? { session_id: session } : {}),
        };
        const overMcp = random() < 0.3;
        const answer = overMcp ? await viaMcp(request) : await viaRest(request);
        seen.searches++;
        const state = sessions.get(answer.metadata.session_id) ?? { answers: 0, turns: 0 };
        const context = (request.conversation_context as Turn[] | undefined) ?? [];
        const userTurns = context.length > 0 ? context.filter((c) => c.role === 'user').length + 1 : state.turns + 1;
        const label = `${overMcp ? 'MCP' : 'REST'} ${JSON.stringify(request).slice(0, 200)} under ${JSON.stringify(stated).slice(0, 300)}`;
        if (answer.results.length > 0) {
          seen.answered++;
          seen.results += answer.results.length;
          if (stated.min_turns !== null) expect(userTurns, label).toBeGreaterThanOrEqual(stated.min_turns);
          if (stated.max_product_answers_per_session !== null) expect(state.answers, label).toBeLessThan(stated.max_product_answers_per_session);
          for (const r of answer.results) {
            expect(excluded(stated, r.category_path, r.brand, r.merchant), `${r.title} in ${label}`).toBe(false);
            if (stated.min_relevance_score !== null) expect(r.relevance_score, label).toBeGreaterThanOrEqual(stated.min_relevance_score);
          }
        } else if (answer.metadata.no_fill_reason === 'publisher_policy') {
          seen.silenced++;
        }
        sessions.set(answer.metadata.session_id, { answers: state.answers + (answer.results.length > 0 ? 1 : 0), turns: state.turns + 1 });
      }
    }
    console.log(`[measure] policy fuzz: ${JSON.stringify(seen)}`);
    // Not vacuous: answers with products, answers the policy silenced, and exclusions that met products.
    expect(seen.answered).toBeGreaterThan(SEARCHES / 8);
    expect(seen.silenced).toBeGreaterThan(0);
    expect(seen.excludedInCatalog).toBeGreaterThan(0);
  }, 1_800_000);
});

interface Effective {
  excluded_brands: string[];
  excluded_merchants: string[];
  excluded_category_paths: string[];
  min_turns: number | null;
  max_product_answers_per_session: number | null;
  min_relevance_score: number | null;
}

function excluded(p: Effective, path: string | null, brand: string | null, merchant: string | null): boolean {
  return (
    p.excluded_category_paths.some((prefix) => under(path, prefix)) ||
    (brand !== null && brand !== '' && p.excluded_brands.some((b) => fold(b) === fold(brand))) ||
    (merchant !== null && merchant !== '' && p.excluded_merchants.some((m) => fold(m) === fold(merchant)))
  );
}

async function viaRest(request: Record<string, unknown>): Promise<Answer> {
  const res = await call(t.app, agent.key, 'POST', '/v1/search', request);
  expectStatus(res, 200);
  return res.json() as Answer;
}

async function viaMcp(request: Record<string, unknown>): Promise<Answer> {
  const res = await mcpRequest(base, agent.key, 'tools/call', { name: 'search_products', arguments: request });
  expect(res.status).toBe(200);
  const result = res.body.result as { structuredContent?: Answer; isError?: boolean };
  expect(result.isError ?? false, JSON.stringify(res.body).slice(0, 500)).toBe(false);
  return result.structuredContent!;
}
