import { readdir } from 'node:fs/promises';
import { basename } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder, embeddingModelName, type QueuedEmbedder } from '../../src/embed/embedder.js';
import { USE_LITE_INT8_MODEL, USE_LITE_MODEL } from '../../src/embed/model-name.js';
import { norm, tempDir } from './helpers.js';

// USE-lite's 8-bit build (src/embed/use-lite/onnx-graph.ts, AISLE_EMBEDDING_MODEL=use-lite-int8):
// a model of its own name, built beside the float32 build in one cache without either removing
// the other, and vectors that stay close to the float32 ones.

const TEXTS = [
  'running shoes',
  'sneakers for jogging',
  'espresso machine',
  'Bivouac & Co. Sparrow 1-Person 3-Season Backpacking Tent',
  'we are going camping in the mountains, what do we sleep in?',
  '1/2 in. x 10 ft. copper pipe',
  'a gift for my daughter who loves drawing',
];

let dir: Awaited<ReturnType<typeof tempDir>>;
let float32: QueuedEmbedder;
let int8: QueuedEmbedder;
beforeAll(async () => {
  dir = await tempDir('use-lite-int8');
  float32 = await createEmbedder({ provider: 'use-lite', cacheDir: dir.path });
  int8 = await createEmbedder({ provider: 'use-lite', model: 'use-lite-int8', cacheDir: dir.path });
});
afterAll(async () => {
  await float32?.close();
  await int8?.close();
  await dir?.remove();
});

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('USE-lite int8', () => {
  it('is a model of its own name, so a catalog keeps the model it was embedded with', () => {
    expect(int8.model).toBe(USE_LITE_INT8_MODEL);
    expect(float32.model).toBe(USE_LITE_MODEL);
    expect(embeddingModelName({ provider: 'use-lite', model: 'use-lite-int8' })).toBe(USE_LITE_INT8_MODEL);
    expect(embeddingModelName({ provider: 'use-lite', model: USE_LITE_INT8_MODEL })).toBe(USE_LITE_INT8_MODEL);
    expect(() => embeddingModelName({ provider: 'use-lite', model: 'use-lite-int4' })).toThrow(/use-lite-int8/);
  });

  it('keeps both builds in one cache: building one removes neither', async () => {
    const names = (await readdir(dir.path)).filter((n) => n.endsWith('.onnx'));
    expect(names.map((n) => basename(n).replace(/-[0-9a-f]{16}\.onnx$/, '')).sort()).toEqual(['use-lite', 'use-lite-int8']);
  });

  it('gives unit vectors within 0.01 cosine of the float32 build, and keeps their order of likeness', async () => {
    const [a, b] = await Promise.all([float32.embed(TEXTS), int8.embed(TEXTS)]);
    for (const [i, v] of b.entries()) {
      expect(norm(v)).toBeCloseTo(1, 5);
      expect(dot(v, a[i]!), TEXTS[i]).toBeGreaterThan(0.99);
    }
    // Sneakers are nearer running shoes than an espresso machine is, in both.
    expect(dot(b[0]!, b[1]!)).toBeGreaterThan(dot(b[0]!, b[2]!));
    expect(Math.abs(dot(b[0]!, b[1]!) - dot(a[0]!, a[1]!))).toBeLessThan(0.02);
  });
});
