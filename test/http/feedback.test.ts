import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, createTestApp, expectProblem, expectStatus, type TestApp } from '../helpers/app.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

interface SearchBody {
  request_id: string;
  results: { product_id: string; title: string }[];
}

let sample: SampleCatalog;
let t: TestApp;
let other: { key: string; accountId: string };

beforeAll(async () => {
  sample = await openSampleCatalog();
  t = await createTestApp({ search: sample });
  const created = await t.core.accounts.create('other account');
  other = { key: created.firstKey.key, accountId: created.account.id };
});
afterAll(async () => {
  await t.close();
  await sample.close();
});

async function search(query: string, apiKey = t.adminKey, limit = 10): Promise<SearchBody> {
  const res = await call(t.app, apiKey, 'POST', '/v1/search', { query, limit });
  expectStatus(res, 200);
  return res.json() as SearchBody;
}

async function searchBody(body: Record<string, unknown>, apiKey: string): Promise<SearchBody & { metadata: { total_matches: number } }> {
  const res = await call(t.app, apiKey, 'POST', '/v1/search', body);
  expectStatus(res, 200);
  return res.json();
}

const feedback = (body: unknown, apiKey = t.adminKey) => call(t.app, apiKey, 'POST', '/v1/feedback', body);

describe('POST /v1/feedback', () => {
  it('answers 201 with the feedback, accepting the req_ and prd_ forms', async () => {
    const s = await search('espresso machine', t.adminKey, 3);
    const product = s.results[1]!.product_id;
    const res = await feedback({
      request_id: `req_${s.request_id}`,
      product_id: `prd_${product}`,
      relevant: true,
      user_clicked: true,
      reason: 'exactly what I wanted',
    });
    expectStatus(res, 201);
    expect(res.json()).toEqual({
      feedback_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      request_id: s.request_id,
      product_id: product,
      relevant: true,
      created_at: expect.any(String),
      livemode: true,
    });
    const rows = await t.db.query<{ reason: string; user_clicked: boolean; query: string }>('SELECT reason, user_clicked, query FROM feedback WHERE id = $1', [
      res.json().feedback_id,
    ]);
    expect(rows).toEqual([{ reason: 'exactly what I wanted', user_clicked: true, query: 'espresso machine' }]);
  });

  it.each([
    ['an unknown request', 404, 'not_found', async () => ({ request_id: UNKNOWN, product_id: UNKNOWN, relevant: false })],
    [
      "another account's request",
      404,
      'not_found',
      async () => {
        const s = await search('espresso machine', other.key, 3);
        return { request_id: s.request_id, product_id: s.results[0]!.product_id, relevant: false };
      },
    ],
    [
      'a product that was not among the results',
      422,
      'product_not_in_results',
      async () => ({ request_id: (await search('espresso machine', t.adminKey, 3)).request_id, product_id: UNKNOWN, relevant: false }),
    ],
    [
      'a non-UUID product id',
      422,
      'product_not_in_results',
      async () => ({ request_id: (await search('espresso machine', t.adminKey, 3)).request_id, product_id: 'SKU-123', relevant: false }),
    ],
    [
      'a reason over 1000 characters',
      400,
      'validation_failed',
      async () => ({ request_id: UNKNOWN, product_id: UNKNOWN, relevant: false, reason: 'x'.repeat(1001) }),
    ],
    ['a malformed request_id', 400, 'validation_failed', async () => ({ request_id: 'req_1', product_id: UNKNOWN, relevant: false })],
    ['a missing relevant', 400, 'validation_failed', async () => ({ request_id: UNKNOWN, product_id: UNKNOWN })],
    ['an unknown field', 400, 'validation_failed', async () => ({ request_id: UNKNOWN, product_id: UNKNOWN, relevant: false, rating: 5 })],
  ] as const)('answers %s with %i %s', async (_name, status, code, body) => {
    expectProblem(await feedback(await body()), status, code);
  });

  it('stores a reason with personal data only redacted, and the raw values nowhere', async () => {
    const s = await search('espresso machine', t.adminKey, 3);
    const raw = ['jane.doe@example.com', '415-555-0132', '4111 1111 1111 1111'];
    const res = await feedback({
      request_id: s.request_id,
      product_id: s.results[0]!.product_id,
      relevant: false,
      reason: `Wrong. Mail ${raw[0]} or call ${raw[1]}; card ${raw[2]}`,
    });
    expectStatus(res, 201);
    const rows = await t.db.query<Record<string, unknown>>('SELECT * FROM feedback WHERE id = $1', [res.json().feedback_id]);
    expect(rows[0]!.reason).toBe('Wrong. Mail [EMAIL] or call [PHONE]; card [CARD]');
    const everything = JSON.stringify(await t.db.query('SELECT f.*, r.* FROM feedback f JOIN search_requests r ON r.id = f.request_id')) + t.logs.text;
    for (const value of raw) expect(everything).not.toContain(value);
  });

  it('refuses a reason with personal data under the reject policy (422 pii_detected) and stores nothing', async () => {
    await t.db.query(`UPDATE accounts SET pii_policy = 'reject' WHERE id = $1`, [other.accountId]);
    try {
      const s = await search('espresso machine', other.key, 3);
      const before = await t.db.query('SELECT id FROM feedback');
      const body = expectProblem(
        await feedback(
          { request_id: s.request_id, product_id: s.results[0]!.product_id, relevant: false, reason: 'mail me at jane.doe@example.com' },
          other.key,
        ),
        422,
        'pii_detected',
      );
      expect(JSON.stringify(body)).not.toContain('jane.doe@example.com');
      expect(await t.db.query('SELECT id FROM feedback')).toEqual(before);
    } finally {
      await t.db.query(`UPDATE accounts SET pii_policy = 'redact' WHERE id = $1`, [other.accountId]);
    }
  });

  it('needs events:write', async () => {
    const { key } = await createKey(t.app, t.adminKey, { name: 'search only', scopes: ['search'] });
    expectProblem(await feedback({ request_id: UNKNOWN, product_id: UNKNOWN, relevant: false }, key), 403, 'insufficient_scope');
  });
});

