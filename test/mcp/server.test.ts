import { randomUUID } from 'node:crypto';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/core/keys/scopes.js';
import { ClickSchema } from '../../src/core/schemas/clicks.js';
import { FeedbackSchema } from '../../src/core/schemas/feedback.js';
import { type SearchResponse, SearchResponseSchema } from '../../src/core/schemas/search.js';
import { PRODUCT_CARDS_URI } from '../../src/mcp/app-view.js';
import { INTEGRATOR_RULES_URI } from '../../src/mcp/guidance.js';
import { createInProcessApi } from '../../src/mcp/in-process-api.js';
import { buildMcpServer } from '../../src/mcp/server.js';
import { COMPACT_DESCRIPTION_CHARS } from '../../src/mcp/tools/search-products.js';
import { call, createKey, createTestApp, expectStatus, ManualClock, type TestApp } from '../helpers/app.js';
import {
  type AnyClient,
  CLIENT_ERAS,
  type ClientEra,
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
const clock = new ManualClock();
const handlers: McpHttpHandler[] = [];

/**
 * A client of `era` on a server over the in-process core with `key` checked on every call (as
 * over stdio), served by the SDK's handler for both eras without sockets: the transport's fetch
 * calls the handler directly.
 */
async function connect(era: ClientEra, key: string): Promise<AnyClient> {
  const handler = createMcpHandler(() => buildMcpServer(createInProcessApi(t.core, { apiKey: key }), { logger: t.app.log, requestId: randomUUID }));
  handlers.push(handler);
  return connectHttp(era, 'http://in-process.test/mcp', { fetch: (url, init) => handler.fetch(new Request(url, init)) });
}

const keyWith = async (scopes: Scope[], extra: { rate_limit_per_minute?: number } = {}) =>
  (await createKey(t.app, t.adminKey, { name: `mcp ${scopes.join(' ')}`, scopes, ...extra })).key;

beforeAll(async () => {
  sample = await openSampleCatalog();
  t = await createTestApp({ search: sample, clock });
});
afterAll(async () => {
  for (const handler of handlers) await handler.close();
  await t.close();
  await sample.close();
});

async function search(client: AnyClient, args: Record<string, unknown>): Promise<SearchResponse> {
  const result = await callTool(client, 'search_products', args);
  expect(result.isError, text(result)).toBeFalsy();
  return SearchResponseSchema.parse(structured(result));
}

describe.each(CLIENT_ERAS)('MCP tools, client %s', (era) => {
  let admin: AnyClient;
  const connectAs = (key: string) => connect(era, key);
  beforeAll(async () => {
    admin = await connectAs(t.adminKey);
  });
  afterAll(async () => {
    await admin.close();
  });

  it('speaks the revision of its era', () => {
    expect(protocolOf(admin)).toBe(ERA_VERSION[era]);
  });

  describe('tools/list', () => {
    // Titles, hints and results as hosts read them, over POST /mcp: tools.test.ts.
    it("lists each tool's arguments as JSON Schema, the REST request's fields without stream", async () => {
      const { tools } = await admin.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
      const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
      expect(Object.keys(byName.search_products!.inputSchema.properties!)).toEqual(
        expect.arrayContaining(['query', 'limit', 'filters', 'detail', 'session_id']),
      );
      expect(byName.search_products!.inputSchema.properties).not.toHaveProperty('stream');
      expect(byName.search_products!.inputSchema.required).toEqual(['query']);
      expect(byName.record_click!.inputSchema.required).toEqual(['impression_id']);
      expect(byName.submit_feedback!.inputSchema.required).toEqual(['request_id', 'product_id', 'relevant']);
      expect(Object.keys(byName.get_analytics!.inputSchema.properties!)).toEqual(expect.arrayContaining(['metric', 'start_date', 'end_date']));
    });
  });

  describe('search_products', () => {
    it('returns the SearchResponse and a text block with each disclosure and click link', async () => {
      const result = await callTool(admin, 'search_products', { query: 'waterproof trail running shoes', limit: 3 });
      const body = SearchResponseSchema.parse(structured(result));
      expect(body.results.length).toBeGreaterThan(0);
      const rendered = text(result);
      expect(rendered).toContain('record_click');
      for (const r of body.results) {
        expect(rendered).toContain(r.click_url);
        expect(rendered).toContain(r.disclosure_text);
        expect(rendered).toContain(r.impression_id);
        expect(rendered).toContain(r.title);
        expect(r.description.length).toBeLessThanOrEqual(COMPACT_DESCRIPTION_CHARS);
      }
    });

    it('returns whole descriptions with detail: full', async () => {
      const full = await search(admin, { query: 'stainless steel chef knife', limit: 5, detail: 'full', min_relevance_score: 0 });
      expect(Math.max(...full.results.map((r) => r.description.length))).toBeGreaterThan(COMPACT_DESCRIPTION_CHARS);
    });

    it('says plainly that nothing fits when nothing does', async () => {
      const result = await callTool(admin, 'search_products', { query: 'who won the 1998 world cup' });
      expect(SearchResponseSchema.parse(structured(result)).results).toEqual([]);
      expect(text(result)).toMatch(/^No product fits/);
    });

    it.each([
      [{ query: '' }, 'query'],
      [{ query: 'shoes', limt: 3 }, 'limt'],
      [{ query: 'shoes', stream: true }, 'stream'],
      [{ query: 'shoes', limit: 11 }, 'limit'],
      [{ query: 'shoes', filters: { min_price: 50, max_price: 10 } }, 'filters.min_price'],
      [{ query: 'shoes', detail: 'verbose' }, 'detail'],
      [{}, 'query'],
    ])('answers %j with a validation_failed problem naming %s', async (args, path) => {
      const result = await callTool(admin, 'search_products', args);
      expect(result.isError).toBe(true);
      expect(problem(result)).toMatchObject({ status: 400, code: 'validation_failed', type: '/docs/errors#validation_failed' });
      expect(problem<{ errors: { path: string }[] }>(result).errors.map((e) => e.path)).toContain(path);
      const [line] = result.content;
      expect(line).toMatchObject({ type: 'text', text: expect.stringMatching(/^Error 400 validation_failed: [^\n]+$/) });
    });

    it('reaches an unmodified client.callTool() as an isError result with the problem, not a thrown -32602', async () => {
      // As a host calls it: after tools/list the client checks results against the output schemas
      // (SDK 1.x even an error result's structured content, so errors carry none).
      const scoped = await connectAs(await keyWith(['search']));
      await scoped.listTools();
      const result = await hostCallTool(scoped, 'search_products', { query: 'shoes', limit: 50 });
      expect(problem(result)).toMatchObject({ status: 400, code: 'validation_failed', errors: [{ path: 'limit' }] });
      const refused = await hostCallTool(scoped, 'get_analytics', {});
      expect(problem(refused)).toMatchObject({ status: 403, code: 'insufficient_scope' });
      await scoped.close();
    });
  });

  describe('record_click and submit_feedback', () => {
    it('records a click once and answers a repeat with the same click', async () => {
      const { results, request_id } = await search(admin, { query: 'yoga mat', limit: 2, min_relevance_score: 0 });
      const impression = results[0]!.impression_id;
      const first = await callTool(admin, 'record_click', { impression_id: `imp_${impression}` });
      const click = ClickSchema.parse(structured(first));
      expect(click).toMatchObject({ impression_id: impression, request_id, duplicate: false });
      const again = ClickSchema.parse(structured(await callTool(admin, 'record_click', { impression_id: impression })));
      expect(again).toMatchObject({ click_id: click.click_id, duplicate: true });
    });

    it('answers an unknown impression with not_found and a malformed one with validation_failed', async () => {
      const unknown = await callTool(admin, 'record_click', { impression_id: randomUUID() });
      expect(unknown.isError).toBe(true);
      expect(problem(unknown)).toMatchObject({ status: 404, code: 'not_found' });
      const malformed = await callTool(admin, 'record_click', { impression_id: 'yesterday' });
      expect(problem(malformed)).toMatchObject({ code: 'validation_failed' });
    });

    it('stores feedback on a product of the search, refuses one that was not among its results', async () => {
      const { results, request_id } = await search(admin, { query: 'espresso machine', limit: 2, min_relevance_score: 0 });
      const ok = await callTool(admin, 'submit_feedback', { request_id, product_id: results[0]!.product_id, relevant: true, reason: 'what I wanted' });
      expect(FeedbackSchema.parse(structured(ok))).toMatchObject({ request_id, product_id: results[0]!.product_id, relevant: true });
      const other = await callTool(admin, 'submit_feedback', { request_id, product_id: randomUUID(), relevant: false });
      expect(problem(other)).toMatchObject({ status: 422, code: 'product_not_in_results' });
      const unknown = await callTool(admin, 'submit_feedback', { request_id: randomUUID(), product_id: results[0]!.product_id, relevant: false });
      expect(problem(unknown)).toMatchObject({ status: 404, code: 'not_found' });
      const invalid = await callTool(admin, 'submit_feedback', { request_id, relevant: 'yes' });
      expect(problem<{ errors: { path: string }[] }>(invalid).errors.map((e) => e.path)).toEqual(expect.arrayContaining(['product_id', 'relevant']));
    });
  });

  describe('get_analytics', () => {
    const metrics = async (client: AnyClient) => {
      const result = await callTool(client, 'get_analytics', {});
      expect(result.isError, text(result)).toBeFalsy();
      return structured<{ metrics: { impressions: number; clicks: number } }>(result).metrics;
    };

    it('shows a search and a click on one of its impressions', async () => {
      // The range is [start, end) with end = now, and this clock stands still: step past earlier writes, and later past the click.
      clock.advance(1000);
      const before = await metrics(admin);
      const { results } = await search(admin, { query: 'insulated water bottle', limit: 4, min_relevance_score: 0 });
      await callTool(admin, 'record_click', { impression_id: results[1]!.impression_id });
      clock.advance(1000);
      const after = await metrics(admin);
      expect(after.impressions - before.impressions).toBe(results.length);
      expect(after.clicks - before.clicks).toBe(1);
      const top = await callTool(admin, 'get_analytics', { metric: 'top_products' });
      expect(structured<{ items: { product_id: string; clicks: number }[] }>(top).items).toContainEqual(
        expect.objectContaining({ product_id: results[1]!.product_id }),
      );
      const ctr = await callTool(admin, 'get_analytics', { metric: 'ctr', granularity: 'day' });
      expect(structured(ctr)).toMatchObject({ metric: 'ctr', granularity: 'day' });
      expect(text(ctr)).toMatch(/^ctr \d/);
    });

    it('refuses bad ranges and metrics, and keys without analytics:read', async () => {
      const bogus = await callTool(admin, 'get_analytics', { metric: 'bounce_rate' });
      expect(problem(bogus)).toMatchObject({ code: 'validation_failed' });
      const inverted = await callTool(admin, 'get_analytics', { start_date: '2026-11-02T00:00:00Z', end_date: '2026-11-01T00:00:00Z' });
      expect(problem(inverted)).toMatchObject({ status: 400, code: 'validation_failed' });
      const client = await connectAs(await keyWith(['search', 'events:write']));
      expect(problem(await callTool(client, 'get_analytics', {}))).toMatchObject({ status: 403, code: 'insufficient_scope', required_scope: 'analytics:read' });
      await client.close();
    });
  });

  describe('product-card view (MCP Apps)', () => {
    it('is linked from search_products and served as one self-contained mcp-app document with the image origins in its CSP', async () => {
      const { tools } = await admin.listTools();
      const search = tools.find((x) => x.name === 'search_products')!;
      expect(search._meta).toMatchObject({ ui: { resourceUri: PRODUCT_CARDS_URI }, 'ui/resourceUri': PRODUCT_CARDS_URI });
      const read = await admin.readResource({ uri: PRODUCT_CARDS_URI });
      const content = read.contents[0] as unknown as {
        mimeType: string;
        text: string;
        _meta: { ui: { csp: { resourceDomains: string[]; connectDomains: string[] } } };
      };
      expect(content.mimeType).toBe('text/html;profile=mcp-app');
      expect(content.text).toMatch(/^<!doctype html>/);
      expect(content.text).not.toMatch(/<script[^>]+src=|<link[^>]+href=|@import/i);
      // CSS url() loads nothing remote (case-sensitive: the bundled validator's `new URL("https://…")` is no load).
      expect(content.text).not.toMatch(/\burl\(\s*['"]?https?:/);
      expect(content.text).toContain('record_display');
      const { resourceDomains, connectDomains } = content._meta.ui.csp;
      expect(resourceDomains).toContain('https://img.northbound-general.example.com');
      for (const origin of resourceDomains) expect(origin).toMatch(/^https:\/\/[a-z0-9.-]+$/);
      expect(connectDomains).toEqual([]);
    });
  });

  describe('record_display (app-only)', () => {
    it('is listed for the view with visibility ["app"]', async () => {
      const { tools } = await admin.listTools();
      const tool = tools.find((x) => x.name === 'record_display')!;
      expect(tool._meta).toMatchObject({ ui: { visibility: ['app'] } });
      expect(tool.inputSchema.required).toEqual(['impression_ids']);
      expect(tool.inputSchema.properties).toMatchObject({ impression_ids: { type: 'array', minItems: 1, maxItems: 10 } });
    });

    it('records the first receipt per impression, once, and get_analytics counts it', async () => {
      clock.advance(1000);
      const before = structured<{ metrics: { displayed_impressions: number } }>(await callTool(admin, 'get_analytics', {})).metrics.displayed_impressions;
      const { results } = await search(admin, { query: 'hiking backpack', limit: 3, min_relevance_score: 0 });
      const ids = results.map((r) => r.impression_id);
      const first = await hostCallTool(admin, 'record_display', { impression_ids: [ids[0], `imp_${ids[1]}`] });
      expect(first.structuredContent).toMatchObject({
        displays: [
          { impression_id: ids[0], first_receipt: true },
          { impression_id: ids[1], first_receipt: true },
        ],
      });
      clock.advance(1000);
      const again = structured<{ displays: { impression_id: string; first_receipt: boolean; displayed_at: string }[] }>(
        await callTool(admin, 'record_display', { impression_ids: [ids[1], ids[2], ids[1]] }),
      );
      expect(again.displays.map((d) => [d.impression_id, d.first_receipt])).toEqual([
        [ids[1], false],
        [ids[2], true],
      ]);
      expect(again.displays[0]!.displayed_at).toBe((first.structuredContent as typeof again).displays[1]!.displayed_at);
      clock.advance(1000);
      const after = structured<{ metrics: { displayed_impressions: number; display_rate: number } }>(await callTool(admin, 'get_analytics', {})).metrics;
      expect(after.displayed_impressions - before).toBe(3);
      expect(after.display_rate).toBeGreaterThan(0);
    });

    it("refuses another account's impression, and then records none of the call", async () => {
      const { results } = await search(admin, { query: 'camping stove', limit: 2, min_relevance_score: 0 });
      const other = await t.core.accounts.create('display stranger');
      const stranger = await connectAs(other.firstKey.key);
      const theirs = await search(stranger, { query: 'camping stove', limit: 1, min_relevance_score: 0 });
      const refused = await hostCallTool(stranger, 'record_display', { impression_ids: [theirs.results[0]!.impression_id, results[0]!.impression_id] });
      expect(problem(refused)).toMatchObject({ status: 404, code: 'not_found', impression_ids: [results[0]!.impression_id] });
      const own = await callTool(stranger, 'record_display', { impression_ids: [theirs.results[0]!.impression_id] });
      expect(structured(own)).toMatchObject({ displays: [{ first_receipt: true }] });
      await stranger.close();
    });

    it.each([[{ impression_ids: [] }], [{ impression_ids: Array.from({ length: 11 }, () => randomUUID()) }], [{ impression_ids: ['yesterday'] }], [{}]])(
      'answers %j with validation_failed',
      async (args) => {
        expect(problem(await callTool(admin, 'record_display', args))).toMatchObject({ code: 'validation_failed' });
      },
    );
  });

  describe('keys over stdio-style calls (a key checked on every call)', () => {
    it('answers a tool needing a scope the key lacks with insufficient_scope naming it', async () => {
      const client = await connectAs(await keyWith(['search']));
      const { results } = await search(client, { query: 'desk lamp', limit: 1, min_relevance_score: 0 });
      const refused = await callTool(client, 'record_click', { impression_id: results[0]!.impression_id });
      expect(refused.isError).toBe(true);
      expect(problem(refused)).toMatchObject({ status: 403, code: 'insufficient_scope', required_scope: 'events:write' });
      await client.close();
    });

    it('stops working as soon as the key is disabled, and answers 401 problems for bad keys', async () => {
      const created = await createKey(t.app, t.adminKey, { name: 'to disable', scopes: ['search'] });
      const client = await connectAs(created.key);
      await search(client, { query: 'desk lamp', limit: 1 });
      expectStatus(await call(t.app, t.adminKey, 'POST', `/v1/keys/${created.id}`), 200);
      expect(problem(await callTool(client, 'search_products', { query: 'desk lamp' }))).toMatchObject({ status: 401, code: 'api_key_disabled' });
      await client.close();
      const bogus = await connectAs('aisle_sk_not-a-key');
      expect(problem(await callTool(bogus, 'search_products', { query: 'desk lamp' }))).toMatchObject({ status: 401, code: 'invalid_api_key' });
      await bogus.close();
    });

    it('spends one unit of the key’s rate limit per call, shared with REST', async () => {
      const key = await keyWith(['search'], { rate_limit_per_minute: 3 });
      const client = await connectAs(key);
      expectStatus(await call(t.app, key, 'POST', '/v1/search', { query: 'desk lamp' }), 200);
      await search(client, { query: 'desk lamp' });
      await search(client, { query: 'desk lamp' });
      const limited = await callTool(client, 'search_products', { query: 'desk lamp' });
      expect(problem(limited)).toMatchObject({ status: 429, code: 'rate_limited' });
      expect(problem<{ retry_after_seconds: number }>(limited).retry_after_seconds).toBeGreaterThan(0);
      clock.advance(60_000);
      await search(client, { query: 'desk lamp' });
      await client.close();
    });
  });

  describe('resources, prompts and protocol errors', () => {
    it('serves the integrator rules and the recommend_products prompt', async () => {
      const { resources } = await admin.listResources();
      expect(resources.map((r) => r.uri)).toEqual([PRODUCT_CARDS_URI, INTEGRATOR_RULES_URI]);
      const rules = await admin.readResource({ uri: INTEGRATOR_RULES_URI });
      const body = (rules.contents[0] as { text: string }).text;
      for (const topic of ['disclosure_text', 'record_click', 'last_updated_at', 'personal data']) expect(body).toContain(topic);

      const { prompts } = await admin.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual(['recommend_products']);
      const prompt = await admin.getPrompt({ name: 'recommend_products', arguments: { request: 'a tent for two', budget: 'under $200' } });
      const message = (prompt.messages[0]!.content as { text: string }).text;
      expect(message).toContain('a tent for two');
      expect(message).toContain('search_products');
      expect(message).toContain('disclosure_text');
    });

    it('answers an unknown tool with a JSON-RPC error', async () => {
      await expect(callTool(admin, 'delete_everything', {})).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/delete_everything/) });
    });
  });
});
