import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, createKey, createTestApp, expectStatus, ManualClock, type TestApp } from '../helpers/app.js';
import { type AnyClient, CLIENT_ERAS, callTool, connectHttp, problem, structured, text } from '../helpers/mcp.js';
import { expectUcpValid, protocolsNeed } from '../helpers/protocol-schemas.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';
import { createTestWorker, Receiver } from '../helpers/webhooks.js';

let sample: SampleCatalog;
let t: TestApp;
let base: string;
let receiver: Receiver;
const clients: AnyClient[] = [];
// Starts at the real time: standardwebhooks' verify checks the timestamp against Date.now().
const clock = new ManualClock(Date.now());

beforeAll(async () => {
  sample = await openSampleCatalog();
  t = await createTestApp({ search: sample, clock, webhooks: { allowPrivate: true } });
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  receiver = await Receiver.start();
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await receiver.close();
  await t.close();
  await sample.close();
});
beforeEach(() => protocolsNeed.check());

const meta = { 'ucp-agent': { profile: 'https://agent.example/.well-known/ucp' } };

describe.skipIf(protocolsNeed.skip).each(CLIENT_ERAS)(`UCP catalog tools over /mcp, client %s${protocolsNeed.note}`, (era) => {
  it('search_catalog, lookup_catalog and get_product answer UCP-valid structured content and the same JSON as text', async () => {
    const client = await connectHttp(era, `${base}/mcp`, { headers: { 'x-api-key': t.adminKey } });
    clients.push(client);

    const catalog = { query: 'trail running shoes', pagination: { limit: 3 } };
    expectUcpValid('searchRequest', catalog);
    const searched = await callTool(client, 'search_catalog', { meta, catalog });
    expect(searched.isError, text(searched)).toBeFalsy();
    const found = structured<{ products: { id: string; metadata: { impression_id: string } }[]; messages: { presentation?: string }[] }>(searched);
    expectUcpValid('searchResponse', found);
    expect(JSON.parse(text(searched))).toEqual(found);
    expect(found.products).toHaveLength(3);
    expect(found.messages.filter((m) => m.presentation === 'disclosure')).toHaveLength(3);

    const ids = found.products.map((p) => p.id);
    expectUcpValid('lookupRequest', { ids });
    const looked = await callTool(client, 'lookup_catalog', { meta, catalog: { ids } });
    expect(looked.isError, text(looked)).toBeFalsy();
    expectUcpValid('lookupResponse', structured(looked));
    expect(
      structured<{ products: { id: string }[] }>(looked)
        .products.map((p) => p.id)
        .sort(),
    ).toEqual([...ids].sort());

    const one = await callTool(client, 'get_product', { meta, catalog: { id: ids[0] } });
    expectUcpValid('getProductResponse', structured(one));
    const none = await callTool(client, 'get_product', { meta, catalog: { id: '00000000-0000-4000-8000-000000000000' } });
    expect(none.isError, text(none)).toBeFalsy();
    expectUcpValid('errorResponse', structured(none));
  });

  it('refuses a call without meta["ucp-agent"].profile or without a query, naming the field', async () => {
    const client = await connectHttp(era, `${base}/mcp`, { headers: { 'x-api-key': t.adminKey } });
    clients.push(client);
    const noMeta = await callTool(client, 'search_catalog', { catalog: { query: 'socks' } });
    expect(noMeta.isError).toBe(true);
    expect(problem(noMeta)).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ path: 'meta' })] });
    const badProfile = await callTool(client, 'lookup_catalog', { meta: { 'ucp-agent': { profile: 'not a url' } }, catalog: { ids: ['x'] } });
    expect(problem(badProfile)).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ path: 'meta.ucp-agent.profile' })] });
    const noQuery = await callTool(client, 'search_catalog', { meta, catalog: { filters: { categories: ['Footwear'] } } });
    expect(problem(noQuery)).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ path: 'catalog.query' })] });
  });
});

describe.skipIf(protocolsNeed.skip)(`from a UCP search to a credited sale${protocolsNeed.note}`, () => {
  it('an agent finds a product with search_catalog, the merchant verifies its attribution and reports the sale once; revenue and a signed webhook follow', async () => {
    const account = await t.core.accounts.create(`agent ${randomUUID()}`);
    const agentKey = account.firstKey.key;
    const hook = await call(t.app, agentKey, 'POST', '/v1/webhooks', { url: receiver.url(`/${randomUUID()}`), events: ['conversion'] });
    expectStatus(hook, 201);

    // The agent, over MCP.
    const client = await connectHttp('2026-07-28 (SDK 2)', `${base}/mcp`, { headers: { 'x-api-key': agentKey } });
    clients.push(client);
    const found = await callTool(client, 'search_catalog', { meta, catalog: { query: 'espresso machine', pagination: { limit: 1 } } });
    expect(found.isError, text(found)).toBeFalsy();
    const product = structured<{ products: { id: string; variants: { seller?: { name: string } }[]; metadata: { attribution: { aisle_attr: string } } }[] }>(
      found,
    ).products[0]!;
    const token = product.metadata.attribution.aisle_attr;

    // The merchant, with a key limited to itself, at checkout and after.
    const merchant = product.variants[0]!.seller!.name;
    const merchantKey = (await createKey(t.app, agentKey, { name: 'merchant', scopes: ['conversions:write'], merchant })).key;
    const verified = await call(t.app, merchantKey, 'POST', '/v1/attribution/verify', { token });
    expect(verified.json()).toMatchObject({ valid: true, product_id: product.id, account_id: `acct_${account.account.id}` });
    const sale = { attribution_token: token, order_id: 'ucp-1', sale_amount: 499, commission_amount: 24.95, currency: 'USD' };
    expectStatus(await call(t.app, merchantKey, 'POST', '/v1/conversions', sale), 201);
    expectStatus(await call(t.app, merchantKey, 'POST', '/v1/conversions', sale), 200);

    const range = new URLSearchParams({
      start_date: new Date(clock.now().getTime() - 3_600_000).toISOString(),
      end_date: new Date(clock.now().getTime() + 3_600_000).toISOString(),
    });
    expect((await call(t.app, agentKey, 'GET', `/v1/analytics?${range}`)).json().metrics).toMatchObject({ conversions: 1, revenue: 24.95 });
    const worker = createTestWorker(t.db, { clock, allowPrivate: true });
    try {
      await worker.worker.drain();
    } finally {
      await worker.close();
    }
    const path = new URL(hook.json().url as string).pathname;
    const delivered = receiver.received.filter((r) => r.path === path);
    expect(delivered).toHaveLength(1);
    expect(new Webhook(hook.json().secret as string).verify(delivered[0]!.body, delivered[0]!.headers)).toMatchObject({
      livemode: true,
      type: 'conversion',
      data: { order_id: 'ucp-1', product_id: `prd_${product.id}`, click_id: null },
    });
  });
});
