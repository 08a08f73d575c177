/**
 * Ground truth for the analytics figures (docs/analytics.md): a scripted history driven through the real API over three days
 * (searches, batch searches, impressions, API and link clicks with duplicates and bots,
 * conversions, feedback, 4xx and 429 answers) on two keys of one account and a second account,
 * with an injected clock. The test keeps its own ledger of what it did and what the API answered,
 * and every figure of every endpoint must equal what the ledger says.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOT_USER_AGENTS, BROWSER_USER_AGENTS } from '../core/clicks/user-agent-samples.js';
import { call, type createKey, createTestApp, expectStatus, ManualClock, type TestApp } from '../helpers/app.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

interface Result {
  product_id: string;
  impression_id: string;
  click_url: string;
}
interface LogLine {
  account: 'A' | 'B';
  keyId: string;
  method: string;
  route: string;
  status: number;
  at: number;
}
interface Shown {
  impressionId: string;
  productId: string;
  requestId: string;
  query: string;
  at: number;
}
interface Search {
  requestId: string;
  query: string;
  results: number;
  at: number;
}
interface Click {
  impressionId: string;
  productId: string;
  requestId: string;
  at: number;
  clickId: string;
}
interface Conversion {
  productId: string;
  commission: number;
  at: number;
}

/** What happened, per account, as the test saw it. */
class Ledger {
  log: LogLine[] = [];
  searches: Search[] = [];
  shown: Shown[] = [];
  clicks: Click[] = [];
  conversions: Conversion[] = [];
  feedback: number[] = [];
  /** When each impression's first display receipt arrived. */
  displayed: number[] = [];
}

let sample: SampleCatalog;
let t: TestApp;
const clock = new ManualClock('2026-11-18T09:00:00.000Z');
const ledgers = { A: new Ledger(), B: new Ledger() };
const keys: Record<string, { key: string; id: string; account: 'A' | 'B'; name: string }> = {};

/** One authenticated API call, written to the ledger with the route template it should be logged under. */
async function api(who: string, method: 'GET' | 'POST' | 'DELETE', url: string, route: string, body?: unknown): Promise<LightMyRequestResponse> {
  const k = keys[who]!;
  const res = await call(t.app, k.key, method, url, body);
  ledgers[k.account].log.push({ account: k.account, keyId: k.id, method, route, status: res.statusCode, at: clock.now().getTime() });
  return res;
}

async function search(who: string, query: string, limit: number): Promise<Result[]> {
  const res = await api(who, 'POST', '/v1/search', '/v1/search', { query, limit, min_relevance_score: 0 });
  expectStatus(res, 200);
  const body = res.json() as { request_id: string; results: Result[] };
  expect(body.results).toHaveLength(limit);
  record(keys[who]!.account, body.request_id, query, body.results);
  return body.results;
}

function record(account: 'A' | 'B', requestId: string, query: string, results: Result[]): void {
  const l = ledgers[account];
  const at = clock.now().getTime();
  const stored = normalise(query);
  l.searches.push({ requestId, query: stored, results: results.length, at });
  for (const r of results) l.shown.push({ impressionId: r.impression_id, productId: r.product_id, requestId, query: stored, at });
}

/** The stored form of a query: PII redacted, lower-cased, whitespace collapsed. */
const normalise = (q: string) =>
  q
    .replace(/[\w.+-]+@[\w-]+\.[\w.]+/g, '[EMAIL]')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();

async function apiClick(who: string, r: Result, expected: 201 | 200): Promise<void> {
  const res = await api(who, 'POST', `/v1/clicks/${r.impression_id}`, '/v1/clicks/:impression_id');
  expectStatus(res, expected);
  if (expected === 201) billed(keys[who]!.account, r, res.json().click_id);
}

