/**
 * Load and soak against a deployment-shaped server: `src/main.ts` as its own process on a real
 * PostgreSQL (DATABASE_URL, required) with the 54,667-product Home Depot catalog.
 *
 *   npm run bench:load -- [--catalog-uri DIR] [--duration 20] [--connections 16]
 *   npm run bench:soak -- [--catalog-uri DIR] [--soak 10] [--duration 20]
 *
 * Load: the floor first (tools/bench/floor.ts: query embedding, vector and full-text lookups,
 * each alone), then GET /healthz alone (the bare Fastify route), searches alone, the mixed
 * workload (70 % search, 20 % click, 10 % feedback) and searches from one client: per endpoint
 * throughput, p50/p95/p99 and errors; CPU per request of the server's processes, of PostgreSQL
 * and of the load generator; the largest RSS of a server process; search CPU against the floor.
 * The server runs as `npm start` does: one API process per core (AISLE_API_PROCESSES overrides).
 * Soak: a short mixed run measures capacity, then the mix runs `--soak` minutes at 80 % of it
 * with a webhook subscription on every event: server RSS at start and end, the webhook backlog
 * (pending deliveries) over time, and errors. `--profile` adds where the server's JavaScript
 * thread spends the searches-alone phase (V8 sampling profiler; `--profile-dir DIR` keeps the
 * .cpuprofile files there for a closer look). `--catalog-uri` reuses a prepared catalog and only
 * reads it; without it the catalog is imported into a temporary directory (about 2.5 minutes).
 */
// First, so that the command line is checked before anything else loads (load.command.ts).

import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { CliError, EXIT } from '../../src/cli/errors.js';
import { readJsonLines } from '../../src/cli/files.js';
import { loadConfig } from '../../src/config.js';
import { sharedPath } from '../shared-data.js';
import { summarizeProfiles } from './cpu-profile.js';
import { createBenchDatabase, ensureCatalog, postgresCpuSeconds, type ServerProcess, startServerProcess } from './deployment.js';
import { type Floor, measureFloor } from './floor.js';
import { cleanUpOnSignal, formatTable } from './lib.js';
import { cli } from './load.command.js';
import { type Kind, type KindStats, type KindSummary, MIXED, Pools, runMix, summarize } from './mix.js';

const { values } = cli;
const duration = cli.number('duration', { positive: true, default: 20 });
const connections = cli.number('connections', { integer: true, positive: true, default: 16 });
const soakMinutes = cli.number('soak', { positive: true }) ?? null;
const sampleSeconds = cli.number('sample-seconds', { positive: true, default: 15 });
/** The soak's rate, as a share of the capacity measured just before it. */
const SOAK_SHARE = 0.8;
const load1 = () => Math.round(loadavg()[0]! * 100) / 100;

async function queryTexts(): Promise<string[]> {
  const path = sharedPath('data/eval/homedepot/queries_dev.jsonl');
  if (path === null) return Array.from({ length: 500 }, (_, i) => `${['cordless drill', 'garden hose', 'led bulb', 'door hinge', 'paint roller'][i % 5]} ${i}`);
  return (await readJsonLines<{ query: string }>(path)).map((q) => q.query);
}

async function json<T>(res: Response): Promise<T> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** A webhook receiver on 127.0.0.1 that accepts everything; counts what it got. */
async function startReceiver(): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: () => received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function table(label: string, rows: Array<[string, KindSummary]>): string {
  return `${label}\n${formatTable(
    ['endpoint', 'req/s', 'requests', 'errors', 'p50 ms', 'p95 ms', 'p99 ms'],
    rows.map(([name, s]) => [name, s.rps.toFixed(1), String(s.requests), String(s.errors), s.p50_ms.toFixed(1), s.p95_ms.toFixed(1), s.p99_ms.toFixed(1)]),
  )}\n`;
}

const ROUTE: Record<Kind, string> = { healthz: 'GET /healthz', search: 'POST /v1/search', click: 'POST /v1/clicks/{id}', feedback: 'POST /v1/feedback' };

interface PhaseCpu {
  /** The server's processes (every API process and thread). */
  server_cores: number;
  server_ms_per_request: number;
  /** PostgreSQL's processes on this machine, for the same requests. */
  postgres_ms_per_request: number | null;
  /** This process: the load generator. */
  client_ms_per_request: number;
}

