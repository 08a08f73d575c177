/**
 * bench:worst's output: a table in route-table order (a route or tool with no request kind says
 * so), a line on search's worst against a plain one, and a BENCH_JSON line bench:report reads.
 */
import type { RouteEntry } from '../../../src/http/route-table.js';
import { formatTable, median, round } from '../lib.js';
import { MAX_BLOCK_MS, MAX_RATIO, MAX_SEARCH_RATIO } from './kinds.js';
import { threadRunNs } from './measure.js';
import { CATALOGUE } from './requests/catalogue.js';
import type { Row } from './run.js';
import { type Figures, figures, summary } from './verdicts.js';

export interface ReportContext {
  catalogName: string;
  products: number;
  dbKind: string;
  rounds: number;
  /** The --only fragments; null when every kind ran. */
  only: readonly string[] | null;
  /** performance.now() when the bench started. */
  started: number;
  routes: readonly RouteEntry[];
  /** The tools POST /mcp lists. */
  tools: readonly string[];
}

interface Tabulated {
  table: string[][];
  jsonRows: Record<string, unknown>[];
  notCovered: string[];
  failed: boolean;
}

const HEADINGS = ['route / tool', 'request', 'n', 'CPU ms', '× typical', 'block ms', 'delay ms', 'alloc MB', 'RSS Δ MB', 'status', 'verdict'];

function tableRow(name: string, row: Row, f: Figures): string[] {
  return [
    row.typical ? name : '',
    row.variant.label,
    String(row.samples.length * (row.variant.reps ?? row.kind.reps)),
    round(f.cpu, 2).toFixed(2),
    f.ratio === null ? '' : `${round(f.ratio, 1)}×`,
    round(f.block, 1).toFixed(1),
    round(f.delay, 1).toFixed(1),
    round(f.alloc, 2).toFixed(2),
    round(f.rss, 1).toFixed(1),
    f.statuses,
    f.verdict,
  ];
}

function jsonRow(row: Row, f: Figures): Record<string, unknown> {
  return {
    search: row.kind.maxRatio === MAX_SEARCH_RATIO,
    route: row.kind.route,
    ...(row.kind.tool ? { tool: row.kind.tool } : {}),
    request: row.variant.label,
    cpu_ms: round(f.cpu, 3),
    ratio: f.ratio === null ? null : round(f.ratio, 2),
    max_block_ms: round(f.block, 1),
    max_delay_ms: round(f.delay, 1),
    alloc_mb: round(f.alloc, 2),
    rss_mb: round(f.rss, 1),
    statuses: f.statuses,
    verdict: f.verdict,
  };
}

/** The rows of every route the app registered (each MCP tool its own), in route-table order. */
function tabulate(rows: readonly Row[], c: ReportContext): Tabulated {
  const out: Tabulated = { table: [], jsonRows: [], notCovered: [], failed: false };
  const emit = (name: string, kindRows: Row[]) => {
    const typical = kindRows.find((r) => r.typical);
    for (const row of kindRows) {
      const f = figures(row, typical);
      if (f.verdict.startsWith('FAILED')) out.failed = true;
      out.table.push(tableRow(name, row, f));
      out.jsonRows.push(jsonRow(row, f));
    }
  };
  const uncovered = (name: string) => {
    out.notCovered.push(name);
    const why = c.only === null ? `NOT COVERED: no request kind in ${CATALOGUE}` : 'skipped (--only)';
    out.table.push([name, why, '', '', '', '', '', '', '', '', c.only === null ? 'not covered' : '']);
  };
  const seen = new Set<string>();
  for (const route of c.routes) {
    const name = `${route.method} ${route.url}`;
    if (seen.has(name)) continue;
    seen.add(name);
    const forRoute = rows.filter((r) => r.kind.route === name);
    if (name === 'POST /mcp') {
      for (const tool of [...c.tools, 'tools/list']) {
        const toolRows = forRoute.filter((r) => r.kind.tool === tool);
        if (toolRows.length > 0) emit(`${name} ${tool}`, toolRows);
        else uncovered(`${name} ${tool}`);
      }
    } else if (forRoute.length > 0) emit(name, forRoute);
    else uncovered(name);
  }
  return out;
}

