import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgRankingModelStore } from '../../src/store/pg/ranking-model-store.js';
import { call, createTestApp, expectProblem, expectStatus, ManualClock, type TestApp } from '../helpers/app.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';
import { createTestWorker, Receiver } from '../helpers/webhooks.js';

const DAY = 24 * 3600 * 1000;
// Starts at the real time: standardwebhooks' verify checks the timestamp against Date.now().
const clock = new ManualClock(Date.now());
let sample: SampleCatalog;
let t: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  sample = await openSampleCatalog();
  t = await createTestApp({ clock, search: sample, webhooks: { allowPrivate: true } });
  receiver = await Receiver.start();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
  await sample.close();
});

interface Result {
  impression_id: string;
  product_id: string;
  affiliate_attribution: { token: string };
}

/** A live account with a webhook for conversions, and a test key made by its admin key. */
async function liveAndTest() {
  const live = (await t.core.accounts.create(`mode ${randomUUID()}`)).firstKey.key;
  const created = await call(t.app, live, 'POST', '/v1/keys', { name: 'sandbox', mode: 'test' });
  expectStatus(created, 201);
  return { live, test: created.json().key as string, record: created.json().metadata as { prefix: string; livemode: boolean; scopes: string[] } };
}

async function subscribe(key: string): Promise<{ secret: string; path: string }> {
  const path = `/${randomUUID()}`;
  const res = await call(t.app, key, 'POST', '/v1/webhooks', { url: receiver.url(path), events: ['search', 'conversion'] });
  expectStatus(res, 201);
  return { secret: res.json().secret as string, path };
}

const range = () =>
  new URLSearchParams({ start_date: new Date(clock.now().getTime() - DAY).toISOString(), end_date: new Date(clock.now().getTime() + DAY).toISOString() });

describe('test mode', () => {
  it('test keys search, click, convert and send webhooks end to end, all marked livemode: false, and none of it reaches live figures', async () => {
    const { live, test, record } = await liveAndTest();
    expect(test).toMatch(/^aisle_test_[0-9A-Za-z]{36}$/);
    expect(record).toMatchObject({ prefix: 'aisle_test_', livemode: false });
    const liveHook = await subscribe(live);
    const testHook = await subscribe(test);

    const search = await call(t.app, test, 'POST', '/v1/search', { query: 'espresso machine', limit: 1, min_relevance_score: 0 });
    expectStatus(search, 200);
    expect(search.headers['aisle-livemode']).toBe('false');
    expect(search.json().livemode).toBe(false);
    const result = search.json().results[0] as Result;
    const click = await call(t.app, test, 'POST', `/v1/clicks/${result.impression_id}`);
    expectStatus(click, 201);
    expect(click.json().livemode).toBe(false);
    const conversion = await call(t.app, test, 'POST', '/v1/conversions', {
      attribution_token: result.affiliate_attribution.token,
      order_id: 'test-order',
      sale_amount: 50,
      commission_amount: 5,
      currency: 'USD',
    });
    expectStatus(conversion, 201);
    expect(conversion.json().livemode).toBe(false);

    // The live key's own figures are untouched; livemode=false shows the test data.
    const liveFigures = await call(t.app, live, 'GET', `/v1/analytics?${range()}`);
    expect(liveFigures.headers['aisle-livemode']).toBe('true');
    expect(liveFigures.json().metrics).toMatchObject({ impressions: 0, clicks: 0, conversions: 0, revenue: 0 });
    const testFigures = await call(t.app, live, 'GET', `/v1/analytics?${range()}&livemode=false`);
    expect(testFigures.json().metrics).toMatchObject({ impressions: 1, clicks: 1, conversions: 1, revenue: 5 });
    expect((await call(t.app, test, 'GET', `/v1/analytics?${range()}`)).json().metrics).toMatchObject({ conversions: 1, revenue: 5 });

    // Test events go to the test account's endpoints only, each marked livemode: false.
    const worker = createTestWorker(t.db, { clock, allowPrivate: true });
    try {
      await worker.worker.drain();
    } finally {
      await worker.close();
    }
    expect(receiver.received.filter((r) => r.path === liveHook.path)).toEqual([]);
    const delivered = receiver.received.filter((r) => r.path === testHook.path);
    expect(delivered.map((d) => (JSON.parse(d.body) as { type: string }).type).sort()).toEqual(['conversion', 'search']);
    for (const d of delivered) {
      expect(new Webhook(testHook.secret).verify(d.body, d.headers)).toMatchObject({ livemode: false });
    }
  });

  it('keeps the two modes apart: a test key makes only test keys and sees only test keys; tokens do not cross modes', async () => {
    const { live, test } = await liveAndTest();
    expectProblem(await call(t.app, test, 'POST', '/v1/keys', { name: 'escape', mode: 'live' }), 403, 'insufficient_scope');
    const sibling = await call(t.app, test, 'POST', '/v1/keys', { name: 'second sandbox' });
    expectStatus(sibling, 201);
    expect(sibling.json().key).toMatch(/^aisle_test_/);
    const listed = (await call(t.app, test, 'GET', '/v1/keys')).json().data as { livemode: boolean }[];
    expect(listed.map((k) => k.livemode)).toEqual([false, false]);
    expect(((await call(t.app, live, 'GET', '/v1/keys')).json().data as { livemode: boolean }[]).map((k) => k.livemode)).toEqual([true]);

    const liveResult = (await call(t.app, live, 'POST', '/v1/search', { query: 'espresso machine', limit: 1, min_relevance_score: 0 })).json()
      .results[0] as Result;
    expect((await call(t.app, test, 'POST', '/v1/attribution/verify', { token: liveResult.affiliate_attribution.token })).json()).toEqual({
      valid: false,
      status: 'unknown',
    });
    // Test keys cannot publish to the catalog, which live searches share.
    const feedKey = await call(t.app, live, 'POST', '/v1/keys', { name: 'test feeds', mode: 'test', scopes: ['catalog:write'] });
    expectStatus(feedKey, 201);
    expectProblem(await call(t.app, feedKey.json().key, 'POST', '/v1/feeds', {}), 403, 'insufficient_scope');
    // A second test key of the same account acts in the same test account.
    expect((await call(t.app, sibling.json().key, 'GET', `/v1/analytics?${range()}`)).json().metrics.impressions).toBe(
      (await call(t.app, test, 'GET', `/v1/analytics?${range()}`)).json().metrics.impressions,
    );
  });

  it('leaves test searches out of what global learning reads, and keeps live ones in', async () => {
    const { live, test } = await liveAndTest();
    const searchWith = async (key: string) => {
      const res = await call(t.app, key, 'POST', '/v1/search', { query: 'trail running shoes', limit: 2, min_relevance_score: 0 });
      expectStatus(res, 200);
      return res.json().request_id as string;
    };
    const [liveId, testId] = [await searchWith(live), await searchWith(test)];
    const log = await new PgRankingModelStore(t.db).trainingLog(new Date(clock.now().getTime() - DAY), 100_000);
    const ids = new Set(log.map((r) => r.requestId));
    expect(ids.has(liveId)).toBe(true);
    expect(ids.has(testId)).toBe(false);
  });
});