/** Samples the RSS of each server process every second while `run` goes; the largest seen. */
async function withRssPeaks<T>(
  server: ServerProcess,
  run: () => Promise<T>,
): Promise<{ result: T; peakPerProcessMb: number | null; peakTotalMb: number | null }> {
  let perProcess = 0;
  let total = 0;
  const sample = () => {
    const r = server.rss();
    if (!r) return;
    perProcess = Math.max(perProcess, ...r.perProcessBytes);
    total = Math.max(total, r.totalBytes);
  };
  const timer = setInterval(sample, 1000);
  try {
    const result = await run();
    sample();
    return {
      result,
      peakPerProcessMb: perProcess === 0 ? null : Math.round(perProcess / 1e5) / 10,
      peakTotalMb: total === 0 ? null : Math.round(total / 1e5) / 10,
    };
  } finally {
    clearInterval(timer);
  }
}

async function phase(
  server: ServerProcess,
  key: string,
  pools: Pools,
  label: string,
  sequence: readonly Kind[],
  seconds: number,
  options: { overallRate?: number; connections?: number } = {},
) {
  const conns = options.connections ?? connections;
  const loadBefore = load1();
  const cpuBefore = server.cpuSeconds();
  const pgBefore = postgresCpuSeconds();
  const clientBefore = process.cpuUsage();
  const {
    result: run,
    peakPerProcessMb,
    peakTotalMb,
  } = await withRssPeaks(server, () =>
    runMix({ baseUrl: server.url, key, sequence, seconds, connections: conns, pools, ...(options.overallRate ? { overallRate: options.overallRate } : {}) }),
  );
  const client = process.cpuUsage(clientBefore);
  const cpuAfter = server.cpuSeconds();
  const pgAfter = postgresCpuSeconds();
  const byKind = Object.fromEntries(Object.entries(run.byKind).map(([k, s]) => [k, summarize(s, run.seconds)])) as Partial<Record<Kind, KindSummary>>;
  const requests = Math.max(
    1,
    Object.values(byKind).reduce((n, s) => n + s.requests, 0),
  );
  const perRequest = (seconds: number) => Math.round((seconds * 1000 * 100) / requests) / 100;
  // The server's own CPU per request says what a dedicated machine would sustain, whatever the neighbours take.
  const cpu: PhaseCpu | null =
    cpuBefore === null || cpuAfter === null
      ? null
      : {
          server_cores: Math.round(((cpuAfter - cpuBefore) / run.seconds) * 100) / 100,
          server_ms_per_request: perRequest(cpuAfter - cpuBefore),
          postgres_ms_per_request: pgBefore === null || pgAfter === null ? null : perRequest(pgAfter - pgBefore),
          client_ms_per_request: perRequest((client.user + client.system) / 1e6),
        };
  process.stdout.write(
    table(
      `${label}: ${conns} connection${conns === 1 ? '' : 's'}, ${run.seconds} s, load average ${loadBefore} → ${load1()}`,
      Object.entries(byKind).map(([k, s]) => [ROUTE[k as Kind], s]),
    ),
  );
  if (cpu) {
    process.stdout.write(
      `  CPU per request: server ${cpu.server_ms_per_request} ms (${cpu.server_cores} cores busy), PostgreSQL ${cpu.postgres_ms_per_request ?? 'n/a'} ms, load generator ${cpu.client_ms_per_request} ms\n`,
    );
  }
  if (peakPerProcessMb !== null) process.stdout.write(`  RSS peak: ${peakPerProcessMb} MB in one server process, ${peakTotalMb} MB all of them\n`);
  if (run.transportErrors > 0) process.stdout.write(`  ${run.transportErrors} connection errors or timeouts\n`);
  return {
    byKind,
    transportErrors: run.transportErrors,
    loadavg: [loadBefore, load1()],
    cpu,
    rss_peak_mb: { per_process: peakPerProcessMb, total: peakTotalMb },
  };
}

