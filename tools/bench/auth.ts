/**
 * What does authentication + the database-backed rate limiter cost? Compares throughput of the
 * public GET /healthz with the authenticated GET /v1/keys?limit=1 on the same server, in the same
 * run, and reports auth_rps / healthz_rps.
 *
 * Note the authenticated figure also contains the list handler's own work (one SELECT and the
 * response serialisation), so the ratio is an upper bound on the price of auth + rate limiting.
 *
 *   npm run bench:auth -- [--duration 5] [--connections 10] [--rounds 3] [--warmup 2]
 *   DATABASE_URL=postgres://... npm run bench:auth      # Postgres instead of PGlite
 */
// First, so that the command line is checked before anything else loads (auth.command.ts).

import { cpus } from 'node:os';
import { loadConfig } from '../../src/config.js';
import { cli } from './auth.command.js';
import { type BenchServer, cleanUpOnSignal, createBenchKey, formatTable, type LoadResult, median, round, runLoadChecked, startBenchServer } from './lib.js';

/** High enough that GCRA never refuses during the bench: that would measure 429s, not auth. */
const BENCH_RATE_LIMIT_PER_MINUTE = 1_000_000;

interface BenchOptions {
  durationSeconds: number;
  connections: number;
  rounds: number;
  warmupSeconds: number;
}

interface Endpoint {
  name: 'healthz' | 'auth';
  path: string;
  headers: Record<string, string>;
}

interface EndpointSummary {
  name: Endpoint['name'];
  path: string;
  rps: number;
  p50: number;
  p99: number;
  /** Database statements per request: 0 for healthz, the auth path's round trips otherwise. */
  queriesPerRequest: number;
  rounds: LoadResult[];
}

const options: BenchOptions = {
  durationSeconds: cli.number('duration', { positive: true, default: 5 }),
  connections: cli.number('connections', { integer: true, positive: true, default: 10 }),
  rounds: cli.number('rounds', { integer: true, positive: true, default: 3 }),
  warmupSeconds: cli.number('warmup', { positive: true, default: 2 }),
};

/**
 * One request per endpoint before any load: a wrong key or a missing route fails here in
 * milliseconds, and the ratelimit header proves the limiter really ran on the auth path.
 */
async function probe(server: BenchServer, endpoints: readonly Endpoint[]): Promise<void> {
  for (const endpoint of endpoints) {
    const res = await fetch(server.url + endpoint.path, { headers: endpoint.headers });
    const body = await res.text();
    if (!res.ok) throw new Error(`probe ${endpoint.path}: ${res.status} ${body}`);
    if (endpoint.name === 'auth' && !res.headers.has('ratelimit')) {
      throw new Error(`probe ${endpoint.path}: no ratelimit header, so the rate limiter did not run`);
    }
  }
}

function perRequest(tally: { statements: number; requests: number } | undefined): number {
  return tally !== undefined && tally.requests > 0 ? tally.statements / tally.requests : 0;
}

async function measure(server: BenchServer, endpoints: readonly Endpoint[], options: BenchOptions): Promise<EndpointSummary[]> {
  const results = new Map<Endpoint['name'], LoadResult[]>(endpoints.map((e) => [e.name, []]));
  const queries = new Map<Endpoint['name'], { statements: number; requests: number }>(endpoints.map((e) => [e.name, { statements: 0, requests: 0 }]));
  async function load(endpoint: Endpoint, durationSeconds: number, label: string): Promise<LoadResult> {
    // Only one endpoint is loaded at a time, so the statement count delta belongs to it.
    const before = server.db.queryCount;
    const result = await runLoadChecked({
      url: server.url + endpoint.path,
      headers: endpoint.headers,
      connections: options.connections,
      durationSeconds,
      label,
    });
    const tally = queries.get(endpoint.name);
    if (tally) {
      tally.statements += server.db.queryCount - before;
      tally.requests += result.requests;
    }
    return result;
  }

  // Warm-up: JIT, connection pools, the key's row in cache; not recorded.
  for (const endpoint of endpoints) {
    process.stderr.write(`warm-up ${endpoint.name} ${options.warmupSeconds}s\n`);
    await load(endpoint, options.warmupSeconds, `warm-up ${endpoint.name}`);
  }

  for (let round = 0; round < options.rounds; round++) {
    // ABBA order: whichever endpoint runs second in a round no longer always gets the warmer
    // (or more throttled) machine.
    const order = round % 2 === 0 ? endpoints : [...endpoints].reverse();
    for (const endpoint of order) {
      process.stderr.write(`round ${round + 1}/${options.rounds} ${endpoint.name} ${options.durationSeconds}s\n`);
      const result = await load(endpoint, options.durationSeconds, `round ${round + 1} ${endpoint.name}`);
      results.get(endpoint.name)?.push(result);
    }
  }

  return endpoints.map((endpoint) => {
    const rounds = results.get(endpoint.name) ?? [];
    return {
      name: endpoint.name,
      path: endpoint.path,
      rps: median(rounds.map((r) => r.rps)),
      p50: median(rounds.map((r) => r.p50)),
      p99: median(rounds.map((r) => r.p99)),
      queriesPerRequest: perRequest(queries.get(endpoint.name)),
      rounds,
    };
  });
}

