import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { createProgressReporter } from '../../src/cli/progress.js';
import type { ImportProgress } from '../../src/core/catalog/import.js';

// npm run ingest's progress where no terminal shows a bar (CI logs, pipes): one line every five
// seconds with the share done, the rate so far and the time left at that rate.

/** A non-terminal stream that keeps what was written. */
function sink(): { stream: NodeJS.WriteStream; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  return { stream, lines };
}

const progress = (read: number): ImportProgress => ({ read, imported: read, updated: 0, delta: 0, unchanged: 0, embedded: read, removed: 0, skipped: 0 });

describe('the import progress line', () => {
  it('says the share done, the rate and the time left, every five seconds', () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-29T10:00:00Z') });
    try {
      const { stream, lines } = sink();
      const reporter = createProgressReporter(stream, 1_000_000);
      vi.advanceTimersByTime(10_000);
      reporter.update(progress(5_000));
      // 500 rows/s so far: the other 995,000 rows take 1,990 s.
      expect(lines).toEqual(['progress: 5000 rows read (1%), 5000 new, 0 updated, 0 skipped, 500 rows/s, ETA 33m10s\n']);
      vi.advanceTimersByTime(1_000);
      reporter.update(progress(5_500));
      expect(lines).toHaveLength(1);
      vi.advanceTimersByTime(3_590_000);
      reporter.update(progress(400_000));
      expect(lines[1]).toBe('progress: 400000 rows read (40%), 400000 new, 0 updated, 0 skipped, 111 rows/s, ETA 1h30m\n');
    } finally {
      vi.useRealTimers();
    }
  });

  it('gives no time left when the total is unknown', () => {
    const { stream, lines } = sink();
    createProgressReporter(stream, null).update(progress(10));
    expect(lines[0]).toMatch(/^progress: 10 rows read, 10 new, 0 updated, 0 skipped, \d+ rows\/s\n$/);
  });
});