/** POST /v1/displays; `fresh` are the receipts this call should be the first for. */
async function display(who: string, results: Result[], fresh: number): Promise<void> {
  const ids = results.map((r, i) => (i % 2 === 0 ? r.impression_id : `imp_${r.impression_id}`));
  const res = await api(who, 'POST', '/v1/displays', '/v1/displays', { impression_ids: ids });
  expectStatus(res, 200);
  const body = res.json() as { displays: { impression_id: string; first_receipt: boolean }[] };
  expect(body.displays.map((d) => d.impression_id)).toEqual(results.map((r) => r.impression_id));
  expect(body.displays.filter((d) => d.first_receipt)).toHaveLength(fresh);
  for (let i = 0; i < fresh; i++) ledgers[keys[who]!.account].displayed.push(clock.now().getTime());
}

function billed(account: 'A' | 'B', r: Result, clickId: string): void {
  const shown = ledgers[account].shown.find((s) => s.impressionId === r.impression_id)!;
  ledgers[account].clicks.push({ impressionId: r.impression_id, productId: r.product_id, requestId: shown.requestId, at: clock.now().getTime(), clickId });
}

/** Follows a result's signed link the way a browser or a bot does (public: no key, not in the request log). */
async function follow(account: 'A' | 'B', r: Result, userAgent: string, outcome: 'billable' | 'non_billable' | 'duplicate'): Promise<void> {
  const url = new URL(r.click_url);
  const res = await t.app.inject({ method: 'GET', url: url.pathname + url.search, headers: { 'user-agent': userAgent } });
  expectStatus(res, 302);
  expect(res.headers['aisle-click']).toBe(outcome);
  if (outcome === 'billable') {
    const row = await t.db.query<{ id: string }>('SELECT id FROM clicks WHERE impression_id = $1 AND billable', [r.impression_id]);
    billed(account, r, row[0]!.id);
  }
}

async function convert(who: string, r: Result, orderId: string, commission: number, expected: 201 | 200): Promise<void> {
  const res = await api(who, 'POST', '/v1/conversions', '/v1/conversions', {
    impression_id: r.impression_id,
    order_id: orderId,
    sale_amount: commission * 10,
    commission_amount: commission,
    currency: 'USD',
  });
  expectStatus(res, expected);
  if (expected === 201) ledgers[keys[who]!.account].conversions.push({ productId: r.product_id, commission, at: clock.now().getTime() });
}

async function feedback(who: string, requestId: string, productId: string, relevant: boolean): Promise<void> {
  const res = await api(who, 'POST', '/v1/feedback', '/v1/feedback', { request_id: requestId, product_id: productId, relevant });
  expectStatus(res, 201);
  ledgers[keys[who]!.account].feedback.push(clock.now().getTime());
}

const at = (iso: string) => {
  const target = Date.parse(iso);
  if (target < clock.now().getTime()) throw new Error(`script goes back in time: ${iso}`);
  clock.advance(target - clock.now().getTime());
};

// ---------------------------------------------------------------------------------------------
// Expected figures, computed from the ledger.

const inRange = (t0: number, t1: number) => (x: { at: number } | number) => {
  const v = typeof x === 'number' ? x : x.at;
  return v >= t0 && v < t1;
};
const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);
/** Money in ten-thousandths, summed as integers, then to the cent. */
const cents = (amounts: number[]) => Math.round(amounts.reduce((s, a) => s + Math.round(a * 10_000), 0) / 100) / 100;

function expectedMetrics(l: Ledger, t0: number, t1: number) {
  const f = inRange(t0, t1);
  const impressions = l.shown.filter(f).length;
  const clicks = l.clicks.filter(f).length;
  const conversions = l.conversions.filter(f);
  const displayed = l.displayed.filter(f).length;
  return {
    impressions,
    displayed_impressions: displayed,
    display_rate: ratio(displayed, impressions),
    clicks,
    ctr: ratio(clicks, impressions),
    conversions: conversions.length,
    conversion_rate: ratio(conversions.length, clicks),
    revenue: cents(conversions.map((c) => c.commission)),
  };
}

