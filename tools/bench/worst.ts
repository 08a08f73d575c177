/**
 * The most expensive valid request of each kind, beside a typical one of the same kind:
 *
 *   npm run bench:worst -- [--catalog-uri DIR] [--sample] [--rounds 3] [--only search,mcp] [--trace]
 *
 * For every route the app registers (its route table) and every tool POST /mcp lists, a typical
 * request and the largest valid ones: longest texts, most conversation turns, most excluded ids,
 * every filter at its longest, the largest batch, list limit 100, the longest date range, ten ids
 * per display receipt, and so on (the limits are the zod schemas' in src/core/schemas). A route
 * or tool with no request kind here prints a "not covered" row rather than passing unseen.
 *
 * How it measures. The server runs in this process (startBenchServer: PGlite in a temporary
 * directory, or a database of its own on DATABASE_URL's server) and the client in a child
 * process, so `process.cpuUsage()` around a batch of sequential requests is the server's CPU
 * alone: every thread of it (the embedding thread, LanceDB's, PGlite's WebAssembly on the main
 * thread) and nothing of the client's. On PostgreSQL the database's own processes are not counted.
 * The request log is flushed inside each batch, so its writes count for the requests that made them.
 * - CPU ms per request: the batch's CPU over its requests; median over the rounds.
 * - Event-loop block: the main thread's own CPU time between two ticks of a 5 ms timer (see
 *   BlockMeter), the largest in any round; beside it the wall-clock delay (monitorEventLoopDelay),
 *   which on a shared machine also counts the time the OS ran other processes.
 * - Memory: JavaScript heap allocated per request (V8's GC profiler: the rise in use plus what
 *   collections freed meanwhile) and the largest rise of RSS during the batch; medians.
 * A warm-up pass runs every request kind once (JIT, caches, analytics rollups) before the rounds;
 * within a round each kind's typical and worst batches run back to back, so drift on a shared
 * machine hits both alike. Every search text is new (dev queries not searched before; worst
 * requests of fresh made-up words), so neither the embedding cache nor the spelling cache answers.
 *
 * Targets (docs/benchmarks.md#the-most-expensive-request-of-each-kind): no request costs more
 * than 10× the CPU of a typical one of its kind, no search more than 3× a plain search, and none
 * blocks the event loop for more than 50 ms.
 *
 * The search rows run on the Home Depot catalog (../shared; built once into
 * .bench/homedepot-catalog, or `--catalog-uri DIR`) because its vocabulary sets the cost of
 * spelling correction; without it, or with `--sample`, on data/sample-catalog.jsonl.
 * Seeded first: a year of searches, impressions, clicks, conversions and request-log rows (bulk
 * SQL), a hundred searches with clicks, conversions, feedback votes and display receipts through
 * the API, 100 keys for the key list, 20 webhooks and 1,000 deliveries for the webhook lists.
 * `--only` runs the rows whose route or tool contains one of the words; `--trace` prints each
 * batch's wall time. Exits 1 when a request answers other than it should (the row says FAILED);
 * a request over its target is a finding, printed as OVER, not a failure of the bench.
 */
// First, so that the command line is checked before anything else loads (worst.command.ts).
import { cli } from './worst.command.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { importCatalog } from '../../src/core/catalog/import.js';
import { consoleAssets } from '../../src/console/assets.js';
import { prefixedId } from '../../src/core/ids.js';
import { mulberry32 } from '../../src/core/random.js';
import { SCOPES } from '../../src/core/keys/scopes.js';
import type { Principal } from '../../src/core/shared-ports.js';
import { SearchRequestSchema, type SearchResponse } from '../../src/core/schemas/search.js';
import { EVENT_TYPES } from '../../src/core/webhooks/event-types.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { DEFAULT_BODY_LIMIT } from '../../src/http/app.js';
import { SESSION_COOKIE, CSRF_HEADER } from '../../src/http/auth.js';
import { readFeed } from '../../src/catalog-files/detect.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { createBenchDatabase, ensureCatalog } from './deployment.js';
import { loadConfig } from '../../src/config.js';
import { readJsonLines } from '../../src/cli/files.js';
import { formatTable, median, round, startBenchServer, type BenchServer } from './lib.js';
import { seedActivity } from './seed.js';
import { sharedPath } from '../shared-data.js';
import { RETRIEVAL_DEPTH } from '../../src/core/ranking/retrieval.js';
import { REPO_ROOT as ROOT } from '../repo-root.js';

const { values } = cli;
const rounds = cli.number('rounds', { integer: true, positive: true, default: 3 });
/** Route or tool name fragments to run (the others print "skipped"); all when absent. */
const only =
  values.only
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean) ?? null;

/** The limits the bench reads from its targets; see the module comment. */
const MAX_RATIO = 10;
const MAX_SEARCH_RATIO = 3;
const MAX_BLOCK_MS = 50;

// ---------------------------------------------------------------------------------------------
// Request texts

/** Seeded, so every run sends the same texts. */
const random = mulberry32(8);

/**
 * A made-up word the catalog does not know: eight letters drawn from the eight commonest. Their
 * letter sets resemble many catalog words', so spelling correction rules out few candidates
 * before computing edit distances, and none is close enough to end the scan early: the costliest
 * unknown words found (docs/benchmarks.md#the-most-expensive-request-of-each-kind).
 */
function misspelt(): string {
  let w = '';
  for (let i = 0; i < 8; i++) w += 'etaoinsr'[Math.floor(random() * 8)];
  return w;
}

/** Made-up words up to `chars` characters. */
function words(chars: number): string {
  const out: string[] = [];
  let length = -1;
  while (length + 9 <= chars) {
    out.push(misspelt());
    length += 9;
  }
  return out.join(' ');
}

/** `count` made-up words: a short query (at most six terms, so conversation turns are added to it). */
const fewWords = (count: number) => Array.from({ length: count }, misspelt).join(' ');

/** A random printable string of exactly `chars` characters (an excluded product id at its longest). */
const longId = (chars: number) => Array.from({ length: chars }, () => 'abcdefghijklmnopqrstuvwxyz0123456789-'[Math.floor(random() * 37)]).join('');

/** Dev queries of the Home Depot set, each handed out once (new text: no embedding cache hit). */
class QueryTexts {
  private next = 0;
  constructor(private readonly texts: readonly string[]) {}
  take(): string {
    const text = this.texts[this.next++];
    if (text === undefined) throw new Error(`ran out of distinct queries after ${this.texts.length}`);
    return text;
  }
}

async function queryTexts(homeDepot: boolean): Promise<string[]> {
  const path = homeDepot ? sharedPath('data/eval/homedepot/queries_dev.jsonl') : null;
  if (path !== null) return [...new Set((await readJsonLines<{ query: string }>(path)).map((q) => q.query.trim()).filter(Boolean))];
  // The sample catalog's kinds of product, numbered so each text is new.
  const base = [
    'waterproof trail running shoes',
    'noise cancelling headphones',
    'cast iron skillet',
    'yoga mat',
    'espresso machine',
    'camping tent for two',
    'wireless phone charger',
    'ergonomic office chair',
  ];
  return Array.from({ length: 8000 }, (_, i) => `${base[i % base.length]} ${Math.floor(i / base.length) + 1}`);
}

// ---------------------------------------------------------------------------------------------
// Requests and the client process

interface Req {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** The answer must not contain this (an MCP tool error still answers 200). */
  failIf?: string;
}

