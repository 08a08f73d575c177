import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, createTestApp, expectProblem, expectStatus, ManualClock, type TestApp } from '../helpers/app.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';
import { createTestWorker, Receiver } from '../helpers/webhooks.js';

const DAY = 24 * 3600 * 1000;

interface Attribution {
  provider: string;
  token: string;
  publisher_id: string;
  source: { type: string };
  issued_at: string;
  expires_at: string;
}
interface Result {
  product_id: string;
  impression_id: string;
  click_url: string;
  merchant: string;
  affiliate_attribution: Attribution;
}

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

/** A fresh account, so its revenue and webhooks are this test's alone. */
async function account(): Promise<{ key: string; accountId: string }> {
  const created = await t.core.accounts.create(`attribution ${randomUUID()}`);
  return { key: created.firstKey.key, accountId: created.account.id };
}

async function searchResult(key: string, query = 'espresso machine'): Promise<Result> {
  const res = await call(t.app, key, 'POST', '/v1/search', { query, limit: 1, min_relevance_score: 0 });
  expectStatus(res, 200);
  const [first] = (res.json() as { results: Result[] }).results;
  expect(first).toBeDefined();
  return first!;
}

const verify = (token: string, key: string) => call(t.app, key, 'POST', '/v1/attribution/verify', { token });
const convert = (body: Record<string, unknown>, key: string) =>
  call(t.app, key, 'POST', '/v1/conversions', { sale_amount: 200, commission_amount: 12.34, currency: 'USD', ...body });

