/**
 * Latencies are recorded on a logarithmic grid of 2 % steps, rounded to three significant digits:
 * a recorded value is within 1.5 % of the measured one. The grid keeps the distinct values per
 * endpoint and day to a few hundred, so daily rollups of (value, count) pairs stay small, and
 * percentiles over any range are exact over the recorded values, from raw rows or rollups alike.
 */
const STEP = Math.log(1.02);
const FLOOR_MS = 0.001;

export const LATENCY_ERROR_BOUND = 0.015;

export function recordedLatency(ms: number): number {
  if (!(ms > FLOOR_MS)) return FLOOR_MS;
  const onGrid = FLOOR_MS * Math.exp(Math.round(Math.log(ms / FLOOR_MS) / STEP) * STEP);
  return Number(onGrid.toPrecision(3));
}

/** Nearest-rank percentile over (value, count) pairs sorted by value: the smallest value with at least p of all counts at or below it. */
export function weightedPercentile(sorted: readonly { value: number; count: number }[], total: number, p: number): number {
  if (total === 0) return 0;
  // The epsilon keeps 0.95 × 20 (19.000000000000004 in floating point) at rank 19.
  const rank = Math.max(1, Math.ceil(p * total - 1e-9));
  let seen = 0;
  for (const { value, count } of sorted) {
    seen += count;
    if (seen >= rank) return value;
  }
  return sorted.at(-1)?.value ?? 0;
}
