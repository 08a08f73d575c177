import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, createKey, createTestApp, expectProblem, expectStatus, type TestApp } from '../helpers/app.js';
import { ACP_FEED_EXAMPLES, acpFeedValidator, protocolsNeed } from '../helpers/protocol-schemas.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

let sample: SampleCatalog;
let t: TestApp;
beforeAll(async () => {
  // A copy: upserts publish into the catalog, which other test files share.
  sample = await openSampleCatalog({ copy: true });
  t = await createTestApp({ search: sample });
});
afterAll(async () => {
  await t.close();
  await sample.close();
});
beforeEach(() => protocolsNeed.check());

type Examples = Record<string, Record<string, unknown>>;
const examples = (): Examples => JSON.parse(readFileSync(ACP_FEED_EXAMPLES, 'utf8')) as Examples;

function expectAcpValid(def: string, value: unknown): void {
  const validate = acpFeedValidator(def);
  expect(validate(value), `${def}: ${JSON.stringify(validate.errors)}`).toBe(true);
}

async function createFeed(key = t.adminKey): Promise<string> {
  const res = await call(t.app, key, 'POST', '/v1/feeds', { target_country: 'US' });
  expectStatus(res, 201);
  expectAcpValid('FeedMetadata', res.json());
  return res.json().id as string;
}

const upsert = (feed: string, body: unknown, key = t.adminKey) => call(t.app, key, 'PATCH', `/v1/feeds/${feed}/products`, body);

async function searchTitles(query: string): Promise<string[]> {
  const res = await call(t.app, t.adminKey, 'POST', '/v1/search', { query, limit: 10, min_relevance_score: 0 });
  expectStatus(res, 200);
  return (res.json() as { results: { title: string }[] }).results.map((r) => r.title);
}

const lantern = (over: Record<string, unknown> = {}) => ({
  id: 'prod_lantern',
  title: 'Solar Camping Lantern',
  description: { plain: 'A collapsible solar camping lantern with a USB power bank.' },
  variants: [
    {
      id: 'lantern-green',
      title: 'Solar Camping Lantern, Green',
      price: { amount: 3499, currency: 'USD' },
      availability: { available: true, status: 'in_stock' },
      categories: [{ value: 'Outdoor > Camping > Lighting', taxonomy: 'merchant' }],
      seller: { name: 'Lumen Outfitters' },
      url: 'https://lumen.example.com/lantern-green',
    },
  ],
  ...over,
});

