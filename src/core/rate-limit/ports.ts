/** The shared rate-limit state (src/store/pg/rate-limit-store.ts). */

export interface RateLimitStore {
  /**
   * GCRA step for one bucket, atomic across processes. Advances the theoretical arrival time
   * by `incrementMs` unless that would put it more than `windowMs` ahead of `nowMs`.
   * Returns whether it did, and the stored arrival time (ms since epoch) after the call.
   */
  consume(bucket: string, nowMs: number, incrementMs: number, windowMs: number): Promise<{ allowed: boolean; tatMs: number }>;
  /** The bucket's stored theoretical arrival time (ms since epoch), or null when it has none. */
  peek(bucket: string): Promise<number | null>;
  /**
   * Deletes up to `limit` buckets named `prefix…` whose arrival time is before `cutoff`: a bucket
   * fully recovered behaves exactly like one never used. Returns how many went.
   */
  pruneRecovered(prefix: string, cutoff: Date, limit: number): Promise<number>;
}
