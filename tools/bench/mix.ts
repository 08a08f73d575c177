/**
 * A mixed HTTP workload on autocannon with latency per endpoint: each connection cycles through a
 * sequence of request kinds (7 searches, 2 clicks, 1 feedback for the load test), clicks and
 * feedback use the impressions and results of searches answered earlier in the run, and every
 * response is timed and classified by kind. autocannon runs in this thread because it calls our
 * functions per request; the server is another process, so the two never share a thread.
 */
import autocannon from 'autocannon';
import { percentile } from './lib.js';

export type Kind = 'healthz' | 'search' | 'click' | 'feedback';
/** The load test's 70 / 20 / 10, interleaved so no kind arrives in bursts. */
export const MIXED: readonly Kind[] = ['search', 'click', 'search', 'search', 'feedback', 'search', 'click', 'search', 'search', 'search'];

/** What clicks and feedback act on, refilled by every search answered. */
export class Pools {
  private readonly impressions: string[] = [];
  private readonly clicked: string[] = [];
  private readonly results: Array<{ requestId: string; productId: string }> = [];
  private nextQuery = 0;
  duplicateClicks = 0;

  constructor(
    private readonly queries: readonly string[],
    private readonly cap = 50_000,
  ) {}

  query(): string {
    return this.queries[this.nextQuery++ % this.queries.length]!;
  }

  /** Takes in a search response: its impressions become clickable, one result gets feedback. */
  addSearch(body: string): void {
    const json = JSON.parse(body) as { request_id: string; results: { impression_id: string; product_id: string }[] };
    for (const r of json.results) this.impressions.push(r.impression_id);
    const pick = json.results[Math.floor(Math.random() * json.results.length)];
    if (pick) this.results.push({ requestId: json.request_id, productId: pick.product_id });
    if (this.impressions.length > this.cap) this.impressions.splice(0, this.impressions.length - this.cap);
    if (this.results.length > this.cap) this.results.splice(0, this.results.length - this.cap);
  }

  /** The newest unclicked impression; when none is left, one already clicked (a duplicate, 200). */
  impression(): string | undefined {
    const id = this.impressions.pop();
    if (id !== undefined) {
      this.clicked.push(id);
      if (this.clicked.length > this.cap) this.clicked.shift();
      return id;
    }
    this.duplicateClicks += 1;
    return this.clicked[Math.floor(Math.random() * this.clicked.length)];
  }

  result(): { requestId: string; productId: string } | undefined {
    return this.results.pop() ?? this.results[0];
  }

  get size(): { impressions: number; results: number } {
    return { impressions: this.impressions.length, results: this.results.length };
  }
}

export interface KindStats {
  latencies: number[];
  statuses: Record<string, number>;
  /** Answers other than the kind's expected statuses. */
  errors: number;
}

export interface MixResult {
  seconds: number;
  byKind: Partial<Record<Kind, KindStats>>;
  /** Connection errors and timeouts (autocannon). */
  transportErrors: number;
}

const EXPECTED: Record<Kind, readonly number[]> = { healthz: [200], search: [200], click: [201, 200], feedback: [201] };

export interface MixOptions {
  baseUrl: string;
  key: string;
  sequence: readonly Kind[];
  seconds: number;
  connections: number;
  pools: Pools;
  /** Total requests per second across connections (soak); unlimited when absent. */
  overallRate?: number;
  /** Live statistics, e.g. for sampling errors during a soak. */
  stats?: Partial<Record<Kind, KindStats>>;
}

function build(kind: Kind, key: string, pools: Pools): autocannon.Request {
  const auth = { 'x-api-key': key };
  switch (kind) {
    case 'healthz':
      return { method: 'GET', path: '/healthz' };
    case 'search':
      return {
        method: 'POST',
        path: '/v1/search',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query: pools.query(), limit: 10 }),
      };
    case 'click':
      return { method: 'POST', path: `/v1/clicks/${pools.impression() ?? '00000000-0000-4000-8000-000000000000'}`, headers: auth };
    case 'feedback': {
      const r = pools.result();
      const body = { request_id: r?.requestId ?? '00000000-0000-4000-8000-000000000000', product_id: r?.productId ?? 'none', relevant: Math.random() < 0.7 };
      return { method: 'POST', path: '/v1/feedback', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) };
    }
  }
}

/** Runs the sequence on every connection for `seconds`; resolves with per-kind latencies and statuses. */
export async function runMix(options: MixOptions): Promise<MixResult> {
  const byKind = options.stats ?? {};
  for (const kind of new Set(options.sequence)) byKind[kind] ??= { latencies: [], statuses: {}, errors: 0 };
  // autocannon hands each connection one context object; it carries the send time to the answer.
  const requests: autocannon.Request[] = options.sequence.map((kind) => ({
    setupRequest: (req: autocannon.Request, context: object) => {
      (context as { sentAt?: number }).sentAt = performance.now();
      return { ...req, ...build(kind, options.key, options.pools) };
    },
    onResponse: (status: number, body: string, context: object) => {
      const stats = byKind[kind]!;
      stats.latencies.push(performance.now() - (context as { sentAt: number }).sentAt);
      stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
      if (!EXPECTED[kind].includes(status)) stats.errors += 1;
      else if (kind === 'search') options.pools.addSearch(body);
    },
  }));
  const result = await autocannon({
    url: options.baseUrl,
    connections: options.connections,
    duration: options.seconds,
    requests,
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
  });
  return { seconds: result.duration, byKind, transportErrors: result.errors + result.timeouts };
}

export interface KindSummary {
  requests: number;
  rps: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  errors: number;
  statuses: Record<string, number>;
}

export function summarize(stats: KindStats, seconds: number): KindSummary {
  const r = (x: number) => Math.round(x * 100) / 100;
  const xs = stats.latencies;
  return {
    requests: xs.length,
    rps: r(xs.length / seconds),
    p50_ms: r(percentile(xs, 50)),
    p95_ms: r(percentile(xs, 95)),
    p99_ms: r(percentile(xs, 99)),
    errors: stats.errors,
    statuses: stats.statuses,
  };
}