/** CPU ms of a plain search, of the worst search, and of each query in the worst batch (null for a row that did not run). */
function searchCosts(rows: readonly Row[]): { plain: number | null; worst: number | null; batchPerQuery: number | null } {
  const cpuOf = (route: string, tool: string | undefined, pick: (r: Row) => boolean) => {
    const rs = rows.filter((r) => r.kind.route === route && r.kind.tool === tool && pick(r) && !r.variant.report);
    return rs.length === 0 ? null : Math.max(...rs.map((r) => median(r.samples.map((s) => s.cpuMs)) / (r.kind.perSearch ?? 1)));
  };
  return {
    plain: cpuOf('POST /v1/search', undefined, (r) => r.typical),
    worst: cpuOf('POST /v1/search', undefined, (r) => !r.typical),
    batchPerQuery: cpuOf('POST /v1/search/batch', undefined, (r) => !r.typical),
  };
}

function heading(c: ReportContext): string {
  return (
    `The most expensive request of each kind: catalog ${c.catalogName} (${c.products.toLocaleString('en-US')} products), database ${c.dbKind}, ` +
    `${c.rounds} rounds after a warm-up; server in this process, client in a child process. CPU: server CPU per request (every thread), median of the rounds; ` +
    `block: the longest the event loop ran its own work without a timer tick (main-thread CPU time), in any round${threadRunNs() === null ? ' (no /proc here: the wall-clock delay instead)' : ''}; ` +
    `delay: the longest event-loop delay by the wall clock, time the OS gave other processes included; ` +
    `alloc: JavaScript heap allocated per request (GC profiler), median of the rounds; RSS Δ: largest rise of RSS during a batch, median of the rounds. Verdicts: ≤ ${MAX_RATIO}× the typical request's CPU (search ≤ ${MAX_SEARCH_RATIO}×), block ≤ ${MAX_BLOCK_MS} ms.\n`
  );
}

/** Writes the report to stdout; returns the exit code: 1 when a request answered other than it should, else 0. */
export function writeReport(rows: readonly Row[], c: ReportContext): number {
  const { table, jsonRows, notCovered, failed } = tabulate(rows, c);
  const search = searchCosts(rows);
  process.stdout.write(heading(c));
  process.stdout.write(`${formatTable(HEADINGS, table)}\n`);
  if (search.plain !== null && search.worst !== null) {
    process.stdout.write(
      `Search: the most expensive valid search costs ${round(search.worst / search.plain, 1)}× the CPU of a plain one (${round(search.worst, 1)} ms against ${round(search.plain, 2)} ms; target ≤ ${MAX_SEARCH_RATIO}×)`,
    );
    if (search.batchPerQuery !== null)
      process.stdout.write(
        `; in the largest batch each query costs ${round(search.batchPerQuery, 1)} ms, ${round(search.batchPerQuery / search.plain, 1)}× a plain search`,
      );
    process.stdout.write('.\n');
  }
  if (notCovered.length > 0 && c.only === null) process.stdout.write(`${notCovered.length} route(s) or tool(s) not covered: ${notCovered.join(', ')}\n`);
  process.stdout.write(`(${round((performance.now() - c.started) / 1000, 1)} s in all)\n`);
  process.stdout.write(
    `BENCH_JSON ${JSON.stringify({
      bench: 'worst',
      catalog: c.catalogName,
      products: c.products,
      db: c.dbKind,
      rounds: c.rounds,
      search_plain_cpu_ms: search.plain === null ? null : round(search.plain, 2),
      search_worst_cpu_ms: search.worst === null ? null : round(search.worst, 2),
      search_worst_ratio: search.plain === null || search.worst === null ? null : round(search.worst / search.plain, 2),
      not_covered: notCovered,
      ...summary(jsonRows),
      rows: jsonRows,
    })}\n`,
  );
  return failed ? 1 : 0;
}