async function soak(server: ServerProcess, key: string, pools: Pools, dbUrl: string, capacityRps: number) {
  const rate = Math.max(1, Math.floor(capacityRps * SOAK_SHARE));
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  const backlog = async () =>
    Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM webhook_deliveries WHERE status IN ('pending', 'delivering')`)).rows[0]!.n);
  const stats: Partial<Record<Kind, KindStats>> = {};
  const errors = () => Object.values(stats).reduce((n, s) => n + s.errors, 0);
  const samples: Array<{ t_s: number; rss_mb: number | null; rss_max_process_mb: number | null; backlog: number; errors: number; load1: number }> = [];
  const started = Date.now();
  const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
  const sample = async () => {
    const rss = server.rss();
    samples.push({
      t_s: Math.round((Date.now() - started) / 1000),
      rss_mb: rss === null ? null : mb(rss.totalBytes),
      rss_max_process_mb: rss === null ? null : mb(Math.max(...rss.perProcessBytes)),
      backlog: await backlog(),
      errors: errors(),
      load1: load1(),
    });
    const s = samples.at(-1)!;
    process.stderr.write(
      `soak ${s.t_s}s: rss ${s.rss_mb} MB (largest process ${s.rss_max_process_mb} MB), webhook backlog ${s.backlog}, errors ${s.errors}, load ${s.load1}\n`,
    );
  };
  await sample();
  const timer = setInterval(() => void sample(), sampleSeconds * 1000);
  const run = await runMix({ baseUrl: server.url, key, sequence: MIXED, seconds: soakMinutes! * 60, connections, pools, overallRate: rate, stats });
  clearInterval(timer);
  await sample();
  // Deliveries still queued at the end drain within a few polls when nothing is stuck.
  const drainStart = Date.now();
  while ((await backlog()) > 0 && Date.now() - drainStart < 60_000) await new Promise((r) => setTimeout(r, 250));
  const drainedMs = Date.now() - drainStart;
  const left = await backlog();
  await db.end();

  const first = samples[0]!;
  const last = samples.at(-1)!;
  const quarter = Math.max(1, Math.ceil(samples.length / 4));
  const earlyPeak = Math.max(...samples.slice(0, quarter).map((s) => s.backlog));
  const latePeak = Math.max(...samples.slice(-quarter).map((s) => s.backlog));
  // V8 frees memory in collections, so RSS saws up and down; growth is judged on the troughs
  // (after a collection): the lowest sample of the first third against the lowest of the last.
  const third = Math.max(1, Math.floor(samples.length / 3));
  const trough = (part: typeof samples) => Math.min(...part.map((s) => s.rss_mb ?? Number.POSITIVE_INFINITY));
  const earlyTrough = trough(samples.slice(0, third));
  const lateTrough = trough(samples.slice(-third));
  const rssGrowth = Number.isFinite(earlyTrough) && Number.isFinite(lateTrough) ? (lateTrough - earlyTrough) / earlyTrough : null;
  const byKind = Object.fromEntries(Object.entries(stats).map(([k, s]) => [k, summarize(s, run.seconds)]));
  const verdict = {
    rss_growth_under_10pct: rssGrowth !== null && rssGrowth < 0.1,
    // "No growth": the backlog late in the run stays within what it was early on (or a few polls' worth).
    backlog_not_growing: latePeak <= Math.max(earlyPeak, 50) && left === 0,
    zero_errors: errors() === 0 && run.transportErrors === 0,
  };
  process.stdout.write(
    table(
      `Soak: ${soakMinutes} min at ${rate} req/s (${SOAK_SHARE * 100} % of ${Math.round(capacityRps)}), webhooks on every event`,
      Object.entries(byKind).map(([k, s]) => [ROUTE[k as Kind], s]),
    ),
  );
  process.stdout.write(
    `RSS ${first.rss_mb} MB → ${last.rss_mb} MB; troughs ${earlyTrough} MB (first third) → ${lateTrough} MB (last third), ${rssGrowth === null ? 'n/a' : `${(rssGrowth * 100).toFixed(1)} %`}; largest process ${Math.max(...samples.map((s) => s.rss_max_process_mb ?? 0))} MB; webhook backlog early peak ${earlyPeak}, late peak ${latePeak}, drained ${left === 0 ? `in ${drainedMs} ms` : `NOT (${left} left)`}; errors ${errors() + run.transportErrors}\n`,
  );
  process.stdout.write(`Verdict: ${JSON.stringify(verdict)}\n`);
  return {
    minutes: soakMinutes,
    rate_rps: rate,
    capacity_rps: Math.round(capacityRps),
    rss_start_mb: first.rss_mb,
    rss_end_mb: last.rss_mb,
    rss_early_trough_mb: earlyTrough,
    rss_late_trough_mb: lateTrough,
    rss_max_process_mb: Math.max(...samples.map((s) => s.rss_max_process_mb ?? 0)),
    rss_growth_pct: rssGrowth === null ? null : Math.round(rssGrowth * 1000) / 10,
    backlog_early_peak: earlyPeak,
    backlog_late_peak: latePeak,
    backlog_left: left,
    drained_ms: drainedMs,
    errors: errors() + run.transportErrors,
    endpoints: byKind,
    samples,
    verdict,
  };
}

async function main(): Promise<void> {
  const config = loadConfig();
  const serverUrl = config.databaseUrl;
  if (!serverUrl) {
    throw new CliError(
      EXIT.config,
      'DATABASE_URL must name a PostgreSQL server (a throwaway database is created on it and dropped afterwards): ' +
        'the embedded PGlite is single-process and not what runs under load. Example: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:load',
    );
  }
  const work = mkdtempSync(join(tmpdir(), 'aisle-bench-load-'));
  const catalogUri = values['catalog-uri'] ?? join(work, 'catalog');
  const undo: Array<() => Promise<unknown>> = [() => rm(work, { recursive: true, force: true })];
  const undoAll = async (): Promise<void> => {
    for (const step of undo.reverse()) await step().catch((err: unknown) => process.stderr.write(`cleanup failed: ${String(err)}\n`));
  };
  const stopWatching = cleanUpOnSignal(undoAll);
  try {
    const source = await ensureCatalog(catalogUri, join(work, 'models'));
    const db = await createBenchDatabase(serverUrl);
    undo.push(() => db.drop());
    const profileDir = values['profile-dir'] ?? join(work, 'profile');
    const server = await startServerProcess(
      {
        DATABASE_URL: db.url,
        AISLE_DATA_DIR: work,
        AISLE_CATALOG_URI: catalogUri,
        AISLE_SAMPLE_CATALOG: 'false',
        AISLE_WEBHOOK_ALLOW_PRIVATE: 'true',
        AISLE_DEFAULT_RATE_LIMIT: '1000000',
        // --profile: V8's sampling profiler in the server; only the searches-alone phase is counted.
      },
      values.profile ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {},
    );
    undo.push(() => server.close());
    const headers = { 'x-api-key': server.adminKey, 'content-type': 'application/json' };
    const { key } = await json<{ key: string }>(
      await fetch(`${server.url}/v1/keys`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench', rate_limit_per_minute: 1_000_000 }) }),
    );
    const receiver = soakMinutes === null ? null : await startReceiver();
    if (receiver) {
      undo.push(() => receiver.close());
      await json(
        await fetch(`${server.url}/v1/webhooks`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ url: receiver.url, events: ['search', 'click', 'feedback', 'conversion'] }),
        }),
      );
    }
    const queries = await queryTexts();
    const pools = new Pools(queries);
    const info = await json<{ status: string }>(await fetch(`${server.url}/readyz`));
    const processes = server.rss()?.perProcessBytes.length ?? 1;
    const apiProcesses = processes > 1 ? processes - 1 : 1;
    process.stdout.write(
      `Server: src/main.ts (pid ${server.pid}) on PostgreSQL (${info.status}), ${apiProcesses} API process${apiProcesses === 1 ? '' : 'es'}` +
        `${processes > 1 ? ' under a node:cluster primary' : ''} (AISLE_API_PROCESSES or one per core: ${config.apiProcesses}), catalog ${source}, ${queries.length} distinct queries cycled\n`,
    );

    // The floor, measured first while the server idles (its own start-up work done: it answered /readyz).
    let floor: Floor | null = null;
    if (soakMinutes === null) {
      floor = await measureFloor(catalogUri, join(work, 'models'), queries);
      process.stdout.write(
        `Floor: each piece of a search's native work alone, one at a time, in the bench process (tools/bench/floor.ts)\n${formatTable(
          ['piece', 'CPU ms per call', 'p50 ms', 'calls'],
          [
            ['query embedding (use-lite, onnxruntime-node)', String(floor.embed.cpu_ms), String(floor.embed.p50_ms), String(floor.embed.calls)],
            ['vector lookup (LanceDB, ids and distances)', String(floor.vector.cpu_ms), String(floor.vector.p50_ms), String(floor.vector.calls)],
            ['full-text lookup (LanceDB, ids and scores)', String(floor.text.cpu_ms), String(floor.text.p50_ms), String(floor.text.calls)],
            ['sum: the least CPU a search takes', String(floor.cpu_ms_per_search), '', ''],
          ],
        )}\n  → at most ${floor.searches_per_core_s} searches/s per core\n`,
      );
    }

    // Warm-up, not reported: JIT, the pool, and impressions for the first clicks.
    await phase(server, key, pools, 'warm-up (not reported)', MIXED, 5);
    if (soakMinutes === null) {
      const healthz = await phase(server, key, pools, 'GET /healthz alone (bare Fastify route)', ['healthz'], duration);
      const searchWindow = { fromMs: Date.now(), toMs: 0 };
      const search = await phase(server, key, pools, 'POST /v1/search alone', ['search'], duration);
      searchWindow.toMs = Date.now();
      const mixed = await phase(server, key, pools, 'Mixed 70 % search / 20 % click / 10 % feedback', MIXED, duration);
      const single = await phase(server, key, pools, 'POST /v1/search, one client', ['search'], Math.min(duration, 10), { connections: 1 });
      const ratio = search.byKind.search!.rps / healthz.byKind.healthz!.rps;
      process.stdout.write(`search/healthz throughput ratio ${ratio.toFixed(4)}; ${pools.duplicateClicks} clicks reused an impression (duplicates, 200)\n`);
      // Against the floor: CPU per search (the server's own, then with PostgreSQL's share), and
      // searches per busy core, each over what the floor's pieces alone need.
      const vsFloor =
        floor && search.cpu
          ? {
              server_cpu_ratio: Math.round((search.cpu.server_ms_per_request / floor.cpu_ms_per_search) * 100) / 100,
              server_and_postgres_cpu_ratio:
                search.cpu.postgres_ms_per_request === null
                  ? null
                  : Math.round(((search.cpu.server_ms_per_request + search.cpu.postgres_ms_per_request) / floor.cpu_ms_per_search) * 100) / 100,
              searches_per_busy_core: Math.round((search.byKind.search!.rps / Math.max(0.01, search.cpu.server_cores)) * 10) / 10,
            }
          : null;
      if (vsFloor && floor) {
        process.stdout.write(
          `Against the floor: ${search.cpu!.server_ms_per_request} ms of server CPU per search is ${vsFloor.server_cpu_ratio}× the floor's ${floor.cpu_ms_per_search} ms` +
            `${vsFloor.server_and_postgres_cpu_ratio === null ? '' : ` (${vsFloor.server_and_postgres_cpu_ratio}× with PostgreSQL's share)`}; ` +
            `${vsFloor.searches_per_busy_core} searches/s per busy server core against ${floor.searches_per_core_s} for the floor\n`,
        );
      }
      let profile: ReturnType<typeof summarizeProfiles> | null = null;
      if (values.profile) {
        await server.close();
        profile = summarizeProfiles(profileDir, { ...searchWindow, exitedAtMs: server.exitedAt()! });
        const perSearch = (ms: number) => (ms / search.byKind.search!.requests).toFixed(2);
        process.stdout.write(
          `Server JavaScript thread during searches alone (V8 sampling profile, self time):\n${formatTable(
            ['category', 'ms', 'share of busy', 'ms per search'],
            profile.map((p) => [p.category, String(p.ms), Number.isNaN(p.share) ? '' : `${p.share} %`, perSearch(p.ms)]),
          )}\n`,
        );
      }
      process.stdout.write(
        `BENCH_JSON ${JSON.stringify({ bench: 'load', catalog: source, db: 'postgres', connections, duration_s: duration, healthz: healthz.byKind.healthz, search_only: search.byKind.search, single_client: single.byKind.search, mixed: mixed.byKind, api_processes: apiProcesses, floor, vs_floor: vsFloor, rss_peak_mb: { search: search.rss_peak_mb, mixed: mixed.rss_peak_mb }, search_to_healthz_ratio: Math.round(ratio * 10_000) / 10_000, duplicate_clicks: pools.duplicateClicks, transport_errors: healthz.transportErrors + search.transportErrors + mixed.transportErrors + single.transportErrors, loadavg: { healthz: healthz.loadavg, search: search.loadavg, mixed: mixed.loadavg }, server_cpu: { healthz: healthz.cpu, search: search.cpu, mixed: mixed.cpu, single: single.cpu }, ...(profile ? { search_profile: profile } : {}) })}\n`,
      );
    } else {
      const capacity = await phase(server, key, pools, 'Capacity (mixed, full speed)', MIXED, duration);
      const rps = Object.values(capacity.byKind).reduce((n, s) => n + s.rps, 0);
      const result = await soak(server, key, pools, db.url, rps);
      process.stdout.write(
        `BENCH_JSON ${JSON.stringify({ bench: 'soak', catalog: source, db: 'postgres', connections, ...result, samples: result.samples, webhooks_received: receiver!.received() })}\n`,
      );
    }
  } finally {
    stopWatching();
    await undoAll();
  }
}

await cli.run(main);
