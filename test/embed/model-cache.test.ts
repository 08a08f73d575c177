import { createHash } from 'node:crypto';
import { readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openUseLiteSession, USE_LITE_BUILDER_VERSION, type UseLiteModelInfo } from '../../src/embed/use-lite/model-cache.js';
import type { OnnxSession } from '../../src/embed/use-lite/onnx-thread.js';
import { maxAbsDiff, tempDir } from './helpers.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let first: UseLiteModelInfo;
let expected: Float32Array;

// "running shoes" in USE-lite token ids.
const RUNNING_SHOES = [1187, 4064];

async function embedWith(session: OnnxSession): Promise<Float32Array> {
  const dims = [1, RUNNING_SHOES.length];
  const out = await session.run({
    input_ids: new ort.Tensor('int64', BigInt64Array.from(RUNNING_SHOES.map(BigInt)), dims),
    attention_mask: new ort.Tensor('int64', new BigInt64Array(RUNNING_SHOES.length).fill(1n), dims),
  });
  return out.sentence_embedding?.data as Float32Array;
}

/** Opens the cache, checks the session embeds like the first build, and returns what happened. */
async function reopen(): Promise<UseLiteModelInfo> {
  const { session, info } = await openUseLiteSession({ cacheDir: dir.path });
  try {
    expect(maxAbsDiff(await embedWith(session), expected)).toBe(0);
  } finally {
    await session.release();
  }
  return info;
}

async function rewriteManifest(change: (manifest: Record<string, unknown>) => void): Promise<void> {
  const manifest = JSON.parse(await readFile(first.manifestPath, 'utf8')) as Record<string, unknown>;
  change(manifest);
  await writeFile(first.manifestPath, JSON.stringify(manifest));
}

beforeAll(async () => {
  dir = await tempDir('model-cache');
  const { session, info } = await openUseLiteSession({ cacheDir: dir.path });
  first = info;
  expected = await embedWith(session);
  await session.release();
});

afterAll(async () => dir?.remove());

describe('USE-lite model cache (openUseLiteSession)', () => {
  it('builds on first start and records the build in a manifest next to the model', async () => {
    expect(first).toMatchObject({ status: 'built', reason: 'missing' });
    expect(first.path).toMatch(/use-lite-[0-9a-f]{16}\.onnx$/);
    expect(first.manifest).toMatchObject({ builderVersion: USE_LITE_BUILDER_VERSION, opset: 17, onnxBytes: (await stat(first.path)).size });
    expect(first.manifest.sourceSha256).toMatch(/^[0-9a-f]{64}$/);
    console.info(`USE-lite ONNX build: ${first.buildMs.toFixed(0)} ms, ${first.manifest.onnxBytes} bytes`);
  });

  it('loads the cached file on the next start without rebuilding it', async () => {
    const before = await stat(first.path);
    const info = await reopen();
    expect(info).toMatchObject({ status: 'cached', reason: null, buildMs: 0 });
    const after = await stat(first.path);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
  });

  it('rebuilds a truncated model file', async () => {
    await truncate(first.path, 1_000_000);
    expect(await reopen()).toMatchObject({ status: 'built', reason: 'corrupt' });
    expect((await stat(first.path)).size).toBe(first.manifest.onnxBytes);
    expect(await reopen()).toMatchObject({ status: 'cached' });
  });

  it('rebuilds a model file with altered bytes, even though it would still load', async () => {
    const bytes = await readFile(first.path);
    bytes.fill(0x41, bytes.length - 4096, bytes.length - 2048);
    await writeFile(first.path, bytes);
    expect(await reopen()).toMatchObject({ status: 'built', reason: 'corrupt' });
  });

  it('rebuilds a file that matches its manifest but onnxruntime cannot load', async () => {
    const garbage = Buffer.from('this is not an ONNX model');
    await writeFile(first.path, garbage);
    await rewriteManifest((m) => {
      m.onnxBytes = garbage.length;
      m.onnxSha256 = createHash('sha256').update(garbage).digest('hex');
    });
    expect(await reopen()).toMatchObject({ status: 'built', reason: 'corrupt' });
  });

  it.each([
    [
      'an older builder version',
      (m: Record<string, unknown>) => {
        m.builderVersion = USE_LITE_BUILDER_VERSION - 1;
      },
    ],
    [
      'other source weights',
      (m: Record<string, unknown>) => {
        m.sourceSha256 = '0'.repeat(64);
      },
    ],
  ])('rebuilds when the manifest records %s', async (_, change) => {
    await rewriteManifest(change);
    expect(await reopen()).toMatchObject({ status: 'built', reason: 'stale' });
  });

  it('rebuilds when the manifest is not valid JSON', async () => {
    await writeFile(first.manifestPath, '{"builderVersion": 1, "sourceSha');
    expect(await reopen()).toMatchObject({ status: 'built', reason: 'corrupt' });
  });

  it('rebuilds a deleted model file and removes builds of other versions and leftovers', async () => {
    const old = join(dir.path, 'use-lite-0123456789abcdef.onnx');
    await writeFile(old, 'an older build');
    await writeFile(join(dir.path, 'use-lite-0123456789abcdef.json'), '{}');
    await writeFile(join(dir.path, 'unrelated.txt'), 'keep me');
    await rm(first.path);
    expect(await reopen()).toMatchObject({ status: 'built', reason: 'corrupt' });
    const names = (await readdir(dir.path)).sort();
    expect(names.filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(names).toEqual(['unrelated.txt', basename(first.manifestPath), basename(first.path)].sort());
  });

  it('fails with the directory in the message when the cache cannot be written', async () => {
    const file = join(dir.path, 'unrelated.txt');
    await expect(openUseLiteSession({ cacheDir: join(file, 'models') })).rejects.toThrow(`Cannot write the USE-lite model cache in ${join(file, 'models')}`);
  });
});
