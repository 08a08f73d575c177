/**
 * The fit on a worker thread gives exactly what it gives on this thread: the log survives the
 * packing (features, positions, clicks, conversions, votes, ids), and the thread runs the same code.
 */
import { describe, expect, it } from 'vitest';
import { fitFromLog } from '../../src/core/learning/global-fit.js';
import type { LoggedResult } from '../../src/core/learning/ports.js';
import { mulberry32 } from '../../src/core/random.js';
import { FEATURE_INDEX, FEATURE_NAMES } from '../../src/core/ranking/features.js';
import type { RankingModel } from '../../src/core/ranking/ranking.js';
import { fitInThread } from '../../src/threads/fit-thread.js';
import { packLog, unpackLog } from '../../src/threads/fit-thread-log.js';

const SERVING: RankingModel = { source: 'serving', bias: -2, weights: { cosine: 4, titleCoverage: 0.5 }, scale: 1, offset: 0 };

/** 120 queries of 10 shown products; clicks follow titleCoverage, at 1/k examination. */
function log(): LoggedResult[] {
  const random = mulberry32(21);
  const out: LoggedResult[] = [];
  for (let q = 0; q < 120; q++) {
    const products = Array.from({ length: 10 }, () => {
      const x = Array.from({ length: FEATURE_NAMES.length }, () => random() * 0.2);
      x[FEATURE_INDEX.titleCoverage] = random();
      x[FEATURE_INDEX.cosine] = random();
      return x;
    }).sort((a, b) => b[FEATURE_INDEX.cosine]! - a[FEATURE_INDEX.cosine]!);
    for (let s = 0; s < 8; s++) {
      products.forEach((x, k) => {
        const clicked = random() < 1 / (k + 1) && random() < x[FEATURE_INDEX.titleCoverage]! ** 2;
        out.push({
          requestId: `r${q}-${s}`,
          sessionId: `s${q}-${s}`,
          query: `query ${q}`,
          productId: `p${q}-${k}`,
          position: k + 1,
          features: x,
          clicked,
          converted: clicked && random() < 0.1,
          vote: random() < 0.02 ? random() < 0.5 : null,
        });
      });
    }
  }
  return out;
}

describe('the learning thread', () => {
  it('packs and unpacks the log without loss', () => {
    const original = log();
    const round = unpackLog(packLog(original));
    expect(round).toHaveLength(original.length);
    // Features go through float64 (they are stored as float32), so they come back equal.
    expect(round).toEqual(original);
  });

  it('fits the same model as this thread does', async () => {
    const original = log();
    const here = await fitFromLog(original, SERVING, 'learned t', undefined);
    const there = await fitInThread(original, SERVING, 'learned t', undefined);
    expect(here.model).not.toBeNull();
    expect(there).toEqual(here);
  });
});
