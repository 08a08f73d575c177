import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickSchema } from '../../src/core/schemas/clicks.js';
import { type SearchResponse, SearchResponseSchema } from '../../src/core/schemas/search.js';
import { buildApp } from '../../src/http/app.js';
import { call, createKey, createTestApp, expectProblem, expectStatus, ManualClock, type TestApp } from '../helpers/app.js';
import {
  type AnyClient,
  type CallToolResult,
  CLIENT_ERAS,
  callTool,
  connectHttp,
  ERA_VERSION,
  hostCallTool,
  problem,
  protocolOf,
  structured,
  TOOL_NAMES,
  text,
} from '../helpers/mcp.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

let sample: SampleCatalog;
let t: TestApp;
let base: string;
const clock = new ManualClock();
const clients: AnyClient[] = [];

const MCP_ACCEPT = 'application/json, text/event-stream';
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const toolCall = (name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } });

/** A 2026-07-28 request: the revision and client capabilities in `_meta`, method and name repeated in headers. */
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
function modern(method: string, params: Record<string, unknown> = {}, name?: string): { body: unknown; headers: Record<string, string> } {
  const headers: Record<string, string> = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name === undefined ? {} : { 'mcp-name': name }) };
  return { body: { jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: MODERN_META } }, headers };
}
const modernToolCall = (name: string, args: Record<string, unknown>) => modern('tools/call', { name, arguments: args }, name);

