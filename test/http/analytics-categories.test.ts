/**
 * Top categories (docs/analytics.md, "Top categories"): real searches on the sample catalog, whose
 * products the import placed in the Google product taxonomy, clicks and conversions through the
 * API, then GET /v1/analytics?metric=top_categories, the summary and the get_analytics tool, by
 * each measure and level. The test keeps a ledger of what it did, and the figures must equal it.
 */
import { randomUUID } from 'node:crypto';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Taxonomy } from '../../src/core/knowledge/taxonomy.js';
import type { TopCategory } from '../../src/core/schemas/analytics.js';
import { loadTaxonomy } from '../../src/knowledge/files.js';
import { createInProcessApi } from '../../src/mcp/in-process-api.js';
import { buildMcpServer } from '../../src/mcp/server.js';
import { call, createTestApp, expectProblem, expectStatus, ManualClock, type TestApp } from '../helpers/app.js';
import { type AnyClient, connectHttp, hostCallTool, problem, structured, text } from '../helpers/mcp.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const DAY0 = Date.parse('2026-11-18T00:00:00.000Z');

interface Result {
  impression_id: string;
  category_id: number | null;
  category_path: string | null;
}
interface Shown {
  impressionId: string;
  /** As the result gave it; null once the test made it unplaced. */
  leafId: number | null;
  path: string[] | null;
  at: number;
}

let sample: SampleCatalog;
let t: TestApp;
let taxonomy: Taxonomy;
const clock = new ManualClock(DAY0 + 9 * 60 * MIN);
const handlers: McpHttpHandler[] = [];
const ledger = {
  shown: [] as Shown[],
  clicks: [] as { impressionId: string; at: number }[],
  conversions: [] as { impressionId: string; commission: number; currency: string; at: number }[],
};

async function search(query: string, limit: number): Promise<{ requestId: string; results: Result[] }> {
  const res = await call(t.app, t.adminKey, 'POST', '/v1/search', { query, limit, min_relevance_score: 0 });
  expectStatus(res, 200);
  const body = res.json() as { request_id: string; results: Result[] };
  expect(body.results).toHaveLength(limit);
  for (const r of body.results) {
    expect(r.category_id, `${query}: every sample product is placed`).not.toBeNull();
    ledger.shown.push({ impressionId: r.impression_id, leafId: r.category_id, path: r.category_path?.split(' > ') ?? null, at: clock.now().getTime() });
  }
  return { requestId: body.request_id, results: body.results };
}

async function click(r: Result): Promise<string> {
  const res = await call(t.app, t.adminKey, 'POST', `/v1/clicks/${r.impression_id}`);
  expectStatus(res, 201);
  ledger.clicks.push({ impressionId: r.impression_id, at: clock.now().getTime() });
  return res.json().click_id as string;
}

async function convert(r: Result, clickId: string, commission: number, currency: string): Promise<void> {
  const order = `order-${ledger.conversions.length + 1}`;
  const res = await call(t.app, t.adminKey, 'POST', '/v1/conversions', {
    click_id: clickId,
    order_id: order,
    sale_amount: commission * 10,
    commission_amount: commission,
    currency,
  });
  expectStatus(res, 201);
  ledger.conversions.push({ impressionId: r.impression_id, commission, currency, at: clock.now().getTime() });
}

const idOfPath = (path: string[]): number | null => [...taxonomy.values()].find((c) => c.path.join(' > ') === path.join(' > '))?.id ?? null;

