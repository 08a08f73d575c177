import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FeedRecord, importCatalog } from '../../src/core/catalog/import.js';
import { ClickSchema, DisplayReceiptSchema } from '../../src/core/schemas/clicks.js';
import { FeedbackSchema } from '../../src/core/schemas/feedback.js';
import { type SearchResponse, SearchResponseSchema } from '../../src/core/schemas/search.js';
import { createTestApp, ManualClock, type TestApp } from '../helpers/app.js';
import { type AnyClient, CLIENT_ERAS, callTool, connectHttp, hostCallTool, problem, structured, text } from '../helpers/mcp.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

/**
 * A compact search_products result at limit 10 (structured content and text together, as JSON)
 * stays under this many characters, about 5,000 tokens at four characters a token (docs/mcp.md
 * states it).
 */
const COMPACT_SEARCH_BUDGET_CHARS = 24_000;

/** The catalog's own limits on a product's title and description (src/core/catalog/normalize.ts). */
const MAX_TITLE = 500;
const MAX_DESCRIPTION = 10_000;

/** The merchant of the products at the catalog's limits; a search filtered on it finds only them. */
const LONG_MERCHANT = 'Summit & Shoreline Outfitters';

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/**
 * What each tool does to Aisle's data, as docs/mcp.md ("Tool annotations") reasons it out; the
 * "hints match" test below checks the data against it.
 */
const UCP_META = { 'ucp-agent': { profile: 'https://agent.example/.well-known/ucp' } };

