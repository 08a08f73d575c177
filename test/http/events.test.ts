import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, expectStatus, type TestApp } from '../helpers/app.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

// Every countable action queues its webhook event in its own transaction (docs/webhooks.md): one
// event per search, per billable click, per conversion and per feedback vote; duplicates none.
let sample: SampleCatalog;
let t: TestApp;
beforeAll(async () => {
  sample = await openSampleCatalog();
  t = await createTestApp({ search: sample, webhooks: { allowPrivate: true } });
});
afterAll(async () => {
  await t.close();
  await sample.close();
});

describe('webhook events from searches, clicks, conversions and feedback', () => {
  it('queues exactly one event per counted action, with the contract payload', async () => {
    const { account, firstKey } = await t.core.accounts.create('events');
    const key = firstKey.key;
    expectStatus(
      await call(t.app, key, 'POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['search', 'click', 'conversion', 'feedback'] }),
      201,
    );

    const search = await call(t.app, key, 'POST', '/v1/search', { query: 'espresso machine', limit: 2 });
    expectStatus(search, 200);
    const [first] = search.json().results as { impression_id: string; product_id: string }[];
    const clicked = await call(t.app, key, 'POST', `/v1/clicks/${first!.impression_id}`);
    expectStatus(clicked, 201);
    expectStatus(await call(t.app, key, 'POST', `/v1/clicks/${first!.impression_id}`), 200);
    const order = { click_id: clicked.json().click_id, order_id: 'order-1', sale_amount: 120, commission_amount: 6, currency: 'USD' };
    expectStatus(await call(t.app, key, 'POST', '/v1/conversions', order), 201);
    expectStatus(await call(t.app, key, 'POST', '/v1/conversions', order), 200);
    expectStatus(await call(t.app, key, 'POST', '/v1/feedback', { request_id: search.json().request_id, product_id: first!.product_id, relevant: true }), 201);

    const rows = await t.db.query<{ type: string; payload: string }>('SELECT type, payload FROM webhook_events WHERE account_id = $1 ORDER BY created_at', [
      account.id,
    ]);
    expect(rows.map((r) => r.type).sort()).toEqual(['click', 'conversion', 'feedback', 'search']);
    const data = Object.fromEntries(rows.map((r) => [r.type, JSON.parse(r.payload).data]));
    expect(data.search).toMatchObject({ request_id: `req_${search.json().request_id}`, result_count: 2 });
    expect(data.click).toMatchObject({
      click_id: expect.stringMatching(/^clk_/),
      impression_id: `imp_${first!.impression_id}`,
      product_id: `prd_${first!.product_id}`,
      impression_displayed: false,
    });
    expect(data.conversion).toMatchObject({
      order_id: 'order-1',
      sale_amount: 120,
      commission_amount: 6,
      currency: 'USD',
      click_id: expect.stringMatching(/^clk_/),
    });
    expect(data.feedback).toMatchObject({ relevant: true, product_id: `prd_${first!.product_id}` });
    const [deliveries] = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries WHERE account_id = $1', [account.id]);
    expect(deliveries!.n).toBe(4);
  });

  it('says in the click event and the click record whether the impression had been displayed first', async () => {
    const { account, firstKey } = await t.core.accounts.create('displayed events');
    const key = firstKey.key;
    expectStatus(await call(t.app, key, 'POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['click'] }), 201);
    const search = await call(t.app, key, 'POST', '/v1/search', { query: 'espresso machine', limit: 2, min_relevance_score: 0 });
    const [shown, unseen] = search.json().results as { impression_id: string }[];
    const receipt = await call(t.app, key, 'POST', '/v1/displays', { impression_ids: [`imp_${shown!.impression_id}`] });
    expectStatus(receipt, 200);
    expect(receipt.json()).toMatchObject({ displays: [{ impression_id: shown!.impression_id, first_receipt: true }] });

    const afterDisplay = await call(t.app, key, 'POST', `/v1/clicks/${shown!.impression_id}`);
    expectStatus(afterDisplay, 201);
    expect(afterDisplay.json()).toMatchObject({ impression_displayed: true });
    const notShown = await call(t.app, key, 'POST', `/v1/clicks/${unseen!.impression_id}`);
    expect(notShown.json()).toMatchObject({ impression_displayed: false });
    // A receipt after the click does not rewrite the click: it was made before any display.
    expectStatus(await call(t.app, key, 'POST', '/v1/displays', { impression_ids: [unseen!.impression_id] }), 200);
    expect((await call(t.app, key, 'POST', `/v1/clicks/${unseen!.impression_id}`)).json()).toMatchObject({ duplicate: true, impression_displayed: false });

    const rows = await t.db.query<{ payload: string }>("SELECT payload FROM webhook_events WHERE account_id = $1 AND type = 'click'", [account.id]);
    const byImpression = Object.fromEntries(
      rows
        .map((r) => JSON.parse(r.payload).data)
        .map((d: { impression_id: string; impression_displayed: boolean }) => [d.impression_id, d.impression_displayed]),
    );
    expect(byImpression).toEqual({ [`imp_${shown!.impression_id}`]: true, [`imp_${unseen!.impression_id}`]: false });
  });
});