/** What the ledger says top_categories must answer: the documented grouping, order and cut. */
function expected(range: { start: number; end: number }, level: number, order: 'impressions' | 'clicks' | 'revenue', limit = 10): TopCategory[] {
  const groups = new Map<string, TopCategory & { cents: Record<string, number> }>();
  const groupOf = (impressionId: string) => {
    const shown = ledger.shown.find((s) => s.impressionId === impressionId)!;
    const path = shown.path === null ? null : shown.path.slice(0, level);
    const id = shown.path === null ? null : shown.path.length <= level ? shown.leafId : idOfPath(path!);
    const key = `${id}`;
    let g = groups.get(key);
    if (!g) {
      g = {
        category_id: id,
        category_path: path?.join(' > ') ?? null,
        impressions: 0,
        clicks: 0,
        ctr: 0,
        conversions: 0,
        revenue: 0,
        revenue_by_currency: {},
        cents: {},
      };
      groups.set(key, g);
    }
    return g;
  };
  const inRange = (at: number) => at >= range.start && at < range.end;
  for (const s of ledger.shown.filter((x) => inRange(x.at))) groupOf(s.impressionId).impressions++;
  for (const c of ledger.clicks.filter((x) => inRange(x.at))) groupOf(c.impressionId).clicks++;
  for (const v of ledger.conversions.filter((x) => inRange(x.at))) {
    const g = groupOf(v.impressionId);
    g.conversions++;
    g.cents[v.currency] = (g.cents[v.currency] ?? 0) + Math.round(v.commission * 100);
  }
  const rows = [...groups.values()].map(({ cents, ...g }) => {
    const total = Object.values(cents).reduce((a, b) => a + b, 0);
    return {
      ...g,
      ctr: g.impressions === 0 ? 0 : g.clicks / g.impressions,
      revenue: total / 100,
      revenue_by_currency: Object.fromEntries(Object.entries(cents).map(([c, v]) => [c, v / 100])),
    };
  });
  const measure = (r: TopCategory) => r[order];
  const byPath = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);
  rows.sort(
    (a, b) =>
      measure(b) - measure(a) || b.impressions - a.impressions || b.clicks - a.clicks || b.revenue - a.revenue || byPath(a.category_path, b.category_path),
  );
  return rows.slice(0, limit);
}

const get = (url: string) => call(t.app, t.adminKey, 'GET', url);
const DAY0_RANGE = { start: DAY0, end: DAY0 + DAY };
const q = (range: { start: number; end: number }) => `start_date=${new Date(range.start).toISOString()}&end_date=${new Date(range.end).toISOString()}`;

async function topCategories(params: string, range = DAY0_RANGE): Promise<TopCategory[]> {
  const res = await get(`/v1/analytics?metric=top_categories&${q(range)}${params}`);
  expectStatus(res, 200);
  return res.json().items as TopCategory[];
}

beforeAll(async () => {
  sample = await openSampleCatalog();
  t = await createTestApp({ search: sample, clock });
  taxonomy = await loadTaxonomy();

  // Day 0, 09:00: kitchen (espresso machines, knives), shoes, socks, tents; and a search whose
  // impressions are made unplaced, as every impression written before categories were recorded is.
  const espresso = await search('espresso machine', 4);
  await search('chef knife', 3);
  const shoes = await search('trail running shoes', 2);
  await search('merino socks', 2);
  const tents = await search('camping tent', 3);
  const yoga = await search('yoga mat', 2);
  await t.db.query('UPDATE impressions SET category_id = NULL WHERE request_id = $1', [yoga.requestId]);
  for (const s of ledger.shown.slice(-2)) {
    s.leafId = null;
    s.path = null;
  }
  clock.advance(10 * MIN);
  await convert(espresso.results[0]!, await click(espresso.results[0]!), 3.25, 'USD');
  await click(shoes.results[0]!);
  await convert(shoes.results[1]!, await click(shoes.results[1]!), 5.5, 'EUR');
  await convert(tents.results[0]!, await click(tents.results[0]!), 20, 'USD');
  await click(yoga.results[0]!);
  clock.advance(10 * MIN);
});
afterAll(async () => {
  for (const handler of handlers) await handler.close();
  await t?.close();
  await sample?.close();
});