const get = (path: string, headers: Record<string, string> = {}): Req => ({ method: 'GET', path, headers });
const send = (method: string, path: string, body: unknown, headers: Record<string, string> = {}): Req => ({
  method,
  path,
  headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
  ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
});
const withKey = (key: string) => ({ 'x-api-key': key });

/** The 2025 revision the worst-case calls speak: a call without `_meta`, so no initialize is needed (stateless). */
const MCP_2025_REVISION = '2025-11-25';

/** One JSON-RPC call per POST /mcp (stateless: no initialize needed, as a fresh server answers each POST). */
const mcpCall = (key: string, method: string, params: Record<string, unknown>): Req => ({
  ...send(
    'POST',
    '/mcp',
    { jsonrpc: '2.0', id: 1, method, params },
    { ...withKey(key), accept: 'application/json, text/event-stream', 'mcp-protocol-version': MCP_2025_REVISION },
  ),
  failIf: '"isError":true',
});
const mcpTool = (key: string, name: string, args: Record<string, unknown>) => mcpCall(key, 'tools/call', { name, arguments: args });

/**
 * The client: plain JavaScript in a child process, one request at a time, each answer read to
 * its last byte. It reports the status codes, the first answer of each status, and the first
 * answer that contains a request's `failIf`.
 */
const CLIENT = `
let reqs = [];
const base = process.argv[1];
process.on('message', async (m) => {
  if (m.type === 'load') { reqs = m.reqs; process.send({ type: 'loaded' }); return; }
  if (m.type === 'stop') { process.disconnect(); return; }
  try {
    const statuses = {}; const samples = {}; let failed = null;
    for (const r of reqs) {
      const res = await fetch(base + r.path, { method: r.method, headers: r.headers, body: r.body, redirect: 'manual' });
      const text = await res.text();
      statuses[res.status] = (statuses[res.status] || 0) + 1;
      if (!(res.status in samples)) samples[res.status] = text.slice(0, 800);
      if (failed === null && r.failIf && text.includes(r.failIf)) failed = text.slice(0, 800);
    }
    reqs = [];
    process.send({ type: 'done', statuses, samples, failed });
  } catch (err) {
    process.send({ type: 'error', message: String(err && err.stack || err) });
  }
});
`;

interface ClientResult {
  statuses: Record<string, number>;
  samples: Record<string, string>;
  failed: string | null;
}

class Client {
  private readonly child: ChildProcess;
  private waiting: { resolve(m: Record<string, unknown>): void; reject(e: Error): void } | null = null;

  constructor(baseUrl: string) {
    this.child = spawn(process.execPath, ['-e', CLIENT, baseUrl], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (m: Record<string, unknown>) => {
      const w = this.waiting;
      this.waiting = null;
      if (m.type === 'error') w?.reject(new Error(`client: ${String(m.message)}`));
      else w?.resolve(m);
    });
    this.child.on('exit', (code) => this.waiting?.reject(new Error(`the client process exited (${code})`)));
  }

  private ask(message: unknown): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.child.send(message as never);
    });
  }

  load(reqs: readonly Req[]): Promise<unknown> {
    return this.ask({ type: 'load', reqs });
  }

  async go(): Promise<ClientResult> {
    return (await this.ask({ type: 'go' })) as unknown as ClientResult;
  }

  close(): void {
    this.child.send({ type: 'stop' });
  }
}

// ---------------------------------------------------------------------------------------------
// Measurement

interface Sample {
  cpuMs: number;
  /** Longest stretch of the main thread's own CPU time between two timer ticks; null without /proc. */
  blockMs: number | null;
  /** Longest event-loop delay by the wall clock (monitorEventLoopDelay), time the OS ran others included. */
  delayMs: number;
  /** JavaScript heap allocated per request (main isolate): the rise in use plus what collections freed meanwhile. */
  allocMb: number;
  /** Largest rise of the process's RSS above its level at the start of the batch. */
  rssMb: number;
  statuses: Record<string, number>;
  samples: Record<string, string>;
  failed: string | null;
}

const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();

/** Nanoseconds the calling thread has run (Linux schedstat); null elsewhere. */
function threadRunNs(): number | null {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
  } catch {
    return null;
  }
}

/**
 * The event-loop block as the main thread's own CPU time between consecutive ticks of a 5 ms
 * timer: a tick that comes late because this thread ran something long shows that run; one that
 * comes late because the OS ran other processes (two cores shared by several jobs) does not. The
 * wall-clock delay is reported beside it. A sync read of /proc runs on the calling thread, so
 * `thread-self` is the event loop's.
 */
class BlockMeter {
  private timer: NodeJS.Timeout | null = null;
  private last: number | null = null;
  max = 0;

  start(): void {
    this.max = 0;
    this.last = threadRunNs();
    if (this.last === null) return;
    this.timer = setInterval(() => this.tick(), 5);
  }

  private tick(): void {
    const now = threadRunNs();
    if (now === null || this.last === null) return;
    this.max = Math.max(this.max, (now - this.last) / 1e6);
    this.last = now;
  }

  stop(): number | null {
    if (this.timer === null) return null;
    this.tick();
    clearInterval(this.timer);
    this.timer = null;
    return this.max;
  }
}

const blocks = new BlockMeter();

async function measure(server: BenchServer, client: Client, reqs: readonly Req[]): Promise<Sample> {
  await client.load(reqs);
  const rss0 = process.memoryUsage.rss();
  let peakRss = rss0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 10);
  const gcs = new GCProfiler();
  gcs.start();
  const heap0 = getHeapStatistics().used_heap_size;
  loopDelay.reset();
  blocks.start();
  const cpu0 = process.cpuUsage();
  const result = await client.go();
  await server.core.requestLog.flush();
  const cpu = process.cpuUsage(cpu0);
  const blockMs = blocks.stop();
  const delayMs = loopDelay.max / 1e6;
  const heap1 = getHeapStatistics().used_heap_size;
  const freed = gcs.stop().statistics.reduce((n, g) => n + Math.max(0, g.beforeGC.heapStatistics.usedHeapSize - g.afterGC.heapStatistics.usedHeapSize), 0);
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
  return {
    cpuMs: (cpu.user + cpu.system) / 1000 / reqs.length,
    blockMs,
    delayMs,
    allocMb: (heap1 - heap0 + freed) / reqs.length / 2 ** 20,
    rssMb: (peakRss - rss0) / 2 ** 20,
    statuses: result.statuses,
    samples: result.samples,
    failed: result.failed,
  };
}

// ---------------------------------------------------------------------------------------------
// Request kinds

interface Variant {
  label: string;
  /** Builds `n` requests (creating what they act on) outside the measured window. */
  build(n: number): Promise<Req[]>;
  /** Undoes what the batch created (keys, webhooks), outside the measured window. */
  cleanup?(): Promise<void>;
  /** Statuses that count as success; 2xx when absent. */
  ok?: (status: number) => boolean;
  /** A kind reported for what it answers (any status), not judged. */
  report?: boolean;
  /** Fewer requests per batch than the kind's (a batch of ten worst searches takes seconds). */
  reps?: number;
}

interface Kind {
  /** `METHOD /url` exactly as the route table has it. */
  route: string;
  /** MCP: the tool (or method) one POST /mcp calls. */
  tool?: string;
  reps: number;
  /** The CPU ratio allowed for its worst requests (search: 3, others 10). */
  maxRatio: number;
  typical: Variant;
  worst: Variant[];
  /** Divides the CPU of a row for its per-search cost beside a plain search (batch: 10). */
  perSearch?: number;
}