function report(server: BenchServer, options: BenchOptions, summaries: readonly EndpointSummary[]): void {
  const healthz = summaries.find((s) => s.name === 'healthz');
  const auth = summaries.find((s) => s.name === 'auth');
  if (healthz === undefined || auth === undefined) throw new Error('missing endpoint results');

  const ratio = auth.rps / healthz.rps;
  // Per-round ratios show how much of the headline ratio is noise.
  const roundRatios = auth.rounds.map((r, i) => r.rps / (healthz.rounds[i]?.rps ?? Number.NaN));
  // Extra server time per request, valid while the server (not the client) is the bottleneck.
  const addedMicros = (1 / auth.rps - 1 / healthz.rps) * 1e6;

  // autocannon's histogram counts whole milliseconds, so a fast endpoint's p50 reads 0; the mean
  // from Little's law (connections / throughput, closed loop) keeps sub-millisecond precision.
  const meanMs = (s: EndpointSummary) => (options.connections / s.rps) * 1000;
  const ms = (v: number) => (v === 0 ? '<1' : String(v));
  const table = formatTable(
    ['endpoint', 'req/s', 'p50 ms', 'p99 ms', 'mean ms', 'db stmts/req'],
    summaries.map((s) => [`${s.name} (${s.path})`, s.rps.toFixed(0), ms(s.p50), ms(s.p99), meanMs(s).toFixed(2), s.queriesPerRequest.toFixed(2)]),
  );
  process.stdout.write(
    [
      '',
      `Aisle auth bench: ${options.rounds} round(s) x ${options.durationSeconds}s, ${options.connections} connections, database ${server.dbKind}`,
      `(medians over rounds; p50/p99 have 1 ms resolution, mean = connections / req/s)`,
      '',
      table,
      '',
      `ratio auth_rps / healthz_rps = ${ratio.toFixed(3)}  (per round: ${roundRatios.map((r) => r.toFixed(3)).join(', ')})`,
      `added server time per authenticated request ~ ${addedMicros.toFixed(0)} us`,
      `database: ${server.dbKind}`,
      '',
    ].join('\n'),
  );

  const json = {
    bench: 'auth',
    db: server.dbKind,
    node: process.version,
    cpus: cpus().length,
    options,
    ratio: round(ratio, 4),
    round_ratios: roundRatios.map((r) => round(r, 4)),
    added_us_per_request: round(addedMicros, 1),
    endpoints: Object.fromEntries(
      summaries.map((s) => [
        s.name,
        {
          path: s.path,
          rps: round(s.rps, 1),
          p50_ms: s.p50,
          p99_ms: s.p99,
          mean_ms: round(meanMs(s), 3),
          db_statements_per_request: round(s.queriesPerRequest, 2),
          rounds_rps: s.rounds.map((r) => round(r.rps, 1)),
        },
      ]),
    ),
  };
  process.stdout.write(`BENCH_JSON ${JSON.stringify(json)}\n`);
}

async function main(): Promise<void> {
  const server = await startBenchServer({ databaseUrl: loadConfig().databaseUrl, logLevel: 'warn' });

  // Ctrl-C mid-run should still release the PGlite lock and delete the temp dir.
  const stopWatching = cleanUpOnSignal(() => server.close());

  try {
    const key = await createBenchKey(server.core, BENCH_RATE_LIMIT_PER_MINUTE);
    const endpoints: Endpoint[] = [
      { name: 'healthz', path: '/healthz', headers: {} },
      { name: 'auth', path: '/v1/keys?limit=1', headers: { 'x-api-key': key } },
    ];
    await probe(server, endpoints);
    const summaries = await measure(server, endpoints, options);
    // The limiter lets requests through when its store fails; such a run would flatter auth.
    if (server.core.rateLimiter.failures > 0) {
      throw new Error(`rate limiter store failed ${server.core.rateLimiter.failures} time(s) during the bench; figures are not valid`);
    }
    report(server, options, summaries);
  } finally {
    stopWatching();
    await server.close();
  }
}

await cli.run(main);