describe('GET /v1/analytics?metric=top_categories', () => {
  it('ranks level-2 categories by impressions by default, with clicks, CTR and revenue per currency, unplaced as one row', async () => {
    const res = await get(`/v1/analytics?metric=top_categories&${q(DAY0_RANGE)}`);
    expectStatus(res, 200);
    const body = res.json();
    expect(body).toMatchObject({ metric: 'top_categories', category_level: 2, category_order: 'impressions' });
    expect(body.items).toEqual(expected(DAY0_RANGE, 2, 'impressions'));
    // What a person expects of these searches, in the taxonomy's words.
    expect(body.items[0]).toEqual({
      category_id: 638,
      category_path: 'Home & Garden > Kitchen & Dining',
      impressions: 7,
      clicks: 1,
      ctr: 1 / 7,
      conversions: 1,
      revenue: 3.25,
      revenue_by_currency: { USD: 3.25 },
    });
    expect(body.items.map((r: TopCategory) => r.category_path)).toEqual([
      'Home & Garden > Kitchen & Dining',
      'Sporting Goods > Outdoor Recreation',
      'Apparel & Accessories > Shoes',
      null,
      'Apparel & Accessories > Clothing',
    ]);
    expect(body.items[3]).toEqual({
      category_id: null,
      category_path: null,
      impressions: 2,
      clicks: 1,
      ctr: 0.5,
      conversions: 0,
      revenue: 0,
      revenue_by_currency: {},
    });
  });

  it('ranks by clicks or by revenue when asked', async () => {
    const byClicks = await topCategories('&category_order=clicks');
    expect(byClicks).toEqual(expected(DAY0_RANGE, 2, 'clicks'));
    expect(byClicks[0]).toMatchObject({ category_path: 'Apparel & Accessories > Shoes', clicks: 2, ctr: 1 });

    const byRevenue = await topCategories('&category_order=revenue');
    expect(byRevenue).toEqual(expected(DAY0_RANGE, 2, 'revenue'));
    expect(byRevenue.map((r) => [r.category_path, r.revenue])).toEqual([
      ['Sporting Goods > Outdoor Recreation', 20],
      ['Apparel & Accessories > Shoes', 5.5],
      ['Home & Garden > Kitchen & Dining', 3.25],
      [null, 0],
      ['Apparel & Accessories > Clothing', 0],
    ]);
    expect(byRevenue[1]!.revenue_by_currency).toEqual({ EUR: 5.5 });
  });

  it('groups at the level asked; a category above that level stays itself', async () => {
    const top = await topCategories('&category_level=1');
    expect(top).toEqual(expected(DAY0_RANGE, 1, 'impressions'));
    expect(top.map((r) => [r.category_id, r.category_path, r.impressions, r.clicks])).toEqual([
      [536, 'Home & Garden', 7, 1],
      [166, 'Apparel & Accessories', 4, 2],
      [988, 'Sporting Goods', 3, 1],
      [null, null, 2, 1],
    ]);
    const third = await topCategories('&category_level=3');
    expect(third).toEqual(expected(DAY0_RANGE, 3, 'impressions'));
    const paths = third.map((r) => r.category_path);
    expect(paths).toEqual(
      expect.arrayContaining(['Home & Garden > Kitchen & Dining > Kitchen Appliances', 'Home & Garden > Kitchen & Dining > Kitchen Tools & Utensils']),
    );
    // Trail shoes are placed in "Apparel & Accessories > Shoes" itself: the same row at level 3.
    expect(third.find((r) => r.category_path === 'Apparel & Accessories > Shoes')).toMatchObject({ category_id: 187, impressions: 2 });
    expect(await topCategories('&category_level=7')).toEqual(expected(DAY0_RANGE, 7, 'impressions'));
  });

  it('cuts the list at category_limit', async () => {
    expect(await topCategories('&category_limit=2&category_order=revenue')).toEqual(expected(DAY0_RANGE, 2, 'revenue', 2));
    expect(await topCategories('&category_limit=50')).toHaveLength(5);
  });

  it('puts top_categories in the summary, shaped by the same parameters', async () => {
    const summary = (await get(`/v1/analytics?${q(DAY0_RANGE)}`)).json();
    expect(summary.top_categories).toEqual(expected(DAY0_RANGE, 2, 'impressions'));
    expect(summary.metrics).toMatchObject({ impressions: 16, clicks: 5, conversions: 3, revenue: 28.75 });
    // Every impression, click and conversion of the range is in exactly one row.
    const sum = (k: 'impressions' | 'clicks' | 'conversions' | 'revenue') => summary.top_categories.reduce((n: number, r: TopCategory) => n + r[k], 0);
    expect([sum('impressions'), sum('clicks'), sum('conversions'), sum('revenue')]).toEqual([16, 5, 3, 28.75]);
    const shaped = (await get(`/v1/analytics?${q(DAY0_RANGE)}&category_level=1&category_order=clicks&category_limit=1`)).json();
    expect(shaped.top_categories).toEqual(expected(DAY0_RANGE, 1, 'clicks', 1));
  });

  it('counts each event when it happened, and answers the same from the daily rollup as from raw rows', async () => {
    const rawDay0 = await topCategories('&category_level=3');
    // Day 1: a click on a day-0 kitchen impression counts on day 1, in the category it was shown in.
    clock.advance(DAY);
    const knife = ledger.shown.find((s) => s.path?.includes('Kitchen Tools & Utensils'))!;
    await click({ impression_id: knife.impressionId, category_id: knife.leafId, category_path: null });
    clock.advance(10 * MIN);
    const day1 = { start: DAY0 + DAY, end: DAY0 + 2 * DAY };
    expect(await topCategories('', day1)).toEqual([
      {
        category_id: 638,
        category_path: 'Home & Garden > Kitchen & Dining',
        impressions: 0,
        clicks: 1,
        ctr: 0,
        conversions: 0,
        revenue: 0,
        revenue_by_currency: {},
      },
    ]);
    // Day 3: days 0 to 2 are settled and read from category_daily, and answer what raw rows did.
    clock.advance(2 * DAY);
    expect(await topCategories('&category_level=3')).toEqual(rawDay0);
    const rolled = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM category_daily WHERE account_id = $1', [t.accountId]);
    expect(rolled[0]!.n).toBeGreaterThan(0);
    const both = { start: DAY0, end: DAY0 + 2 * DAY };
    expect(await topCategories('&category_order=clicks', both)).toEqual(expected(both, 2, 'clicks'));
    expect((await topCategories('&category_order=clicks', both))[0]).toMatchObject({ category_path: 'Home & Garden > Kitchen & Dining', clicks: 2 });
  });

  it('answers an empty list for a range with nothing in it', async () => {
    expect(await topCategories('', { start: DAY0 - 3 * DAY, end: DAY0 - 2 * DAY })).toEqual([]);
  });
});