const v = (label: string, build: (n: number) => Req[] | Promise<Req[]>, extra: Partial<Variant> = {}): Variant => ({
  label,
  build: async (n) => build(n),
  ...extra,
});
const times = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

/** A fresh search result: an impression nobody has clicked or displayed yet, with its search. */
interface Shown {
  requestId: string;
  impressionId: string;
  productId: string;
  clickUrl: string;
}

interface Setup {
  server: BenchServer;
  queries: QueryTexts;
  /** Account A: searches, events, analytics, console, MCP. */
  keyA: string;
  principalA: Principal;
  /** Account K: key creation, rotation, deletion. */
  principalK: Principal;
  keyK: string;
  /** Account L: 100 keys to list. */
  keyL: string;
  /** Account T: two small webhooks; W: twenty at their largest, the first with 1,000 deliveries; W2: create and delete. */
  keyT: string;
  principalT: Principal;
  keyW: string;
  principalW: Principal;
  keyW2: string;
  principalW2: Principal;
  webhooksT: string[];
  webhooksW: string[];
  consoleCookie(): Promise<{ cookie: string; csrf: string }>;
  shown(n: number): Promise<Shown[]>;
  clicks(n: number): Promise<{ clickId: string; impressionId: string }[]>;
  bodyLimit(route: string): number;
  /** Whether the catalog's products have URLs (GET /r/ redirects to them). */
  productUrls: boolean;
}

/** The search request at its largest (see `misspelt`); `shortQuery` makes the conversation count. */
function worstSearch(shape: {
  shortQuery: boolean;
  turns: number;
  stream?: boolean;
  filters?: 'costliest' | 'longest';
  exclude?: boolean;
}): Record<string, unknown> {
  // The costliest filters: a price range every product passes and 100 one-letter keywords (the
  // most 200 characters hold; each a substring test every product passes, so none ends early).
  const keywords = times(100, (i) => 'abcdefghijklmnopqrstuvwxyz'[i % 26]).join(' ');
  const filters =
    shape.filters === 'longest'
      ? { min_price: 0, max_price: 1e9, merchant: words(200), brand: words(200), category: words(200), keyword_filter: keywords }
      : { min_price: 0, max_price: 1e9, keyword_filter: keywords };
  return {
    query: shape.shortQuery ? fewWords(6) : words(2000),
    limit: 10,
    ...(shape.stream !== undefined ? { stream: shape.stream } : {}),
    filters,
    min_relevance_score: 0,
    conversation_context: times(shape.turns, () => ({ role: 'user', content: words(4000) })),
    ...(shape.exclude === false ? {} : { exclude_product_ids: times(200, () => longId(200)) }),
  };
}

/** As many conversation turns as keep `make(turns)` within `limit` bytes. */
function fitTurns(limit: number, make: (turns: number) => unknown): number {
  for (let turns = 50; turns >= 0; turns--) if (Buffer.byteLength(JSON.stringify(make(turns))) <= limit) return turns;
  throw new Error(`no request of this shape fits in ${limit} bytes`);
}

function checkedSize(req: Req, limit: number): Req {
  const bytes = Buffer.byteLength(req.body ?? '');
  if (bytes > limit) throw new Error(`${req.method} ${req.path}: a ${bytes}-byte body is over the ${limit}-byte limit`);
  return req;
}