const EXPECTED_HINTS: Record<string, Record<(typeof HINTS)[number], boolean>> = {
  search_products: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  record_click: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  submit_feedback: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  get_analytics: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  record_display: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  search_catalog: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  lookup_catalog: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  get_product: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

/** `length` characters of product-listing prose (no run of spaces, no space at either end), with an inch mark to escape. */
function prose(seed: string, length: number): string {
  const words =
    `${seed} ultralight waterproof breathable trail running shoe 15.6" laptop compartment, merino wool lining; reflective details for men and women`.split(' ');
  let out = '';
  for (let i = 0; out.length < length; i++) out += `${i === 0 ? '' : ' '}${words[i % words.length]}`;
  return `${out.slice(0, length - 1)}x`;
}

/**
 * Twelve products with title and description at the catalog's limits, and every other text field
 * as long as the sample catalog's longest (merchant 29, brand 25, category 52, disclosure 130,
 * url 121, image_url 127 characters).
 */
function productsAtTheLimits(): FeedRecord[] {
  return Array.from({ length: 12 }, (_, i) => ({
    line: i + 1,
    row: {
      sku: `LIMIT-${String(i).padStart(8, '0')}`,
      title: prose(`Product ${i}`, MAX_TITLE),
      description: prose(`Description ${i}`, MAX_DESCRIPTION),
      url: `https://www.summit-shoreline-outfitters.example.com/products/footwear/trail-running/ultralight-waterproof-shoe-${String(i).padStart(6, '0')}`,
      image_url: `https://images.summit-shoreline-outfitters.example.com/catalog/footwear/trail-running/ultralight-waterproof-${String(i).padStart(6, '0')}.jpg`,
      price: 1_234_567.89 + i,
      currency: 'USD',
      merchant: LONG_MERCHANT,
      brand: 'Summit & Shoreline Trailwo',
      category: 'Sporting Goods > Outdoor Recreation > Trail Running Sh',
      availability: 'in_stock',
      disclosure_text:
        `Sponsored: Aisle earns a commission when you buy through this link. Prices and availability change; confirm on the merchant's site.`.slice(0, 130),
      last_updated_at: '2026-11-20T08:30:00.000Z',
    },
  }));
}

async function* records(rows: FeedRecord[]): AsyncIterable<FeedRecord> {
  yield* rows;
}

let sample: SampleCatalog;
let t: TestApp;
let base: string;
const clock = new ManualClock();
const clients: AnyClient[] = [];

beforeAll(async () => {
  // A copy: this file adds products at the catalog's limits, and the shared sample is read-only.
  sample = await openSampleCatalog({ copy: true });
  const added = await importCatalog(records(productsAtTheLimits()), sample, { replace: false, dryRun: false });
  expect(added, JSON.stringify(added)).toMatchObject({ imported: 12, skipped: 0 });
  t = await createTestApp({ search: sample, clock });
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await t.close();
  await sample.close();
});

/** The rows each tool may add or change, across every table a tool writes. */
type Snapshot = Record<'searches' | 'impressions' | 'displayed' | 'clicks' | 'feedback' | 'conversions' | 'webhook_events', number>;
async function dataSnapshot(): Promise<Snapshot> {
  const [row] = await t.db.query<Snapshot>(
    `SELECT (SELECT count(*)::int FROM search_requests) AS searches, (SELECT count(*)::int FROM impressions) AS impressions,
            (SELECT count(*)::int FROM impressions WHERE displayed_at IS NOT NULL) AS displayed, (SELECT count(*)::int FROM clicks) AS clicks,
            (SELECT count(*)::int FROM feedback) AS feedback, (SELECT count(*)::int FROM conversions) AS conversions,
            (SELECT count(*)::int FROM webhook_events) AS webhook_events`,
  );
  return row!;
}

describe.each(CLIENT_ERAS)('MCP tools as hosts expect them, POST /mcp over 127.0.0.1, client %s', (era) => {
  let admin: AnyClient;
  beforeAll(async () => {
    admin = await connectHttp(era, `${base}/mcp`, { headers: { 'x-api-key': t.adminKey } });
    clients.push(admin);
  });

  async function search(args: Record<string, unknown>): Promise<{ body: SearchResponse; size: number; text: string }> {
    const result = await callTool(admin, 'search_products', args);
    expect(result.isError, text(result)).toBeFalsy();
    return { body: SearchResponseSchema.parse(structured(result)), size: JSON.stringify(result).length, text: text(result) };
  }

  it('lists every tool with a title, a description, input and output schemas, and the four hints that fit what it does', async () => {
    const { tools } = await admin.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(Object.keys(EXPECTED_HINTS));
    for (const tool of tools) {
      expect(tool.title, tool.name).toMatch(/^[A-Z]/);
      expect(tool.description!.length, tool.name).toBeGreaterThan(100);
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.annotations, tool.name).toEqual(expect.objectContaining(EXPECTED_HINTS[tool.name]));
    }
  });

  it('changes the data as its hints say: only read-only tools change nothing, only idempotent ones change nothing on a repeat, none removes or rewrites', async () => {
    const args = { query: 'trail running shoes', limit: 2, min_relevance_score: 0 };
    const start = await dataSnapshot();
    let before = start;
    const first = await search(args);
    let after = await dataSnapshot();
    expect(after.impressions - before.impressions, 'search_products writes impressions: not read-only').toBe(2);
    const second = await search(args);
    expect(second.body.request_id, 'a repeat is a new search: not idempotent').not.toBe(first.body.request_id);
    expect(second.body.results.map((r) => r.impression_id)).not.toEqual(expect.arrayContaining(first.body.results.map((r) => r.impression_id)));
    const [shown, other] = first.body.results;

    before = await dataSnapshot();
    const click = ClickSchema.parse(structured(await hostCallTool(admin, 'record_click', { impression_id: shown!.impression_id })));
    after = await dataSnapshot();
    expect(after.clicks - before.clicks, 'record_click writes a click').toBe(1);
    const repeat = ClickSchema.parse(structured(await hostCallTool(admin, 'record_click', { impression_id: shown!.impression_id })));
    expect(repeat, 'a repeat answers the same click').toMatchObject({ click_id: click.click_id, clicked_at: click.clicked_at, duplicate: true });
    expect(await dataSnapshot(), 'and writes nothing').toEqual(after);

    const displayed = DisplayReceiptSchema.parse(structured(await hostCallTool(admin, 'record_display', { impression_ids: [other!.impression_id] })));
    before = after;
    after = await dataSnapshot();
    expect(after.displayed - before.displayed, 'record_display stamps the impression').toBe(1);
    clock.advance(1000);
    const again = DisplayReceiptSchema.parse(structured(await hostCallTool(admin, 'record_display', { impression_ids: [other!.impression_id] })));
    expect(again.displays[0], 'a repeat keeps the first stamp').toMatchObject({ first_receipt: false, displayed_at: displayed.displays[0]!.displayed_at });
    expect(await dataSnapshot()).toEqual(after);

    const vote = { request_id: first.body.request_id, product_id: shown!.product_id, relevant: false };
    const feedback = [
      FeedbackSchema.parse(structured(await hostCallTool(admin, 'submit_feedback', vote))),
      FeedbackSchema.parse(structured(await hostCallTool(admin, 'submit_feedback', vote))),
    ];
    before = after;
    after = await dataSnapshot();
    expect(after.feedback - before.feedback, 'each submit_feedback stores a vote: not idempotent').toBe(2);
    expect(feedback[1]!.feedback_id).not.toBe(feedback[0]!.feedback_id);

    clock.advance(1000);
    const analytics = [await hostCallTool(admin, 'get_analytics', {}), await hostCallTool(admin, 'get_analytics', { metric: 'ctr' })];
    expect(analytics.map((r) => r.isError ?? false)).toEqual([false, false]);
    expect(await dataSnapshot(), 'get_analytics writes nothing: read-only').toEqual(after);
    expect(structured(await hostCallTool(admin, 'get_analytics', {})), 'and answers the same again').toEqual(structured(analytics[0]!));

    // UCP: search_catalog is a search (impressions written); lookups and get_product read only.
    before = await dataSnapshot();
    const catalogSearch = await hostCallTool(admin, 'search_catalog', { meta: UCP_META, catalog: { query: 'trail running shoes', pagination: { limit: 2 } } });
    after = await dataSnapshot();
    expect(after.impressions - before.impressions, 'search_catalog writes impressions: not read-only').toBe(2);
    const productIds = (structured(catalogSearch) as { products: { id: string }[] }).products.map((p) => p.id);
    expect(productIds).toHaveLength(2);
    await hostCallTool(admin, 'lookup_catalog', { meta: UCP_META, catalog: { ids: productIds } });
    await hostCallTool(admin, 'get_product', { meta: UCP_META, catalog: { id: productIds[0] } });
    expect(await dataSnapshot(), 'lookup_catalog and get_product write nothing: read-only').toEqual(after);

    // None removed a row (every count only grew) or rewrote one (the first click and display stamp stand, above).
    for (const [table, n] of Object.entries(after)) expect(n, table).toBeGreaterThanOrEqual(start[table as keyof Snapshot]);
  });

  it('reads a conversation from query and conversation_context, says what it understood, and tells the agent when nobody is shopping', async () => {
    const shopping = await search({
      query: 'I realised I have nothing to grind them with',
      conversation_context: [{ role: 'user', content: 'I just bought whole coffee beans.' }],
      limit: 3,
    });
    expect(shopping.body.results.length).toBeGreaterThan(0);
    expect(shopping.body.metadata.interpreted_query).toMatch(/coffee/);
    expect(shopping.text).toContain(`Understood as: "${shopping.body.metadata.interpreted_query}"`);
    const chat = await search({ query: 'can you help me write a limerick about my cat?' });
    expect(chat.body.results).toEqual([]);
    expect(chat.body.metadata.no_fill_reason).toBe('no_shopping_need');
    expect(chat.text).toMatch(/Nothing in this conversation asks for a product/);
    const grief = await search({ query: 'what should I wear?', conversation_context: [{ role: 'user', content: 'My grandmother passed away.' }] });
    expect(grief.body.metadata.no_fill_reason).toBe('sensitive_topic');
    expect(grief.text).toMatch(/sensitive topic/);
    // The tool's description tells the agent what to send where.
    const { tools } = await admin.listTools();
    const description = tools.find((tool) => tool.name === 'search_products')!.description!;
    expect(description).toMatch(/latest message.*`query`/);
    expect(description).toMatch(/`conversation_context`/);
    expect(description).toMatch(/interpreted_query/);
  });

  it('gives every successful result of every tool a text block and structuredContent that matches the output schema', async () => {
    const { body } = await search({ query: 'camping tent', limit: 2, min_relevance_score: 0 });
    const [a, b] = body.results;
    const calls: [string, Record<string, unknown>][] = [
      ['search_products', { query: 'camping tent', limit: 2 }],
      ['search_products', { query: 'camping tent', limit: 1, detail: 'full' }],
      ['search_products', { query: 'who won the 1998 world cup' }],
      ['record_click', { impression_id: a!.impression_id }],
      ['submit_feedback', { request_id: body.request_id, product_id: a!.product_id, relevant: true }],
      ['record_display', { impression_ids: [b!.impression_id] }],
      ['get_analytics', {}],
      ['get_analytics', { metric: 'revenue' }],
      ['get_analytics', { metric: 'top_queries' }],
      ['search_catalog', { meta: UCP_META, catalog: { query: 'camping tent' } }],
      ['lookup_catalog', { meta: UCP_META, catalog: { ids: [a!.product_id, randomUUID()] } }],
      ['get_product', { meta: UCP_META, catalog: { id: a!.product_id } }],
      ['get_product', { meta: UCP_META, catalog: { id: randomUUID() } }],
    ];
    expect(new Set(calls.map(([name]) => name))).toEqual(new Set(Object.keys(EXPECTED_HINTS)));
    await admin.listTools();
    for (const [name, args] of calls) {
      // client.callTool() after tools/list checks the structured content against the tool's output schema.
      const result = await hostCallTool(admin, name, args);
      expect(result.isError ?? false, `${name}: ${text(result)}`).toBe(false);
      expect(result.content?.[0], name).toMatchObject({ type: 'text', text: expect.stringMatching(/\S/) });
      expect(result.structuredContent, name).toEqual(expect.any(Object));
    }
  });

  it('gives every error result a text line for the model and the problem object, and no structuredContent', async () => {
    const calls: [string, Record<string, unknown>, string][] = [
      ['search_products', { query: 'shoes', limit: 0 }, 'validation_failed'],
      ['record_click', { impression_id: randomUUID() }, 'not_found'],
      ['submit_feedback', { request_id: randomUUID(), product_id: randomUUID(), relevant: true }, 'not_found'],
      ['record_display', { impression_ids: [] }, 'validation_failed'],
      ['get_analytics', { metric: 'bounce_rate' }, 'validation_failed'],
      ['search_catalog', { meta: UCP_META, catalog: { query: '' } }, 'validation_failed'],
      ['lookup_catalog', { meta: UCP_META, catalog: { ids: [] } }, 'validation_failed'],
      ['get_product', { catalog: { id: 'x' } }, 'validation_failed'],
    ];
    await admin.listTools();
    for (const [name, args, code] of calls) {
      const result = await hostCallTool(admin, name, args);
      expect(problem(result), name).toMatchObject({ code });
      expect(result.content?.[0], name).toMatchObject({ type: 'text', text: expect.stringMatching(new RegExp(`^Error \\d{3} ${code}: \\S`)) });
    }
  });

  it(`keeps a compact search_products result at limit 10 under ${COMPACT_SEARCH_BUDGET_CHARS} characters on the sample catalog`, async () => {
    const sizes: number[] = [];
    for (const query of ['gift ideas for a runner', 'kitchen', 'wireless headphones with noise cancelling and long battery life', 'camping gear']) {
      const { body, size } = await search({ query, limit: 10, min_relevance_score: 0 });
      expect(body.results, query).toHaveLength(10);
      expect(size, query).toBeLessThan(COMPACT_SEARCH_BUDGET_CHARS);
      sizes.push(size);
    }
    console.log(`[measure] ${era}: compact search_products at limit 10, sample catalog: ${Math.min(...sizes)}–${Math.max(...sizes)} characters`);
  });

  it(`keeps it under ${COMPACT_SEARCH_BUDGET_CHARS} characters with titles and descriptions at the catalog's limits, every disclosure, link and id whole`, async () => {
    const args = { query: 'ultralight waterproof trail running shoe', limit: 10, min_relevance_score: 0, filters: { merchant: LONG_MERCHANT } };
    const { body, size, text: rendered } = await search(args);
    console.log(
      `[measure] ${era}: compact search_products at limit 10, titles ${MAX_TITLE} and descriptions ${MAX_DESCRIPTION} characters: ${size} characters, titles cut to ${body.results[0]?.title.length}`,
    );
    expect(size).toBeLessThan(COMPACT_SEARCH_BUDGET_CHARS);
    expect(body.results).toHaveLength(10);
    const full = await search({ ...args, detail: 'full' });
    expect(full.body.results.map((r) => [r.title.length, r.description.length])).toEqual(Array(10).fill([MAX_TITLE, MAX_DESCRIPTION]));
    for (const [i, r] of body.results.entries()) {
      // Titles are cut, not replaced: a prefix of the catalog's title, still long enough to tell what it is.
      expect(r.title).toMatch(/…$/);
      expect(r.title.length).toBeGreaterThanOrEqual(60);
      expect(full.body.results[i]!.title.startsWith(r.title.slice(0, -1))).toBe(true);
      expect(rendered).toContain(r.title);
      expect(rendered).toContain(r.disclosure_text);
      expect(rendered).toContain(r.click_url);
      expect(rendered).toContain(r.impression_id);
      expect(rendered).toContain(r.product_id);
    }
  });
});