describe('GET /v1/analytics: top_categories parameter validation', () => {
  it.each([
    ['category_level=0', 'query.category_level'],
    ['category_level=8', 'query.category_level'],
    ['category_level=two', 'query.category_level'],
    ['category_level=1.5', 'query.category_level'],
    ['category_order=ctr', 'query.category_order'],
    ['category_limit=0', 'query.category_limit'],
    ['category_limit=51', 'query.category_limit'],
    ['metric=ctr&category_level=2', 'query.category_level'],
    ['metric=top_products&category_order=clicks', 'query.category_order'],
    ['metric=top_queries&category_limit=5', 'query.category_limit'],
  ])('%s is 400 naming %s', async (params, path) => {
    const body = expectProblem(await get(`/v1/analytics?${params}`), 400, 'validation_failed');
    expect(body.errors, JSON.stringify(body)).toEqual([expect.objectContaining({ path })]);
  });
});

describe('get_analytics (MCP)', () => {
  async function connect(): Promise<AnyClient> {
    const handler = createMcpHandler(() => buildMcpServer(createInProcessApi(t.core, { apiKey: t.adminKey }), { logger: t.app.log, requestId: randomUUID }));
    handlers.push(handler);
    return connectHttp('2026-07-28 (SDK 2)', 'http://in-process.test/mcp', { fetch: (url, init) => handler.fetch(new Request(url, init)) });
  }

  it('offers top_categories with the same parameters and answers what REST answers', async () => {
    const client = await connect();
    const listed = (await client.listTools()).tools.find((tool) => tool.name === 'get_analytics')!;
    expect(Object.keys(listed.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['category_level', 'category_order', 'category_limit']));
    const range = { start_date: new Date(DAY0).toISOString(), end_date: new Date(DAY0 + DAY).toISOString() };
    const result = await hostCallTool(client, 'get_analytics', { metric: 'top_categories', ...range, category_level: 1, category_order: 'revenue' });
    expect(result.isError ?? false, text(result)).toBe(false);
    const rest = (await get(`/v1/analytics?metric=top_categories&${q(DAY0_RANGE)}&category_level=1&category_order=revenue`)).json();
    expect(structured(result)).toEqual(rest);
    expect(text(result)).toContain('Sporting Goods (3 impressions, 1 clicks, revenue 20.00)');
    const summary = structured<{ top_categories: TopCategory[] }>(await hostCallTool(client, 'get_analytics', range));
    expect(summary.top_categories).toEqual((await get(`/v1/analytics?${q(DAY0_RANGE)}`)).json().top_categories);
  });

  it('refuses bad category parameters as a validation_failed problem naming the field', async () => {
    const client = await connect();
    const level = problem<{ code: string; errors: { path: string }[] }>(
      await hostCallTool(client, 'get_analytics', { metric: 'top_categories', category_level: 9 }),
    );
    expect(level).toMatchObject({ code: 'validation_failed', errors: [{ path: 'category_level' }] });
    const misplaced = problem<{ code: string; errors: { path: string }[] }>(
      await hostCallTool(client, 'get_analytics', { metric: 'ctr', category_order: 'clicks' }),
    );
    expect(misplaced).toMatchObject({ code: 'validation_failed', errors: [{ path: 'category_order' }] });
  });
});
