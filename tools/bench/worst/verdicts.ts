/**
 * A row's figures and verdict: FAILED when a request answered other than it should (the bench
 * exits 1), OVER when it costs more than its target allows (a finding, not a failure), else ok.
 */
import { median } from '../lib.js';
import { MAX_BLOCK_MS, type Variant } from './kinds.js';
import type { Sample } from './measure.js';
import type { Row } from './run.js';

const isOk = (variant: Variant, status: number) => (variant.ok ? variant.ok(status) : status >= 200 && status < 400);

/** Whether a batch answered as it should; the message says what went wrong otherwise. */
function problemOf(variant: Variant, s: Sample): string | null {
  if (variant.report) return null;
  const bad = Object.keys(s.statuses).filter((status) => !isOk(variant, Number(status)));
  if (bad.length > 0) return `answered ${bad.join(', ')}: ${s.samples[bad[0]!]}`;
  if (s.failed !== null) return `tool error: ${s.failed}`;
  return null;
}

/** The problem's code and detail from an answer's body, or the start of a body that is not JSON. */
function detailOf(sample: string | undefined): string {
  if (sample === undefined) return '';
  try {
    const body = JSON.parse(sample) as { detail?: string; code?: string };
    return [body.code, body.detail].filter(Boolean).join(': ');
  } catch {
    return sample.slice(0, 200);
  }
}

export interface Figures {
  cpu: number;
  ratio: number | null;
  /** The CPU-time block when /proc has it, else the wall-clock delay. */
  block: number;
  delay: number;
  alloc: number;
  rss: number;
  statuses: string;
  verdict: string;
}

/** `row`'s medians and maxima over its rounds, its CPU beside `typical`'s (its kind's typical row), and its verdict. */
export function figures(row: Row, typical: Row | undefined): Figures {
  const cpu = median(row.samples.map((s) => s.cpuMs));
  const delay = Math.max(...row.samples.map((s) => s.delayMs));
  const block = Math.max(...row.samples.map((s) => s.blockMs ?? s.delayMs));
  const statuses = [...new Set(row.samples.flatMap((s) => Object.keys(s.statuses)))].join('/');
  const problems = row.samples.map((s) => problemOf(row.variant, s)).filter((p): p is string => p !== null);
  const ok2xx = row.samples.every((s) => Object.keys(s.statuses).every((st) => Number(st) < 300));
  const ratio = row.typical || typical === undefined || (row.variant.report && !ok2xx) ? null : cpu / median(typical.samples.map((s) => s.cpuMs));
  let verdict: string;
  if (problems.length > 0) verdict = `FAILED: ${problems[0]!.slice(0, 300)}`;
  else if (row.variant.report && !ok2xx)
    verdict = `reported: answers ${statuses} (${detailOf(row.samples[0]!.samples[statuses.split('/')[0]!]).slice(0, 160)})`;
  else {
    const over = [
      ...(ratio !== null && ratio > row.kind.maxRatio ? [`> ${row.kind.maxRatio}× CPU`] : []),
      ...(block > MAX_BLOCK_MS ? [`blocks > ${MAX_BLOCK_MS} ms`] : []),
    ];
    verdict = over.length === 0 ? 'ok' : `OVER: ${over.join(', ')}`;
  }
  return {
    cpu,
    ratio,
    block,
    delay,
    alloc: median(row.samples.map((s) => s.allocMb)),
    rss: median(row.samples.map((s) => s.rssMb)),
    statuses,
    verdict,
  };
}

/** The figures the report's targets read: the largest ratio (search and the rest) and the longest block, with their rows. */
export function summary(rows: Record<string, unknown>[]): Record<string, unknown> {
  const name = (r: Record<string, unknown>) => `${String(r.route)}${r.tool ? ` ${String(r.tool)}` : ''}: ${String(r.request)}`;
  const largest = (xs: Record<string, unknown>[], key: string) =>
    xs.filter((r) => typeof r[key] === 'number').sort((a, b) => (b[key] as number) - (a[key] as number))[0];
  const ratio = largest(
    rows.filter((r) => !r.search),
    'ratio',
  );
  const searchRatio = largest(
    rows.filter((r) => r.search),
    'ratio',
  );
  const block = largest(rows, 'max_block_ms');
  return {
    largest_ratio: ratio ? { row: name(ratio), ratio: ratio.ratio } : null,
    largest_search_ratio: searchRatio ? { row: name(searchRatio), ratio: searchRatio.ratio } : null,
    longest_block: block ? { row: name(block), ms: block.max_block_ms } : null,
    over: rows.filter((r) => String(r.verdict).startsWith('OVER')).map(name),
  };
}
