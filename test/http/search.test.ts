import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, createTestApp, expectProblem, expectStatus, type TestApp } from '../helpers/app.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

let sample: SampleCatalog;
let t: TestApp;
beforeAll(async () => {
  sample = await openSampleCatalog();
  t = await createTestApp({ search: sample });
});
afterAll(async () => {
  await t.close();
  await sample.close();
});

interface Result {
  product_id: string;
  impression_id: string;
  title: string;
  price: string;
  price_amount: number | null;
  merchant: string;
  brand: string;
  category: string;
  relevance_score: number;
  relevance_explanation: string;
  attributes?: never;
}
interface Body {
  request_id: string;
  results: Result[];
  metadata: { total_matches: number; session_id: string; took_ms: number; pii_redacted: string[]; model: string; ranking_model: string };
}

async function search(body: Record<string, unknown>, key = t.adminKey): Promise<Body> {
  const res = await call(t.app, key, 'POST', '/v1/search', body);
  expectStatus(res, 200);
  return res.json() as Body;
}

describe('POST /v1/search', () => {
  it('answers with the contract shape and the defaults', async () => {
    const body = await search({ query: 'espresso machine' });
    expect(body.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results.length).toBeLessThanOrEqual(3);
    expect(body.metadata).toMatchObject({ pii_redacted: [], model: 'google/universal-sentence-encoder-lite', ranking_model: 'fallback' });
    expect(body.metadata.total_matches).toBeGreaterThanOrEqual(body.results.length);
    for (const r of body.results) {
      expect(r).toMatchObject({ price: expect.stringMatching(/^\$[\d,]+\.\d\d$/), disclosure_text: expect.any(String), availability: expect.any(String) });
      expect(r.relevance_score).toBeGreaterThanOrEqual(0.5);
      expect(r.relevance_score).toBeLessThanOrEqual(1);
      expect(r.title.toLowerCase()).toContain('espresso');
      expect(r.relevance_explanation).toContain('"espresso"');
    }
  });

  it('continues a conversation: waterproof trail running shoes under $120', async () => {
    const first = await search({ query: 'I need trail running shoes', limit: 5 });
    expect(first.results).toHaveLength(5);
    for (const r of first.results) expect(r.title.toLowerCase()).toMatch(/trail/);
    const second = await search({ query: 'waterproof ones under $120', limit: 5, session_id: first.metadata.session_id });
    expect(second.metadata.session_id).toBe(first.metadata.session_id);
    expect(second.results.length).toBeGreaterThanOrEqual(3);
    for (const r of second.results) {
      const shown = `${r.title} ${r.price} | ${r.relevance_explanation}`;
      expect(r.price_amount!, shown).toBeLessThanOrEqual(120);
      expect(r.title.toLowerCase(), shown).toContain('waterproof');
      expect(r.category).toContain('Running Shoes');
      expect(r.relevance_explanation).toContain('continues "I need trail running shoes"');
    }
    expect(second.results.filter((r) => r.category.includes('Trail')).length).toBeGreaterThanOrEqual(3);
  });

  it('returns nothing for a request nothing in the catalog fits', async () => {
    const body = await search({ query: 'who won the 1998 world cup' });
    expect(body.results).toEqual([]);
    expect(body.metadata.total_matches).toBe(0);
  });

  it('applies filters before ranking, sorts, excludes and keeps limit and total_matches consistent', async () => {
    const all = await search({ query: 'running shoes', limit: 10, min_relevance_score: 0 });
    expect(all.results).toHaveLength(10);
    const filtered = await search({
      query: 'running shoes',
      limit: 10,
      min_relevance_score: 0,
      filters: { min_price: 100, max_price: 130, brand: 'KESTREL RUNNING' },
    });
    expect(filtered.results.length).toBeGreaterThan(0);
    for (const r of filtered.results) {
      expect(r.price_amount!).toBeGreaterThanOrEqual(100);
      expect(r.price_amount!).toBeLessThanOrEqual(130);
      expect(r.brand).toBe('Kestrel Running');
    }
    const cheap = await search({ query: 'running shoes', limit: 5, min_relevance_score: 0, sort: 'price_asc', filters: { category: 'footwear' } });
    expect(cheap.results).toHaveLength(5);
    const prices = cheap.results.map((r) => r.price_amount!);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    for (const r of cheap.results) expect(r.category.startsWith('Footwear')).toBe(true);
    const excluded = await search({
      query: 'running shoes',
      limit: 10,
      min_relevance_score: 0,
      exclude_product_ids: all.results.slice(0, 3).map((r) => r.product_id),
    });
    expect(excluded.results).toHaveLength(10);
    for (const r of excluded.results) expect(all.results.slice(0, 3).map((x) => x.product_id)).not.toContain(r.product_id);
    const two = await search({ query: 'running shoes', limit: 2 });
    expect(two.results).toHaveLength(2);
    expect(two.metadata.total_matches).toBeGreaterThan(2);
    const keyword = await search({ query: 'shoes', limit: 10, min_relevance_score: 0, filters: { keyword_filter: 'waterproof' } });
    expect(keyword.results.length).toBeGreaterThan(0);
    for (const r of keyword.results) expect(JSON.stringify(r).toLowerCase()).toContain('waterproof');
  });

  it('demotes products already shown in the session, except the ones the person clicked', async () => {
    const first = await search({ query: 'espresso machine', limit: 3, min_relevance_score: 0 });
    const [top, second] = first.results;
    expectStatus(await call(t.app, t.adminKey, 'POST', `/v1/clicks/${second!.impression_id}`), 201);
    const again = await search({ query: 'espresso machine', limit: 10, min_relevance_score: 0, session_id: first.metadata.session_id });
    const rank = (id: string) => again.results.findIndex((r) => r.product_id === id);
    // The clicked product keeps its place ahead of the shown-but-ignored one it used to follow.
    expect(rank(second!.product_id)).toBeGreaterThanOrEqual(0);
    expect(rank(second!.product_id)).toBeLessThan(rank(top!.product_id) === -1 ? Infinity : rank(top!.product_id));
  });

  it('does not fill every slot with colour variants of one product', async () => {
    const body = await search({ query: 'Fernrunner trail running shoe', limit: 3, min_relevance_score: 0 });
    expect(body.results.filter((r) => r.title.includes('Fernrunner'))).toHaveLength(1);
  });

  it('writes one impression per returned result, and only those', async () => {
    const body = await search({ query: 'wireless headphones', limit: 4 });
    const rows = await t.db.query<{ id: string; product_id: string; position: number; session_id: string }>(
      'SELECT id, product_id, position, session_id FROM impressions WHERE request_id = $1 ORDER BY position',
      [body.request_id],
    );
    expect(rows.map((r) => [r.id, r.product_id, r.position])).toEqual(body.results.map((r, i) => [r.impression_id, r.product_id, i + 1]));
    expect(new Set(rows.map((r) => r.session_id))).toEqual(new Set([body.metadata.session_id]));
    const none = await search({ query: 'who won the 1998 world cup' });
    expect(await t.db.query('SELECT 1 FROM impressions WHERE request_id = $1', [none.request_id])).toEqual([]);
  });

  it('redacts PII before matching and storing it, and lists the types', async () => {
    const body = await search({ query: 'my email is jane.doe@example.com and my phone is (415) 555-0132, I want wireless headphones' });
    expect(body.metadata.pii_redacted.sort()).toEqual(['email', 'phone']);
    expect(body.results.length).toBeGreaterThan(0);
    const [row] = await t.db.query<{ query: string }>('SELECT query FROM search_requests WHERE id = $1', [body.request_id]);
    expect(row?.query).toContain('[EMAIL]');
    expect(row?.query).not.toContain('jane.doe');
    expect(row?.query).not.toContain('555-0132');
  });

  it('answers a query that is only a price by the price: cheapest first, each result a real impression', async () => {
    const priced: number[] = [];
    for await (const batch of sample.catalog.scanProducts())
      for (const p of batch) if (p.priceAmount !== null && p.priceAmount <= 50) priced.push(p.priceAmount);
    priced.sort((a, b) => a - b);
    expect(priced.length).toBeGreaterThan(10);
    const body = await search({ query: 'under $50', limit: 10 });
    expect(body.metadata).toMatchObject({ ranking_model: 'price-order', total_matches: priced.length });
    expect(body.results.map((r) => r.price_amount)).toEqual(priced.slice(0, 10));
    expect(body.results.map((r) => r.relevance_score)).toEqual(Array(10).fill(1));
    expect(body.results[0]!.relevance_explanation).toContain('≤ $50');
    expectStatus(await call(t.app, t.adminKey, 'POST', `/v1/clicks/${body.results[0]!.impression_id}`), 201);

    const dearest = await search({ query: 'between $10 and $40', sort: 'price_desc', limit: 5, exclude_product_ids: [body.results[0]!.product_id] });
    const inRange = priced.filter((p) => p >= 10 && p <= 40).reverse();
    expect(dearest.metadata.total_matches).toBe(inRange.length);
    expect(dearest.results.map((r) => r.price_amount)).toEqual(inRange.slice(0, 5));
  });

  it('answers a price follow-up from the conversation so far', async () => {
    const first = await search({ query: 'I need trail running shoes', limit: 5 });
    const second = await search({ query: 'under $100', limit: 5, session_id: first.metadata.session_id });
    expect(second.metadata.ranking_model).not.toBe('price-order');
    expect(second.results.length).toBeGreaterThanOrEqual(3);
    for (const r of second.results) {
      expect(r.price_amount!, r.title).toBeLessThanOrEqual(100);
      expect(r.title.toLowerCase(), r.title).toMatch(/trail/);
    }
  });

  it('refuses a query that is nothing but personal data, naming the field, and records nothing', async () => {
    const count = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM search_requests'))[0]!.n;
    const before = await count();
    for (const query of ['jane.doe@example.com', '(415) 555-0132', '[EMAIL]']) {
      const problem = expectProblem(
        await call(t.app, t.adminKey, 'POST', '/v1/search', { query, conversation_context: [{ role: 'user', content: 'tents' }] }),
        400,
        'validation_failed',
      );
      expect(problem.errors, query).toEqual([{ path: 'query', message: expect.stringMatching(/nothing/) }]);
    }
    expect(await count()).toBe(before);
  });

  const invalid: [Record<string, unknown>, string][] = [
    [{}, 'query'],
    [{ query: '   ' }, 'query'],
    [{ query: 'x'.repeat(2001) }, 'query'],
    [{ query: 'x', limit: 11 }, 'limit'],
    [{ query: 'x', limit: 0 }, 'limit'],
    [{ query: 'x', min_relevance_score: 1.5 }, 'min_relevance_score'],
    [{ query: 'x', sort: 'popularity' }, 'sort'],
    [{ query: 'x', filters: { min_price: 50, max_price: 10 } }, 'filters'],
    [{ query: 'x', filters: { colour: 'red' } }, 'filters'],
    [{ query: 'x', session_id: 'not-a-uuid' }, 'session_id'],
    [{ query: 'x', conversation_context: [{ role: 'robot', content: 'hi' }] }, 'conversation_context'],
    [{ query: 'x', exclude_product_ids: Array(201).fill('p') }, 'exclude_product_ids'],
    [{ query: 'x', limt: 3 }, 'limt'],
  ];
  it.each(invalid.map(([body, field]) => [field, body] as const))('rejects an invalid %s', async (field, body) => {
    const problem = expectProblem(await call(t.app, t.adminKey, 'POST', '/v1/search', body), 400, 'validation_failed');
    expect((problem.errors as { path: string }[]).some((e) => e.path.includes(field))).toBe(true);
  });

  it('needs the search scope', async () => {
    const { key } = await createKey(t.app, t.adminKey, { name: 'no search', scopes: ['analytics:read'] });
    expectProblem(await call(t.app, key, 'POST', '/v1/search', { query: 'shoes' }), 403, 'insufficient_scope');
  });
});

