/**
 * Shared pieces for the HTTP benchmarks in tools/bench: a real Aisle server on a real database,
 * an autocannon run reduced to the figures we compare, and small statistics helpers.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import type { FastifyInstance } from 'fastify';
import type { CatalogStore } from '../../src/core/catalog/ports.js';
import { systemClock } from '../../src/core/clock.js';
import { type Core, type CoreDeps, createCore } from '../../src/core/index.js';
import type { Embedder } from '../../src/core/shared-ports.js';
import { buildApp } from '../../src/http/app.js';
import type { RouteEntry } from '../../src/http/route-table.js';
import { loadTaxonomy } from '../../src/knowledge/files.js';
import { createLogger } from '../../src/logger.js';
import { createPgStores, type Db, type DbTarget, migrate, openDb } from '../../src/store/pg/index.js';

export interface BenchServer {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:41234 */
  url: string;
  app: FastifyInstance;
  /** Every route the app registered (src/http/route-table.ts), for benches that must cover them all. */
  routes: readonly RouteEntry[];
  core: Core;
  db: Db;
  dbKind: Db['kind'];
  /** Closes the app, then the database, then removes the temporary data dir. Safe to call twice. */
  close(): Promise<void>;
}

export interface BenchServerOptions {
  /** Postgres URL; PGlite in a fresh temporary directory when absent. */
  databaseUrl?: string | undefined;
  /** Defaults to 'warn': per-request log lines would be part of what we measure. */
  logLevel?: string;
  /** The server default for new keys; benches create their own keys with explicit limits. */
  defaultRateLimitPerMinute?: number;
  /** A catalog and its embedder, for benches that search; a catalog alone serves click destinations. */
  search?: { catalog: CatalogStore; embedder?: Embedder };
  /** Request-log settings (on, as in production, unless given). */
  requestLog?: CoreDeps['requestLog'];
  /** Per-query learning (on unless false, as in the server). */
  learning?: boolean;
  /** Global learning's settings (the server's defaults unless given). */
  rankingLearning?: CoreDeps['rankingLearning'];
}

/**
 * Starts the real app the way main.ts does (same core, stores and logger, system clock), listening
 * on 127.0.0.1 with an ephemeral port so several benches or a dev server never collide.
 */
export async function startBenchServer(options: BenchServerOptions = {}): Promise<BenchServer> {
  // Everything opened so far, undone in reverse if a later step fails, so a half-started bench
  // never leaves a locked PGlite dir or a pool behind.
  const undo: Array<() => Promise<void>> = [];
  async function unwind(): Promise<void> {
    for (const step of undo.splice(0).reverse()) {
      await step().catch((err: unknown) => process.stderr.write(`bench cleanup step failed: ${String(err)}\n`));
    }
  }

  try {
    let target: DbTarget;
    if (options.databaseUrl) {
      // Seeding writes up to millions of rows in one statement (bench:analytics) and VACUUMs them,
      // past the request path's 10 s statement bound; the bounds are not what a benchmark measures.
      target = { kind: 'postgres', url: options.databaseUrl, timeouts: { statementMs: 0 } };
    } else {
      const dataDir = await mkdtemp(join(tmpdir(), 'aisle-bench-'));
      undo.push(() => rm(dataDir, { recursive: true, force: true }));
      target = { kind: 'pglite', dataDir };
    }
    const db = await openDb(target);
    undo.push(() => db.close());
    await migrate(db);

    const logger = createLogger(options.logLevel ?? 'warn');
    const core = createCore({
      stores: createPgStores(db),
      clock: systemClock,
      logger,
      defaultRateLimitPerMinute: options.defaultRateLimitPerMinute ?? 600,
      // Filters and policies read the taxonomy, as the runtime gives it.
      taxonomy: await loadTaxonomy(),
      ...(options.search ?? {}),
      ...(options.requestLog ? { requestLog: options.requestLog } : {}),
      ...(options.learning === false ? { learning: false } : {}),
      ...(options.rankingLearning ? { rankingLearning: options.rankingLearning } : {}),
    });
    const { app, routes } = await buildApp({ core, logger });
    undo.push(() => app.close());
    await app.listen({ host: '127.0.0.1', port: 0 });

    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error(`unexpected listen address: ${String(address)}`);
    return { url: `http://127.0.0.1:${address.port}`, app, routes, core, db, dbKind: db.kind, close: unwind };
  } catch (err) {
    await unwind();
    throw err;
  }
}

