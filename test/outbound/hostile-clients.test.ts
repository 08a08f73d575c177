/**
 * The outbound callers that are not the API process's own endpoints, against servers that
 * misbehave on purpose (test/helpers/hostile.ts): an OpenAI-compatible embedding endpoint (the
 * provider runs in this test's process, which must come through each case unharmed), and the
 * Aisle that the stdio MCP server forwards to with AISLE_BASE_URL (a real `aisle-mcp` child
 * driven by the SDK client).
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { SearchResponseSchema } from '../../src/core/schemas/search.js';
import { createOpenAiProvider } from '../../src/embed/openai.js';
import { CASES, type HostileCase, HostileServer } from '../helpers/hostile.js';
import { type AnyClient, callTool, newClient, problem, RecordingStdioTransport, structured, text } from '../helpers/mcp.js';
import { tempDir } from '../helpers/process.js';
import { baseline, expectUnharmed } from '../helpers/unharmed.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REPEATS = 40;
const GOOD = new Set<HostileCase>(['good', 'large-close']);
const others = CASES.filter((c) => c !== 'large-close');

/** What a remote Aisle answers to a search that found nothing: a valid search response. */
const REMOTE_SEARCH = SearchResponseSchema.parse({
  request_id: randomUUID(),
  livemode: true,
  results: [],
  metadata: {
    total_matches: 0,
    session_id: randomUUID(),
    took_ms: 1,
    pii_redacted: [],
    model: 'remote',
    ranking_model: 'fallback',
    interpreted_query: 'lantern',
    reader: 'offline',
    no_fill_reason: 'no_relevant_products',
  },
});

let server: HostileServer;

beforeAll(async () => {
  server = await HostileServer.start();
  server.payloads.set('embed', ({ body }) => {
    const input = (JSON.parse(body.toString('utf8')) as { input: string[] }).input;
    const data = input.map((_, index) => ({ object: 'embedding', index, embedding: [1, 2, 3, 4, 5, 6, 7, 8] }));
    return {
      body: Buffer.from(JSON.stringify({ object: 'list', data, model: 'hostile-test', usage: { prompt_tokens: 0, total_tokens: 0 } })),
      contentType: 'application/json',
    };
  });
  server.payloads.set('mcp', () => ({ body: Buffer.from(JSON.stringify(REMOTE_SEARCH)), contentType: 'application/json' }));
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe('an OpenAI-compatible embedding endpoint that misbehaves', () => {
  const provider = (kase: HostileCase) =>
    createOpenAiProvider({ baseUrl: server.url('embed', kase, '/v1'), model: 'hostile-test', dimensions: 8, timeoutMs: 1_500, retry: { maxAttempts: 1 } });

  it(`reads a large answer whose server closes after it, ${REPEATS} times in a row`, async () => {
    const before = baseline(process.pid, server);
    const embedder = await provider('large-close');
    for (let i = 0; i < REPEATS; i++) expect(await embedder.embedBatch([`lantern ${i}`])).toHaveLength(1);
    await embedder.close();
    expect(server.count('embed', 'large-close')).toBe(REPEATS);
    await expectUnharmed(before, server, `embed large-close ×${REPEATS}`);
  });

  it.each(others)('%s: the call fails with an error naming the endpoint, or succeeds for a good answer', async (kase) => {
    const before = baseline(process.pid, server);
    const embedder = await provider(kase);
    const outcome = await embedder.embedBatch(['lantern']).then(
      (vectors) => ({ ok: true as const, vectors }),
      (err: unknown) => ({ ok: false as const, err }),
    );
    await embedder.close();
    if (GOOD.has(kase)) {
      expect(outcome.ok, String(!outcome.ok && outcome.err)).toBe(true);
    } else {
      expect(outcome.ok).toBe(false);
      const err = (outcome as { err: unknown }).err;
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).message).toContain(server.url('embed', kase, '/v1/embeddings'));
    }
    await expectUnharmed(before, server, `embed ${kase}`);
  });
});

describe('the stdio MCP server forwarding to an Aisle that misbehaves (AISLE_BASE_URL)', () => {
  let transport: RecordingStdioTransport;
  let client: AnyClient;
  let n = 0;
  const search = () => callTool(client, 'search_products', { query: `lantern ${n++}` });

  beforeAll(async () => {
    transport = new RecordingStdioTransport({
      command: process.execPath,
      args: [`${ROOT}src/mcp/bin.js`],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        AISLE_API_KEY: 'aisle_sk_000000000000000000000000000000000000',
        AISLE_BASE_URL: server.url('mcp', 'current', '/v1'),
        AISLE_BASE_URL_TIMEOUT_MS: '1500',
      },
      cwd: tempDir('hostile-mcp-cwd'),
    });
    client = newClient('2026-07-28 (SDK 2)', 'hostile test');
    await client.connect(transport);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await transport?.close();
  });

  it(`passes on a large answer whose server closes after it, ${REPEATS} times in a row`, async () => {
    server.current.set('mcp', 'large-close');
    const before = baseline(transport.pid!, server);
    for (let i = 0; i < REPEATS; i++) {
      const result = await search();
      expect(result.isError ?? false, text(result)).toBe(false);
      expect(structured(result)).toMatchObject({ results: [], metadata: { interpreted_query: 'lantern' } });
    }
    await expectUnharmed(before, server, `mcp large-close ×${REPEATS}`);
  });

  it.each(others)('%s: the tool answers an unavailable problem, or the remote answer for a good one', async (kase) => {
    server.current.set('mcp', kase);
    const before = baseline(transport.pid!, server);
    const result = await search();
    if (GOOD.has(kase)) {
      expect(result.isError ?? false, text(result)).toBe(false);
    } else {
      expect(result.isError, text(result)).toBe(true);
      // The remote's own problem documents pass through; anything else is Aisle being unavailable.
      expect(problem(result).code, text(result)).toMatch(/^(unavailable|bad_request)$/);
    }
    await expectUnharmed(before, server, `mcp ${kase}`);
  });
});
