import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AffiliateConfigSchema } from '../../src/core/clicks/affiliate.js';
import { BOT_USER_AGENTS, BROWSER_USER_AGENTS } from '../core/clicks/user-agent-samples.js';
import { call, createKey, createTestApp, expectProblem, expectStatus, ManualClock, type TestApp } from '../helpers/app.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

const DAY = 24 * 3600 * 1000;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const CHROME = BROWSER_USER_AGENTS[0]!;

interface Result {
  product_id: string;
  impression_id: string;
  click_url: string;
  url: string;
  merchant: string;
}
interface SearchBody {
  request_id: string;
  results: Result[];
}

let sample: SampleCatalog;
let t: TestApp;
let clock: ManualClock;
let key: string;
let other: { key: string };

beforeAll(async () => {
  // A copy: the last test writes to the catalog.
  sample = await openSampleCatalog({ copy: true });
  clock = new ManualClock();
  t = await createTestApp({
    clock,
    search: sample,
    webhooks: { allowPrivate: true },
    affiliate: AffiliateConfigSchema.parse({
      default: { params: { utm_source: 'aisle' } },
      networks: { impact: { params: { irclickid: '{click_id}' } } },
      merchants: { 'Trailhead Outfitters': { network: 'impact', params: { subId1: 'aisle-trail' } } },
    }),
  });
  key = (await createKey(t.app, t.adminKey, { name: 'busy agent', rate_limit_per_minute: 1_000_000 })).key;
  const created = await t.core.accounts.create('other account');
  other = { key: created.firstKey.key };
});
afterAll(async () => {
  await t.close();
  await sample.close();
});

const QUERIES = [
  'espresso machine',
  'trail running shoes',
  'hiking socks',
  'camping tent',
  'wireless headphones',
  'coffee grinder',
  'backpack',
  'kitchen knife',
  'dog bed',
  'yoga mat',
  'desk lamp',
  'rain jacket',
];
let queryIndex = 0;

/** Fresh impressions from real searches (min_relevance_score 0, so ten per search). */
async function impressions(n: number, apiKey = key): Promise<Result[]> {
  const out: Result[] = [];
  while (out.length < n) {
    const res = await call(t.app, apiKey, 'POST', '/v1/search', { query: QUERIES[queryIndex++ % QUERIES.length], limit: 10, min_relevance_score: 0 });
    expectStatus(res, 200);
    out.push(...(res.json() as SearchBody).results);
  }
  return out.slice(0, n);
}