describe('POST /v1/search with stream: true', () => {
  it('streams one result event per product in rank order, then done, to a real HTTP client', async () => {
    // An account of its own: clicks on earlier searches (this file's other tests) move its ranking.
    const key = (await t.core.accounts.create('stream')).firstKey.key;
    const request = { query: 'espresso machine', limit: 5 };
    // The same request answered whole: the stream must carry this ranking, product for product.
    const whole = await search(request, key);
    expect(whole.results).toHaveLength(5);
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const res = await fetch(`${base}/v1/search`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ ...request, stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('ratelimit')).toMatch(/^"default";r=\d+/);
    const events: { event: string; data: unknown }[] = [];
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body!) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      for (let split = buffer.indexOf('\n\n'); split >= 0; split = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, split);
        buffer = buffer.slice(split + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
        const data = /^data: (.*)$/m.exec(block)?.[1] ?? 'null';
        events.push({ event, data: JSON.parse(data) });
      }
    }
    expect(events.map((e) => e.event)).toEqual([...whole.results.map(() => 'result'), 'done']);
    const results = events.filter((e) => e.event === 'result').map((e) => e.data as Result);
    // Each request writes its own impressions (click links and attribution tokens): everything else is the same ranking.
    const ranked = (list: Result[]) =>
      list.map(
        ({ impression_id: _i, click_url: _c, affiliate_attribution: _a, ...rest }: Result & { click_url?: string; affiliate_attribution?: unknown }) => rest,
      );
    expect(ranked(results)).toEqual(ranked(whole.results));
    const done = events.at(-1)!.data as Pick<Body, 'request_id' | 'metadata'>;
    const { session_id: _s, took_ms: _t, ...metadata } = done.metadata;
    const { session_id: _ws, took_ms: _wt, ...wholeMetadata } = whole.metadata;
    expect(metadata).toEqual(wholeMetadata);
    expect(done.request_id).not.toBe(whole.request_id);
    const rows = await t.db.query<{ id: string }>('SELECT id FROM impressions WHERE request_id = $1 ORDER BY position', [done.request_id]);
    expect(rows.map((r) => r.id)).toEqual(results.map((r) => r.impression_id));
  });

  it('answers a bad streamed request with a plain problem', async () => {
    expectProblem(await call(t.app, t.adminKey, 'POST', '/v1/search', { query: '', stream: true }), 400, 'validation_failed');
  });
});