describe('feedback in ranking', () => {
  it('demotes a product voted not relevant for this and near-identical queries, not for others, and does not bury it', async () => {
    const { key } = await createKey(t.app, t.adminKey, { name: 'ranking', rate_limit_per_minute: 100_000 });
    const accountId = t.accountId;
    const baseline = await search('trail running shoes', key);
    const baselineTotal = (await searchBody({ query: 'trail running shoes', limit: 10 }, key)).metadata.total_matches;
    const top = baseline.results[0]!;
    const baselineVariant = await search('trail running shoe', key);
    const variantRank = baselineVariant.results.findIndex((r) => r.product_id === top.product_id);
    expect(variantRank, 'the variant query shows the product too').toBeGreaterThanOrEqual(0);

    // Two people, two searches, each says the top result was not what they wanted.
    for (const s of [baseline, await search('trail running shoes', key)]) {
      expectStatus(await feedback({ request_id: s.request_id, product_id: top.product_id, relevant: false, reason: 'wanted a lighter one' }, key), 201);
    }

    const after = await search('trail running shoes', key);
    const rank = after.results.findIndex((r) => r.product_id === top.product_id);
    expect(rank, `"${top.title}" is no longer first: ${after.results.map((r) => r.title).join(' | ')}`).not.toBe(0);
    const variant = await search('trail running shoe', key);
    const newVariantRank = variant.results.findIndex((r) => r.product_id === top.product_id);
    expect(newVariantRank === -1 || newVariantRank > variantRank, `rank for the variant query went from ${variantRank} to ${newVariantRank}`).toBe(true);
    // Demoted, not removed: it still qualifies, and a search narrowed by a word of its title finds it.
    expect((await searchBody({ query: 'trail running shoes', limit: 10 }, key)).metadata.total_matches).toBe(baselineTotal);
    const word = top.title.split(/\s+/).find((w) => /^[A-Za-z]{5,}$/.test(w) && !/trail|running|shoe|kestrel/i.test(w))!;
    const narrowed = await searchBody({ query: 'trail running shoes', limit: 10, filters: { keyword_filter: word } }, key);
    expect(narrowed.results.map((r) => r.product_id)).toContain(top.product_id);

    const factors = await t.core.feedback.demotions(accountId, 'trail running shoes');
    expect(factors.get(top.product_id)).toBeGreaterThanOrEqual(0.5);
    expect(factors.get(top.product_id)).toBeLessThan(1);
    expect((await t.core.feedback.demotions(accountId, 'coffee grinder')).size).toBe(0);
    expect((await t.core.feedback.demotions(accountId, 'camping tent')).size).toBe(0);

    // Another account's ranking is its own.
    expect((await search('trail running shoes', other.key)).results[0]!.product_id).toBe(top.product_id);
  });
});
