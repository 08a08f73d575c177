import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { CLIENT_ERAS, callTool, connectHttp, problem, structured, text, type AnyClient } from '../helpers/mcp.js';
import { expectUcpValid, protocolsNeed } from '../helpers/protocol-schemas.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

let sample: SampleCatalog;
let t: TestApp;
let base: string;
const clients: AnyClient[] = [];

beforeAll(async () => {
  sample = await openSampleCatalog();
  t = await createTestApp({ search: sample });
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
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