describe.skipIf(protocolsNeed.skip)(`ACP Feed API${protocolsNeed.note}`, () => {
  it("takes ACP's own example requests as they are, and answers in ACP's schemas", async () => {
    const ex = examples();
    expectAcpValid('CreateFeedRequest', ex.create_feed_request_minimal);
    const created = await call(t.app, t.adminKey, 'POST', '/v1/feeds', ex.create_feed_request_minimal);
    expectStatus(created, 201);
    const feed = created.json() as { id: string; target_country: string };
    expectAcpValid('FeedMetadata', feed);
    expect(feed).toMatchObject({ id: expect.stringMatching(/^feed_/), target_country: 'US' });

    expectAcpValid('UpsertProductsRequest', ex.upsert_products_request_single_product);
    const upserted = await upsert(feed.id, ex.upsert_products_request_single_product);
    expectStatus(upserted, 200);
    expect(upserted.json()).toEqual({ id: feed.id, accepted: true });

    const products = await call(t.app, t.adminKey, 'GET', `/v1/feeds/${feed.id}/products`);
    expectStatus(products, 200);
    expectAcpValid('ProductsResponse', products.json());
    expect(products.json()).toEqual({ products: (ex.upsert_products_request_single_product as { products: unknown[] }).products });
    const got = await call(t.app, t.adminKey, 'GET', `/v1/feeds/${feed.id}`);
    expectAcpValid('FeedMetadata', got.json());
    expect(Date.parse(got.json().updated_at)).toBeGreaterThanOrEqual(Date.parse(created.json().updated_at));
  });

  it('publishes upserted variants to search at once; discontinued and dropped variants leave it', async () => {
    const feed = await createFeed();
    expect(await searchTitles('solar camping lantern power bank')).not.toContain('Solar Camping Lantern, Green');
    expectStatus(await upsert(feed, { products: [lantern()] }), 200);
    expect(await searchTitles('solar camping lantern power bank')).toContain('Solar Camping Lantern, Green');

    // A second variant, then the first discontinued: only the second stays searchable.
    const blue = { ...lantern().variants[0]!, id: 'lantern-blue', title: 'Solar Camping Lantern, Blue' };
    const green = { ...lantern().variants[0]!, availability: { available: false, status: 'discontinued' } };
    expectStatus(await upsert(feed, { products: [lantern({ variants: [green, blue] })] }), 200);
    let titles = await searchTitles('solar camping lantern power bank');
    expect(titles).toContain('Solar Camping Lantern, Blue');
    expect(titles).not.toContain('Solar Camping Lantern, Green');

    // A product re-sent without a variant: that variant leaves the catalog too.
    expectStatus(await upsert(feed, { products: [lantern({ variants: [green] })] }), 200);
    titles = await searchTitles('solar camping lantern power bank');
    expect(titles.filter((title) => title.startsWith('Solar Camping Lantern'))).toEqual([]);
  });

  it("places a variant where its category in Google's taxonomy says, else from its text", async () => {
    const feed = await createFeed();
    const placed = lantern({
      id: 'prod_placed',
      variants: [
        {
          ...lantern().variants[0]!,
          id: 'lantern-placed',
          title: 'Solar Camping Lantern, Placed',
          // The merchant's own category stays the product's category text; Google's places it.
          categories: [
            { value: 'Outdoor > Camping > Lighting', taxonomy: 'merchant' },
            { value: '1013', taxonomy: 'google_product_category' },
          ],
        },
        { ...lantern().variants[0]!, id: 'lantern-text', title: 'Solar Camping Lantern, Text', url: 'https://lumen.example.com/lantern-text' },
      ],
    });
    expectStatus(await upsert(feed, { products: [placed] }), 200);
    const res = await call(t.app, t.adminKey, 'POST', '/v1/search', { query: 'Solar Camping Lantern', limit: 10, min_relevance_score: 0 });
    const results = (res.json() as { results: { title: string; category: string; category_id: number | null; category_confidence: number | null }[] }).results;
    expect(results.find((r) => r.title.endsWith('Placed'))).toMatchObject({
      category: 'Outdoor > Camping > Lighting',
      category_id: 1013,
      category_confidence: 1,
    });
    const fromText = results.find((r) => r.title.endsWith('Text'))!;
    expect(fromText.category_id).not.toBeNull();
    expect(fromText.category_confidence!).toBeLessThan(1);
  });

  it("keeps each feed's products its own: the same ids in another account's feed are other products, and its feed is 404", async () => {
    const mine = await createFeed();
    const other = (await t.core.accounts.create('other merchant')).firstKey.key;
    const theirs = await createFeed(other);
    const item = lantern({ id: 'prod_shared_id', variants: [{ ...lantern().variants[0]!, id: 'same-variant', title: 'Harbour Lantern' }] });
    expectStatus(await upsert(mine, { products: [item] }), 200);
    expectStatus(await upsert(theirs, { products: [{ ...item, variants: [{ ...item.variants[0]!, title: 'Harbour Lantern Deluxe' }] }] }, other), 200);
    const titles = await searchTitles('harbour lantern');
    expect(titles).toEqual(expect.arrayContaining(['Harbour Lantern', 'Harbour Lantern Deluxe']));

    expectProblem(await call(t.app, other, 'GET', `/v1/feeds/${mine}`), 404, 'not_found');
    expectProblem(await upsert(mine, { products: [item] }, other), 404, 'not_found');
    expectProblem(await call(t.app, other, 'GET', `/v1/feeds/${mine}/products`), 404, 'not_found');
  });

  it('needs catalog:write, which only a key holding it grants; OAuth cannot grant it', async () => {
    const { key } = await createKey(t.app, t.adminKey, { name: 'search only', scopes: ['search'] });
    const refused = expectProblem(await call(t.app, key, 'POST', '/v1/feeds', {}), 403, 'insufficient_scope');
    expect(refused.required_scope).toBe('catalog:write');
    expectProblem(await call(t.app, key, 'POST', '/v1/keys', { name: 'escalate', scopes: ['catalog:write'] }), 403, 'insufficient_scope');
    const metadata = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    expect(metadata.json().scopes_supported).not.toContain('catalog:write');
  });

  it('refuses what is not an ACP product, and what Aisle cannot list, writing nothing', async () => {
    const feed = await createFeed();
    expectProblem(await upsert(feed, { products: [] }), 400, 'validation_failed');
    expectProblem(await upsert(feed, { products: [{ ...lantern(), brand: 'Lumen' }] }), 400, 'validation_failed');
    expectProblem(await upsert(feed, { products: [lantern({ variants: [{ id: 'x' }] })] }), 400, 'validation_failed');
    const noTitle = lantern({ title: undefined, variants: [{ ...lantern().variants[0]!, title: '' }] });
    const bad = expectProblem(await upsert(feed, { products: [noTitle] }), 400, 'validation_failed');
    expect(bad.errors).toEqual([expect.objectContaining({ path: 'products.0.variants.0' })]);
    expectProblem(await call(t.app, t.adminKey, 'POST', '/v1/feeds', { target_country: 'usa' }), 400, 'validation_failed');
    expectProblem(await call(t.app, t.adminKey, 'GET', '/v1/feeds/feed_nope'), 404, 'not_found');
    expect((await call(t.app, t.adminKey, 'GET', `/v1/feeds/${feed}/products`)).json()).toEqual({ products: [] });
  });
});
