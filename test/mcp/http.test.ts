import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickSchema } from '../../src/core/schemas/clicks.js';
import { SearchResponseSchema, type SearchResponse } from '../../src/core/schemas/search.js';
import { buildApp } from '../../src/http/app.js';
import { call, createKey, createTestApp, expectProblem, expectStatus, ManualClock, type TestApp } from '../helpers/app.js';
import { callTool, problem, structured, text } from '../helpers/mcp.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

let sample: SampleCatalog;
let t: TestApp;
let base: string;
const clock = new ManualClock();
const clients: Client[] = [];

const MCP_ACCEPT = 'application/json, text/event-stream';
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const toolCall = (name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } });

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

async function search(client: Client, query: string): Promise<SearchResponse> {
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

describe('POST /mcp', () => {
  it('serves the tools to an SDK client authenticated with x-api-key or Authorization: Bearer', async () => {
    const headerSets: Record<string, string>[] = [{ 'x-api-key': t.adminKey }, { authorization: `Bearer ${t.adminKey}` }];
    for (const headers of headerSets) {
      const client = await connect(headers);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('search_products');
      const { results } = await search(client, 'camping tent');
      const click = ClickSchema.parse(structured(await callTool(client, 'record_click', { impression_id: results[0]!.impression_id })));
      expect(click.duplicate).toBe(false);
    }
  });

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
});
