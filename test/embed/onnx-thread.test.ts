import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Worker } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openUseLiteSession, type UseLiteModelInfo } from '../../src/embed/use-lite/model-cache.js';
import { type OnnxSession, OnnxThread } from '../../src/embed/use-lite/onnx-thread.js';
import { loadUseLiteTokenizer } from '../../src/embed/use-lite/tokenizer.js';
import { useLiteAssetsDir } from '../../src/embed/use-lite/weights.js';
import { maxAbsDiff, repoRoot, tempDir } from './helpers.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let info: UseLiteModelInfo;
let model: Uint8Array;
let inThisThread: Float32Array[];

// One text alone, and a padded batch of two of different lengths (token ids from the real tokenizer).
let BATCHES: number[][][];

async function embedWith(session: OnnxSession, rows: number[][]): Promise<Float32Array> {
  const seq = Math.max(...rows.map((r) => r.length));
  const ids = new BigInt64Array(rows.length * seq);
  const mask = new BigInt64Array(rows.length * seq);
  for (const [b, r] of rows.entries()) {
    for (const [t, id] of r.entries()) {
      ids[b * seq + t] = BigInt(id);
      mask[b * seq + t] = 1n;
    }
  }
  const dims = [rows.length, seq];
  const out = await session.run({ input_ids: new ort.Tensor('int64', ids, dims), attention_mask: new ort.Tensor('int64', mask, dims) });
  return out.sentence_embedding?.data as Float32Array;
}

beforeAll(async () => {
  const tokenizer = await loadUseLiteTokenizer(useLiteAssetsDir(), 128);
  const [shoes, hose] = ['running shoes', 'garden hose reel with wall mount'].map((t) => tokenizer.encode(t));
  BATCHES = [[shoes!], [shoes!, hose!]];
  dir = await tempDir('onnx-thread');
  const opened = await openUseLiteSession({ cacheDir: dir.path });
  info = opened.info;
  inThisThread = [];
  for (const rows of BATCHES) inThisThread.push(await embedWith(opened.session, rows));
  await opened.session.release();
  model = new Uint8Array(await readFile(info.path));
});

afterAll(async () => dir?.remove());

describe('OnnxThread: the embedding model in a thread of its own', () => {
  it('answers exactly what the same session answers on this thread, single and batched, concurrently', async () => {
    const thread = await OnnxThread.create(model);
    try {
      const answers = await Promise.all(BATCHES.map((rows) => embedWith(thread, rows)));
      answers.forEach((a, i) => {
        expect(a.length).toBe(512 * BATCHES[i]!.length);
        expect(maxAbsDiff(a, inThisThread[i]!)).toBe(0);
      });
    } finally {
      await thread.release();
    }
  });

  it('rejects bytes that are not a model, as a session on this thread would', async () => {
    await expect(OnnxThread.create(new Uint8Array([1, 2, 3, 4]))).rejects.toThrow();
  });

  it('answers a bad input as an error of that run and keeps working', async () => {
    const thread = await OnnxThread.create(model);
    try {
      await expect(thread.run({ wrong_name: new ort.Tensor('int64', new BigInt64Array([1n]), [1, 1]) })).rejects.toThrow(/input/i);
      expect(maxAbsDiff(await embedWith(thread, BATCHES[0]!), inThisThread[0]!)).toBe(0);
    } finally {
      await thread.release();
    }
  });

  it('starts a new thread when its thread has died', async () => {
    const thread = await OnnxThread.create(model);
    try {
      expect(maxAbsDiff(await embedWith(thread, BATCHES[0]!), inThisThread[0]!)).toBe(0);
      // Killed while idle, as a crash would: terminating a thread in the middle of a native
      // onnxruntime run aborts the whole process (a C++ exception in the addon), so no run is in flight.
      // The thread is private: reaching it is the only way to kill it from outside.
      const dead = (thread as unknown as { thread: Worker }).thread;
      await dead.terminate();
      expect(maxAbsDiff(await embedWith(thread, BATCHES[1]!), inThisThread[1]!)).toBe(0);
      expect((thread as unknown as { thread: Worker }).thread).not.toBe(dead);
    } finally {
      await thread.release();
    }
  });

  it('lets runs in flight finish before it releases the session', async () => {
    const thread = await OnnxThread.create(model);
    const inFlight = embedWith(thread, BATCHES[1]!);
    await thread.release();
    expect(maxAbsDiff(await inFlight, inThisThread[1]!)).toBe(0);
  });

  it('refuses runs after release', async () => {
    const thread = await OnnxThread.create(model);
    await thread.release();
    await expect(embedWith(thread, BATCHES[0]!)).rejects.toThrow(/released/);
  });

  // A tool's whole life in its own process: embed, maybe close, and exit by itself.
  async function runTool(name: string, afterEmbedding: string): Promise<string> {
    const script = `
      import { createUseLiteProvider } from ${JSON.stringify(join(repoRoot, 'src/embed/use-lite/provider.ts'))};
      const provider = await createUseLiteProvider({ cacheDir: ${JSON.stringify(dir.path)} });
      const [vector] = await provider.embedBatch(['running shoes']);
      console.log(vector.length);
      ${afterEmbedding}
    `;
    const file = join(dir.path, `${name}.mts`);
    await writeFile(file, script);
    // A top-level await that never settles because the event loop emptied ends with exit code 13: execFile rejects.
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', file], { cwd: repoRoot, timeout: 30_000 });
    return stdout.trim();
  }

  it('does not keep a process alive once its runs are answered', async () => {
    // A tool that embeds and never releases must still exit: the idle thread is unref'd.
    expect(await runTool('embed-and-forget', '')).toBe('512');
  });

  it('keeps the process alive until a release has finished', async () => {
    expect(await runTool('embed-and-close', "await provider.close(); console.log('closed');")).toBe('512\nclosed');
  });
});