const click = (id: string, apiKey = key, body?: unknown) => call(t.app, apiKey, 'POST', `/v1/clicks/${id}`, body);
const follow = (link: string, userAgent: string | null = CHROME) => {
  const url = new URL(link);
  return t.app.inject({ method: 'GET', url: url.pathname + url.search, headers: userAgent === null ? {} : { 'user-agent': userAgent } });
};
const billableRows = async (impressionId: string) =>
  (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM clicks WHERE impression_id = $1 AND billable', [impressionId]))[0]!.n;

describe('click_url on search results', () => {
  it("is a signed /r/ link for the result's own impression", async () => {
    const [r] = await impressions(1);
    const url = new URL(r!.click_url);
    expect(url.pathname).toBe(`/r/${r!.impression_id}`);
    expect(url.searchParams.get('sig')).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});

describe('POST /v1/clicks/:impression_id', () => {
  it('answers 201 with the click, then 200 duplicate with the same click_id (bare and imp_ forms)', async () => {
    const [r] = await impressions(1);
    const first = await click(r!.impression_id);
    expectStatus(first, 201);
    const body = first.json();
    expect(body).toMatchObject({ impression_id: r!.impression_id, product_id: r!.product_id, duplicate: false, clicked_at: clock.now().toISOString() });
    expect(body.destination_url.startsWith(r!.url)).toBe(true);
    expect(new URL(body.destination_url).searchParams.get('utm_source')).toBe('aisle');
    const again = await click(`imp_${r!.impression_id}`, key, {});
    expectStatus(again, 200);
    expect(again.json()).toEqual({ ...body, duplicate: true });
    expect(await billableRows(r!.impression_id)).toBe(1);
  });

  it('puts the network and merchant affiliate parameters, with the click id, on the destination', async () => {
    const all = await impressions(40);
    const trail = all.find((r) => r.merchant === 'Trailhead Outfitters');
    expect(trail, 'a Trailhead Outfitters result').toBeDefined();
    const body = (await click(trail!.impression_id)).json();
    const params = new URL(body.destination_url).searchParams;
    expect(params.get('irclickid')).toBe(`clk_${body.click_id}`);
    expect(params.get('subId1')).toBe('aisle-trail');
  });

  it('keeps answering the original click after 24 h: the billable click is unique per impression', async () => {
    const [r] = await impressions(1);
    const first = (await click(r!.impression_id)).json();
    clock.advance(25 * 3600 * 1000);
    const later = await click(r!.impression_id);
    expectStatus(later, 200);
    expect(later.json()).toMatchObject({ click_id: first.click_id, duplicate: true });
    expect(await billableRows(r!.impression_id)).toBe(1);
  });

  it('records exactly one billable click when 1,000 arrive at once, every response names it, and the click webhook fires once', async () => {
    expectStatus(await call(t.app, t.adminKey, 'POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/clicks', events: ['click'] }), 201);
    const [r] = await impressions(1);
    const responses = await Promise.all(Array.from({ length: 1000 }, () => click(r!.impression_id)));
    const statuses = responses.map((res) => res.statusCode);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(999);
    expect(new Set(responses.map((res) => res.json().click_id)).size).toBe(1);
    expect(await billableRows(r!.impression_id)).toBe(1);
    const events = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_events WHERE type = 'click' AND payload LIKE $1`, [
      `%imp_${r!.impression_id}%`,
    ]);
    expect(events[0]!.n).toBe(1);
  });

  it('answers 410 impression_expired more than 30 days after the impression', async () => {
    const [fresh, clicked] = await impressions(2);
    expectStatus(await click(clicked!.impression_id), 201);
    clock.advance(30 * DAY + 1);
    expectProblem(await click(fresh!.impression_id), 410, 'impression_expired');
    expectProblem(await click(clicked!.impression_id), 410, 'impression_expired');
    expect(await billableRows(fresh!.impression_id)).toBe(0);
  });

  it('answers 30 days to the millisecond as still inside the window', async () => {
    const [r] = await impressions(1);
    clock.advance(30 * DAY);
    expectStatus(await click(r!.impression_id), 201);
  });

  it.each([
    ['an unknown impression', 404, 'not_found', UNKNOWN],
    ['a malformed id', 404, 'not_found', 'not-an-id'],
    ['a wrongly prefixed id', 404, 'not_found', `clk_${UNKNOWN}`],
  ] as const)('answers %s with %i %s', async (_name, status, code, id) => {
    expectProblem(await click(id), status, code);
  });

  it("answers 404 for another account's impression, and records nothing", async () => {
    const [theirs] = await impressions(1, other.key);
    expectProblem(await click(theirs!.impression_id), 404, 'not_found');
    expect(await billableRows(theirs!.impression_id)).toBe(0);
  });

  it('answers 400 to a body with fields', async () => {
    const [r] = await impressions(1);
    expectProblem(await click(r!.impression_id, key, { count: 2 }), 400, 'validation_failed');
  });
});

describe('GET /r/:impression_id', () => {
  it('redirects a browser with 302 to the merchant URL, counts the click, and a repeat is a duplicate', async () => {
    const [r] = await impressions(1);
    const res = await follow(r!.click_url);
    expect(res.statusCode, res.body).toBe(302);
    expect(res.headers.location!.startsWith(r!.url)).toBe(true);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['aisle-click']).toBe('billable');
    expect(await billableRows(r!.impression_id)).toBe(1);
    const again = await follow(r!.click_url);
    expect(again.headers['aisle-click']).toBe('duplicate');
    expect(again.headers.location).toBe(res.headers.location);
    const api = await click(r!.impression_id);
    expectStatus(api, 200);
    expect(res.headers.location).toBe(api.json().destination_url);
  });

  it('accepts the imp_ form of the id', async () => {
    const [r] = await impressions(1);
    const url = new URL(r!.click_url);
    const res = await follow(`http://x/r/imp_${r!.impression_id}${url.search}`);
    expect(res.statusCode, res.body).toBe(302);
  });

  it.each([
    [
      'a changed signature character',
      (u: URL) => {
        const s = u.searchParams.get('sig')!;
        u.searchParams.set('sig', `${s[0] === 'A' ? 'B' : 'A'}${s.slice(1)}`);
      },
    ],
    ['a missing signature', (u: URL) => u.searchParams.delete('sig')],
    ['an empty signature', (u: URL) => u.searchParams.set('sig', '')],
    ['a truncated signature', (u: URL) => u.searchParams.set('sig', u.searchParams.get('sig')!.slice(0, 21))],
    [
      "another impression's signature",
      (u: URL) => {
        u.pathname = `/r/${UNKNOWN}`;
      },
    ],
  ])('answers %s with 404 and records nothing', async (_name, tamper) => {
    const [r] = await impressions(1);
    const url = new URL(r!.click_url);
    tamper(url);
    expectProblem(await follow(url.toString()), 404, 'not_found');
    expect(await t.db.query('SELECT 1 FROM clicks WHERE impression_id = $1', [r!.impression_id])).toEqual([]);
  });

  it(`redirects ${BOT_USER_AGENTS.length} bots, previews and HTTP clients without counting a billable click`, async () => {
    const rs = await impressions(BOT_USER_AGENTS.length);
    for (const [i, ua] of BOT_USER_AGENTS.entries()) {
      const res = await follow(rs[i]!.click_url, ua === '' ? null : ua);
      expect(res.statusCode, `${ua}: ${res.body}`).toBe(302);
      expect(res.headers['aisle-click'], ua).toBe('non_billable');
      expect(await billableRows(rs[i]!.impression_id), ua).toBe(0);
    }
  });

  it(`counts ${BROWSER_USER_AGENTS.length} real browsers as billable clicks`, async () => {
    const rs = await impressions(BROWSER_USER_AGENTS.length);
    for (const [i, ua] of BROWSER_USER_AGENTS.entries()) {
      const res = await follow(rs[i]!.click_url, ua);
      expect(res.statusCode, `${ua}: ${res.body}`).toBe(302);
      expect(res.headers['aisle-click'], ua).toBe('billable');
      expect(await billableRows(rs[i]!.impression_id), ua).toBe(1);
    }
  });

  it.each([
    ['a HEAD request', 'HEAD', {}],
    ['a speculative prefetch (Sec-Purpose)', 'GET', { 'sec-purpose': 'prefetch;prerender' }],
    ['a prefetch (Purpose)', 'GET', { purpose: 'prefetch' }],
  ] as const)('records %s from a browser as non-billable', async (_name, method, headers) => {
    const [r] = await impressions(1);
    const url = new URL(r!.click_url);
    const res = await t.app.inject({ method, url: url.pathname + url.search, headers: { 'user-agent': CHROME, ...headers } });
    expect(res.statusCode, res.body).toBe(302);
    expect(res.headers['aisle-click']).toBe('non_billable');
    expect(await billableRows(r!.impression_id)).toBe(0);
  });

  it('still counts the person who clicks after a link preview fetched the link', async () => {
    const [r] = await impressions(1);
    expect((await follow(r!.click_url, 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)')).headers['aisle-click']).toBe('non_billable');
    expect((await follow(r!.click_url, 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)')).headers['aisle-click']).toBe('non_billable');
    expect((await follow(r!.click_url)).headers['aisle-click']).toBe('billable');
    const rows = await t.db.query<{ billable: boolean }>('SELECT billable FROM clicks WHERE impression_id = $1 ORDER BY billable', [r!.impression_id]);
    expect(rows.map((x) => x.billable)).toEqual([false, true]);
  });

  it('still takes a person to the product after the window, without recording a click', async () => {
    const [r] = await impressions(1);
    clock.advance(30 * DAY + 1);
    const res = await follow(r!.click_url);
    expect(res.statusCode).toBe(302);
    expect(res.headers['aisle-click']).toBe('expired');
    expect(res.headers.location!.startsWith(r!.url)).toBe(true);
    expect(await t.db.query('SELECT 1 FROM clicks WHERE impression_id = $1', [r!.impression_id])).toEqual([]);
  });

  // Last in the file: it takes the link away from a product of this file's catalog.
  it('answers 404 and counts nothing when the product has no link to follow', async () => {
    // A product no earlier test clicked, so no process-local memory of its old link is involved.
    const res = await call(t.app, key, 'POST', '/v1/search', { query: 'cast iron skillet', limit: 10, min_relevance_score: 0 });
    expectStatus(res, 200);
    const clicked = new Set((await t.db.query<{ product_id: string }>('SELECT DISTINCT product_id FROM clicks')).map((c) => c.product_id));
    const r = (res.json() as SearchBody).results.find((x) => !clicked.has(x.product_id));
    expect(r).toBeDefined();
    const [product] = await sample.catalog.getByIds([r!.product_id]);
    let vector: Float32Array | undefined;
    for await (const batch of sample.catalog.scanVectors()) vector ??= batch.find((v) => v.productId === r!.product_id)?.vector;
    const writer = await sample.catalog.openWriter({ model: sample.embedder.model, dimensions: sample.embedder.dimensions, replace: false });
    await writer.write([{ product: { ...product!, url: null }, vector: vector! }]);
    await writer.commit();
    await sample.catalog.refresh();
    expect((await sample.catalog.getByIds([r!.product_id]))[0]?.url).toBeNull();
    expectProblem(await follow(r!.click_url), 404, 'not_found');
    expect(await t.db.query('SELECT 1 FROM clicks WHERE impression_id = $1', [r!.impression_id])).toEqual([]);
  });
});