function kinds(s: Setup, swaggerStatic: { small: string; large: string }, assets: { css: string; js: string }): Kind[] {
  const A = withKey(s.keyA);
  const searchLimit = s.bodyLimit('POST /v1/search');
  const batchLimit = s.bodyLimit('POST /v1/search/batch');
  const mcpLimit = s.bodyLimit('POST /mcp');
  const consoleLimit = s.bodyLimit('POST /console/playground');
  const plain = () => ({ query: s.queries.take(), limit: 10 });
  const day = 86_400_000;
  const iso = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();
  /** `start_date` and `end_date` of one instant: two Date.now() calls apart could make "31 days" a few ms longer. */
  const lastDays = (days: number) => {
    const now = Date.now();
    return { start_date: new Date(now - days * day).toISOString(), end_date: new Date(now).toISOString() };
  };
  const rangeQuery = (days: number) => new URLSearchParams(lastDays(days)).toString();
  const worstShapes = [
    { label: 'worst: 2,000-char query, 50 turns × 4,000, 200 ids × 200, the costliest filters (100 keywords)', shape: { shortQuery: false, turns: 50 } },
    { label: 'worst: the same, stream: true', shape: { shortQuery: false, turns: 50, stream: true } },
    { label: 'worst: 6-word query (so the last 2 turns are matched), the rest the same', shape: { shortQuery: true, turns: 50 } },
    {
      label: 'worst: the same with every text filter at 200 characters (matching nothing)',
      shape: { shortQuery: true, turns: 50, filters: 'longest' as const },
    },
  ];
  const keysToDelete = async (principal: Principal, keep: string) => {
    const page = await s.server.core.keys.list(principal, { limit: 100 });
    for (const k of page.data) if (k.id !== keep && k.status !== 'revoked') await s.server.core.keys.remove(principal, k.id).catch(() => undefined);
  };
  const newKeys = async (n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await s.server.core.keys.create(s.principalK, { name: `bench ${i}` })).metadata.id);
    return ids;
  };
  const cleanKeys = () => keysToDelete(s.principalK, s.principalK.keyId);
  const webhookUrl = (chars: number) => {
    const head = 'https://93.184.216.34/hooks/';
    return head + 'a'.repeat(chars - head.length);
  };
  const newWebhooks = async (n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await s.server.core.webhooks.create(s.principalW2, { url: webhookUrl(40), events: ['click'] })).id);
    return ids;
  };
  const cleanWebhooks = async () => {
    for (const w of (await s.server.core.webhooks.list(s.principalW2, { limit: 100 })).data) await s.server.core.webhooks.remove(s.principalW2, w.id);
  };
  const deliveriesOf = async (principal: Principal, webhook: string, n: number) =>
    (await s.server.core.webhooks.listDeliveries(principal, webhook, { limit: n })).data.map((d) => d.id);
  const consoleHeaders = async () => {
    const c = await s.consoleCookie();
    return { cookie: `${SESSION_COOKIE}=${c.cookie}`, [CSRF_HEADER]: c.csrf };
  };

  const search: Kind = {
    route: 'POST /v1/search',
    reps: 8,
    maxRatio: MAX_SEARCH_RATIO,
    typical: v('typical: a dev query, limit 10', (n) => times(n, () => send('POST', '/v1/search', plain(), A))),
    worst: [
      ...worstShapes.map(({ label, shape }) =>
        v(label, (n) => times(n, () => checkedSize(send('POST', '/v1/search', worstSearch(shape), A), searchLimit)), { reps: 3 }),
      ),
      v('price only: "under $50"', (n) => times(n, () => send('POST', '/v1/search', { query: 'under $50', limit: 10 }, A)), { report: true }),
    ],
  };

  const batchQuery = (turns: number) => worstSearch({ shortQuery: true, turns });
  const batchTurns = fitTurns(batchLimit, (t) => ({ queries: times(10, () => batchQuery(t)) }));
  const batch: Kind = {
    route: 'POST /v1/search/batch',
    reps: 2,
    maxRatio: MAX_SEARCH_RATIO,
    perSearch: 10,
    typical: v('typical: 10 dev queries, limit 10', (n) => times(n, () => send('POST', '/v1/search/batch', { queries: times(10, plain) }, A))),
    worst: [
      v(
        `worst: 10 × (6-word query, ${batchTurns} turns × 4,000, 200 ids × 200, 100 keywords): 1 MiB`,
        (n) => times(n, () => checkedSize(send('POST', '/v1/search/batch', { queries: times(10, () => batchQuery(batchTurns)) }, A), batchLimit)),
        { reps: 1 },
      ),
    ],
  };

  const playground: Kind = {
    route: 'POST /console/playground',
    reps: 6,
    maxRatio: MAX_SEARCH_RATIO,
    typical: v('typical: a dev query, limit 10', async (n) => {
      const h = await consoleHeaders();
      return times(n, () => send('POST', '/console/playground', plain(), h));
    }),
    worst: [
      v(
        'worst: 6-word query, 50 turns × 4,000, 100 keywords',
        async (n) => {
          const h = await consoleHeaders();
          return times(n, () =>
            checkedSize(send('POST', '/console/playground', worstSearch({ shortQuery: true, turns: 50, exclude: false }), h), consoleLimit),
          );
        },
        { reps: 3 },
      ),
    ],
  };

  // The JSON-RPC envelope takes a few bytes of the body limit: one turn fewer if they do not fit.
  const mcpArgs = (turns: number) => ({ ...worstSearch({ shortQuery: true, turns }), detail: 'full' });
  const mcpTurns = fitTurns(mcpLimit, (t) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_products', arguments: mcpArgs(t) } }));

  const all: Kind[] = [
    // Meta and documentation: no input, so the typical request is the largest.
    ...[
      '/healthz',
      '/readyz',
      '/v1/openapi.json',
      '/docs/errors',
      '/docs',
      '/docs/static/index.html',
      '/docs/static/swagger-initializer.js',
      '/docs/json',
      '/docs/yaml',
      '/',
    ].map(
      (path): Kind => ({
        route: `GET ${path}`,
        reps: 10,
        maxRatio: MAX_RATIO,
        typical: v('only form (no input)', (n) => times(n, () => get(path))),
        worst: [],
      }),
    ),
    {
      route: 'GET /docs/static/*',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v(`typical: ${swaggerStatic.small}`, (n) => times(n, () => get(`/docs/static/${swaggerStatic.small}`))),
      worst: [v(`worst: ${swaggerStatic.large}, the largest file`, (n) => times(n, () => get(`/docs/static/${swaggerStatic.large}`)))],
    },
    {
      route: 'GET /console/assets/:file',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: the stylesheet', (n) => times(n, () => get(`/console/assets/${assets.css}`))),
      worst: [v('worst: the script, the larger asset', (n) => times(n, () => get(`/console/assets/${assets.js}`)))],
    },

    // Keys
    {
      route: 'GET /v1/keys',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: default page (20) of 100 keys', (n) => times(n, () => get('/v1/keys', withKey(s.keyL)))),
      worst: [v('worst: limit=100 of 100 keys', (n) => times(n, () => get('/v1/keys?limit=100', withKey(s.keyL))))],
    },
    {
      route: 'POST /v1/keys',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: a name', (n) => times(n, (i) => send('POST', '/v1/keys', { name: `agent ${i}` }, withKey(s.keyK))), { cleanup: cleanKeys }),
      worst: [
        v(
          'worst: 100-char name, every scope, expiry, rate limit',
          (n) =>
            times(n, () =>
              send(
                'POST',
                '/v1/keys',
                {
                  name: words(100).padEnd(100, 'x'),
                  scopes: [...SCOPES],
                  expires_at: new Date(Date.now() + 365 * day).toISOString(),
                  rate_limit_per_minute: 1_000_000,
                },
                withKey(s.keyK),
              ),
            ),
          { cleanup: cleanKeys },
        ),
      ],
    },
    {
      route: 'GET /v1/keys/:key_id',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: a UUID', (n) => times(n, () => get(`/v1/keys/${s.principalA.keyId}`, A))),
      worst: [v('worst: the key_ form', (n) => times(n, () => get(`/v1/keys/${prefixedId('key', s.principalA.keyId)}`, A)))],
    },
    {
      route: 'POST /v1/keys/:key_id',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: disable', async (n) => (await newKeys(n)).map((id) => send('POST', `/v1/keys/${id}`, { status: 'disabled' }, withKey(s.keyK))), {
        cleanup: cleanKeys,
      }),
      worst: [
        v(
          'worst: re-enable a disabled key, key_ form',
          async (n) => {
            const ids = await newKeys(n);
            for (const id of ids) await s.server.core.keys.update(s.principalK, id, { status: 'disabled' });
            return ids.map((id) => send('POST', `/v1/keys/${prefixedId('key', id)}`, { status: 'active' }, withKey(s.keyK)));
          },
          { cleanup: cleanKeys },
        ),
      ],
    },
    {
      route: 'POST /v1/keys/:key_id/rotate',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: no grace period', async (n) => (await newKeys(n)).map((id) => send('POST', `/v1/keys/${id}/rotate`, {}, withKey(s.keyK))), {
        cleanup: cleanKeys,
      }),
      worst: [
        v(
          'worst: 7-day grace period',
          async (n) => (await newKeys(n)).map((id) => send('POST', `/v1/keys/${id}/rotate`, { grace_period_seconds: 604_800 }, withKey(s.keyK))),
          { cleanup: cleanKeys },
        ),
      ],
    },
    {
      route: 'DELETE /v1/keys/:key_id',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: a UUID', async (n) => (await newKeys(n)).map((id) => send('DELETE', `/v1/keys/${id}`, undefined, withKey(s.keyK))), {
        cleanup: cleanKeys,
      }),
      worst: [
        v(
          'worst: the key_ form',
          async (n) => (await newKeys(n)).map((id) => send('DELETE', `/v1/keys/${prefixedId('key', id)}`, undefined, withKey(s.keyK))),
          { cleanup: cleanKeys },
        ),
      ],
    },

    // Search
    search,
    batch,

    // Events
    {
      route: 'POST /v1/clicks/:impression_id',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: a new impression, UUID, no body', async (n) =>
        (await s.shown(n)).map((r) => send('POST', `/v1/clicks/${r.impressionId}`, undefined, A)),
      ),
      worst: [
        v('worst: imp_ form, body {}', async (n) =>
          (await s.shown(n)).map((r) => send('POST', `/v1/clicks/${prefixedId('impression', r.impressionId)}`, {}, A)),
        ),
      ],
    },
    {
      route: 'POST /v1/conversions',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: click_id, short order id', async (n) =>
        (await s.clicks(n)).map((c, i) =>
          send(
            'POST',
            '/v1/conversions',
            { click_id: c.clickId, order_id: `order-${Date.now()}-${i}`, sale_amount: 100, commission_amount: 5, currency: 'USD' },
            A,
          ),
        ),
      ),
      worst: [
        v('worst: impression_id (imp_ form), 200-char order id, largest amounts', async (n) =>
          (await s.clicks(n)).map((c) =>
            send(
              'POST',
              '/v1/conversions',
              { impression_id: prefixedId('impression', c.impressionId), order_id: longId(200), sale_amount: 1e12, commission_amount: 1e12, currency: 'USD' },
              A,
            ),
          ),
        ),
      ],
    },
    {
      route: 'POST /v1/displays',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: 1 impression', async (n) => (await s.shown(n)).map((r) => send('POST', '/v1/displays', { impression_ids: [r.impressionId] }, A))),
      worst: [
        v('worst: 10 impressions, imp_ form', async (n) => {
          const shown = await s.shown(10 * n);
          return times(n, (i) =>
            send('POST', '/v1/displays', { impression_ids: shown.slice(10 * i, 10 * i + 10).map((r) => prefixedId('impression', r.impressionId)) }, A),
          );
        }),
      ],
    },
    {
      route: 'POST /v1/feedback',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: request and product, relevant: false', async (n) =>
        (await s.shown(n)).map((r) => send('POST', '/v1/feedback', { request_id: r.requestId, product_id: r.productId, relevant: false }, A)),
      ),
      worst: [
        v('worst: prefixed ids, 1,000-char reason, user_clicked', async (n) =>
          (await s.shown(n)).map((r) =>
            send(
              'POST',
              '/v1/feedback',
              {
                request_id: prefixedId('request', r.requestId),
                product_id: prefixedId('product', r.productId),
                relevant: false,
                reason: words(1000),
                user_clicked: true,
              },
              A,
            ),
          ),
        ),
      ],
    },
    {
      route: 'GET /r/:impression_id',
      reps: 10,
      maxRatio: MAX_RATIO,
      // The click is recorded either way; without a product URL (the Home Depot feed has none) there is nowhere to redirect to.
      typical: v(
        `only form: a signed link, a browser${s.productUrls ? '' : ' (404: the products have no URL)'}`,
        async (n) =>
          (await s.shown(n)).map((r) =>
            get(new URL(r.clickUrl).pathname + new URL(r.clickUrl).search, {
              'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
            }),
          ),
        { ok: (status) => status === (s.productUrls ? 302 : 404) },
      ),
      worst: [],
    },

    // Webhooks
    {
      route: 'POST /v1/webhooks',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v(
        'typical: a URL, one event',
        (n) => times(n, () => send('POST', '/v1/webhooks', { url: webhookUrl(40), events: ['click'] }, withKey(s.keyW2))),
        { cleanup: cleanWebhooks },
      ),
      worst: [
        v(
          'worst: 2,048-char URL, every event, 500-char description',
          (n) =>
            times(n, () =>
              send('POST', '/v1/webhooks', { url: webhookUrl(2048), events: [...EVENT_TYPES], description: words(500).padEnd(500, 'x') }, withKey(s.keyW2)),
            ),
          { cleanup: cleanWebhooks },
        ),
      ],
    },
    {
      route: 'GET /v1/webhooks',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: an account with 2', (n) => times(n, () => get('/v1/webhooks', withKey(s.keyT)))),
      worst: [v('worst: limit=100, 20 webhooks at their largest', (n) => times(n, () => get('/v1/webhooks?limit=100', withKey(s.keyW))))],
    },
    {
      route: 'GET /v1/webhooks/:webhook_id',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: a small webhook', (n) => times(n, () => get(`/v1/webhooks/${s.webhooksT[0]}`, withKey(s.keyT)))),
      worst: [v('worst: the largest, wh_ form', (n) => times(n, () => get(`/v1/webhooks/${prefixedId('webhook', s.webhooksW[1]!)}`, withKey(s.keyW))))],
    },
    {
      route: 'PATCH /v1/webhooks/:webhook_id',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: a description', (n) =>
        times(n, (i) => send('PATCH', `/v1/webhooks/${s.webhooksT[0]}`, { description: `note ${i}` }, withKey(s.keyT))),
      ),
      worst: [
        v('worst: URL 2,048, every event, description 500, status', (n) =>
          times(n, () =>
            send(
              'PATCH',
              `/v1/webhooks/${s.webhooksW[1]}`,
              { url: webhookUrl(2048), events: [...EVENT_TYPES], description: words(500).padEnd(500, 'x'), status: 'enabled' },
              withKey(s.keyW),
            ),
          ),
        ),
      ],
    },
    {
      route: 'DELETE /v1/webhooks/:webhook_id',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: a UUID', async (n) => (await newWebhooks(n)).map((id) => send('DELETE', `/v1/webhooks/${id}`, undefined, withKey(s.keyW2))), {
        cleanup: cleanWebhooks,
      }),
      worst: [
        v(
          'worst: the wh_ form',
          async (n) => (await newWebhooks(n)).map((id) => send('DELETE', `/v1/webhooks/${prefixedId('webhook', id)}`, undefined, withKey(s.keyW2))),
          { cleanup: cleanWebhooks },
        ),
      ],
    },
    {
      route: 'POST /v1/webhooks/:webhook_id/rotate-secret',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: a small webhook', (n) => times(n, () => send('POST', `/v1/webhooks/${s.webhooksT[1]}/rotate-secret`, undefined, withKey(s.keyT)))),
      worst: [
        v('worst: the largest, wh_ form', (n) =>
          times(n, () => send('POST', `/v1/webhooks/${prefixedId('webhook', s.webhooksW[2]!)}/rotate-secret`, undefined, withKey(s.keyW))),
        ),
      ],
    },
    {
      route: 'GET /v1/webhooks/:webhook_id/deliveries',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: default page of a webhook with a few', (n) => times(n, () => get(`/v1/webhooks/${s.webhooksT[0]}/deliveries`, withKey(s.keyT)))),
      worst: [
        v('worst: limit=100 of 1,000', (n) => times(n, () => get(`/v1/webhooks/${s.webhooksW[0]}/deliveries?limit=100`, withKey(s.keyW)))),
        v('worst: limit=100, status=failed (none of 1,000)', (n) =>
          times(n, () => get(`/v1/webhooks/${s.webhooksW[0]}/deliveries?limit=100&status=failed`, withKey(s.keyW))),
        ),
      ],
    },
    {
      route: 'POST /v1/webhooks/:webhook_id/deliveries/:delivery_id/retry',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v("typical: a small webhook's delivery", async (n) =>
        (await deliveriesOf(s.principalT, s.webhooksT[0]!, n)).map((d) =>
          send('POST', `/v1/webhooks/${s.webhooksT[0]}/deliveries/${d}/retry`, undefined, withKey(s.keyT)),
        ),
      ),
      worst: [
        v('worst: one of 1,000, prefixed ids', async (n) =>
          (await deliveriesOf(s.principalW, s.webhooksW[0]!, n)).map((d) =>
            send('POST', `/v1/webhooks/${prefixedId('webhook', s.webhooksW[0]!)}/deliveries/${prefixedId('delivery', d)}/retry`, undefined, withKey(s.keyW)),
          ),
        ),
      ],
    },
    {
      route: 'POST /v1/webhooks/:webhook_id/test',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: default event', (n) => times(n, () => send('POST', `/v1/webhooks/${s.webhooksT[1]}/test`, {}, withKey(s.keyT)))),
      worst: [
        v('worst: conversion event, the largest webhook', (n) =>
          times(n, () => send('POST', `/v1/webhooks/${s.webhooksW[3]}/test`, { event_type: 'conversion' }, withKey(s.keyW))),
        ),
      ],
    },

    // Analytics
    {
      route: 'GET /v1/usage',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: last 30 days, daily', (n) => times(n, () => get('/v1/usage', A))),
      worst: [
        v('worst: 366 days, daily', (n) => times(n, () => get(`/v1/usage?start_date=${iso(366 * day)}&end_date=${iso(0)}`, A))),
        v('worst: 31 days, hourly', (n) => times(n, () => get(`/v1/usage?${rangeQuery(31)}&granularity=hour`, A))),
      ],
    },
    {
      route: 'GET /v1/analytics',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: summary, last 30 days', (n) => times(n, () => get('/v1/analytics', A))),
      worst: [
        v('worst: summary, 366 days', (n) => times(n, () => get(`/v1/analytics?start_date=${iso(366 * day)}&end_date=${iso(0)}`, A))),
        v('worst: ctr, 31 days hourly', (n) => times(n, () => get(`/v1/analytics?metric=ctr&${rangeQuery(31)}&granularity=hour`, A))),
        v('worst: top_queries, 366 days', (n) => times(n, () => get(`/v1/analytics?metric=top_queries&start_date=${iso(366 * day)}&end_date=${iso(0)}`, A))),
        v('worst: top_products, 366 days', (n) => times(n, () => get(`/v1/analytics?metric=top_products&start_date=${iso(366 * day)}&end_date=${iso(0)}`, A))),
      ],
    },
    {
      route: 'GET /v1/dashboard/stats',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('only form (no input)', (n) => times(n, () => get('/v1/dashboard/stats', A))),
      worst: [],
    },
    {
      route: 'GET /v1/analytics/performance',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: 24h', (n) => times(n, () => get('/v1/analytics/performance', A))),
      worst: [v('worst: 30d', (n) => times(n, () => get('/v1/analytics/performance?timeframe=30d', A)))],
    },

    // Console
    {
      route: 'POST /console/session',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('only form: an API key', (n) => times(n, () => send('POST', '/console/session', { api_key: s.keyA }))),
      worst: [],
    },
    {
      route: 'GET /console/session',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('only form (a session cookie)', async (n) => {
        const h = await consoleHeaders();
        return times(n, () => get('/console/session', { cookie: h.cookie }));
      }),
      worst: [],
    },
    {
      route: 'DELETE /console/session',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v(
        'only form (a session cookie, CSRF token)',
        async (n) => (await Promise.all(times(n, () => consoleHeaders()))).map((h) => send('DELETE', '/console/session', undefined, h)),
        { ok: (status) => status === 204 },
      ),
      worst: [],
    },
    {
      route: 'GET /console/overview',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: 7d', async (n) => {
        const h = await consoleHeaders();
        return times(n, () => get('/console/overview', { cookie: h.cookie }));
      }),
      worst: [
        v('worst: 30d', async (n) => {
          const h = await consoleHeaders();
          return times(n, () => get('/console/overview?range=30d', { cookie: h.cookie }));
        }),
      ],
    },
    playground,

    // MCP: one JSON-RPC call per POST /mcp.
    {
      route: 'POST /mcp',
      tool: 'search_products',
      reps: 6,
      maxRatio: MAX_SEARCH_RATIO,
      typical: v('typical: a dev query, limit 10', (n) => times(n, () => mcpTool(s.keyA, 'search_products', plain()))),
      worst: [
        v(
          `worst: as REST's 6-word one, ${mcpTurns} turns, detail full`,
          (n) => times(n, () => checkedSize(mcpTool(s.keyA, 'search_products', mcpArgs(mcpTurns)), mcpLimit)),
          { reps: 3 },
        ),
      ],
    },
    {
      route: 'POST /mcp',
      tool: 'record_click',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: a UUID', async (n) => (await s.shown(n)).map((r) => mcpTool(s.keyA, 'record_click', { impression_id: r.impressionId }))),
      worst: [
        v('worst: imp_ form', async (n) =>
          (await s.shown(n)).map((r) => mcpTool(s.keyA, 'record_click', { impression_id: prefixedId('impression', r.impressionId) })),
        ),
      ],
    },
    {
      route: 'POST /mcp',
      tool: 'submit_feedback',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: request and product', async (n) =>
        (await s.shown(n)).map((r) => mcpTool(s.keyA, 'submit_feedback', { request_id: r.requestId, product_id: r.productId, relevant: false })),
      ),
      worst: [
        v('worst: prefixed ids, 1,000-char reason', async (n) =>
          (await s.shown(n)).map((r) =>
            mcpTool(s.keyA, 'submit_feedback', {
              request_id: prefixedId('request', r.requestId),
              product_id: prefixedId('product', r.productId),
              relevant: false,
              reason: words(1000),
              user_clicked: true,
            }),
          ),
        ),
      ],
    },
    {
      route: 'POST /mcp',
      tool: 'get_analytics',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: summary, 30 days', (n) => times(n, () => mcpTool(s.keyA, 'get_analytics', {}))),
      worst: [
        v('worst: summary, 366 days', (n) => times(n, () => mcpTool(s.keyA, 'get_analytics', { start_date: iso(366 * day), end_date: iso(0) }))),
        v('worst: ctr, 31 days hourly', (n) => times(n, () => mcpTool(s.keyA, 'get_analytics', { metric: 'ctr', ...lastDays(31), granularity: 'hour' }))),
      ],
    },
    {
      route: 'POST /mcp',
      tool: 'record_display',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: 1 impression', async (n) => (await s.shown(n)).map((r) => mcpTool(s.keyA, 'record_display', { impression_ids: [r.impressionId] }))),
      worst: [
        v('worst: 10 impressions, imp_ form', async (n) => {
          const shown = await s.shown(10 * n);
          return times(n, (i) =>
            mcpTool(s.keyA, 'record_display', { impression_ids: shown.slice(10 * i, 10 * i + 10).map((r) => prefixedId('impression', r.impressionId)) }),
          );
        }),
      ],
    },
    {
      route: 'POST /mcp',
      tool: 'tools/list',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('only form (the MCP method, not a tool)', (n) => times(n, () => mcpCall(s.keyA, 'tools/list', {}))),
      worst: [],
    },
  ];
  return all;
}

