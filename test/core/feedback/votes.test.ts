import { describe, expect, it } from 'vitest';
import type { FeedbackVote } from '../../../src/core/feedback/ports.js';
import { latestPerPair, mergeVoteRows, newerFirst } from '../../../src/core/feedback/votes.js';

const row = (id: string, seconds: number, requestId = 'r1', productId = 'p1', relevant = false): FeedbackVote => ({
  id,
  requestId,
  productId,
  relevant,
  queryVector: new Float32Array(2),
  createdAt: new Date(seconds * 1000),
});

describe('vote rows', () => {
  it('orders newest first, then by the larger id, as the store does', () => {
    const rows = [row('a', 1), row('c', 2), row('b', 2), row('d', 0)];
    expect(rows.sort(newerFirst).map((r) => r.id)).toEqual(['c', 'b', 'a', 'd']);
  });

  it('merges two overlapping reads into the newest rows of both, each once, cut at the limit', () => {
    const held = [row('e', 5), row('d', 4), row('c', 3), row('b', 2)];
    const fresh = [row('g', 7), row('f', 6), row('e', 5), row('x', 4)];
    expect(mergeVoteRows(held, fresh, 10).map((r) => r.id)).toEqual(['g', 'f', 'e', 'x', 'd', 'c', 'b']);
    expect(mergeVoteRows(held, fresh, 3).map((r) => r.id)).toEqual(['g', 'f', 'e']);
    expect(mergeVoteRows([], fresh, 2).map((r) => r.id)).toEqual(['g', 'f']);
  });

  it('keeps the latest vote per search and product', () => {
    const rows = [row('d', 4, 'r1', 'p1', true), row('c', 3, 'r1', 'p2'), row('b', 2, 'r1', 'p1'), row('a', 1, 'r2', 'p1')];
    expect(latestPerPair(rows).map((r) => [r.id, r.relevant])).toEqual([
      ['d', true],
      ['c', false],
      ['a', false],
    ]);
  });
});
