import { readFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import embeddings from '@energetic-ai/embeddings';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { createEmbedder, embeddingModelName, type QueuedEmbedder } from '../../src/embed/embedder.js';
import { createUseLiteProvider, USE_LITE_MODEL, type UseLiteProvider } from '../../src/embed/use-lite/provider.js';
import { useLiteAssetsDir } from '../../src/embed/use-lite/weights.js';
import { cosine, maxAbsDiff, norm, tempDir, variedSentences } from './helpers.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let embedder: QueuedEmbedder;
let provider: UseLiteProvider;
const connects: unknown[] = [];

beforeAll(async () => {
  dir = await tempDir('use-lite');
  // Any socket or fetch during start or embedding would mean the default needs the network.
  vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(function (this: net.Socket, ...args: unknown[]) {
    connects.push(args);
    throw new Error('network access in the default embedder');
  });
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input) => {
    connects.push(input);
    throw new Error('network access in the default embedder');
  });
  embedder = await createEmbedder({ provider: 'use-lite', cacheDir: dir.path });
  provider = await createUseLiteProvider({ cacheDir: dir.path });
});

afterAll(async () => {
  vi.restoreAllMocks();
  await embedder?.close();
  await provider?.close();
  await dir?.remove();
});

const embedOne = async (text: string): Promise<Float32Array> => (await embedder.embed([text]))[0] as Float32Array;

describe('createEmbedder({ provider: "use-lite" })', () => {
  it.each([
    ['running shoes', 'sneakers for jogging', 0.758],
    ['running shoes', 'espresso machine', 0.223],
    ['laptop', 'notebook computer', 0.777],
    ['laptop', 'garden hose', 0.33],
  ])('gives cosine(%j, %j) ≈ %d as in EMBEDDINGS.md', async (a, b, expected) => {
    const measured = cosine(await embedOne(a), await embedOne(b));
    expect(Math.abs(measured - expected), `measured ${measured.toFixed(4)}`).toBeLessThanOrEqual(0.005);
  });

  it('returns 512-d unit vectors named after the model, with no network access', async () => {
    expect(embedder.model).toBe(USE_LITE_MODEL);
    expect(embeddingModelName({ provider: 'use-lite' })).toBe(embedder.model);
    expect(embedder.dimensions).toBe(512);
    const vectors = await embedder.embed(variedSentences);
    expect(vectors).toHaveLength(variedSentences.length);
    for (const v of vectors) {
      expect(v).toHaveLength(512);
      expect(Math.abs(norm(v) - 1)).toBeLessThan(1e-5);
    }
    expect(connects).toEqual([]);
  });

  it('gives the same vector for a text alone and inside a padded batch', async () => {
    const batch = await embedder.embed(variedSentences);
    for (const [i, text] of variedSentences.entries()) {
      expect(maxAbsDiff(batch[i] as Float32Array, await embedOne(text)), text).toBeLessThan(1e-5);
    }
  });

  it('rejects a text that is empty after trimming, naming the problem', async () => {
    for (const texts of [[''], ['   '], ['fine', '\n\t ']]) {
      const error = await embedder.embed(texts).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('validation_failed');
      expect((error as AppError).message).toMatch(/empty after trimming/);
    }
  });

  it('returns no vectors for no texts', async () => {
    expect(await embedder.embed([])).toEqual([]);
  });
});

describe('USE-lite tokenizer', () => {
  it('clips to 128 tokens exactly as tokenising the whole text and cutting would', async () => {
    const vocabulary = JSON.parse(await readFile(join(useLiteAssetsDir(), 'vocab.json'), 'utf8')) as Array<[string, number]>;
    const whole = new embeddings.EmbeddingsModel({ vocabulary, model: null as never }).tokenizer;
    // 127 one-token words fill characters 0–635, so the 128th token, 'international', straddles
    // character 640 where the tokenizer first tries a prefix: cutting there mid-word would change it.
    const filler = [...Array<string>(113).fill('the'), ...Array<string>(10).fill('international'), ...Array<string>(4).fill('government')];
    const straddling = [...filler, 'international', ...Array<string>(40).fill('drill')].join(' ');
    expect(straddling.indexOf(' international drill')).toBe(635);
    expect(provider.tokenize(straddling)).toEqual(whole.encode(straddling).slice(0, 128));
    expect(provider.tokenize(straddling)[127]).toBe(provider.tokenize('international')[0]);

    const words = ['cordless', 'drill', 'international', 'the', 'café', 'Ünïcödé', '😀', ':)', '1/2', 'in.', '東京', '—', ''];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let n = 0; n < 10; n++) {
      const text = Array.from({ length: 100 + n * 40 }, () => words[Math.floor(random() * words.length)]).join(n % 3 ? ' ' : '  ');
      expect(provider.tokenize(text), text.slice(0, 80)).toEqual(whole.encode(text).slice(0, 128));
    }
  });

  it('keeps short texts whole: no special tokens, a leading ▁, case preserved', () => {
    expect(provider.tokenize('running shoes')).toEqual([1187, 4064]);
    expect(provider.tokenize('Running')).not.toEqual(provider.tokenize('running'));
  });

  it('embeds a text of more than 128 tokens as its first 128 tokens', async () => {
    const long = variedSentences.at(-1) as string;
    expect(provider.tokenize(long)).toHaveLength(128);
    const longer = `${long} ${'extra words that fall past the limit '.repeat(20)}`;
    expect(maxAbsDiff(await embedOne(long), await embedOne(longer))).toBeLessThan(1e-6);
  });
});
