import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiChatReader } from '../../src/reader/openai-chat.js';
import { call, createTestApp, expectStatus, type TestApp } from '../helpers/app.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

// The model reader (docs/search.md, "Readers") against a scripted OpenAI-compatible chat server
// on 127.0.0.1, through the real REST API on the sample catalog: what the endpoint is sent, what
// its answers become, and every way it can fail, each answered by the offline reader.

const KEY = 'sk-reader-secret-4f9a7c';

interface ChatRequest {
  model: string;
  temperature?: number;
  max_tokens?: number;
  response_format?: { type: string; json_schema?: { name: string; strict?: boolean; schema: { properties: Record<string, unknown>; required: string[] } } };
  messages: { role: string; content: string }[];
}

/** What the scripted server does with one request: an answer's content, a raw reply, or silence. */
/** `n` is the request's number since the last reset, from 1. */
type Script = (body: ChatRequest, n: number) => { content: string } | { status: number; body: string } | 'stall';

class ChatServer {
  readonly requests: { body: ChatRequest; authorization: string | undefined; path: string | undefined }[] = [];
  script: Script = () => ({ content: '{}' });
  /** Milliseconds before each answer. */
  delayMs = 0;
  inFlight = 0;
  maxInFlight = 0;
  private readonly open = new Set<ServerResponse>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<ChatServer> {
    let self: ChatServer | undefined;
    const server = createServer((req, res) => void self!.handle(req, res));
    self = new ChatServer(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return self;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  reset(script: Script): void {
    this.requests.length = 0;
    this.script = script;
    this.delayMs = 0;
    this.maxInFlight = 0;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
    this.requests.push({ body, authorization: req.headers.authorization, path: req.url });
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.delayMs > 0) await sleep(this.delayMs);
      const step = this.script(body, this.requests.length);
      if (step === 'stall') {
        this.open.add(res);
        res.on('close', () => this.open.delete(res));
        return;
      }
      if ('status' in step) {
        res.writeHead(step.status, { 'content-type': 'application/json' }).end(step.body);
        return;
      }
      const completion = {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1_764_000_000,
        model: body.model,
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: step.content } }],
        usage: { prompt_tokens: 100, completion_tokens: 30, total_tokens: 130 },
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion));
    } finally {
      this.inFlight--;
    }
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const answer = (
  a: Partial<{ shopping_need: boolean; sensitive: boolean; product_query: string; min_price: number | null; max_price: number | null; brand: string | null }>,
) => ({
  content: JSON.stringify({ shopping_need: true, sensitive: false, product_query: '', min_price: null, max_price: null, brand: null, ...a }),
});

let server: ChatServer;
let sample: SampleCatalog;
let model: OpenAiChatReader;
let t: TestApp;
const TIMEOUT_MS = 600;

beforeAll(async () => {
  server = await ChatServer.start();
  sample = await openSampleCatalog();
  model = new OpenAiChatReader({ model: 'qwen2.5:3b-instruct', baseUrl: server.baseUrl, apiKey: KEY, timeoutMs: 10_000 });
  t = await createTestApp({ search: { ...sample, readerModel: { model, timeoutMs: TIMEOUT_MS, concurrency: 2, cacheEntries: 100 } } });
});
afterAll(async () => {
  await t?.close();
  await model?.close();
  await sample?.close();
  await server?.close();
});
afterEach(() => {
  // The key is sent to the endpoint and nowhere else: no log line of any test carries it.
  expect(t.logs.text).not.toContain(KEY);
});

interface Body {
  results: { title: string; price_amount: number | null; brand: string; relevance_explanation: string }[];
  metadata: { interpreted_query: string; no_fill_reason: string | null; reader: string; took_ms: number };
}

let conversationNumber = 0;
/** A conversation no earlier test sent (the answer cache would otherwise answer it). */
const fresh = (message: string, ...before: string[]) => ({
  query: message,
  conversation_context: [...before.map((content) => ({ role: 'user', content })), { role: 'assistant', content: `Happy to help (${++conversationNumber}).` }],
  limit: 5,
});