/** One JSON-RPC message over plain fetch: for statuses and headers the SDK client hides. */
function post(body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(`${base}/mcp`, { method: 'POST', headers: { accept: MCP_ACCEPT, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'http test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

async function search(client: AnyClient, query: string): Promise<SearchResponse> {
  const result = await callTool(client, 'search_products', { query, limit: 3, min_relevance_score: 0 });
  expect(result.isError, text(result)).toBeFalsy();
  return SearchResponseSchema.parse(structured(result));
}

beforeAll(async () => {
  sample = await openSampleCatalog();
  t = await createTestApp({ search: sample, clock });
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await t.close();
  await sample.close();
});

describe.each(CLIENT_ERAS)('POST /mcp, client %s', (era) => {
  it('serves the same tools authenticated with x-api-key or Authorization: Bearer', async () => {
    const headerSets: Record<string, string>[] = [{ 'x-api-key': t.adminKey }, { authorization: `Bearer ${t.adminKey}` }];
    for (const headers of headerSets) {
      const client = await connectHttp(era, `${base}/mcp`, { headers });
      clients.push(client);
      expect(protocolOf(client)).toBe(ERA_VERSION[era]);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
      expect(tools.find((tool) => tool.name === 'search_products')?._meta).toMatchObject({ ui: { resourceUri: 'ui://aisle/product-cards.html' } });
      const { results } = await search(client, 'camping tent');
      const click = ClickSchema.parse(structured(await callTool(client, 'record_click', { impression_id: results[0]!.impression_id })));
      expect(click.duplicate).toBe(false);
      const refused = await callTool(client, 'record_click', { impression_id: 'yesterday' });
      expect(problem(refused)).toMatchObject({ code: 'validation_failed' });
    }
  });
});

describe('POST /mcp, an SDK 1.x client on 2025-11-25 and an SDK 2 client on 2026-07-28 together', () => {
  it("lists the same tools to both and serves their calls side by side on one running server, each acting on the other's searches", async () => {
    // One server, listening on 127.0.0.1 in this process; each client over its own HTTP connections.
    const headers = { 'x-api-key': t.adminKey };
    const [legacy, modern] = await Promise.all([
      connectHttp('2025-11-25 (SDK 1.x)', `${base}/mcp`, { headers, name: 'legacy host' }),
      connectHttp('2026-07-28 (SDK 2)', `${base}/mcp`, { headers, name: 'modern host' }),
    ]);
    clients.push(legacy, modern);
    expect([protocolOf(legacy), protocolOf(modern)]).toEqual(['2025-11-25', '2026-07-28']);

    const [listedLegacy, listedModern] = await Promise.all([legacy.listTools(), modern.listTools()]);
    expect(listedLegacy.tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    expect(listedModern.tools).toEqual(listedLegacy.tools);

    // Both search at once; each then clicks the other's first result and votes on the other's search.
    const [fromLegacy, fromModern] = await Promise.all([
      hostCallTool(legacy, 'search_products', { query: 'camping tent', limit: 3, min_relevance_score: 0 }),
      hostCallTool(modern, 'search_products', { query: 'running shoes', limit: 3, min_relevance_score: 0 }),
    ]);
    const [legacySearch, modernSearch] = [fromLegacy, fromModern].map((r) => SearchResponseSchema.parse(structured(r)));
    expect(text(fromModern)).toContain(modernSearch!.results[0]!.click_url);
    const [modernClick, legacyClick] = await Promise.all([
      hostCallTool(modern, 'record_click', { impression_id: legacySearch!.results[0]!.impression_id }),
      hostCallTool(legacy, 'record_click', { impression_id: modernSearch!.results[0]!.impression_id }),
    ]);
    const clicks = [ClickSchema.parse(structured(modernClick)), ClickSchema.parse(structured(legacyClick))];
    expect(clicks.map((c) => [c.request_id, c.duplicate])).toEqual([
      [legacySearch!.request_id, false],
      [modernSearch!.request_id, false],
    ]);
    // A click the other client recorded is the same click, not a second one.
    const repeat = ClickSchema.parse(structured(await hostCallTool(legacy, 'record_click', { impression_id: legacySearch!.results[0]!.impression_id })));
    expect(repeat).toMatchObject({ click_id: clicks[0]!.click_id, duplicate: true });
    const votes = await Promise.all([
      hostCallTool(modern, 'submit_feedback', { request_id: legacySearch!.request_id, product_id: legacySearch!.results[1]!.product_id, relevant: false }),
      hostCallTool(legacy, 'submit_feedback', { request_id: modernSearch!.request_id, product_id: modernSearch!.results[1]!.product_id, relevant: true }),
    ]);
    for (const vote of votes) expect(vote.isError ?? false, text(vote)).toBe(false);

    // Both read the same figures, and the same errors come back on both revisions.
    clock.advance(1000);
    const [legacyFigures, modernFigures] = await Promise.all([hostCallTool(legacy, 'get_analytics', {}), hostCallTool(modern, 'get_analytics', {})]);
    expect(structured(modernFigures)).toEqual(structured(legacyFigures));
    const refusals = await Promise.all([legacy, modern].map((client) => hostCallTool(client, 'search_products', { query: 'tent', limit: 50 })));
    for (const refusal of refusals) expect(problem(refusal)).toMatchObject({ status: 400, code: 'validation_failed', errors: [{ path: 'limit' }] });
    await Promise.all([legacy, modern].map((client) => expect(callTool(client, 'delete_everything', {})).rejects.toMatchObject({ code: -32602 })));
  });
});

describe('POST /mcp', () => {
  it('answers 401 problems without a valid key, before any MCP processing', async () => {
    const missing = await post(initialize, {});
    expect(missing.status).toBe(401);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await missing.json()).toMatchObject({ code: 'missing_api_key' });
    expect(await (await post(initialize, { 'x-api-key': 'aisle_sk_wrong' })).json()).toMatchObject({ code: 'invalid_api_key' });
    const refused = connect({});
    await expect(refused).rejects.toBeInstanceOf(StreamableHTTPError);
    await expect(refused).rejects.toMatchObject({ code: 401 });
  });

  it('answers a tool needing a scope the key lacks with an insufficient_scope tool error, not HTTP 403', async () => {
    const { key } = await createKey(t.app, t.adminKey, { name: 'search only', scopes: ['search'] });
    const client = await connect({ 'x-api-key': key });
    const { results } = await search(client, 'camping tent');
    const refused = await callTool(client, 'record_click', { impression_id: results[0]!.impression_id });
    expect(refused.isError).toBe(true);
    expect(problem(refused)).toMatchObject({ status: 403, code: 'insufficient_scope', required_scope: 'events:write' });
    expect(refused.content[0]).toEqual({ type: 'text', text: `Error 403 insufficient_scope: ${String(problem(refused).detail)}` });

    // Over plain HTTP: 200 with the tool error, and the problem names this HTTP request.
    const res = await post(toolCall('record_click', { impression_id: results[0]!.impression_id }), { 'x-api-key': key });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: CallToolResult };
    expect(problem(body.result)).toMatchObject({ code: 'insufficient_scope', request_id: res.headers.get('x-request-id') });
  });

  it('refuses a browser Origin it does not know with 403, and accepts a configured one', async () => {
    const evil = await post(initialize, { 'x-api-key': t.adminKey, origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({ code: 'origin_not_allowed', status: 403 });
    await expect(connect({ 'x-api-key': t.adminKey, origin: 'https://evil.example' })).rejects.toMatchObject({ code: 403 });

    const configured = await buildApp({ core: t.core, logger: t.app.log, mcp: { allowedOrigins: ['https://agent.example'], allowedHosts: ['localhost'] } });
    const headers = { 'x-api-key': t.adminKey, accept: MCP_ACCEPT, 'content-type': 'application/json' };
    expectStatus(
      await configured.app.inject({ method: 'POST', url: '/mcp', headers: { ...headers, origin: 'https://agent.example' }, payload: initialize }),
      200,
    );
    expectProblem(
      await configured.app.inject({ method: 'POST', url: '/mcp', headers: { ...headers, origin: 'null' }, payload: initialize }),
      403,
      'origin_not_allowed',
    );
    await configured.app.close();
  });

  describe.each([
    ['http://localhost:6274', 200],
    ['http://127.0.0.1:3000', 200],
    ['http://[::1]:8080', 200],
    ['https://localhost', 200],
    ['http://localhost.evil.example:6274', 403],
    ['http://127.0.0.1.nip.io:3000', 403],
    ['https://evil.example', 403],
    ['null', 403],
  ])('Origin %s on a server listening on 127.0.0.1', (origin, status) => {
    it(`answers ${status}`, async () => {
      const res = await post(initialize, { 'x-api-key': t.adminKey, origin });
      expect(res.status, await res.clone().text()).toBe(status);
      if (status === 403) expect(await res.json()).toMatchObject({ code: 'origin_not_allowed' });
    });
  });

  it('refuses loopback origins when the server listens on every interface', async () => {
    const wide = await buildApp({ core: t.core, logger: t.app.log });
    const address = await wide.app.listen({ host: '0.0.0.0', port: 0 });
    try {
      const port = new URL(address).port;
      const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { accept: MCP_ACCEPT, 'content-type': 'application/json', 'x-api-key': t.adminKey, origin: 'http://localhost:6274' },
        body: JSON.stringify(initialize),
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ code: 'origin_not_allowed' });
    } finally {
      await wide.app.close();
    }
  });

  it('refuses a Host it does not serve (DNS rebinding) with 403', async () => {
    const headers = { 'x-api-key': t.adminKey, accept: MCP_ACCEPT, 'content-type': 'application/json' };
    for (const host of ['rebound.evil.example:8787', 'evil.example@127.0.0.1', '127.0.0.1.evil.example']) {
      expectProblem(await t.app.inject({ method: 'POST', url: '/mcp', headers: { ...headers, host }, payload: initialize }), 403, 'host_not_allowed');
    }
    expectStatus(await t.app.inject({ method: 'POST', url: '/mcp', headers: { ...headers, host: '127.0.0.1:8787' }, payload: initialize }), 200);
  });

  it('answers GET and DELETE with 405 (stateless: no server-initiated stream, no session to end)', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await call(t.app, t.adminKey, method, '/mcp', undefined, { accept: 'text/event-stream' });
      expectProblem(res, 405, 'method_not_allowed');
      expect(res.headers.allow).toBe('POST');
    }
  });

  it('shares the key’s rate limit with REST: every POST costs one unit', async () => {
    const { key } = await createKey(t.app, t.adminKey, { name: 'tight', scopes: ['search'], rate_limit_per_minute: 3 });
    expectStatus(await call(t.app, key, 'POST', '/v1/search', { query: 'tent' }), 200);
    expectStatus(await call(t.app, key, 'POST', '/v1/search', { query: 'tent' }), 200);
    expect((await post(toolCall('search_products', { query: 'tent' }), { 'x-api-key': key })).status).toBe(200);
    const limited = await post(toolCall('search_products', { query: 'tent' }), { 'x-api-key': key });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await limited.json()).toMatchObject({ code: 'rate_limited' });
    expectProblem(await call(t.app, key, 'POST', '/v1/search', { query: 'tent' }), 429, 'rate_limited');
    clock.advance(60_000);
  });

  it('refuses JSON-RPC batch arrays with 400 -32600 and runs none of their calls', async () => {
    const { key } = await createKey(t.app, t.adminKey, { name: 'batcher', scopes: ['search', 'analytics:read'], rate_limit_per_minute: 2 });
    const searchesBefore = (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM search_requests'))[0]!.n;
    const analytics = Array.from({ length: 100 }, (_, i) => ({ ...toolCall('get_analytics', {}), id: i + 1 }));
    const searches = Array.from({ length: 3 }, (_, i) => ({ ...toolCall('search_products', { query: 'tent' }), id: i + 1 }));
    for (const batch of [analytics, searches]) {
      const res = await post(batch, { 'x-api-key': key });
      const body = await res.text();
      expect(res.status, body).toBe(400);
      expect(JSON.parse(body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    }
    // Nothing in the batches ran, and each POST cost one unit: the third is over the limit of 2.
    expect((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM search_requests'))[0]!.n).toBe(searchesBefore);
    expect((await post(toolCall('get_analytics', {}), { 'x-api-key': key })).status).toBe(429);
    clock.advance(60_000);
  });

  it('refuses a request for its Origin or Host before the key is charged', async () => {
    const { key } = await createKey(t.app, t.adminKey, { name: 'guarded', scopes: ['analytics:read'], rate_limit_per_minute: 1 });
    for (let i = 0; i < 3; i++) {
      const res = await post(toolCall('get_analytics', {}), { 'x-api-key': key, origin: 'https://evil.example' });
      expect(res.status).toBe(403);
      expect(res.headers.get('ratelimit')).toBeNull();
    }
    const headers = { 'x-api-key': key, accept: MCP_ACCEPT, 'content-type': 'application/json', host: 'rebound.evil.example' };
    for (let i = 0; i < 3; i++)
      expectProblem(await t.app.inject({ method: 'POST', url: '/mcp', headers, payload: toolCall('get_analytics', {}) }), 403, 'host_not_allowed');
    const allowed = await post(toolCall('get_analytics', {}), { 'x-api-key': key });
    expect(allowed.status, await allowed.clone().text()).toBe(200);
    expect(allowed.headers.get('ratelimit')).toBe('"default";r=0;t=60');
    clock.advance(60_000);
  });

  it('keeps two accounts apart when their clients call concurrently, down to their analytics', async () => {
    const other = await t.core.accounts.create('other account');
    const [a, b] = await Promise.all([connect({ 'x-api-key': t.adminKey }), connect({ 'x-api-key': other.firstKey.key })]);
    const queries = ['tent', 'headphones', 'running shoes', 'coffee grinder', 'desk lamp', 'backpack'];
    const [fromA, fromB] = await Promise.all([Promise.all(queries.map((q) => search(a, q))), Promise.all(queries.map((q) => search(b, q)))]);

    const crossed = await Promise.all([
      ...fromB.map((r) => callTool(a, 'record_click', { impression_id: r.results[0]!.impression_id })),
      ...fromA.map((r) => callTool(b, 'record_click', { impression_id: r.results[0]!.impression_id })),
      ...fromB.map((r) => callTool(a, 'submit_feedback', { request_id: r.request_id, product_id: r.results[0]!.product_id, relevant: false })),
    ]);
    for (const result of crossed) expect(problem(result)).toMatchObject({ status: 404, code: 'not_found' });

    const own = await Promise.all([
      ...fromA.map((r) => callTool(a, 'record_click', { impression_id: r.results[0]!.impression_id })),
      ...fromB.map((r) => callTool(b, 'record_click', { impression_id: r.results[0]!.impression_id })),
    ]);
    for (const result of own) expect(ClickSchema.parse(structured(result)).duplicate).toBe(false);

    // The new account's figures are exactly its own searches and clicks (the range ends now; this clock stands still).
    clock.advance(1000);
    const figures = structured<{ metrics: { impressions: number; clicks: number } }>(await callTool(b, 'get_analytics', {})).metrics;
    expect(figures).toMatchObject({ impressions: fromB.reduce((n, r) => n + r.results.length, 0), clicks: queries.length });
  });

  it('answers 2026-07-28 requests without initialize, as JSON, with the same tool errors', async () => {
    const discover = modern('server/discover');
    const found = await post(discover.body, { 'x-api-key': t.adminKey, ...discover.headers });
    const discovered = (await found.json()) as { result: { supportedVersions: string[]; capabilities: { tools?: { listChanged?: boolean } } } };
    expect(found.status, JSON.stringify(discovered)).toBe(200);
    expect(discovered.result.supportedVersions).toContain('2026-07-28');
    expect(discovered.result.capabilities.tools).toEqual({ listChanged: false });

    const { key } = await createKey(t.app, t.adminKey, { name: 'modern search only', scopes: ['search'] });
    const searched = modernToolCall('search_products', { query: 'camping tent', limit: 2, min_relevance_score: 0 });
    const res = await post(searched.body, { 'x-api-key': key, ...searched.headers });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as { result: CallToolResult };
    expect(res.status, JSON.stringify(body)).toBe(200);
    const { results } = SearchResponseSchema.parse(structured(body.result));
    expect(results).toHaveLength(2);

    const clicked = modernToolCall('record_click', { impression_id: results[0]!.impression_id });
    const refused = await post(clicked.body, { 'x-api-key': key, ...clicked.headers });
    const refusal = (await refused.json()) as { result: CallToolResult };
    expect(problem(refusal.result)).toMatchObject({ code: 'insufficient_scope', request_id: refused.headers.get('x-request-id') });
  });

  it('refuses a 2026-07-28 request whose Mcp-Name header and body disagree, before any tool runs', async () => {
    const searchesBefore = (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM search_requests'))[0]!.n;
    const call = modernToolCall('search_products', { query: 'tent' });
    const res = await post(call.body, { 'x-api-key': t.adminKey, ...call.headers, 'mcp-name': 'get_analytics' });
    const body = await res.text();
    expect(res.status, body).toBe(400);
    expect(JSON.parse(body)).toMatchObject({ error: { code: -32020 } });
    expect((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM search_requests'))[0]!.n).toBe(searchesBefore);
  });

  it('acknowledges a 2026-07-28 subscriptions/listen and ends its stream at once: the lists never change', async () => {
    const listen = modern('subscriptions/listen', { notifications: { toolsListChanged: true } });
    const res = await post(listen.body, { 'x-api-key': t.adminKey, ...listen.headers });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await res.text();
    expect(events).toContain('"id":7');
  });

  it('charges one unit per 2026-07-28 POST, shared with REST, and refuses batches of them', async () => {
    const { key } = await createKey(t.app, t.adminKey, { name: 'modern tight', scopes: ['search', 'analytics:read'], rate_limit_per_minute: 3 });
    const analytics = modernToolCall('get_analytics', {});
    expect((await post(analytics.body, { 'x-api-key': key, ...analytics.headers })).status).toBe(200);
    const batch = await post([analytics.body, { ...(analytics.body as object), id: 8 }], { 'x-api-key': key, ...analytics.headers });
    expect(batch.status).toBe(400);
    expect(await batch.json()).toMatchObject({ error: { code: -32600 } });
    expectStatus(await call(t.app, key, 'GET', '/v1/analytics'), 200);
    const limited = await post(analytics.body, { 'x-api-key': key, ...analytics.headers });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ code: 'rate_limited' });
    clock.advance(60_000);
  });
});
