import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LATENCY_ERROR_BOUND, recordedLatency, weightedPercentile } from '../../../src/core/analytics/latency.js';

describe('recordedLatency', () => {
  it('stays within the stated error bound from 1 µs to 10 minutes', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 600_000, noNaN: true }), (ms) => {
        expect(Math.abs(recordedLatency(ms) - ms) / ms).toBeLessThanOrEqual(LATENCY_ERROR_BOUND);
      }),
    );
  });

  it('is idempotent, monotonic and keeps few distinct values per decade', () => {
    const values = new Set<number>();
    let last = 0;
    for (let ms = 10; ms < 100; ms += 0.001) {
      const r = recordedLatency(ms);
      expect(r).toBeGreaterThanOrEqual(last);
      expect(recordedLatency(r)).toBe(r);
      values.add(r);
      last = r;
    }
    expect(values.size).toBeLessThan(130);
  });
});

describe('weightedPercentile', () => {
  it('is the nearest rank over (value, count) pairs, as over the expanded list', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ value: fc.integer({ min: 0, max: 50 }), count: fc.integer({ min: 1, max: 5 }) }), { minLength: 1, maxLength: 30 }),
        fc.constantFrom(0.5, 0.9, 0.95, 0.99, 1),
        (pairs, p) => {
          const merged = new Map<number, number>();
          for (const { value, count } of pairs) merged.set(value, (merged.get(value) ?? 0) + count);
          const sorted = [...merged.entries()].sort((a, b) => a[0] - b[0]).map(([value, count]) => ({ value, count }));
          const expanded = sorted.flatMap(({ value, count }) => Array<number>(count).fill(value));
          const expected = expanded[Math.max(0, Math.ceil(p * expanded.length - 1e-9) - 1)];
          expect(weightedPercentile(sorted, expanded.length, p)).toBe(expected);
        },
      ),
    );
    expect(
      weightedPercentile(
        [
          { value: 1, count: 19 },
          { value: 9, count: 1 },
        ],
        20,
        0.95,
      ),
    ).toBe(1);
    expect(weightedPercentile([], 0, 0.5)).toBe(0);
  });
});
