import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import type { EmbeddingProvider } from '../../src/embed/provider.js';
import { QueuedEmbedder } from '../../src/embed/queued-embedder.js';
import { createUseLiteProvider, type UseLiteProvider } from '../../src/embed/use-lite/provider.js';
import { maxAbsDiff, tempDir } from './helpers.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let useLite: UseLiteProvider;

beforeAll(async () => {
  dir = await tempDir('queued');
  useLite = await createUseLiteProvider({ cacheDir: dir.path, maxBatchSize: 8 });
});

afterAll(async () => {
  await useLite?.close();
  await dir?.remove();
});

/** Shares the real USE-lite session between wrappers; closing a wrapper leaves it open. */
const shared = (): EmbeddingProvider => ({
  model: useLite.model,
  dimensions: useLite.dimensions,
  maxBatchSize: useLite.maxBatchSize,
  embedBatch: (texts) => useLite.embedBatch(texts),
  close: async () => undefined,
});

describe('QueuedEmbedder query cache', () => {
  it('answers a repeated query from the cache without calling the model again', async () => {
    const embedder = new QueuedEmbedder(shared());
    const [first] = await embedder.embed(['cordless drill']);
    const [second] = await embedder.embed(['cordless drill']);
    expect(maxAbsDiff(first as Float32Array, second as Float32Array)).toBe(0);
    expect(embedder.stats()).toMatchObject({ providerCalls: 1, queries: 2, cacheHits: 1, cacheMisses: 1 });
  });

  it('runs identical concurrent queries as one model call', async () => {
    const embedder = new QueuedEmbedder(shared());
    await Promise.all(Array.from({ length: 5 }, () => embedder.embed(['garden hose'])));
    expect(embedder.stats()).toMatchObject({ providerCalls: 1, queries: 5, cacheHits: 4 });
  });

  it('hands out copies, so a caller changing its vector does not change the cache', async () => {
    const embedder = new QueuedEmbedder(shared());
    const [first] = (await embedder.embed(['kitchen knife set'])) as [Float32Array];
    const original = first.slice();
    first.fill(0);
    const [again] = (await embedder.embed(['kitchen knife set'])) as [Float32Array];
    expect(maxAbsDiff(again, original)).toBe(0);
  });

  it('evicts the least recently used query beyond its size, and caches nothing at size 0', async () => {
    const small = new QueuedEmbedder(shared(), { queryCacheSize: 2 });
    for (const q of ['a lamp', 'a desk', 'a lamp', 'a chair', 'a desk']) await small.embed([q]);
    // 'a desk' was evicted by 'a chair' (least recently used after 'a lamp' was read again).
    expect(small.stats()).toMatchObject({ providerCalls: 4, cacheHits: 1 });
    const none = new QueuedEmbedder(shared(), { queryCacheSize: 0 });
    await none.embed(['a lamp']);
    await none.embed(['a lamp']);
    expect(none.stats()).toMatchObject({ providerCalls: 2, cacheHits: 0 });
  });

  it('sends ingestion batches past the cache, in chunks of the provider batch size, in order', async () => {
    const embedder = new QueuedEmbedder(shared());
    const texts = Array.from({ length: 20 }, (_, i) => `product number ${i} with a title`);
    const [single] = await embedder.embed([texts[13] as string]);
    const batch = await embedder.embed(texts);
    expect(embedder.stats()).toMatchObject({ providerCalls: 1 + 3, providerTexts: 21, queries: 1 });
    expect(maxAbsDiff(batch[13] as Float32Array, single as Float32Array)).toBeLessThan(1e-5);
    await embedder.embed(texts);
    expect(embedder.stats().providerTexts).toBe(41);
  });

  it('rejects an empty text before calling the model', async () => {
    const embedder = new QueuedEmbedder(shared());
    await expect(embedder.embed(['ok', ' '])).rejects.toBeInstanceOf(AppError);
    expect(embedder.stats().providerCalls).toBe(0);
  });

  it('refuses work after close', async () => {
    const embedder = new QueuedEmbedder(shared());
    await embedder.close();
    await expect(embedder.embed(['late'])).rejects.toThrow(/closed/);
  });
});

/** A provider whose calls finish only when the test releases them, to observe scheduling. */
function gatedProvider(): { provider: EmbeddingProvider; running: () => string[][]; maxRunning: () => number; releaseAll: () => void } {
  const pending: Array<{ texts: string[]; release: () => void }> = [];
  let max = 0;
  const provider: EmbeddingProvider = {
    model: 'gated',
    dimensions: 2,
    maxBatchSize: 2,
    embedBatch: (texts) =>
      new Promise((resolve) => {
        const entry = { texts: [...texts], release: () => resolve(texts.map(() => Float32Array.of(1, 0))) };
        pending.push(entry);
        max = Math.max(max, pending.length);
      }),
    close: async () => undefined,
  };
  const releaseAll = () => {
    for (const entry of pending.splice(0)) entry.release();
  };
  return { provider, running: () => pending.map((p) => p.texts), maxRunning: () => max, releaseAll };
}

/** Releases provider calls as they start, until `work` settles. */
async function drain(gate: ReturnType<typeof gatedProvider>, work: Promise<unknown>): Promise<void> {
  let settled = false;
  work.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled) {
    gate.releaseAll();
    await new Promise((r) => setImmediate(r));
  }
  await work;
}

describe('QueuedEmbedder concurrency', () => {
  it('keeps one slot for queries while a large batch is being embedded', async () => {
    const gate = gatedProvider();
    const embedder = new QueuedEmbedder(gate.provider, { concurrency: 2 });
    const bulk = embedder.embed(Array.from({ length: 10 }, (_, i) => `item ${i}`));
    await new Promise((r) => setImmediate(r));
    expect(gate.running()).toEqual([['item 0', 'item 1']]);
    const query = embedder.embed(['urgent query']);
    await new Promise((r) => setImmediate(r));
    expect(gate.running()).toEqual([['item 0', 'item 1'], ['urgent query']]);
    await drain(gate, Promise.all([bulk, query]));
    expect(await bulk).toHaveLength(10);
    expect(gate.maxRunning()).toBe(2);
  });

  it('never runs more provider calls at once than its concurrency', async () => {
    const gate = gatedProvider();
    const embedder = new QueuedEmbedder(gate.provider, { concurrency: 3 });
    const work = [embedder.embed(Array.from({ length: 12 }, (_, i) => `x${i}`)), ...Array.from({ length: 6 }, (_, i) => embedder.embed([`q${i}`]))];
    await drain(gate, Promise.all(work));
    expect(gate.maxRunning()).toBe(3);
  });
});
