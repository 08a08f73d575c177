import cliProgress from 'cli-progress';
import type { ImportProgress } from '../core/catalog/import.js';

export interface ProgressReporter {
  update(progress: ImportProgress): void;
  stop(): void;
}

/**
 * A live bar (rows, rate, ETA when the total is known) on a terminal; one plain line every few
 * seconds otherwise, so CI logs and pipes stay readable.
 */
export function createProgressReporter(stream: NodeJS.WriteStream, totalRows: number | null): ProgressReporter {
  const started = Date.now();
  const rate = (p: ImportProgress) => Math.round(p.read / Math.max(0.001, (Date.now() - started) / 1000));
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: totalRows
          ? 'importing [{bar}] {percentage}% | {value}/{total} rows | {rate} rows/s | ETA {eta_formatted} | skipped {skipped}'
          : 'importing {value} rows | {rate} rows/s | skipped {skipped}',
        hideCursor: true,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(totalRows ?? 0, 0, { rate: 0, skipped: 0 });
    return {
      update: (p) => bar.update(p.read, { rate: rate(p), skipped: p.skipped }),
      stop: () => bar.stop(),
    };
  }
  let last = 0;
  return {
    update: (p) => {
      if (Date.now() - last < 5000) return;
      last = Date.now();
      const pct = totalRows ? ` (${Math.min(100, Math.round((100 * p.read) / totalRows))}%)` : '';
      // The rate so far, applied to the rows left: what the bar's ETA shows on a terminal.
      const eta = totalRows && rate(p) > 0 ? `, ETA ${formatEta(Math.max(0, totalRows - p.read) / rate(p))}` : '';
      stream.write(`progress: ${p.read} rows read${pct}, ${p.imported} new, ${p.updated} updated, ${p.skipped} skipped, ${rate(p)} rows/s${eta}\n`);
    },
    stop: () => undefined,
  };
}

/** Seconds as `1h02m`, `4m05s` or `12s`. */
function formatEta(seconds: number): string {
  const s = Math.round(seconds);
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}
