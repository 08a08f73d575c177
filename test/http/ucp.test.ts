import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, createKey, createTestApp, expectProblem, expectStatus, type TestApp } from '../helpers/app.js';
import { expectUcpValid, protocolsNeed } from '../helpers/protocol-schemas.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

interface UcpProduct {
  id: string;
  title: string;
  price_range: { min: { amount: number; currency: string } };
  categories?: { value: string }[];
  variants: { id: string; price: { amount: number }; inputs?: { id: string; match?: string }[] }[];
  metadata: Record<string, unknown>;
}
interface UcpMessage {
  type: string;
  code?: string;
  content: string;
  path?: string;
  presentation?: string;
}
interface SearchAnswer {
  ucp: { version: string; status?: string; capabilities: Record<string, unknown> };
  products: UcpProduct[];
  pagination: { has_next_page: boolean; cursor?: string; total_count?: number };
  messages: UcpMessage[];
  aisle: { request_id: string; session_id: string };
}

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
beforeEach(() => protocolsNeed.check());

const PLATFORM = 'profile="https://agent.example/.well-known/ucp"';
const ucpHeaders = () => ({ 'ucp-agent': PLATFORM, 'request-id': randomUUID() });

function post(path: string, body: unknown, key: string | null = t.adminKey, headers: Record<string, string> = ucpHeaders()) {
  return call(t.app, key, 'POST', `/ucp/catalog/${path}`, body, headers);
}

async function search(body: Record<string, unknown>): Promise<SearchAnswer> {
  expectUcpValid('searchRequest', body);
  const res = await post('search', body);
  expectStatus(res, 200);
  const answer = res.json() as SearchAnswer;
  expectUcpValid('searchResponse', answer);
  return answer;
}