function expectedTopProducts(l: Ledger, t0: number, t1: number) {
  const f = inRange(t0, t1);
  const by = new Map<string, { impressions: number; clicks: number; conversions: number; amounts: number[] }>();
  const get = (id: string) => by.get(id) ?? by.set(id, { impressions: 0, clicks: 0, conversions: 0, amounts: [] }).get(id)!;
  for (const s of l.shown.filter(f)) get(s.productId).impressions += 1;
  for (const c of l.clicks.filter(f)) get(c.productId).clicks += 1;
  for (const c of l.conversions.filter(f)) {
    get(c.productId).conversions += 1;
    get(c.productId).amounts.push(c.commission);
  }
  return [...by.entries()]
    .map(([product_id, v]) => ({
      product_id,
      impressions: v.impressions,
      clicks: v.clicks,
      ctr: ratio(v.clicks, v.impressions),
      conversions: v.conversions,
      revenue: cents(v.amounts),
    }))
    .sort((a, b) => b.clicks - a.clicks || b.impressions - a.impressions || b.revenue - a.revenue || (a.product_id < b.product_id ? -1 : 1))
    .slice(0, 10);
}

function expectedTopQueries(l: Ledger, t0: number, t1: number) {
  const f = inRange(t0, t1);
  const by = new Map<string, { searches: number; results: number; clicks: number }>();
  for (const s of l.searches.filter(f)) {
    const v = by.get(s.query) ?? { searches: 0, results: 0, clicks: 0 };
    v.searches += 1;
    v.results += s.results;
    by.set(s.query, v);
  }
  for (const c of l.clicks.filter(f)) {
    const query = l.searches.find((s) => s.requestId === c.requestId)!.query;
    const v = by.get(query);
    if (v) v.clicks += 1;
  }
  return [...by.entries()]
    .map(([query, v]) => ({ query, searches: v.searches, clicks: v.clicks, ctr: ratio(v.clicks, v.results) }))
    .sort((a, b) => b.searches - a.searches || b.clicks - a.clicks || (a.query < b.query ? -1 : 1))
    .slice(0, 10);
}

function expectedUsageCounters(l: Ledger, t0: number, t1: number) {
  const f = inRange(t0, t1);
  const log = l.log.filter(f);
  const searches = l.searches.filter(f);
  return {
    requests: log.length,
    searches: searches.length,
    results_returned: searches.reduce((n, s) => n + s.results, 0),
    clicks: l.clicks.filter(f).length,
    feedback: l.feedback.filter(f).length,
    errors: log.filter((x) => x.status >= 400).length,
  };
}

