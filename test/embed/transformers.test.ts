import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/core/shared-ports.js';
import { createEmbedder, type QueuedEmbedder } from '../../src/embed/embedder.js';
import { embeddingModelName, resolveTransformersModel } from '../../src/embed/model-name.js';
import { openSharedEmbedder } from '../helpers/search.js';
import { cosine, referenceDir, referenceNeed, tempDir } from './helpers.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let viaTransformers: QueuedEmbedder;
let viaUseLite: Embedder;

beforeAll(async () => {
  if (!referenceNeed.present) return;
  dir = await tempDir('transformers');
  viaTransformers = await createEmbedder({ provider: 'transformers', model: referenceDir, cacheDir: dir.path, dimensions: 512 });
  viaUseLite = await openSharedEmbedder();
});

afterAll(async () => {
  await viaTransformers?.close();
  await viaUseLite?.close();
  await dir?.remove();
});

describe(`createEmbedder({ provider: "transformers" }) on the reference folder${referenceNeed.note}`, () => {
  // Where the reference is absent each test skips, or fails under AISLE_REQUIRE_SHARED=1.
  beforeEach(referenceNeed.check);

  it.skipIf(referenceNeed.skip)('loads the local folder as a 512-d model named after the folder', () => {
    expect(viaTransformers.model).toBe('universal-sentence-encoder-lite');
    expect(viaTransformers.dimensions).toBe(512);
    // The name learning tools key ranking models by, known without loading the model.
    expect(embeddingModelName({ provider: 'transformers', model: referenceDir })).toBe(viaTransformers.model);
  });

  it.skipIf(referenceNeed.skip)('matches the use-lite provider within 1e-4 cosine', async () => {
    const texts = ['running shoes', 'sneakers for jogging', 'Stainless steel espresso machine, 15 bar', 'café au lait 😀', 'Copper 1/2 in. x 3/4 in.'];
    const a = await viaTransformers.embed(texts);
    const b = await viaUseLite.embed(texts);
    for (const [i, text] of texts.entries()) {
      const c = cosine(a[i] as Float32Array, b[i] as Float32Array);
      expect(1 - c, `${text}: cosine ${c}`).toBeLessThan(1e-4);
    }
  });

  it.skipIf(referenceNeed.skip)('fails at start when the configured dimension differs from the model', async () => {
    await expect(createEmbedder({ provider: 'transformers', model: referenceDir, cacheDir: dir.path, dimensions: 384 })).rejects.toThrow(
      /produces 512-dimensional vectors, but 384 are configured/,
    );
  });
});

describe('resolveTransformersModel', () => {
  it('treats an existing folder as local: its parent is the model path, its name the id', async () => {
    const folder = await tempDir('model-folder');
    try {
      const resolved = resolveTransformersModel(folder.path);
      expect(resolved.id).toBe(folder.path.split('/').pop());
      expect(`${resolved.localModelPath}/${resolved.id}`).toBe(folder.path);
    } finally {
      await folder.remove();
    }
  });

  it('treats anything else as a hub id', () => {
    expect(resolveTransformersModel('Xenova/bge-small-en-v1.5')).toEqual({ id: 'Xenova/bge-small-en-v1.5', localModelPath: null });
  });

  it('refuses a path that does not exist instead of asking the hub for it', () => {
    expect(() => resolveTransformersModel('./models/missing-model')).toThrow(/model folder .*missing-model does not exist/);
    expect(() => resolveTransformersModel('/no/such/folder')).toThrow(/does not exist/);
  });
});

describe('embeddingModelName', () => {
  it('names what each provider would report, and refuses what it would refuse, without loading a model', () => {
    expect(embeddingModelName({ provider: 'openai', model: 'text-embedding-3-small' })).toBe('text-embedding-3-small');
    expect(embeddingModelName({ provider: 'transformers', model: 'Xenova/bge-small-en-v1.5' })).toBe('Xenova/bge-small-en-v1.5');
    expect(embeddingModelName({ provider: 'use-lite', model: 'use-lite' })).toBe('google/universal-sentence-encoder-lite');
    expect(() => embeddingModelName({ provider: 'use-lite', model: 'Xenova/bge-small-en-v1.5' })).toThrow(/runs only google\/universal-sentence-encoder-lite/);
    expect(() => embeddingModelName({ provider: 'use-lite', dimensions: 384 })).toThrow(/512-dimensional vectors, but 384 are configured/);
    expect(() => embeddingModelName({ provider: 'openai' })).toThrow(/needs a model name/);
    expect(() => embeddingModelName({ provider: 'transformers', model: './no/such/model' })).toThrow(/does not exist/);
  });
});
