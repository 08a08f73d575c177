import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { createEmbedder, type QueuedEmbedder } from '../../src/embed/embedder.js';
import { norm } from './helpers.js';

interface EmbeddingRequest {
  model: string;
  input: string[];
  encoding_format?: string;
  dimensions?: number;
}

interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** What the fake server saw: every request body and its Authorization header. */
interface FakeEndpoint {
  baseUrl: string;
  requests: Array<{ body: EmbeddingRequest; authorization: string | undefined }>;
  close(): Promise<void>;
}

/** A deterministic, not unit-length vector whose first component encodes the text, to check order. */
const vectorFor = (text: string, dims: number): number[] => Array.from({ length: dims }, (_, i) => (i === 0 ? text.length + 1 : (i % 7) - 3));

const ok = (body: EmbeddingRequest, dims: number): Reply => ({
  status: 200,
  body: {
    object: 'list',
    model: body.model,
    // Out of order on purpose: clients must sort by index.
    data: body.input.map((text, index) => ({ object: 'embedding', index, embedding: vectorFor(text, dims) })).reverse(),
    usage: { prompt_tokens: body.input.length, total_tokens: body.input.length },
  },
});

/** An OpenAI-compatible /v1/embeddings server on 127.0.0.1; `reply` decides each answer from the request number (1-based). */
async function startEndpoint(reply: (body: EmbeddingRequest, n: number) => Reply): Promise<FakeEndpoint> {
  const requests: FakeEndpoint['requests'] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as EmbeddingRequest;
      requests.push({ body, authorization: req.headers.authorization });
      const answer = reply(body, requests.length);
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const fastRetry = { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20 };
let endpoint: FakeEndpoint | undefined;
let embedder: QueuedEmbedder | undefined;

afterEach(async () => {
  await embedder?.close();
  await endpoint?.close();
  embedder = undefined;
  endpoint = undefined;
});

type Extra = { dimensions?: number; model?: string };

async function open(reply: (body: EmbeddingRequest, n: number) => Reply, extra: Extra = { dimensions: 8 }): Promise<QueuedEmbedder> {
  endpoint = await startEndpoint(reply);
  const options = { model: 'embed-test', baseUrl: endpoint.baseUrl, apiKey: 'sk-test', cacheDir: '/nonexistent', retry: fastRetry };
  embedder = await createEmbedder({ provider: 'openai', ...options, ...extra });
  return embedder;
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('createEmbedder({ provider: "openai" }) against an OpenAI-compatible server', () => {
  it('sends 600 inputs as 3 requests of at most 256, and returns unit vectors in input order', async () => {
    const e = await open((body) => ok(body, 8));
    const texts = Array.from({ length: 600 }, (_, i) => 'x'.repeat((i % 50) + 1));
    const vectors = await e.embed(texts);
    // Chunks go out on parallel lanes, so their arrival order is not fixed.
    expect(endpoint?.requests.map((r) => r.body.input.length).sort((a, b) => b - a)).toEqual([256, 256, 88]);
    expect(endpoint?.requests[0]).toMatchObject({ authorization: 'Bearer sk-test', body: { model: 'embed-test', encoding_format: 'float' } });
    expect(endpoint?.requests[0]?.body).not.toHaveProperty('dimensions');
    expect(vectors).toHaveLength(600);
    for (const [i, v] of vectors.entries()) {
      expect(Math.abs(norm(v) - 1)).toBeLessThan(1e-6);
      const raw = vectorFor(texts[i] as string, 8);
      const rawNorm = Math.hypot(...raw);
      expect(v[0]).toBeCloseTo((raw[0] as number) / rawNorm, 6);
    }
  });

  it('retries a 429 and then succeeds', async () => {
    const e = await open((body, n) => (n <= 2 ? { status: 429, body: { error: { message: 'slow down' } } } : ok(body, 8)));
    const [v] = await e.embed(['rate limited query']);
    expect(v).toHaveLength(8);
    expect(endpoint?.requests).toHaveLength(3);
  });

  it('gives up after the configured attempts on 5xx with an error naming the URL and status', async () => {
    const e = await open(() => ({ status: 503, body: { error: { message: 'overloaded' } } }));
    const error = await failure(e.embed(['a', 'b']));
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain(`${endpoint?.baseUrl}/embeddings`);
    expect(error.message).toMatch(/HTTP 503 \(4 attempts\)/);
    expect(endpoint?.requests).toHaveLength(4);
  });

  it('does not retry a 400 and says the endpoint rejected the request', async () => {
    const e = await open(() => ({ status: 400, body: { error: { message: 'unknown model embed-test' } } }));
    const error = await failure(e.embed(['query']));
    expect(error.code).toBe('internal_error');
    expect(error.message).toMatch(/rejected the request for model embed-test: .*unknown model/);
    expect(endpoint?.requests).toHaveLength(1);
  });

  it('fails clearly when the vectors have another dimension than configured', async () => {
    const e = await open((body) => ok(body, 6), { dimensions: 8 });
    const error = await failure(e.embed(['query']));
    expect(error.code).toBe('internal_error');
    expect(error.message).toContain(`${endpoint?.baseUrl}/embeddings returned 6-dimensional vectors for model embed-test, but 8 dimensions are configured`);
  });

  it('probes the dimension at start when none is configured', async () => {
    const e = await open((body) => ok(body, 12), {});
    expect(e.dimensions).toBe(12);
    expect(endpoint?.requests).toHaveLength(1);
  });

  it('sends dimensions for text-embedding-3 models, which shorten their vectors to it', async () => {
    const e = await open((body) => ok(body, body.dimensions ?? 99), { dimensions: 16, model: 'text-embedding-3-small' });
    expect((await e.embed(['query']))[0]).toHaveLength(16);
    expect(endpoint?.requests[0]?.body.dimensions).toBe(16);
  });

  describe('when nothing listens', () => {
    async function closedUrl(): Promise<string> {
      const probe = await startEndpoint(() => ({ status: 500, body: {} }));
      await probe.close();
      return probe.baseUrl;
    }

    it('fails each call with an error naming the URL, after retrying', async () => {
      const baseUrl = await closedUrl();
      embedder = await createEmbedder({ provider: 'openai', model: 'm', baseUrl, dimensions: 8, cacheDir: '/nonexistent', retry: fastRetry });
      const error = await failure(embedder.embed(['query']));
      expect(error.code).toBe('unavailable');
      expect(error.message).toBe(`Cannot reach the embedding endpoint ${baseUrl}/embeddings (ECONNREFUSED; 4 attempts). Is the server running?`);
    });

    it('fails at start when the dimension has to be probed', async () => {
      const baseUrl = await closedUrl();
      const retry = { ...fastRetry, maxAttempts: 1 };
      const error = await failure(createEmbedder({ provider: 'openai', model: 'm', baseUrl, cacheDir: '/nonexistent', retry }));
      expect(error.message).toContain(`Cannot reach the embedding endpoint ${baseUrl}/embeddings (ECONNREFUSED; 1 attempt)`);
    });
  });
});
