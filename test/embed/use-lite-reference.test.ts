import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { createUseLiteProvider, type UseLiteProvider } from '../../src/embed/use-lite/provider.js';
import { maxAbsDiff, referenceNeed, referenceOnnx, variedSentences } from './helpers.js';

let ours: UseLiteProvider;
let reference: ort.InferenceSession;

// Where the reference is absent each test skips, or fails under AISLE_REQUIRE_SHARED=1.
beforeEach(referenceNeed.check);

beforeAll(async () => {
  if (!referenceNeed.present) return;
  // The model the suite built (helpers/suite-fixtures.ts), by the code under test.
  ours = await createUseLiteProvider({ cacheDir: inject('modelCacheDir') });
  reference = await ort.InferenceSession.create(referenceOnnx);
});

afterAll(async () => {
  await ours?.close();
  await reference?.release();
});

/** Runs the reference file directly on our tokenizer's ids, padded into one batch. */
async function referenceEmbeddings(texts: readonly string[]): Promise<Float32Array[]> {
  const ids = texts.map((t) => ours.tokenize(t));
  const seq = Math.max(...ids.map((row) => row.length));
  const inputIds = new BigInt64Array(texts.length * seq);
  const mask = new BigInt64Array(texts.length * seq);
  for (const [b, row] of ids.entries()) {
    for (const [t, id] of row.entries()) {
      inputIds[b * seq + t] = BigInt(id);
      mask[b * seq + t] = 1n;
    }
  }
  const dims = [texts.length, seq];
  const out = await reference.run({ input_ids: new ort.Tensor('int64', inputIds, dims), attention_mask: new ort.Tensor('int64', mask, dims) }, [
    'sentence_embedding',
  ]);
  const data = out.sentence_embedding?.data as Float32Array;
  return texts.map((_, i) => data.slice(i * 512, (i + 1) * 512));
}

describe(`use-lite ONNX build vs the reference ONNX in ../shared/models${referenceNeed.note}`, () => {
  it.skipIf(referenceNeed.skip)(`matches the reference within 1e-5 on ${variedSentences.length} varied sentences, alone and batched`, async () => {
    const expected = await referenceEmbeddings(variedSentences);
    const batched = await ours.embedBatch(variedSentences);
    let worst = 0;
    for (const [i, text] of variedSentences.entries()) {
      const [alone] = await ours.embedBatch([text]);
      const [referenceAlone] = await referenceEmbeddings([text]);
      const diffAlone = maxAbsDiff(alone as Float32Array, referenceAlone as Float32Array);
      const diff = Math.max(diffAlone, maxAbsDiff(batched[i] as Float32Array, expected[i] as Float32Array));
      expect(diff, `${JSON.stringify(text.slice(0, 60))}: max |diff| ${diff}`).toBeLessThan(1e-5);
      worst = Math.max(worst, diff);
    }
    console.info(`use-lite vs reference: max |diff| ${worst.toExponential(2)} over ${variedSentences.length} sentences`);
  });
});