// ---------------------------------------------------------------------------------------------
// Setup and seeding

const DAY_MS = 86_400_000;

/** A year of history for one account (seed.ts, as bench:analytics seeds): what the longest analytics ranges read. */
async function seedHistory(server: BenchServer, accountId: string, keyId: string, productIds: readonly string[]): Promise<void> {
  await seedActivity(server.db, accountId, keyId, productIds, {
    idPrefix: 'w',
    searches: 10_000,
    requestLogRows: 50_000,
    // From 366 days ago up to a day ago; today belongs to the searches made through the API.
    end: new Date(Date.now() - DAY_MS),
    windowMs: 365 * DAY_MS,
    sessions: 2000,
    queryTexts: 3000,
    commission: { from: 5, steps: 1 },
    routes: ['POST /v1/search', 'POST /v1/search', 'POST /v1/clicks/:impression_id', 'POST /v1/feedback', 'GET /v1/usage'],
    errors: [{ every: 41, status: 400 }],
  });
}

async function json<T>(res: Response): Promise<T> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

/** A few hundred searches, clicks, conversions and feedback votes through the API, as an integration makes them. */
async function seedThroughApi(server: BenchServer, key: string, queries: QueryTexts, count: number): Promise<void> {
  const post = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  for (let i = 0; i < count; i++) {
    const r = await json<SearchResponse>(await post('/v1/search', { query: queries.take(), limit: 10, min_relevance_score: 0 }));
    const first = r.results[0];
    if (first === undefined) continue;
    if (i % 3 === 0) {
      const click = await json<{ click_id: string }>(await post(`/v1/clicks/${first.impression_id}`, {}));
      if (i % 9 === 0)
        await json(await post('/v1/conversions', { click_id: click.click_id, order_id: `seed-${i}`, sale_amount: 80, commission_amount: 4, currency: 'USD' }));
    }
    if (i % 4 === 0) await json(await post('/v1/feedback', { request_id: r.request_id, product_id: first.product_id, relevant: i % 8 === 0 }));
    if (i % 5 === 0) await json(await post('/v1/displays', { impression_ids: r.results.map((x) => x.impression_id) }));
  }
}

