import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { needsShared, sharedPath } from '../helpers/shared.js';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The ONNX build of USE-lite made outside the project: only read, to compare against. */
export const referenceDir = sharedPath('models/google/universal-sentence-encoder-lite');
export const referenceOnnx = join(referenceDir, 'onnx', 'model.onnx');
/** Tests against the reference skip where it is absent, and fail there under AISLE_REQUIRE_SHARED=1. */
export const referenceNeed = needsShared([referenceOnnx]);

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += (a[i] as number) * (b[i] as number);
  return dot;
}

export function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Number.POSITIVE_INFINITY;
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs((a[i] as number) - (b[i] as number)));
  return max;
}

export const norm = (v: Float32Array): number => Math.sqrt(cosine(v, v));

/** A fresh temporary directory and its removal. */
export async function tempDir(label: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), `aisle-embed-${label}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Sentences that stress the tokenizer and the graph: unicode, emoji, CJK, units, punctuation only, >128 tokens. */
export const variedSentences: readonly string[] = [
  'running shoes',
  'sneakers for jogging',
  'Stainless steel espresso machine with milk frother, 15 bar',
  'café crème brûlée — déjà vu at the naïve façade',
  'Ærøskøbing smørrebrød · Zürich Straße · São Paulo',
  'wireless headphones 🎧 with noise cancelling 🔇😀',
  '東京の電気店でノートパソコンを買いました',
  '北京烤鸭 and 김치 in one sentence',
  'Copper pipe fitting 1/2 in. x 3/4 in. (2-pack)',
  '2x4 lumber, 8 ft., #2 grade — $3.98/ea',
  '100% cotton T-shirt, size XL, 180 g/m²',
  '...!!!???',
  '—',
  ':::',
  ':) great deal',
  '   leading and trailing spaces   ',
  'ALL CAPS PRODUCT TITLE WITH NUMBERS 12345',
  'ﬁne ﬂour ½ cup ①②③ ｆｕｌｌｗｉｄｔｈ',
  'tab\tseparated\nnew line text',
  'A',
  Array.from({ length: 60 }, (_, i) => `word${i} is part of a very long product description`).join(' '),
  'The quick brown fox jumps over the lazy dog. '.repeat(30).trim(),
];
