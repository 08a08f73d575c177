/**
 * What bench:worst's requests act on, made before anything is measured: six accounts (A searches
 * and reads analytics, K's keys come and go, L has 100 keys to list, T two small webhooks, W twenty
 * at their largest with 1,000 deliveries, W2 webhooks that come and go), a year of history and a
 * hundred searches through the API for A, and fresh search results on demand.
 */
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { consoleAssets } from '../../../src/console/assets.js';
import type { Core } from '../../../src/core/index.js';
import { SearchRequestSchema, type SearchResponse } from '../../../src/core/schemas/search.js';
import type { Principal } from '../../../src/core/shared-ports.js';
import { EVENT_TYPES } from '../../../src/core/webhooks/event-types.js';
import { DEFAULT_BODY_LIMIT } from '../../../src/http/app.js';
import type { LanceCatalogStore } from '../../../src/store/lance/catalog-store.js';
import { type BenchServer, round } from '../lib.js';
import { seedActivity } from '../seed.js';
import { readJson } from './client.js';
import { DAY_MS, type Setup, type Shown } from './kinds.js';
import { QueryTexts, queryTexts } from './texts.js';

/** A year of history for one account (seed.ts, as bench:analytics seeds): what the longest analytics ranges read. */
async function seedHistory(server: BenchServer, accountId: string, keyId: string, productIds: readonly string[]): Promise<void> {
  await seedActivity(server.db, accountId, keyId, productIds, {
    idPrefix: 'w',
    searches: 10_000,
    requestLogRows: 50_000,
    // From 366 days ago up to a day ago; today belongs to the searches made through the API.
    end: new Date(Date.now() - DAY_MS),
    windowMs: 365 * DAY_MS,
    sessions: 2000,
    queryTexts: 3000,
    commission: { from: 5, steps: 1 },
    routes: ['POST /v1/search', 'POST /v1/search', 'POST /v1/clicks/:impression_id', 'POST /v1/feedback', 'GET /v1/usage'],
    errors: [{ every: 41, status: 400 }],
  });
}

/** A few hundred searches, clicks, conversions and feedback votes through the API, as an integration makes them. */
async function seedThroughApi(server: BenchServer, key: string, queries: QueryTexts, count: number): Promise<void> {
  const post = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  for (let i = 0; i < count; i++) {
    const r = await readJson<SearchResponse>(await post('/v1/search', { query: queries.take(), limit: 10, min_relevance_score: 0 }));
    const first = r.results[0];
    if (first === undefined) continue;
    if (i % 3 === 0) {
      const click = await readJson<{ click_id: string }>(await post(`/v1/clicks/${first.impression_id}`, {}));
      if (i % 9 === 0)
        await readJson(
          await post('/v1/conversions', { click_id: click.click_id, order_id: `seed-${i}`, sale_amount: 80, commission_amount: 4, currency: 'USD' }),
        );
    }
    if (i % 4 === 0) await readJson(await post('/v1/feedback', { request_id: r.request_id, product_id: first.product_id, relevant: i % 8 === 0 }));
    if (i % 5 === 0) await readJson(await post('/v1/displays', { impression_ids: r.results.map((x) => x.impression_id) }));
  }
}