/** The token with one character of its MAC changed (a middle one: the last character carries padding bits too). */
function tampered(token: string): string {
  const at = token.length - 6;
  return `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
}

describe('affiliate attribution', () => {
  it('gives every result an attribution in the ACP shape, whose token the click redirect carries too', async () => {
    const { key, accountId } = await account();
    const r = await searchResult(key);
    const a = r.affiliate_attribution;
    expect(a).toMatchObject({ provider: '127.0.0.1', publisher_id: `acct_${accountId}`, source: { type: 'platform' } });
    expect(a.token).toMatch(/^aisle_attr_[A-Za-z0-9_-]{66}$/);
    expect(Date.parse(a.expires_at) - Date.parse(a.issued_at)).toBe(30 * DAY);

    const redirect = await t.app.inject({
      method: 'GET',
      url: new URL(r.click_url).pathname + new URL(r.click_url).search,
      headers: { 'user-agent': 'Mozilla/5.0 Chrome/130' },
    });
    expect(redirect.statusCode).toBe(302);
    expect(new URL(String(redirect.headers.location)).searchParams.get('aisle_attr')).toBe(a.token);
  });

  it('verifies a token: valid with impression, publisher and campaign; tampered, unknown, another account and expired refused', async () => {
    const { key, accountId } = await account();
    const r = await searchResult(key);
    const token = r.affiliate_attribution.token;
    const valid = await verify(token, key);
    expectStatus(valid, 200);
    const keyId = (await call(t.app, key, 'GET', '/v1/keys')).json().data[0].id as string;
    expect(valid.json()).toEqual({
      valid: true,
      status: 'valid',
      impression_id: r.impression_id,
      request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      product_id: r.product_id,
      account_id: `acct_${accountId}`,
      campaign_id: `key_${keyId}`,
      issued_at: r.affiliate_attribution.issued_at,
      expires_at: r.affiliate_attribution.expires_at,
    });
    expect((await verify(tampered(token), key)).json()).toEqual({ valid: false, status: 'tampered' });
    expect((await verify('aisle_attr_nope', key)).json()).toEqual({ valid: false, status: 'unknown' });
    const other = await account();
    expect((await verify(token, other.key)).json()).toEqual({ valid: false, status: 'unknown' });
    expectProblem(await verify('', key), 400, 'validation_failed');

    clock.advance(30 * DAY + 1000);
    try {
      expect((await verify(token, key)).json()).toMatchObject({ valid: false, status: 'expired' });
      expectProblem(await convert({ order_id: 'late', attribution_token: token }, key), 422, 'conversion_window_closed');
    } finally {
      clock.advance(-(30 * DAY + 1000));
    }
  });

  it('a conversion with the token counts once in revenue and sends one signed conversion webhook', async () => {
    const { key } = await account();
    const hook = await call(t.app, key, 'POST', '/v1/webhooks', { url: receiver.url(`/${randomUUID()}`), events: ['conversion'] });
    expectStatus(hook, 201);
    const { secret, url } = hook.json() as { secret: string; url: string };
    const r = await searchResult(key);
    const body = { order_id: 'order-1', attribution_token: r.affiliate_attribution.token, metadata: { channel: 'chatgpt-checkout', items: 2 } };
    const first = await convert(body, key);
    expectStatus(first, 201);
    expect(first.json()).toMatchObject({
      attributed_by: 'token',
      click_id: null,
      impression_id: r.impression_id,
      product_id: r.product_id,
      metadata: body.metadata,
    });
    const again = await convert(body, key);
    expectStatus(again, 200);
    expect(again.json().conversion_id).toBe(first.json().conversion_id);
    // The first claim on an order is kept: another token for the same order changes nothing.
    const later = await searchResult(key, 'trail running shoes');
    expect((await convert({ ...body, attribution_token: later.affiliate_attribution.token }, key)).json().conversion_id).toBe(first.json().conversion_id);

    // The range is [start_date, end_date): end after the clock's now, which the conversion is stamped with.
    const range = new URLSearchParams({
      start_date: new Date(clock.now().getTime() - DAY).toISOString(),
      end_date: new Date(clock.now().getTime() + DAY).toISOString(),
    });
    const analytics = await call(t.app, key, 'GET', `/v1/analytics?${range}`);
    expectStatus(analytics, 200);
    expect(analytics.json().metrics).toMatchObject({ conversions: 1, revenue: 12.34 });

    const worker = createTestWorker(t.db, { clock, allowPrivate: true });
    try {
      await worker.worker.drain();
    } finally {
      await worker.close();
    }
    const delivered = receiver.received.filter((d) => url.endsWith(d.path));
    expect(delivered).toHaveLength(1);
    const event = new Webhook(secret).verify(delivered[0]!.body, delivered[0]!.headers) as { type: string; data: Record<string, unknown> };
    expect(event).toMatchObject({
      type: 'conversion',
      data: { click_id: null, impression_id: `imp_${r.impression_id}`, order_id: 'order-1', commission_amount: 12.34 },
    });
  });

  it('refuses tampered and unknown tokens and personal data in metadata, writing nothing', async () => {
    const { key, accountId } = await account();
    const r = await searchResult(key);
    expectProblem(await convert({ order_id: 'o-t', attribution_token: tampered(r.affiliate_attribution.token) }, key), 422, 'attribution_token_invalid');
    expectProblem(await convert({ order_id: 'o-u', attribution_token: 'aisle_attr_unknown' }, key), 404, 'not_found');
    const pii = expectProblem(
      await convert({ order_id: 'o-p', attribution_token: r.affiliate_attribution.token, metadata: { buyer: 'jane.doe@example.com' } }, key),
      400,
      'pii_not_allowed',
    );
    expect(pii.errors).toEqual([{ path: 'metadata.buyer', message: expect.stringContaining('email') }]);
    const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i]));
    expectProblem(await convert({ order_id: 'o-m', attribution_token: r.affiliate_attribution.token, metadata: tooMany }, key), 400, 'validation_failed');
    expectProblem(
      await convert({ order_id: 'o-n', attribution_token: r.affiliate_attribution.token, metadata: { nested: { a: 1 } } }, key),
      400,
      'validation_failed',
    );
    expectProblem(await convert({ order_id: 'o-2', attribution_token: r.affiliate_attribution.token, click_id: randomUUID() }, key), 400, 'validation_failed');
    const rows = await t.db.query('SELECT 1 FROM conversions WHERE account_id = $1', [accountId]);
    expect(rows).toEqual([]);
  });

  it("a key limited to one merchant verifies and converts that merchant's tokens and clicks only, and cannot shed the limit", async () => {
    const { key } = await account();
    const r = await searchResult(key);
    const mine = await createKey(t.app, key, { name: 'merchant postbacks', scopes: ['conversions:write'], merchant: ` ${r.merchant.toUpperCase()} ` });
    const theirs = await createKey(t.app, key, {
      name: 'another merchant',
      scopes: ['conversions:write', 'keys:manage'],
      merchant: 'Some Other Shop',
    });
    expect((await call(t.app, key, 'GET', `/v1/keys/${theirs.id}`)).json().merchant).toBe('Some Other Shop');

    expect((await verify(r.affiliate_attribution.token, mine.key)).json()).toMatchObject({ valid: true });
    expect((await verify(r.affiliate_attribution.token, theirs.key)).json()).toEqual({ valid: false, status: 'other_merchant' });
    expectProblem(await convert({ order_id: 'm-1', attribution_token: r.affiliate_attribution.token }, theirs.key), 403, 'merchant_not_allowed');
    // Nor by the click route.
    const clicked = await call(t.app, key, 'POST', `/v1/clicks/${r.impression_id}`);
    expectStatus(clicked, 201);
    expectProblem(await convert({ order_id: 'm-2', click_id: clicked.json().click_id }, theirs.key), 403, 'merchant_not_allowed');
    expectStatus(await convert({ order_id: 'm-3', click_id: clicked.json().click_id }, mine.key), 201);

    // A merchant key makes only keys of its merchant.
    expectProblem(await call(t.app, theirs.key, 'POST', '/v1/keys', { name: 'escape', merchant: 'Anyone' }), 403, 'insufficient_scope');
    const child = await call(t.app, theirs.key, 'POST', '/v1/keys', { name: 'child' });
    expectStatus(child, 201);
    expect(child.json().metadata.merchant).toBe('Some Other Shop');
  });
});
