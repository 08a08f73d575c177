import type { FeedbackVote } from './ports.js';

/**
 * Below this cosine similarity a vote says nothing about the query at hand: rephrasings of a
 * query score above it, other product kinds below (the examples:
 * docs/decisions/0006-position-bias-and-per-query-boosts.md).
 */
const SIMILARITY_FLOOR = 0.8;
/** At or above this a vote counts fully (plural, article and word-order variants). */
const SIMILARITY_FULL = 0.93;
/** Each net vote divides the score by (1 + STRENGTH × votes)… */
const STRENGTH = 0.5;
/** …but never below this: a handful of votes demotes a product, it cannot bury it. */
export const MIN_FACTOR = 0.5;

const dot = (a: Float32Array, b: Float32Array): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * (b[i] ?? 0);
  return s;
};

/**
 * Per product: the net weight of "not relevant" votes from similar queries (a "relevant" vote
 * cancels one), each weighted by how close its query is to this one; then a bounded multiplier.
 * Vectors are unit length, so the dot product is the cosine.
 */
export function demotionFactors(query: Float32Array, votes: readonly Pick<FeedbackVote, 'productId' | 'relevant' | 'queryVector'>[]): Map<string, number> {
  const net = new Map<string, number>();
  for (const v of votes) {
    if (v.queryVector.length !== query.length) continue;
    const similarity = dot(query, v.queryVector);
    if (similarity < SIMILARITY_FLOOR) continue;
    const weight = Math.min(1, (similarity - SIMILARITY_FLOOR) / (SIMILARITY_FULL - SIMILARITY_FLOOR));
    net.set(v.productId, (net.get(v.productId) ?? 0) + (v.relevant ? -weight : weight));
  }
  const factors = new Map<string, number>();
  for (const [productId, votes] of net) {
    if (votes > 0) factors.set(productId, Math.max(MIN_FACTOR, 1 / (1 + STRENGTH * votes)));
  }
  return factors;
}