async function search(body: Record<string, unknown>): Promise<Body> {
  const res = await call(t.app, t.adminKey, 'POST', '/v1/search', body);
  expectStatus(res, 200);
  return res.json() as Body;
}

describe('the model reader over an OpenAI-compatible chat endpoint', () => {
  it('asks for a strict JSON-schema answer at temperature 0 with the conversation, and searches the product query it gets', async () => {
    server.reset(() => answer({ product_query: 'camping tent', max_price: 300 }));
    const body = await search(fresh('how do we sleep out there without getting soaked?', 'We are going camping in the mountains next month.'));
    expect(server.requests).toHaveLength(1);
    const sent = server.requests[0]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.body.model).toBe('qwen2.5:3b-instruct');
    expect(sent.body.temperature).toBe(0);
    expect(sent.body.response_format?.type).toBe('json_schema');
    expect(sent.body.response_format?.json_schema?.strict).toBe(true);
    const schema = sent.body.response_format!.json_schema!.schema;
    expect(Object.keys(schema.properties).sort()).toEqual(['brand', 'max_price', 'min_price', 'product_query', 'sensitive', 'shopping_need']);
    expect([...schema.required].sort()).toEqual(['brand', 'max_price', 'min_price', 'product_query', 'sensitive', 'shopping_need']);
    expect(sent.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    const transcript = sent.body.messages[1]!.content;
    expect(transcript).toContain('We are going camping in the mountains next month.');
    expect(transcript).toContain('Person (latest message): how do we sleep out there without getting soaked?');

    expect(body.metadata.reader).toBe('model');
    expect(body.metadata.interpreted_query).toBe('camping tent');
    expect(body.metadata.no_fill_reason).toBeNull();
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results[0]!.title).toMatch(/Tent/);
    // The model's price is a hard constraint.
    for (const r of body.results) expect(r.price_amount).toBeLessThanOrEqual(300);
  });

  it('lets the request and the message itself win over the constraints the model read', async () => {
    server.reset(() => answer({ product_query: 'camping tent', max_price: 150 }));
    const body = await search({ ...fresh('a tent for the trip under $500 would do', 'We are going camping next month.'), filters: { brand: 'Hollowpine' } });
    expect(body.metadata.reader).toBe('model');
    expect(body.results.length).toBeGreaterThan(0);
    for (const r of body.results) {
      expect(r.brand).toBe('Hollowpine');
      expect(r.price_amount).toBeLessThanOrEqual(500);
    }
    expect(body.results.some((r) => r.price_amount! > 150)).toBe(true);
  });

  it('sends the conversation only after redaction', async () => {
    server.reset(() => answer({ product_query: 'camping tent' }));
    const body = await search(
      fresh('mail the tent ideas to jo.bloggs@example.com or call +1 415 555 0142', 'My card is 4111 1111 1111 1111, we go camping soon.'),
    );
    expect(body.metadata.reader).toBe('model');
    const transcript = JSON.stringify(server.requests[0]!.body);
    expect(transcript).not.toContain('jo.bloggs@example.com');
    expect(transcript).not.toContain('555 0142');
    expect(transcript).not.toContain('4111');
    expect(transcript).toContain('[EMAIL]');
    expect(transcript).toContain('[CARD]');
  });

  it('answers with the model’s silence: no shopping need, or a sensitive topic', async () => {
    server.reset(() => answer({ shopping_need: false }));
    const chat = await search(fresh('that sounds like a lovely evening, thanks for listening', 'We had friends over for dinner.'));
    expect(chat.metadata).toMatchObject({ reader: 'model', no_fill_reason: 'no_shopping_need', interpreted_query: '' });
    expect(chat.results).toEqual([]);

    server.reset(() => answer({ sensitive: true, product_query: 'tent' }));
    const sensitive = await search(fresh('he has not come home for two days and I am scared', 'My brother went camping.'));
    expect(sensitive.metadata).toMatchObject({ reader: 'model', no_fill_reason: 'sensitive_topic', interpreted_query: '' });
    expect(sensitive.results).toEqual([]);
  });

  it('never sends a product query or a conversation the offline patterns find sensitive', async () => {
    server.reset(() => answer({ product_query: 'camping tent' }));
    const query = await search({ query: 'ultralight tent', limit: 3 });
    expect(query.metadata.reader).toBe('offline');
    expect(query.results.length).toBeGreaterThan(0);
    const grief = await search(fresh('my mother died last night and I do not know what to do', 'We were going to go camping together.'));
    expect(grief.metadata).toMatchObject({ reader: 'offline', no_fill_reason: 'sensitive_topic' });
    expect(server.requests).toHaveLength(0);
  });

  it('caches an answer per conversation: the same conversation again is not sent again', async () => {
    server.reset(() => answer({ product_query: 'camping tent' }));
    const conversation = fresh('what would keep us dry at night?', 'We are going camping in the rain.');
    const first = await search(conversation);
    const second = await search(conversation);
    expect(server.requests).toHaveLength(1);
    expect(first.metadata.reader).toBe('model');
    expect(second.metadata.reader).toBe('model');
    expect(second.results.map((r) => r.title)).toEqual(first.results.map((r) => r.title));
  });

  it('falls back to the offline reader on a timeout, within the time budget', async () => {
    server.reset(() => 'stall');
    const started = performance.now();
    const body = await search(fresh('actually I need a tent for that trip', 'We are going camping in the mountains next month.'));
    const elapsed = performance.now() - started;
    expect(body.metadata.reader).toBe('offline_fallback');
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results[0]!.title).toMatch(/Tent/);
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(t.logs.text).toMatch(/"reason":"timeout"/);
  });

  it('falls back on 429, on a server error and on answers that are not the schema', async () => {
    const failures: [string, Script, RegExp][] = [
      ['429', () => ({ status: 429, body: '{"error":{"message":"Rate limit reached","type":"rate_limit_error"}}' }), /"reason":"error"/],
      ['500', () => ({ status: 500, body: 'oops' }), /"reason":"error"/],
      ['not JSON', () => ({ content: 'Sure! You want a tent.' }), /"reason":"error"/],
      ['another shape', () => ({ content: '{"query":"tent"}' }), /"reason":"malformed"/],
      ['a need with no query', () => answer({ product_query: '  ' }), /"reason":"malformed"/],
      [
        'a wrong type',
        () => ({ content: '{"shopping_need":"yes","sensitive":false,"product_query":"tent","min_price":null,"max_price":null,"brand":null}' }),
        /"reason":"malformed"/,
      ],
    ];
    for (const [name, script, logged] of failures) {
      server.reset(script);
      const before = t.logs.lines.length;
      const body = await search(fresh('actually I need a tent for that trip', 'We are going camping in the mountains next month.'));
      expect(body.metadata.reader, name).toBe('offline_fallback');
      expect(body.results.length, name).toBeGreaterThan(0);
      expect(server.requests, name).toHaveLength(1);
      expect(t.logs.lines.slice(before).join(''), name).toMatch(logged);
    }
  });

  it('bounds the calls in flight: a search waits for a slot within its budget, then reads offline', async () => {
    // The first two calls are answered after 200 ms; any later one never is.
    server.reset((_body, n) => (n <= 2 ? answer({ product_query: 'camping tent' }) : 'stall'));
    server.delayMs = 200;
    const bodies = await Promise.all(
      [1, 2, 3, 4].map((i) => search(fresh(`what would keep us dry at night, take ${i}?`, 'We are going camping in the rain.'))),
    );
    expect(server.maxInFlight).toBe(2);
    // Two are answered; the other two waited about 200 ms for a slot, then ran out of their 600 ms.
    expect(bodies.map((b) => b.metadata.reader).sort()).toEqual(['model', 'model', 'offline_fallback', 'offline_fallback']);
  });
});
