import type { FeedbackVote } from './ports.js';

/** The store's order: newest created_at first, then the larger id (lower-case UUIDs compare as their bytes). */
export function newerFirst(a: FeedbackVote, b: FeedbackVote): number {
  return b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/**
 * The newest `limit` rows of two reads of the same account, each row once, in the store's order.
 * `fresh` is a read of everything from some time on, so together they hold the newest `limit`
 * rows whenever `held` held them before that time.
 */
export function mergeVoteRows(held: readonly FeedbackVote[], fresh: readonly FeedbackVote[], limit: number): FeedbackVote[] {
  const byId = new Map<string, FeedbackVote>();
  for (const v of held) byId.set(v.id, v);
  for (const v of fresh) byId.set(v.id, v);
  return [...byId.values()].sort(newerFirst).slice(0, limit);
}

/** Rows newest first → the latest vote per (search, product): voting again replaces a vote. */
export function latestPerPair(rows: readonly FeedbackVote[]): FeedbackVote[] {
  const seen = new Set<string>();
  const out: FeedbackVote[] = [];
  for (const v of rows) {
    const pair = `${v.requestId} ${v.productId}`;
    if (seen.has(pair)) continue;
    seen.add(pair);
    out.push(v);
  }
  return out;
}