/**
 * A fresh account plus a key with the given rate limit; returns the key's secret.
 * The account's first key only serves to authorise creating the bench key: going through
 * core.auth gives us its principal exactly as the HTTP layer would see it.
 */
export async function createBenchKey(core: Core, rateLimitPerMinute: number, name = 'bench'): Promise<string> {
  const { firstKey } = await core.accounts.create(name);
  const auth = await core.auth.authenticate(firstKey.key);
  if (!auth.ok) throw new Error(`the new account's first key does not authenticate: ${auth.reason}`);
  const created = await core.keys.create(auth.principal, { name, rate_limit_per_minute: rateLimitPerMinute });
  return created.key;
}

export interface LoadOptions {
  /** Full URL including path and query. */
  url: string;
  durationSeconds: number;
  connections: number;
  headers?: Record<string, string>;
  /** POST these bodies (JSON text), cycling through them; GET when absent. */
  bodies?: readonly string[];
  /** Shown in error messages. */
  label?: string;
}

export interface LoadResult {
  /** Completed requests per second over the run. */
  rps: number;
  /** Latency percentiles in ms; autocannon's histogram has 1 ms resolution. */
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  /** Count per status code, to say what the non-2xx answers were. */
  statusCodes: Record<string, number>;
}

/**
 * Runs autocannon against one URL for a fixed time. The load generator runs in a worker thread
 * (autocannon's `workers: 1`): in our own thread its per-request cost would be added to every
 * endpoint alike and squash the ratios we want towards 1.
 */
async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationSeconds,
    headers: options.headers ?? {},
    ...(options.bodies
      ? {
          requests: options.bodies.map((body) => ({
            method: 'POST' as const,
            body,
            headers: { 'content-type': 'application/json', ...(options.headers ?? {}) },
          })),
        }
      : {}),
    workers: 1,
  });
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stat.count ?? 0;
  return {
    rps: result.duration > 0 ? result.requests.total / result.duration : 0,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
  };
}

/** Throws unless every request completed with a 2xx: a bench of error answers measures nothing. */
function assertAllOk(result: LoadResult, label: string): void {
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0 || result.requests === 0) {
    throw new Error(
      `${label}: ${result.requests} requests, ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts ` +
        `(status codes ${JSON.stringify(result.statusCodes)})`,
    );
  }
}

/** runLoad followed by assertAllOk. */
export async function runLoadChecked(options: LoadOptions): Promise<LoadResult> {
  const result = await runLoad(options);
  assertAllOk(result, options.label ?? options.url);
  return result;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const upper = sorted[mid] as number;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] as number) + upper) / 2;
}

/** Nearest-rank percentile `p` (0–100) of `values`; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

/** Rounds for display and JSON: benchmark noise makes more digits meaningless. */
export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Left-aligned first column, right-aligned others: enough for a few rows of figures. */
export function formatTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/**
 * Runs `cleanup` and exits 130 when Ctrl-C or SIGTERM stops a bench: a signal ends the process
 * without running its `finally`, and a bench holds temporary folders, servers it started and
 * throwaway databases. Returns what removes the handlers, for that `finally` to call first.
 */
export function cleanUpOnSignal(cleanup: () => Promise<unknown>): () => void {
  const onSignal = (): void => {
    void cleanup()
      .catch((err: unknown) => process.stderr.write(`cleanup failed: ${String(err)}\n`))
      .finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
