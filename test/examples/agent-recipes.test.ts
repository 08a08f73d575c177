/**
 * The agent-framework recipes in examples/, each run against a real Aisle. The recipes have their
 * own dependencies (examples/package.json: the frameworks disagree on zod and Node versions), so
 * the file runs once they are installed (`npm install --prefix examples`, which .ci/run does);
 * without them it skips, saying so, unless AISLE_REQUIRE_EXAMPLES=1 (set by .ci/run), where it
 * fails instead.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, createTestApp, expectStatus, type TestApp } from '../helpers/app.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const installed = existsSync(`${EXAMPLES}node_modules/.package-lock.json`);
const required = process.env.AISLE_REQUIRE_EXAMPLES === '1';
if (!installed) {
  console.warn(`${required ? 'FAILING' : 'SKIPPED'}: the recipes' dependencies are not installed (npm install --prefix examples)`);
}

/** The sample catalog's titles and disclosures, read from the feed rather than from Aisle's answers. */
const CATALOG = readFileSync(new URL('../../data/sample-catalog.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as { title: string; disclosure_text: string });

let sample: SampleCatalog;
let t: TestApp;
let url: string;

type Recipe = (options: { url: string; apiKey: string }) => Promise<string>;
/** A recipe's runAgent, loaded only once its framework is installed. */
const recipe = async (file: string): Promise<Recipe> => ((await import(`${EXAMPLES}${file}`)) as { runAgent: Recipe }).runAgent;

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

describe.skipIf(!installed && !required)('the agent-framework recipes', () => {
  beforeAll(async () => {
    if (!installed) throw new Error('the recipes need their dependencies (npm install --prefix examples), and AISLE_REQUIRE_EXAMPLES=1');
    sample = await openSampleCatalog();
    t = await createTestApp({ search: sample });
    url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await t?.close();
    await sample?.close();
  });

  it('type-check against their own dependencies', { timeout: 120_000 }, async () => {
    const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
    // execFile rejects on a non-zero exit, with tsc's report on stdout.
    const checked = await promisify(execFile)(process.execPath, [tsc, '--noEmit', '-p', `${EXAMPLES}tsconfig.json`]).then(
      ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
      (err: { code?: number; stdout?: string; stderr?: string }) => ({ code: err.code ?? 1, output: `${err.stdout ?? ''}${err.stderr ?? ''}` }),
    );
    expect(checked.output).toBe('');
    expect(checked.code).toBe(0);
  });

  for (const [file, name] of [
    ['ai-sdk.ts', 'Vercel AI SDK'],
    ['langchain.ts', 'LangChain.js'],
    ['openai-agents.ts', 'OpenAI Agents SDK'],
    ['mastra.ts', 'Mastra'],
  ] as const) {
    it(`examples/${file} (${name}) searches and clicks over /mcp, and answers with the product and its disclosure`, async () => {
      await checkRecipe(file.replace('.ts', ''), await recipe(file));
    });
  }
});