describe('POST /v1/search/batch', () => {
  it('answers each query on its own: one invalid query does not fail the others', async () => {
    const res = await call(t.app, t.adminKey, 'POST', '/v1/search/batch', {
      queries: [
        { query: 'espresso machine', limit: 2 },
        { query: 'x', limit: 99 },
        { query: 'wireless headphones' },
        { query: 'y', stream: true },
        { query: 'jane.doe@example.com' },
      ],
    });
    expectStatus(res, 200);
    const { results } = res.json() as { results: { index: number; status: number; body?: Body; error?: { code: string; errors: { path: string }[] } }[] };
    expect(results.map((r) => [r.index, r.status])).toEqual([
      [0, 200],
      [1, 400],
      [2, 200],
      [3, 400],
      [4, 400],
    ]);
    expect(results[1]?.error?.code).toBe('validation_failed');
    expect(results[1]?.error?.errors[0]?.path).toBe('queries.1.limit');
    expect(results[3]?.error?.errors[0]?.path).toBe('queries.3.stream');
    expect(results[4]?.error?.errors[0]?.path).toBe('queries.4.query');
    expect(results[0]?.body?.request_id).not.toBe(results[2]?.body?.request_id);
    expect(results[0]?.body?.results.length).toBeLessThanOrEqual(2);
  });

  it('charges one rate-limit unit per query', async () => {
    const { key } = await createKey(t.app, t.adminKey, { name: 'batch budget', scopes: ['search'], rate_limit_per_minute: 5 });
    const queries = Array.from({ length: 4 }, () => ({ query: 'tent' }));
    expectStatus(await call(t.app, key, 'POST', '/v1/search/batch', { queries }), 200);
    expectProblem(await call(t.app, key, 'POST', '/v1/search/batch', { queries: queries.slice(0, 2) }), 429, 'rate_limited');
  });

  it('validates the envelope', async () => {
    expectProblem(await call(t.app, t.adminKey, 'POST', '/v1/search/batch', { queries: [] }), 400, 'validation_failed');
    expectProblem(await call(t.app, t.adminKey, 'POST', '/v1/search/batch', { queries: Array(11).fill({ query: 'x' }) }), 400, 'validation_failed');
  });
});