describe.skipIf(protocolsNeed.skip)(`UCP catalog over REST${protocolsNeed.note}`, () => {
  it('GET /.well-known/ucp: a valid business profile, public and cacheable, with an ETag', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/.well-known/ucp' });
    expectStatus(res, 200);
    const profile = res.json() as { ucp: { services: Record<string, { transport: string; endpoint: string }[]>; capabilities: Record<string, unknown> } };
    expectUcpValid('businessProfile', profile);
    expect(Object.keys(profile.ucp.capabilities).sort()).toEqual(['dev.ucp.shopping.catalog.lookup', 'dev.ucp.shopping.catalog.search']);
    const bindings = profile.ucp.services['dev.ucp.shopping'] ?? [];
    expect(bindings.map((b) => [b.transport, new URL(b.endpoint).pathname]).sort()).toEqual([
      ['mcp', '/mcp'],
      ['rest', '/ucp'],
    ]);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    const etag = String(res.headers.etag);
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await t.app.inject({ method: 'GET', url: '/.well-known/ucp', headers: { 'if-none-match': etag } });
    expectStatus(again, 304);
    expect(again.body).toBe('');
  });

  it('search_catalog: products in UCP form, each with its impression, click link and a disclosure message', async () => {
    const answer = await search({ query: 'espresso machine', pagination: { limit: 3 } });
    expect(answer.ucp).toMatchObject({ version: '2026-04-08', status: 'success' });
    expect(Object.keys(answer.ucp.capabilities)).toEqual(['dev.ucp.shopping.catalog.search']);
    expect(answer.products.length).toBe(3);
    const disclosures = answer.messages.filter((m) => m.presentation === 'disclosure');
    expect(disclosures.map((m) => m.path)).toEqual(['$.products[0]', '$.products[1]', '$.products[2]']);
    for (const [i, p] of answer.products.entries()) {
      expect(p.title.toLowerCase()).toContain('espresso');
      expect(p.variants[0]!.id).toBe(p.id);
      expect(Number.isInteger(p.price_range.min.amount)).toBe(true);
      const impression = String(p.metadata.impression_id);
      expect(impression).toMatch(/^[0-9a-f-]{36}$/);
      expect(p.metadata.click_url).toContain(`/r/${impression}?sig=`);
      // The attribution travels as UCP's URL-style parameters and as ACP's object, with one token.
      const attribution = p.metadata.affiliate_attribution as { token: string };
      expect(attribution.token).toMatch(/^aisle_attr_/);
      expect(p.metadata.attribution).toEqual({ aisle_attr: attribution.token });
      expect(disclosures[i]!.content).toBe(p.metadata.disclosure_text);
    }
    // Prices are minor units of the same figure REST answers in major units.
    const rest = await call(t.app, t.adminKey, 'POST', '/v1/search', { query: 'espresso machine', limit: 1 });
    const first = (rest.json() as { results: { product_id: string; price_amount: number }[] }).results[0]!;
    const same = await post('product', { id: first.product_id });
    expect((same.json() as { product: UcpProduct }).product.price_range.min.amount).toBe(Math.round(first.price_amount * 100));
  });

  it('paginates with the cursor: the next page continues the ranking without repeating a product', async () => {
    const request = { query: 'running shoes', pagination: { limit: 4 } };
    const page1 = await search(request);
    expect(page1.products).toHaveLength(4);
    expect(page1.pagination.has_next_page).toBe(true);
    const page2 = await search({ ...request, pagination: { limit: 4, cursor: page1.pagination.cursor } });
    expect(page2.products.length).toBeGreaterThan(0);
    const ids1 = new Set(page1.products.map((p) => p.id));
    expect(page2.products.filter((p) => ids1.has(p.id))).toEqual([]);
    expect(page2.aisle.session_id).toBe(page1.aisle.session_id);
    expect(page2.pagination.total_count).toBe(page1.pagination.total_count);

    const other = await post('search', { query: 'hiking socks', pagination: { cursor: page1.pagination.cursor } });
    expect(expectProblem(other, 400, 'validation_failed').errors).toEqual([{ path: 'pagination.cursor', message: expect.stringContaining('another query') }]);
    const garbage = await post('search', { ...request, pagination: { cursor: 'not-a-cursor' } });
    expectProblem(garbage, 400, 'validation_failed');
  });

  it('honours categories (any of) and a price in minor units; an unknown filter comes back as a message', async () => {
    const answer = await search({
      query: 'shoes',
      context: { currency: 'USD' },
      filters: { categories: ['Trail Running Shoes', 'Hiking Boots'], price: { max: 12000 }, colour_family: 'blue' },
    });
    expect(answer.products.length).toBeGreaterThan(0);
    for (const p of answer.products) {
      expect(p.price_range.min.amount).toBeLessThanOrEqual(12000);
      expect(p.categories?.[0]?.value).toMatch(/Trail Running Shoes|Hiking Boots/);
    }
    expect(answer.messages).toContainEqual(
      expect.objectContaining({ type: 'warning', code: 'filter_not_supported', content: expect.stringContaining('colour_family') }),
    );
    const noCurrency = await search({ query: 'shoes', filters: { price: { max: 5000 } } });
    expect(noCurrency.messages).toContainEqual(expect.objectContaining({ code: 'price_filter_currency_assumed' }));
  });

  it('no fill: an empty page and an info message, still a valid answer', async () => {
    const answer = await search({ query: 'quantum flux capacitor for a time machine', filters: { min_relevance_score: 0.99 } });
    expect(answer.products).toEqual([]);
    expect(answer.pagination.has_next_page).toBe(false);
    expect(answer.messages).toEqual([expect.objectContaining({ type: 'info', code: 'no_relevant_results' })]);
  });

  it('lookup_catalog and get_product read products by id; unknown ids are messages, not errors', async () => {
    const found = await search({ query: 'espresso machine', pagination: { limit: 2 } });
    const [a, b] = found.products.map((p) => p.id);
    const missing = randomUUID();
    const lookupBody = { ids: [a!, `prd_${b!}`, a!, missing] };
    expectUcpValid('lookupRequest', lookupBody);
    const res = await post('lookup', lookupBody);
    expectStatus(res, 200);
    const lookup = res.json() as { products: UcpProduct[]; messages: UcpMessage[] };
    expectUcpValid('lookupResponse', lookup);
    expect(lookup.products.map((p) => p.id).sort()).toEqual([a, b].sort());
    expect(lookup.products.find((p) => p.id === b)!.variants[0]!.inputs).toEqual([{ id: `prd_${b}`, match: 'exact' }]);
    expect(lookup.messages).toContainEqual({ type: 'info', code: 'not_found', content: missing });

    expectUcpValid('getProductRequest', { id: a });
    const one = await post('product', { id: a });
    expectStatus(one, 200);
    expectUcpValid('getProductResponse', one.json());
    expect((one.json() as { product: UcpProduct }).product.id).toBe(a);

    const none = await post('product', { id: missing });
    expectStatus(none, 200);
    const error = none.json() as { ucp: { status: string }; messages: UcpMessage[] };
    expectUcpValid('errorResponse', error);
    expect(error.ucp.status).toBe('error');
    expect(error.messages[0]).toMatchObject({ type: 'error', code: 'not_found' });
  });

  it('requires UCP-Agent and Request-Id, a key and the search scope, like POST /v1/search', async () => {
    const noAgent = await post('search', { query: 'socks' }, t.adminKey, { 'request-id': randomUUID() });
    expect(JSON.stringify(expectProblem(noAgent, 400, 'validation_failed').errors)).toContain('ucp-agent');
    const badAgent = await post('search', { query: 'socks' }, t.adminKey, { 'ucp-agent': 'profile=nope', 'request-id': randomUUID() });
    expectProblem(badAgent, 400, 'validation_failed');
    const noRequestId = await post('search', { query: 'socks' }, t.adminKey, { 'ucp-agent': PLATFORM });
    expectProblem(noRequestId, 400, 'validation_failed');
    expectProblem(await post('search', { query: 'socks' }, null), 401, 'missing_api_key');
    const { key } = await createKey(t.app, t.adminKey, { name: 'events only', scopes: ['events:write'] });
    expectProblem(await post('lookup', { ids: ['x'] }, key), 403, 'insufficient_scope');
    expectProblem(await post('search', { filters: {} }), 400, 'validation_failed');
    expectProblem(await post('lookup', { ids: [] }), 400, 'validation_failed');
  });
});