/** Nearest-rank percentile: the smallest value with at least p of the values at or below it. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.max(0, Math.ceil(p * sorted.length - 1e-9) - 1)]!;
}

// ---------------------------------------------------------------------------------------------
// The script.

let r1: Result[], r2: Result[], r3: Result[], r5: Result[];
let r2RequestId: string, r3RequestId: string;

beforeAll(async () => {
  sample = await openSampleCatalog();
  t = await createTestApp({ clock, search: sample });
  const first = (await t.db.query<{ id: string; name: string }>('SELECT id, name FROM api_keys WHERE account_id = $1', [t.accountId]))[0]!;
  keys.admin = { key: t.adminKey, id: first.id, account: 'A', name: first.name };
  const other = await t.core.accounts.create('account B');
  keys.b = { key: other.firstKey.key, id: other.firstKey.metadata.id, account: 'B', name: other.firstKey.metadata.name };

  // Day 1, 2026-11-18.
  const make = async (who: string, name: string, body: Omit<Parameters<typeof createKey>[2], 'name'>) => {
    const res = await api('admin', 'POST', '/v1/keys', '/v1/keys', { name, ...body });
    expectStatus(res, 201);
    keys[who] = { key: res.json().key, id: res.json().metadata.id, account: 'A', name };
  };
  await make('s', 'agent one', { scopes: ['search', 'events:write', 'conversions:write', 'analytics:read'], rate_limit_per_minute: 1000 });
  await make('t', 'agent two', { scopes: ['search', 'events:write'], rate_limit_per_minute: 2 });
  await make('w', 'analyst', { scopes: ['analytics:read'] });
  await make('old', 'retired', { scopes: ['search'] });
  expectStatus(await api('admin', 'POST', `/v1/keys/${keys.old!.id}`, '/v1/keys/:key_id'), 200);

  at('2026-11-18T10:00:00.000Z');
  r1 = await search('s', 'trail running shoes', 5);
  at('2026-11-18T10:05:00.000Z');
  r2 = await search('s', 'Espresso   Machine', 3);
  r2RequestId = ledgers.A.searches.at(-1)!.requestId;
  at('2026-11-18T10:06:00.000Z');
  await display('s', r1.slice(0, 3), 3);
  at('2026-11-18T10:07:00.000Z');
  await display('s', [r1[0]!, r2[0]!], 1); // r1[0] again: first receipt wins, not counted twice
  at('2026-11-18T10:10:00.000Z');
  await apiClick('s', r1[0]!, 201);
  await apiClick('s', r1[0]!, 200); // duplicate: not counted again
  at('2026-11-18T10:12:00.000Z');
  await follow('A', r1[1]!, BOT_USER_AGENTS[0]!, 'non_billable'); // a crawler: redirected, never billed
  await follow('A', r1[2]!, BROWSER_USER_AGENTS[0]!, 'billable');
  await follow('A', r1[2]!, BROWSER_USER_AGENTS[0]!, 'duplicate');
  at('2026-11-18T10:20:00.000Z');
  await convert('s', r1[0]!, 'order-1', 12.34, 201);
  await convert('s', r1[0]!, 'order-1', 12.34, 200); // the postback again: once per order
  // Agent two has a budget of 2 per minute: the third search is rate-limited.
  at('2026-11-18T11:00:00.000Z');
  await search('t', 'camping tent', 2);
  await search('t', 'camping tent', 2);
  expectStatus(await api('t', 'POST', '/v1/search', '/v1/search', { query: 'camping tent' }), 429);
  // Client errors of authenticated callers.
  expectStatus(await api('s', 'POST', `/v1/clicks/${UNKNOWN}`, '/v1/clicks/:impression_id'), 404);
  expectStatus(await api('s', 'POST', '/v1/search', '/v1/search', { query: '' }), 400);
  expectStatus(await api('w', 'POST', '/v1/search', '/v1/search', { query: 'tent' }), 403);

  // Account B, same hour: must never show up in A's figures.
  const b = await search('b', 'trail running shoes', 4);
  await display('b', [b[0]!], 1);
  // A receipt naming one of A's impressions is refused whole: nothing of it is recorded.
  expectStatus(await api('b', 'POST', '/v1/displays', '/v1/displays', { impression_ids: [b[1]!.impression_id, r1[4]!.impression_id] }), 404);
  await apiClick('b', b[0]!, 201);
  await convert('b', b[0]!, 'order-1', 99.99, 201);
  await follow('B', b[1]!, BROWSER_USER_AGENTS[1]!, 'billable');

  // Day 2, 2026-11-19.
  at('2026-11-19T14:00:00.000Z');
  r3 = await search('s', 'espresso machine', 4);
  r3RequestId = ledgers.A.searches.at(-1)!.requestId;
  const batch = await api('s', 'POST', '/v1/search/batch', '/v1/search/batch', {
    queries: [
      { query: 'trail running shoes', limit: 2, min_relevance_score: 0 },
      { query: 'Gift for bob@example.com', limit: 3, min_relevance_score: 0 },
    ],
  });
  expectStatus(batch, 200);
  const batchBody = batch.json() as { results: { body: { request_id: string; results: Result[] } }[] };
  record('A', batchBody.results[0]!.body.request_id, 'trail running shoes', batchBody.results[0]!.body.results);
  record('A', batchBody.results[1]!.body.request_id, 'Gift for bob@example.com', batchBody.results[1]!.body.results);
  at('2026-11-19T14:30:00.000Z');
  await apiClick('s', r3[0]!, 201);
  await apiClick('s', r3[1]!, 201);
  await follow('A', batchBody.results[0]!.body.results[0]!, BOT_USER_AGENTS[3]!, 'non_billable');
  await feedback('s', r3RequestId, r3[0]!.product_id, true);
  await feedback('s', r2RequestId, r2[0]!.product_id, false);
  at('2026-11-19T18:45:00.000Z');
  await convert('s', r3[0]!, 'order-2', 3.3333, 201);
  await convert('s', r3[1]!, 'order-3', 1.1117, 201);

  // Day 3, 2026-11-20: agent two's budget has refilled.
  at('2026-11-20T08:00:00.000Z');
  r5 = await search('t', 'hiking socks', 3);
  await display('s', [r5[0]!], 1); // by agent one: agent two's budget is 2 a minute
  // A receipt today for an impression shown on day 1 counts today, like a click.
  await display('s', [r1[3]!, r1[0]!], 1);
  await apiClick('t', r5[0]!, 201);
  // A click today on an impression shown on day 1 counts today (clicks count when they happen).
  await apiClick('s', r1[3]!, 201);
  at('2026-11-20T08:01:00.000Z');
  expectStatus(await api('t', 'GET', '/v1/usage', '/v1/usage'), 403);
  at('2026-11-20T12:00:00.000Z');
}, 120_000);

afterAll(async () => {
  await t?.close();
  await sample?.close();
});

const T0 = Date.parse('2026-11-18T00:00:00.000Z');
const NOW = () => clock.now().getTime();

describe('GET /v1/analytics (ground truth)', () => {
  it('summarises every metric and both top lists over the default 30 days', async () => {
    const res = await api('w', 'GET', '/v1/analytics', '/v1/analytics');
    expectStatus(res, 200);
    const body = res.json();
    const start = NOW() - 30 * DAY;
    expect(body.metrics).toEqual(expectedMetrics(ledgers.A, start, NOW()));
    // The ledger itself, by hand: 5+3+2+2+4+2+3+3 shown; 6 billable clicks; 3 conversions.
    expect(body.metrics).toMatchObject({ impressions: 24, clicks: 6, conversions: 3, revenue: 16.79 });
    expect(body.metrics.ctr).toBe(6 / 24);
    expect(body.metrics.conversion_rate).toBe(3 / 6);
    expect(body.top_products.map(({ title: _t, ...p }: { title: string }) => p)).toEqual(expectedTopProducts(ledgers.A, start, NOW()));
    for (const p of body.top_products) expect(typeof p.title).toBe('string');
    expect(body.top_queries).toEqual(expectedTopQueries(ledgers.A, start, NOW()));
    expect(body.top_queries[0]).toEqual({ query: 'trail running shoes', searches: 2, clicks: 3, ctr: 3 / 7 });
    expect(body.top_queries.map((q: { query: string }) => q.query)).toContain('gift for [email]');
  });

  it('counts only what happened inside an explicit range (day 2, given with an offset)', async () => {
    const body = (await api('w', 'GET', '/v1/analytics?start_date=2026-11-19T01:00:00%2B01:00&end_date=2026-11-20T00:00:00Z', '/v1/analytics')).json();
    const [t0, t1] = [Date.parse('2026-11-19T00:00:00Z'), Date.parse('2026-11-20T00:00:00Z')];
    expect(body.start_date).toBe('2026-11-19T00:00:00.000Z');
    expect(body.metrics).toEqual({
      impressions: 9,
      displayed_impressions: 0,
      display_rate: 0,
      clicks: 2,
      ctr: 2 / 9,
      conversions: 2,
      conversion_rate: 1,
      revenue: 4.45,
    });
    expect(body.metrics).toEqual(expectedMetrics(ledgers.A, t0, t1));
    expect(body.top_products.map(({ title: _t, ...p }: { title: string }) => p)).toEqual(expectedTopProducts(ledgers.A, t0, t1));
    expect(body.top_queries).toEqual(expectedTopQueries(ledgers.A, t0, t1));
  });

  it.each(['ctr', 'conversion_rate', 'revenue', 'display_rate'] as const)('metric=%s answers the value and a daily series', async (metric) => {
    const end = Date.parse('2026-11-21T00:00:00Z');
    const body = (
      await api('w', 'GET', `/v1/analytics?metric=${metric}&start_date=2026-11-18T00:00:00Z&end_date=2026-11-21T00:00:00Z`, '/v1/analytics')
    ).json();
    expect(body).toMatchObject({ metric, granularity: 'day', start_date: '2026-11-18T00:00:00.000Z', end_date: '2026-11-21T00:00:00.000Z' });
    expect(body.value).toBe(expectedMetrics(ledgers.A, T0, end)[metric]);
    expect(body.series).toEqual(
      [0, 1, 2].map((d) => ({
        period_start: new Date(T0 + d * DAY).toISOString(),
        value: expectedMetrics(ledgers.A, T0 + d * DAY, T0 + (d + 1) * DAY)[metric],
      })),
    );
  });

  it('metric=revenue sums exactly: 12.34 on day 1, 3.3333 + 1.1117 = 4.445 → 4.45 on day 2', async () => {
    const body = (await api('w', 'GET', '/v1/analytics?metric=revenue&start_date=2026-11-18T00:00:00Z&end_date=2026-11-21T00:00:00Z', '/v1/analytics')).json();
    expect(body.value).toBe(16.79);
    expect(body.series.map((p: { value: number }) => p.value)).toEqual([12.34, 4.45, 0]);
  });

  it('metric=ctr with hourly granularity puts each click in its hour', async () => {
    const body = (
      await api('w', 'GET', '/v1/analytics?metric=ctr&granularity=hour&start_date=2026-11-18T10:00:00Z&end_date=2026-11-18T12:00:00Z', '/v1/analytics')
    ).json();
    // 10:00–11:00: 8 shown, 2 billable clicks (API + browser link); 11:00–12:00: 4 shown, none clicked.
    expect(body.series).toEqual([
      { period_start: '2026-11-18T10:00:00.000Z', value: 2 / 8 },
      { period_start: '2026-11-18T11:00:00.000Z', value: 0 },
    ]);
    expect(body.value).toBe(2 / 12);
  });

  it('metric=top_products and metric=top_queries answer the same lists as the summary', async () => {
    const q = 'start_date=2026-11-18T00:00:00Z&end_date=2026-11-21T00:00:00Z';
    const p = (await api('w', 'GET', `/v1/analytics?metric=top_products&${q}`, '/v1/analytics')).json();
    expect(p.metric).toBe('top_products');
    expect(p.items.map(({ title: _t, ...x }: { title: string }) => x)).toEqual(expectedTopProducts(ledgers.A, T0, T0 + 3 * DAY));
    const qs = (await api('w', 'GET', `/v1/analytics?metric=top_queries&${q}`, '/v1/analytics')).json();
    expect(qs).toEqual({
      metric: 'top_queries',
      start_date: '2026-11-18T00:00:00.000Z',
      end_date: '2026-11-21T00:00:00.000Z',
      items: expectedTopQueries(ledgers.A, T0, T0 + 3 * DAY),
    });
  });

  it('shows account B only its own traffic', async () => {
    const body = (await api('b', 'GET', '/v1/analytics', '/v1/analytics')).json();
    expect(body.metrics).toEqual({
      impressions: 4,
      displayed_impressions: 1,
      display_rate: 0.25,
      clicks: 2,
      ctr: 0.5,
      conversions: 1,
      conversion_rate: 0.5,
      revenue: 99.99,
    });
    expect(body.top_queries).toEqual([{ query: 'trail running shoes', searches: 1, clicks: 2, ctr: 0.5 }]);
  });
});

describe('GET /v1/usage (ground truth)', () => {
  it('counts requests, searches, results, clicks, feedback and errors per day and per key', async () => {
    const q = 'start_date=2026-11-18T00:00:00Z&end_date=2026-11-21T00:00:00Z';
    const before = NOW();
    const res = await api('s', 'GET', `/v1/usage?${q}`, '/v1/usage');
    expectStatus(res, 200);
    const body = res.json();
    // The ledger minus this very request (it is logged once answered).
    const ledger = { ...ledgers.A, log: ledgers.A.log.slice(0, -1) } as Ledger;
    expect(body.granularity).toBe('day');
    expect(body.totals).toEqual(expectedUsageCounters(ledger, T0, T0 + 3 * DAY));
    expect(body.series).toEqual(
      [0, 1, 2].map((d) => ({ period_start: new Date(T0 + d * DAY).toISOString(), ...expectedUsageCounters(ledger, T0 + d * DAY, T0 + (d + 1) * DAY) })),
    );
    // By hand: 8 searches (the batch counts 2, the 429 none), 24 results, 6 clicks, 2 votes.
    expect(body.totals).toMatchObject({ searches: 8, results_returned: 24, clicks: 6, feedback: 2 });
    expect(body.totals.errors).toBe(ledger.log.filter((l) => l.status >= 400).length);
    expect(ledger.log.filter((l) => l.status === 429)).toHaveLength(1);

    const perKey = new Map<string, number>();
    for (const l of ledger.log) perKey.set(l.keyId, (perKey.get(l.keyId) ?? 0) + 1);
    const names = Object.fromEntries(Object.values(keys).map((k) => [k.id, k.name]));
    expect(body.by_key).toEqual(
      [...perKey.entries()]
        .map(([key_id, requests]) => ({ key_id, name: names[key_id], requests }))
        .sort((a, b) => b.requests - a.requests || (a.key_id < b.key_id ? -1 : 1)),
    );
    // The calling key's budget: 1000 per minute, this request spent one (the clock stands still).
    expect(body.rate_limit).toEqual({ limit: 1000, remaining: 999, reset_at: new Date(before + 60).toISOString(), window_seconds: 60 });
  });

  it('answers hourly buckets for a range up to two days, counting the partial first and last hours', async () => {
    const body = (await api('s', 'GET', '/v1/usage?start_date=2026-11-18T10:05:00Z&end_date=2026-11-18T11:30:00Z', '/v1/usage')).json();
    const ledger = { ...ledgers.A, log: ledgers.A.log.slice(0, -1) } as Ledger;
    const [t0, t1] = [Date.parse('2026-11-18T10:05:00Z'), Date.parse('2026-11-18T11:30:00Z')];
    expect(body.granularity).toBe('hour');
    expect(body.totals).toEqual(expectedUsageCounters(ledger, t0, t1));
    expect(body.series.map((s: { period_start: string }) => s.period_start)).toEqual(['2026-11-18T10:00:00.000Z', '2026-11-18T11:00:00.000Z']);
    expect(body.series[0]).toMatchObject({ searches: 1, results_returned: 3 });
  });

  it("never counts another account's requests", async () => {
    const body = (await api('b', 'GET', '/v1/usage', '/v1/usage')).json();
    const ledger = { ...ledgers.B, log: ledgers.B.log.slice(0, -1) } as Ledger;
    expect(body.totals).toEqual(expectedUsageCounters(ledger, NOW() - 30 * DAY, NOW()));
    // Default range ends now, exclusive: B's analytics call made at this very instant is not in it.
    expect(body.by_key).toEqual([{ key_id: keys.b!.id, name: keys.b!.name, requests: ledger.log.filter(inRange(NOW() - 30 * DAY, NOW())).length }]);
    expect(body.totals.requests).toBe(5); // search, display receipt, refused receipt, click, conversion
  });
});

describe('GET /v1/analytics/performance (ground truth)', () => {
  async function latencies(keyIds: string[], t0: number, t1: number) {
    return t.db.query<{ method: string; route: string; status: number; latency_ms: number }>(
      'SELECT method, route, status, latency_ms FROM request_log WHERE key_id = ANY($1::uuid[]) AND created_at >= $2 AND created_at < $3',
      [keyIds, new Date(t0), new Date(t1)],
    );
  }

  it.each(['7d', '24h'] as const)('timeframe=%s: requests, statuses, endpoints and exact percentiles', async (timeframe) => {
    const res = await api('w', 'GET', `/v1/analytics/performance?timeframe=${timeframe}`, '/v1/analytics/performance');
    expectStatus(res, 200);
    const body = res.json();
    const [t0, t1] = [NOW() - (timeframe === '7d' ? 7 : 1) * DAY, NOW()];
    const ledger = ledgers.A.log.slice(0, -1).filter(inRange(t0, t1));
    expect(body).toMatchObject({ timeframe, requests: ledger.length, start_date: new Date(t0).toISOString(), end_date: new Date(t1).toISOString() });

    const statuses: Record<string, number> = {};
    for (const l of ledger) statuses[String(l.status)] = (statuses[String(l.status)] ?? 0) + 1;
    expect(body.status_codes).toEqual(statuses);
    if (timeframe === '7d') expect(body.status_codes).toMatchObject({ '400': 1, '403': 2, '404': 1, '429': 1 });

    // Latencies are real time, so they are read back from the table; everything else comes from the ledger.
    const rows = await latencies(
      Object.values(keys)
        .filter((k) => k.account === 'A')
        .map((k) => k.id),
      t0,
      t1,
    );
    expect(rows.map((r) => `${r.method} ${r.route} ${r.status}`).sort()).toEqual(ledger.map((l) => `${l.method} ${l.route} ${l.status}`).sort());
    const all = rows.map((r) => r.latency_ms).sort((a, b) => a - b);
    expect(body.latency_ms).toEqual({
      p50: percentile(all, 0.5),
      p90: percentile(all, 0.9),
      p95: percentile(all, 0.95),
      p99: percentile(all, 0.99),
      max: all.at(-1),
    });

    const endpoints = new Map<string, typeof rows>();
    for (const r of rows) endpoints.set(`${r.method} ${r.route}`, [...(endpoints.get(`${r.method} ${r.route}`) ?? []), r]);
    const expected = [...endpoints.values()]
      .map((list) => {
        const sorted = list.map((r) => r.latency_ms).sort((a, b) => a - b);
        return {
          method: list[0]!.method,
          route: list[0]!.route,
          requests: list.length,
          p50: percentile(sorted, 0.5),
          p95: percentile(sorted, 0.95),
          p99: percentile(sorted, 0.99),
          error_rate: list.filter((r) => r.status >= 400).length / list.length,
        };
      })
      .sort((a, b) => b.requests - a.requests || (a.route < b.route ? -1 : a.route > b.route ? 1 : a.method < b.method ? -1 : 1));
    expect(body.by_endpoint).toEqual(expected);
    expect(body.by_endpoint.map((e: { route: string }) => e.route)).not.toContain(`/v1/clicks/${UNKNOWN}`);

    const byStatus = Object.keys(statuses)
      .map(Number)
      .sort((a, b) => a - b)
      .map((status) => {
        const sorted = rows
          .filter((r) => r.status === status)
          .map((r) => r.latency_ms)
          .sort((a, b) => a - b);
        return { status, requests: sorted.length, p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), p99: percentile(sorted, 0.99) };
      });
    expect(body.by_status).toEqual(byStatus);

    const total = body.series.reduce((n: number, s: { requests: number }) => n + s.requests, 0);
    expect(total).toBe(ledger.length);
    expect(body.granularity).toBe(timeframe === '7d' ? 'day' : 'hour');
  });
});

describe('GET /v1/dashboard/stats (ground truth)', () => {
  it('answers all-time revenue, active keys and the last 24 hours', async () => {
    const body = (await api('w', 'GET', '/v1/dashboard/stats', '/v1/dashboard/stats')).json();
    const f = inRange(NOW() - DAY, NOW());
    const impressions = ledgers.A.shown.filter(f).length;
    const clicks = ledgers.A.clicks.filter(f).length;
    expect(body).toEqual({
      total_revenue: 16.79,
      currency: 'USD',
      revenue_by_currency: { USD: 16.79 },
      // first key, agent one, agent two, analyst; "retired" is disabled.
      active_api_keys: 4,
      ad_requests_24h: ledgers.A.searches.filter(f).length,
      impressions_24h: impressions,
      clicks_24h: clicks,
      ctr_24h: clicks / impressions,
    });
    // Since day 2 12:00: the day-2 search and batch (3 searches, 9 shown, 2 clicks) and day 3's (1, 3, 2).
    expect(body).toMatchObject({ ad_requests_24h: 4, impressions_24h: 12, clicks_24h: 4 });
  });

  it('counts for account B only its own', async () => {
    const body = (await api('b', 'GET', '/v1/dashboard/stats', '/v1/dashboard/stats')).json();
    expect(body).toMatchObject({ total_revenue: 99.99, active_api_keys: 1, ad_requests_24h: 0 });
  });
});