/** The smallest and the largest file swagger-ui serves under /docs/static. */
function swaggerFiles(): { small: string; large: string } {
  const dir = join(dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui/package.json')), 'static');
  const files = readdirSync(dir)
    .map((f) => ({ f, size: statSync(join(dir, f)).size }))
    .sort((a, b) => a.size - b.size);
  return { small: files.find((x) => x.f.endsWith('.css'))?.f ?? files[0]!.f, large: files.at(-1)!.f };
}

// ---------------------------------------------------------------------------------------------
// Running and reporting

interface Row {
  kind: Kind;
  variant: Variant;
  typical: boolean;
  samples: Sample[];
}

const isOk = (variant: Variant, status: number) => (variant.ok ? variant.ok(status) : status >= 200 && status < 400);
const rowName = (k: Kind) => (k.tool ? `${k.route} ${k.tool}` : k.route);
const selected = (k: Kind) => only === null || only.some((o) => rowName(k).includes(o));

/** Whether a batch answered as it should; the message says what went wrong otherwise. */
function problemOf(variant: Variant, s: Sample): string | null {
  if (variant.report) return null;
  const bad = Object.keys(s.statuses).filter((status) => !isOk(variant, Number(status)));
  if (bad.length > 0) return `answered ${bad.join(', ')}: ${s.samples[bad[0]!]}`;
  if (s.failed !== null) return `tool error: ${s.failed}`;
  return null;
}

async function runBatch(server: BenchServer, client: Client, _kind: Kind, variant: Variant, n: number): Promise<Sample> {
  const reqs = await variant.build(n);
  const sample = await measure(server, client, reqs);
  await variant.cleanup?.();
  return sample;
}

function detailOf(sample: string | undefined): string {
  if (sample === undefined) return '';
  try {
    const body = JSON.parse(sample) as { detail?: string; code?: string };
    return [body.code, body.detail].filter(Boolean).join(': ');
  } catch {
    return sample.slice(0, 200);
  }
}

interface Figures {
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

function figures(row: Row, typical: Row | undefined): Figures {
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
function summary(rows: Record<string, unknown>[]): Record<string, unknown> {
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

async function main(): Promise<number> {
  const started = performance.now();
  const work = await mkdtemp(join(tmpdir(), 'aisle-bench-worst-'));
  const models = join(ROOT, '.bench/models');
  const homeDepot = !values.sample && sharedPath('data/eval/homedepot/products.jsonl') !== null;
  const embedder = await createEmbedder({ provider: 'use-lite', cacheDir: models });
  let catalogName: string;
  let catalog: LanceCatalogStore;
  if (homeDepot) {
    const uri = resolve(values['catalog-uri'] ?? join(ROOT, '.bench/homedepot-catalog'));
    const used = await ensureCatalog(uri, models);
    catalog = await LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri, annThreshold: 20_000, annIndex: 'ivf_hnsw_sq' });
    if ((await catalog.info())?.annIndex !== 'ivf_hnsw_sq') await catalog.rebuildVectorIndex('ivf_hnsw_sq');
    catalogName = used.startsWith('existing') ? `Home Depot (${uri})` : used;
  } else {
    catalog = await LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri: join(work, 'catalog'), annThreshold: 1_000_000, annIndex: 'ivf_hnsw_sq' });
    const feed = await readFeed(join(ROOT, 'data/sample-catalog.jsonl'), {});
    await importCatalog(feed.records, { catalog, embedder }, { replace: true, dryRun: false });
    catalogName = 'sample (data/sample-catalog.jsonl)';
  }
  const products = (await catalog.info())?.productCount ?? 0;
  const { databaseUrl } = loadConfig();
  const database = databaseUrl ? await createBenchDatabase(databaseUrl, 'aisle_worst_bench') : null;
  const server = await startBenchServer({ databaseUrl: database?.url, search: { catalog, embedder } });
  const client = new Client(server.url);
  let exitCode = 0;
  try {
    await server.core.search().warm();
    const core = server.core;
    const account = async (name: string) => {
      const { firstKey } = await core.accounts.create(name);
      const key = (await core.keys.create(await principalOf(firstKey.key), { name, rate_limit_per_minute: 1_000_000 })).key;
      return { key, principal: await principalOf(key) };
    };
    const principalOf = async (key: string) => {
      const auth = await core.auth.authenticate(key);
      if (!auth.ok) throw new Error(`a new key does not authenticate: ${auth.reason}`);
      return auth.principal;
    };
    const [A, K, L, T, W, W2] = [
      await account('worst A'),
      await account('worst K'),
      await account('worst L'),
      await account('worst T'),
      await account('worst W'),
      await account('worst W2'),
    ];
    const queries = new QueryTexts(await queryTexts(homeDepot));

    process.stderr.write(`seeding (catalog ${catalogName}, ${products} products, database ${server.dbKind})…\n`);
    const seedStarted = performance.now();
    const productIds: string[] = [];
    for await (const batch of catalog.scanProducts()) {
      for (const p of batch) if (productIds.length < 2000) productIds.push(p.productId);
      if (productIds.length >= 2000) break;
    }
    const step = (what: string) => process.stderr.write(`  ${what} after ${round((performance.now() - seedStarted) / 1000, 1)} s\n`);
    await seedHistory(server, A.principal.accountId, A.principal.keyId, productIds);
    step('a year of history');
    await seedThroughApi(server, A.key, queries, 100);
    step('searches through the API');
    for (let i = 0; i < 98; i++) await core.keys.create(L.principal, { name: `listed ${i}` });
    const bigWebhook = { url: `https://93.184.216.34/hooks/${'a'.repeat(2048 - 28)}`, events: [...EVENT_TYPES], description: 'x'.repeat(500) };
    const webhooksT = [
      (await core.webhooks.create(T.principal, { url: 'https://93.184.216.34/hook', events: ['click'] })).id,
      (await core.webhooks.create(T.principal, { url: 'https://93.184.216.34/hook2', events: ['search'] })).id,
    ];
    const webhooksW: string[] = [];
    for (let i = 0; i < 20; i++) webhooksW.push((await core.webhooks.create(W.principal, bigWebhook)).id);
    for (let i = 0; i < 30; i++) await core.webhooks.sendTest(T.principal, webhooksT[0]!, {});
    step('keys and webhooks');
    for (let i = 0; i < 1000; i++) await core.webhooks.sendTest(W.principal, webhooksW[0]!, {});
    process.stderr.write(`seeded in ${round((performance.now() - seedStarted) / 1000, 1)} s\n`);

    const fresh: Shown[] = [];
    const setup: Setup = {
      server,
      queries,
      keyA: A.key,
      principalA: A.principal,
      keyK: K.key,
      principalK: K.principal,
      keyL: L.key,
      keyT: T.key,
      principalT: T.principal,
      keyW: W.key,
      principalW: W.principal,
      keyW2: W2.key,
      principalW2: W2.principal,
      webhooksT,
      webhooksW,
      consoleCookie: async () => {
        const session = await core.consoleSessions.signIn(A.key);
        return { cookie: session.token, csrf: session.csrfToken };
      },
      shown: async (n) => {
        while (fresh.length < n) {
          const r = await core.search().search(A.principal, SearchRequestSchema.parse({ query: queries.take(), limit: 10, min_relevance_score: 0 }));
          for (const x of r.results) fresh.push({ requestId: r.request_id, impressionId: x.impression_id, productId: x.product_id, clickUrl: x.click_url });
        }
        return fresh.splice(0, n);
      },
      clicks: async (n) => {
        const out: { clickId: string; impressionId: string }[] = [];
        for (const r of await setup.shown(n))
          out.push({ clickId: (await core.clicks.recordClick(A.principal, r.impressionId)).click.click_id, impressionId: r.impressionId });
        return out;
      },
      bodyLimit: (route) => server.routes.find((r) => `${r.method} ${r.url}` === route)?.bodyLimit ?? DEFAULT_BODY_LIMIT,
      productUrls: false,
    };
    setup.productUrls = (
      await core.search().search(A.principal, SearchRequestSchema.parse({ query: queries.take(), limit: 10, min_relevance_score: 0 }))
    ).results.some((r) => r.url !== '');
    const assets = await consoleAssets();
    const all = kinds(setup, swaggerFiles(), { css: `app.${assets.version}.css`, js: `app.${assets.version}.js` });
    const rows: Row[] = all
      .filter(selected)
      .flatMap((kind) => [
        { kind, variant: kind.typical, typical: true, samples: [] },
        ...kind.worst.map((variant) => ({ kind, variant, typical: false, samples: [] as Sample[] })),
      ]);

    // Warm-up: every request kind once or a few times, not recorded.
    for (const row of rows) {
      const t = performance.now();
      await runBatch(server, client, row.kind, row.variant, 1);
      if (values.trace) process.stderr.write(`  warm-up ${rowName(row.kind)} ${row.variant.label.slice(0, 30)}: ${round(performance.now() - t, 0)} ms\n`);
    }
    process.stderr.write(`warmed up after ${round((performance.now() - started) / 1000, 1)} s\n`);
    for (let r = 0; r < rounds; r++) {
      for (const row of rows) {
        const t = performance.now();
        row.samples.push(await runBatch(server, client, row.kind, row.variant, row.variant.reps ?? row.kind.reps));
        if (values.trace) process.stderr.write(`  ${rowName(row.kind)} ${row.variant.label.slice(0, 30)}: ${round(performance.now() - t, 0)} ms\n`);
      }
      process.stderr.write(`round ${r + 1} of ${rounds} done after ${round((performance.now() - started) / 1000, 1)} s\n`);
    }

    // The table, in route-table order; routes and tools without a request kind say so.
    const tools = await json<{ result: { tools: { name: string }[] } }>(
      await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: mcpCall(A.key, 'tools/list', {}).headers!,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      }),
    );
    const table: string[][] = [];
    const jsonRows: Record<string, unknown>[] = [];
    const notCovered: string[] = [];
    const emit = (name: string, kindRows: Row[]) => {
      const typical = kindRows.find((r) => r.typical);
      for (const row of kindRows) {
        const f = figures(row, typical);
        if (f.verdict.startsWith('FAILED')) exitCode = 1;
        table.push([
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
        ]);
        jsonRows.push({
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
        });
      }
    };
    const uncovered = (name: string) => {
      notCovered.push(name);
      table.push([
        name,
        only === null ? 'NOT COVERED: no request kind in tools/bench/worst.ts' : 'skipped (--only)',
        '',
        '',
        '',
        '',
        '',
        '',
        '',
        '',
        only === null ? 'not covered' : '',
      ]);
    };
    const seen = new Set<string>();
    for (const route of server.routes) {
      const name = `${route.method} ${route.url}`;
      if (seen.has(name)) continue;
      seen.add(name);
      const forRoute = rows.filter((r) => r.kind.route === name);
      if (name === 'POST /mcp') {
        for (const tool of [...tools.result.tools.map((t) => t.name), 'tools/list']) {
          const toolRows = forRoute.filter((r) => r.kind.tool === tool);
          if (toolRows.length > 0) emit(`${name} ${tool}`, toolRows);
          else uncovered(`${name} ${tool}`);
        }
      } else if (forRoute.length > 0) emit(name, forRoute);
      else uncovered(name);
    }

    const cpuOf = (route: string, tool: string | undefined, pick: (r: Row) => boolean) => {
      const rs = rows.filter((r) => r.kind.route === route && r.kind.tool === tool && pick(r) && !r.variant.report);
      return rs.length === 0 ? null : Math.max(...rs.map((r) => median(r.samples.map((s) => s.cpuMs)) / (r.kind.perSearch ?? 1)));
    };
    const plainSearch = cpuOf('POST /v1/search', undefined, (r) => r.typical);
    const worstSearchCpu = cpuOf('POST /v1/search', undefined, (r) => !r.typical);
    const worstBatchPerQuery = cpuOf('POST /v1/search/batch', undefined, (r) => !r.typical);

    process.stdout.write(
      `The most expensive request of each kind: catalog ${catalogName} (${products.toLocaleString('en-US')} products), database ${server.dbKind}, ` +
        `${rounds} rounds after a warm-up; server in this process, client in a child process. CPU: server CPU per request (every thread), median of the rounds; ` +
        `block: the longest the event loop ran its own work without a timer tick (main-thread CPU time), in any round${threadRunNs() === null ? ' (no /proc here: the wall-clock delay instead)' : ''}; ` +
        `delay: the longest event-loop delay by the wall clock, time the OS gave other processes included; ` +
        `alloc: JavaScript heap allocated per request (GC profiler), median of the rounds; RSS Δ: largest rise of RSS during a batch, median of the rounds. Verdicts: ≤ ${MAX_RATIO}× the typical request's CPU (search ≤ ${MAX_SEARCH_RATIO}×), block ≤ ${MAX_BLOCK_MS} ms.\n`,
    );
    process.stdout.write(
      `${formatTable(['route / tool', 'request', 'n', 'CPU ms', '× typical', 'block ms', 'delay ms', 'alloc MB', 'RSS Δ MB', 'status', 'verdict'], table)}\n`,
    );
    if (plainSearch !== null && worstSearchCpu !== null) {
      process.stdout.write(
        `Search: the most expensive valid search costs ${round(worstSearchCpu / plainSearch, 1)}× the CPU of a plain one (${round(worstSearchCpu, 1)} ms against ${round(plainSearch, 2)} ms; target ≤ ${MAX_SEARCH_RATIO}×)`,
      );
      if (worstBatchPerQuery !== null)
        process.stdout.write(
          `; in the largest batch each query costs ${round(worstBatchPerQuery, 1)} ms, ${round(worstBatchPerQuery / plainSearch, 1)}× a plain search`,
        );
      process.stdout.write('.\n');
    }
    if (notCovered.length > 0 && only === null) process.stdout.write(`${notCovered.length} route(s) or tool(s) not covered: ${notCovered.join(', ')}\n`);
    process.stdout.write(`(${round((performance.now() - started) / 1000, 1)} s in all)\n`);
    process.stdout.write(
      `BENCH_JSON ${JSON.stringify({
        bench: 'worst',
        catalog: catalogName,
        products,
        db: server.dbKind,
        rounds,
        search_plain_cpu_ms: plainSearch === null ? null : round(plainSearch, 2),
        search_worst_cpu_ms: worstSearchCpu === null ? null : round(worstSearchCpu, 2),
        search_worst_ratio: plainSearch === null || worstSearchCpu === null ? null : round(worstSearchCpu / plainSearch, 2),
        not_covered: notCovered,
        ...summary(jsonRows),
        rows: jsonRows,
      })}\n`,
    );
  } finally {
    client.close();
    await server.close();
    await catalog.close();
    await embedder.close();
    await database?.drop();
    await rm(work, { recursive: true, force: true });
  }
  return exitCode;
}

await cli.run(main);
