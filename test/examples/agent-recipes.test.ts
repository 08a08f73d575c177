import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent as runAiSdk } from '../../examples/ai-sdk.js';
import { runAgent as runLangChain } from '../../examples/langchain.js';
import { runAgent as runMastra } from '../../examples/mastra.js';
import { runAgent as runOpenAiAgents } from '../../examples/openai-agents.js';
import { call, createKey, createTestApp, expectStatus, type TestApp } from '../helpers/app.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

/** The sample catalog's titles and disclosures, read from the feed rather than from Aisle's answers. */
const CATALOG = readFileSync(new URL('../../data/sample-catalog.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as { title: string; disclosure_text: string });

let sample: SampleCatalog;
let t: TestApp;
let url: string;

beforeAll(async () => {
  sample = await openSampleCatalog();
  t = await createTestApp({ search: sample });
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await t?.close();
  await sample?.close();
});

type Recipe = (options: { url: string; apiKey: string }) => Promise<string>;

/**
 * Runs a recipe with a key of an account of its own (scopes search and events:write, as the
 * recipes advise), and checks through Aisle's API what a person would: the answer names a catalog
 * product with its disclosure, Aisle counted one click on it, and every call the agent made was a
 * POST /mcp.
 */
async function checkRecipe(name: string, recipe: Recipe): Promise<void> {
  const account = await t.core.accounts.create(`${name} recipe`);
  const admin = account.firstKey.key;
  const { key } = await createKey(t.app, admin, { name, scopes: ['search', 'events:write'] });

  const answer = await recipe({ url, apiKey: key });

  const performance = await call(t.app, admin, 'GET', '/v1/analytics/performance');
  expectStatus(performance, 200);
  const endpoints = (performance.json() as { by_endpoint: { method: string; route: string; requests: number }[] }).by_endpoint;
  const mcp = endpoints.find((e) => e.method === 'POST' && e.route === '/mcp');
  expect(mcp?.requests, performance.body).toBeGreaterThanOrEqual(2);
  expect(
    endpoints.filter((e) => e.route !== '/mcp').map((e) => `${e.method} ${e.route}`),
    'no calls beside /mcp but the key made for the recipe',
  ).toEqual(['POST /v1/keys']);

  const analytics = await call(t.app, admin, 'GET', '/v1/analytics');
  expectStatus(analytics, 200);
  const body = analytics.json() as { metrics: { impressions: number; clicks: number }; top_products: { title: string | null; clicks: number }[] };
  expect(body.metrics.clicks, analytics.body).toBe(1);
  expect(body.metrics.impressions, analytics.body).toBeGreaterThan(0);
  const clicked = body.top_products.find((p) => p.clicks === 1);
  const product = CATALOG.find((p) => p.title === clicked?.title);
  expect(product, `the clicked product ${clicked?.title} in the catalog`).toBeDefined();
  expect(answer).toContain(product!.title);
  expect(answer).toContain(product!.disclosure_text);
}

describe('examples/ai-sdk.ts (Vercel AI SDK)', () => {
  it('searches and clicks over /mcp, and answers with the product and its disclosure', async () => {
    await checkRecipe('ai-sdk', runAiSdk);
  });
});

describe('examples/langchain.ts (LangChain.js)', () => {
  it('searches and clicks over /mcp, and answers with the product and its disclosure', async () => {
    await checkRecipe('langchain', runLangChain);
  });
});

describe('examples/openai-agents.ts (OpenAI Agents SDK)', () => {
  it('searches and clicks over /mcp, and answers with the product and its disclosure', async () => {
    await checkRecipe('openai-agents', runOpenAiAgents);
  });
});

describe('examples/mastra.ts (Mastra)', () => {
  it('searches and clicks over /mcp, and answers with the product and its disclosure', async () => {
    await checkRecipe('mastra', runMastra);
  });
});
