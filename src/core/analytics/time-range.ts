import { AppError } from '../errors.js';
import type { Granularity } from '../schemas/analytics.js';
import type { BucketedRange } from './ports.js';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

const DEFAULT_RANGE_MS = 30 * DAY_MS;
const MAX_RANGE_MS = 366 * DAY_MS;
/** Hourly series past a month would be thousands of points; ask for days instead. */
const MAX_HOURLY_RANGE_MS = 31 * DAY_MS;
/** Up to two days the automatic granularity is hourly (≤ 48 points), beyond that daily (≤ 366). */
const AUTO_HOURLY_UP_TO_MS = 2 * DAY_MS;

const GRANULARITY_MS: Record<Granularity, number> = { hour: HOUR_MS, day: DAY_MS };

export interface ResolvedRange extends BucketedRange {
  granularity: Granularity;
}

const invalid = (parameter: string, message: string) =>
  new AppError('validation_failed', `Invalid request. query.${parameter}: ${message}`, { errors: [{ path: `query.${parameter}`, message }] });

/**
 * The range a usage or analytics query asks for: [start_date, end_date), defaults 30 days back to
 * now. 400 validation_failed naming start_date when it is not before end_date or the range exceeds
 * 366 days, naming granularity when `hour` is asked for more than 31 days.
 */
export function resolveRange(
  query: { start_date?: string | undefined; end_date?: string | undefined; granularity?: Granularity | undefined },
  now: Date,
): ResolvedRange {
  const end = query.end_date === undefined ? now : new Date(query.end_date);
  const start = query.start_date === undefined ? new Date(end.getTime() - DEFAULT_RANGE_MS) : new Date(query.start_date);
  const span = end.getTime() - start.getTime();
  if (span <= 0) throw invalid('start_date', 'must be before end_date');
  if (span > MAX_RANGE_MS) throw invalid('start_date', 'the range from start_date to end_date must be at most 366 days');
  const granularity = query.granularity ?? (span <= AUTO_HOURLY_UP_TO_MS ? 'hour' : 'day');
  if (granularity === 'hour' && span > MAX_HOURLY_RANGE_MS) throw invalid('granularity', 'hour is allowed for ranges up to 31 days; use day');
  return { start, end, bucketMs: GRANULARITY_MS[granularity], granularity };
}

/** Start of the UTC bucket holding `t` (buckets are aligned to the epoch, so to UTC hours and days). */
const bucketOf = (t: number, bucketMs: number): number => Math.floor(t / bucketMs) * bucketMs;

/** Every bucket start overlapping [start, end), oldest first. */
function bucketStarts(range: BucketedRange): number[] {
  const out: number[] = [];
  for (let b = bucketOf(range.start.getTime(), range.bucketMs); b < range.end.getTime(); b += range.bucketMs) out.push(b);
  return out;
}

/** One entry per bucket of the range, filled from `rows` (keyed by bucket) or `empty`. */
export function fillSeries<R extends { bucket: number }, T>(
  range: BucketedRange,
  rows: readonly R[],
  present: (row: R) => T,
  empty: () => T,
): { periodStart: string; value: T }[] {
  const byBucket = new Map(rows.map((r) => [r.bucket, r]));
  return bucketStarts(range).map((b) => {
    const row = byBucket.get(b);
    return { periodStart: new Date(b).toISOString(), value: row ? present(row) : empty() };
  });
}

/** clicks / impressions style ratios: 0 when nothing was there to divide by. */
export const ratio = (numerator: number, denominator: number): number => (denominator === 0 ? 0 : numerator / denominator);
