import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, createTestApp, expectProblem, expectStatus, ManualClock, type TestApp } from '../helpers/app.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

const DAY = 24 * 3600 * 1000;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

let sample: SampleCatalog;
let t: TestApp;
let clock: ManualClock;
let otherKey: string;
let orderSeq = 0;

beforeAll(async () => {
  sample = await openSampleCatalog();
  clock = new ManualClock();
  t = await createTestApp({ clock, search: sample });
  otherKey = (await t.core.accounts.create('other account')).firstKey.key;
});
afterAll(async () => {
  await t.close();
  await sample.close();
});

async function impression(apiKey = t.adminKey): Promise<string> {
  const res = await call(t.app, apiKey, 'POST', '/v1/search', { query: 'espresso machine', limit: 1, min_relevance_score: 0 });
  expectStatus(res, 200);
  return res.json().results[0].impression_id;
}

async function clicked(apiKey = t.adminKey): Promise<{ click_id: string; impression_id: string; product_id: string }> {
  const res = await call(t.app, apiKey, 'POST', `/v1/clicks/${await impression(apiKey)}`);
  expectStatus(res, 201);
  return res.json();
}

const order = (over: Record<string, unknown> = {}) => ({
  order_id: `order-${++orderSeq}`,
  sale_amount: 129.99,
  commission_amount: 6.5,
  currency: 'USD',
  ...over,
});
const convert = (body: unknown, apiKey = t.adminKey) => call(t.app, apiKey, 'POST', '/v1/conversions', body);

describe('POST /v1/conversions', () => {
  it('answers 201 with the conversion for a click, then 200 with the stored one for the same order_id', async () => {
    const c = await clicked();
    const body = order({ click_id: c.click_id });
    const first = await convert(body);
    expectStatus(first, 201);
    const stored = first.json();
    expect(stored).toEqual({
      conversion_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      click_id: c.click_id,
      attributed_by: 'click',
      impression_id: c.impression_id,
      product_id: c.product_id,
      order_id: body.order_id,
      sale_amount: 129.99,
      commission_amount: 6.5,
      currency: 'USD',
      metadata: {},
      livemode: true,
      created_at: clock.now().toISOString(),
    });
    // A retried postback, even with other figures, gets the stored conversion and counts once.
    const again = await convert({ ...body, sale_amount: 1, commission_amount: 1 });
    expectStatus(again, 200);
    expect(again.json()).toEqual(stored);
    const rows = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM conversions WHERE order_id = $1', [body.order_id]);
    expect(rows[0]!.n).toBe(1);
  });

  it('records one conversion when the same postback arrives 50 times at once', async () => {
    const c = await clicked();
    const body = order({ click_id: `clk_${c.click_id}` });
    const responses = await Promise.all(Array.from({ length: 50 }, () => convert(body)));
    expect(responses.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(responses.filter((r) => r.statusCode === 200)).toHaveLength(49);
    expect(new Set(responses.map((r) => r.json().conversion_id)).size).toBe(1);
  });

  it('attributes by impression_id (bare or imp_) through its billable click', async () => {
    const c = await clicked();
    const res = await convert(order({ impression_id: `imp_${c.impression_id}` }));
    expectStatus(res, 201);
    expect(res.json().click_id).toBe(c.click_id);
  });

  it('accepts a conversion 30 days after its click and refuses one a millisecond later with 422 conversion_window_closed', async () => {
    const inside = await clicked();
    const outside = await clicked();
    clock.advance(30 * DAY);
    expectStatus(await convert(order({ click_id: inside.click_id })), 201);
    clock.advance(1);
    const body = expectProblem(await convert(order({ click_id: outside.click_id })), 422, 'conversion_window_closed');
    expect(body.detail).toContain('30 days');
    expect(await t.db.query('SELECT 1 FROM conversions WHERE click_id = $1', [outside.click_id])).toEqual([]);
  });

  it('still answers a replayed postback with the stored conversion after the window closed', async () => {
    const c = await clicked();
    const body = order({ click_id: c.click_id });
    expectStatus(await convert(body), 201);
    clock.advance(45 * DAY);
    expectStatus(await convert(body), 200);
  });

  it('keeps order ids per account: another account may use the same one', async () => {
    const mine = await clicked();
    const theirs = await clicked(otherKey);
    const body = order({ click_id: mine.click_id });
    expectStatus(await convert(body), 201);
    expectStatus(await convert({ ...body, click_id: theirs.click_id }, otherKey), 201);
  });

  it.each([
    ['an unknown click', 404, 'not_found', async () => order({ click_id: UNKNOWN })],
    ["another account's click", 404, 'not_found', async () => order({ click_id: (await clicked(otherKey)).click_id })],
    ['an unknown impression', 404, 'not_found', async () => order({ impression_id: UNKNOWN })],
    ["another account's impression", 404, 'not_found', async () => order({ impression_id: await impression(otherKey) })],
    ['an impression nobody clicked', 422, 'impression_not_clicked', async () => order({ impression_id: await impression() })],
    ['both click_id and impression_id', 400, 'validation_failed', async () => order({ click_id: UNKNOWN, impression_id: UNKNOWN })],
    ['neither click_id nor impression_id', 400, 'validation_failed', async () => order()],
    ['a malformed click_id', 400, 'validation_failed', async () => order({ click_id: 'clk_123' })],
    ['a click_id with the wrong prefix', 400, 'validation_failed', async () => order({ click_id: `imp_${UNKNOWN}` })],
    ['a negative sale_amount', 400, 'validation_failed', async () => order({ click_id: UNKNOWN, sale_amount: -1 })],
    ['a string commission_amount', 400, 'validation_failed', async () => order({ click_id: UNKNOWN, commission_amount: '6.50' })],
    ['a lower-case currency', 400, 'validation_failed', async () => order({ click_id: UNKNOWN, currency: 'usd' })],
    ['an empty order_id', 400, 'validation_failed', async () => order({ click_id: UNKNOWN, order_id: ' ' })],
    ['an unknown field', 400, 'validation_failed', async () => order({ click_id: UNKNOWN, amount: 1 })],
  ] as const)('answers %s with %i %s', async (_name, status, code, body) => {
    expectProblem(await convert(await body()), status, code);
  });

  it('needs conversions:write: an events:write key gets 403', async () => {
    const { key } = await createKey(t.app, t.adminKey, { name: 'events only', scopes: ['events:write'] });
    const body = expectProblem(await convert(order({ click_id: UNKNOWN }), key), 403, 'insufficient_scope');
    expect(body.required_scope).toBe('conversions:write');
  });
});