/** The smallest and the largest file swagger-ui serves under /docs/static. */
function swaggerFiles(): { small: string; large: string } {
  const dir = join(dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui/package.json')), 'static');
  const files = readdirSync(dir)
    .map((f) => ({ f, size: statSync(join(dir, f)).size }))
    .sort((a, b) => a.size - b.size);
  return { small: files.find((x) => x.f.endsWith('.css'))?.f ?? files[0]!.f, large: files.at(-1)!.f };
}

/** The files the static routes serve: swagger-ui's smallest and largest, the console's stylesheet and script. */
export async function servedFiles(): Promise<{ swagger: { small: string; large: string }; assets: { css: string; js: string } }> {
  const assets = await consoleAssets();
  return { swagger: swaggerFiles(), assets: { css: `app.${assets.version}.css`, js: `app.${assets.version}.js` } };
}

interface Account {
  key: string;
  principal: Principal;
}

/** A new account with a key of its own whose rate limit no batch reaches. */
async function newAccount(core: Core, name: string): Promise<Account> {
  const principalOf = async (key: string) => {
    const auth = await core.auth.authenticate(key);
    if (!auth.ok) throw new Error(`a new key does not authenticate: ${auth.reason}`);
    return auth.principal;
  };
  const { firstKey } = await core.accounts.create(name);
  const key = (await core.keys.create(await principalOf(firstKey.key), { name, rate_limit_per_minute: 1_000_000 })).key;
  return { key, principal: await principalOf(key) };
}

/** A's history, L's keys to list, T's and W's webhooks and deliveries; progress on stderr. */
async function seedFixtures(
  server: BenchServer,
  catalog: LanceCatalogStore,
  queries: QueryTexts,
  accounts: Record<'A' | 'L' | 'T' | 'W', Account>,
): Promise<{ webhooksT: string[]; webhooksW: string[] }> {
  const { core } = server;
  const { A, L, T, W } = accounts;
  const seedStarted = performance.now();
  const productIds: string[] = [];
  for await (const batch of catalog.scanProducts()) {
    for (const p of batch) if (productIds.length < 2000) productIds.push(p.productId);
    if (productIds.length >= 2000) break;
  }
  const step = (what: string) => process.stderr.write(`  ${what} after ${round((performance.now() - seedStarted) / 1000, 1)} s\n`);
  await seedHistory(server, A.principal.accountId, A.principal.keyId, productIds);
  step('a year of history');
  await seedThroughApi(server, A.key, queries, 100);
  step('searches through the API');
  for (let i = 0; i < 98; i++) await core.keys.create(L.principal, { name: `listed ${i}` });
  const bigWebhook = { url: `https://93.184.216.34/hooks/${'a'.repeat(2048 - 28)}`, events: [...EVENT_TYPES], description: 'x'.repeat(500) };
  const webhooksT = [
    (await core.webhooks.create(T.principal, { url: 'https://93.184.216.34/hook', events: ['click'] })).id,
    (await core.webhooks.create(T.principal, { url: 'https://93.184.216.34/hook2', events: ['search'] })).id,
  ];
  const webhooksW: string[] = [];
  for (let i = 0; i < 20; i++) webhooksW.push((await core.webhooks.create(W.principal, bigWebhook)).id);
  for (let i = 0; i < 30; i++) await core.webhooks.sendTest(T.principal, webhooksT[0]!, {});
  step('keys and webhooks');
  for (let i = 0; i < 1000; i++) await core.webhooks.sendTest(W.principal, webhooksW[0]!, {});
  process.stderr.write(`seeded in ${round((performance.now() - seedStarted) / 1000, 1)} s\n`);
  return { webhooksT, webhooksW };
}

/** Account A's fresh search results (each new query's, taken in turn) and clicks on them. */
function freshResults(core: Core, A: Account, queries: QueryTexts): Pick<Setup, 'shown' | 'clicks'> {
  const fresh: Shown[] = [];
  const shown = async (n: number) => {
    while (fresh.length < n) {
      const r = await core.search().search(A.principal, SearchRequestSchema.parse({ query: queries.take(), limit: 10, min_relevance_score: 0 }));
      for (const x of r.results) fresh.push({ requestId: r.request_id, impressionId: x.impression_id, productId: x.product_id, clickUrl: x.click_url });
    }
    return fresh.splice(0, n);
  };
  const clicks = async (n: number) => {
    const out: { clickId: string; impressionId: string }[] = [];
    for (const r of await shown(n))
      out.push({ clickId: (await core.clicks.recordClick(A.principal, r.impressionId)).click.click_id, impressionId: r.impressionId });
    return out;
  };
  return { shown, clicks };
}

/**
 * Creates the accounts and seeds what the requests read (progress on stderr); `homeDepot` picks
 * the dev queries the searches send, `catalogName` and `products` say what the progress line shows.
 */
export async function prepare(
  server: BenchServer,
  catalog: LanceCatalogStore,
  about: { homeDepot: boolean; catalogName: string; products: number },
): Promise<Setup> {
  const core = server.core;
  const [A, K, L, T, W, W2] = [
    await newAccount(core, 'worst A'),
    await newAccount(core, 'worst K'),
    await newAccount(core, 'worst L'),
    await newAccount(core, 'worst T'),
    await newAccount(core, 'worst W'),
    await newAccount(core, 'worst W2'),
  ];
  const queries = new QueryTexts(await queryTexts(about.homeDepot));
  process.stderr.write(`seeding (catalog ${about.catalogName}, ${about.products} products, database ${server.dbKind})…\n`);
  const { webhooksT, webhooksW } = await seedFixtures(server, catalog, queries, { A, L, T, W });
  const setup: Setup = {
    server,
    queries,
    keyA: A.key,
    principalA: A.principal,
    keyK: K.key,
    principalK: K.principal,
    keyL: L.key,
    keyT: T.key,
    principalT: T.principal,
    keyW: W.key,
    principalW: W.principal,
    keyW2: W2.key,
    principalW2: W2.principal,
    webhooksT,
    webhooksW,
    consoleCookie: async () => {
      const session = await core.consoleSessions.signIn(A.key);
      return { cookie: session.token, csrf: session.csrfToken };
    },
    ...freshResults(core, A, queries),
    bodyLimit: (route) => server.routes.find((r) => `${r.method} ${r.url}` === route)?.bodyLimit ?? DEFAULT_BODY_LIMIT,
    productUrls: false,
  };
  setup.productUrls = (
    await core.search().search(A.principal, SearchRequestSchema.parse({ query: queries.take(), limit: 10, min_relevance_score: 0 }))
  ).results.some((r) => r.url !== '');
  return setup;
}
