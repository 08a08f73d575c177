/**
 * Prometheus metrics (docs/operations.md): one registry per process, with prom-client. Names
 * `aisle_*`, base units (seconds, bytes), histograms for durations. Counters and histograms are
 * updated where the work happens; gauges of shared state (the catalog, the webhook queue, the
 * database pool) are read when Prometheus scrapes. With several API processes, the primary
 * serves one view over all of them (server.ts): counters and histograms are summed, gauges of
 * state the processes share take the largest reading.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { EventKind, Meter, SearchStage } from '../core/metering.js';
import type { NoFillReason, ReaderName } from '../core/schemas/search.js';

/** Request-sized durations: 1 ms to 10 s. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Background work: 10 ms to 1 h. */
const LAG_BUCKETS = [0.01, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600];

/** What the scrape reads from the serving catalog (src/store/lance/catalog-store.ts). */
export interface CatalogGauges {
  info(): Promise<{ productCount: number; version: number; updatedAt: Date } | null>;
  cacheStats(): { hits: number; misses: number; bytes: number; budgetBytes: number };
}

/** What the scrape reads from the database (src/store/pg). */
export interface DatabaseGauges {
  /** The pool's connections (null on the embedded database, which has one). */
  poolStats(): { total: number; idle: number; waiting: number } | null;
  /** Deliveries waiting to be sent, and how long the oldest due one has waited (seconds). */
  webhookQueue(): Promise<{ pending: number; oldestDueSeconds: number }>;
}

export class AisleMetrics implements Meter {
  readonly registry = new Registry();
  private readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly stageDuration: Histogram<'stage'>;
  private readonly searches: Counter<'reader' | 'outcome'>;
  private readonly mcpDuration: Histogram<'tool' | 'outcome'>;
  private readonly embeddingBatch: Histogram;
  private readonly embeddingTexts: Counter;
  private readonly catalogCall: Histogram<'call'>;
  private readonly eventWrite: Histogram<'kind'>;
  private readonly feedPulls: Counter<'result'>;
  private readonly deliveries: Counter<'result'>;
  private readonly deliveryLag: Histogram;
  private readonly importedProducts: Counter<'kind'>;
  private readonly importGauge: Gauge;
  private catalog: CatalogGauges | null = null;
  private database: DatabaseGauges | null = null;
  private readonly seenCache = { hits: 0, misses: 0 };
  private importsRunning = 0;

  /**
   * `processIndex` (an API process of a cluster) labels the process's own metrics (memory, CPU,
   * event loop) `process="N"`, so the primary's view keeps one series per process for them
   * instead of a sum; the service's own metrics are summed over the processes.
   */
  constructor(options: { processIndex?: number } = {}) {
    const registers = [this.registry];
    collectDefaultMetrics({
      register: this.registry,
      prefix: 'aisle_',
      ...(options.processIndex === undefined ? {} : { labels: { process: String(options.processIndex) } }),
    });
    this.httpDuration = new Histogram({
      name: 'aisle_http_request_duration_seconds',
      help: 'REST, MCP and console requests, from the first byte received to the last sent, by route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.stageDuration = new Histogram({
      name: 'aisle_search_stage_duration_seconds',
      help: 'Each named stage of a search: ask, read, retrieve, score, order, respond (docs/search.md)',
      labelNames: ['stage'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.searches = new Counter({
      name: 'aisle_searches_total',
      help: 'Searches answered, by the reader that read them and the outcome: results, or the no-fill reason',
      labelNames: ['reader', 'outcome'],
      registers,
    });
    this.mcpDuration = new Histogram({
      name: 'aisle_mcp_tool_call_duration_seconds',
      help: 'MCP tool calls by tool and outcome (ok, error); _count is the number of calls',
      labelNames: ['tool', 'outcome'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.embeddingBatch = new Histogram({
      name: 'aisle_embedding_batch_duration_seconds',
      help: 'One batch through the embedding model (a query is a batch of one)',
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.embeddingTexts = new Counter({ name: 'aisle_embedding_texts_total', help: 'Texts embedded by the model (cache hits excluded)', registers });
    this.catalogCall = new Histogram({
      name: 'aisle_catalog_call_duration_seconds',
      help: 'Catalog reads by call: vector_search, text_search, by_price, get_by_ids',
      labelNames: ['call'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.eventWrite = new Histogram({
      name: 'aisle_event_write_duration_seconds',
      help: 'A record (search, click, conversion, feedback) written with its webhook event in one transaction',
      labelNames: ['kind'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.feedPulls = new Counter({
      name: 'aisle_feed_pulls_total',
      help: 'Feed pulls of catalog sources by result: ok, not_modified, failed',
      labelNames: ['result'],
      registers,
    });
    this.deliveries = new Counter({
      name: 'aisle_webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts by result: succeeded, retry (failed, tried again later), failed (given up)',
      labelNames: ['result'],
      registers,
    });
    this.deliveryLag = new Histogram({
      name: 'aisle_webhook_delivery_lag_seconds',
      help: 'From a delivery falling due to its attempt starting',
      buckets: LAG_BUCKETS,
      registers,
    });
    this.importedProducts = new Counter({
      name: 'aisle_import_products_total',
      help: 'Products of imports in this process, counted as they go: read, imported (new), updated, delta, unchanged, embedded, removed, skipped',
      labelNames: ['kind'],
      registers,
    });
    this.importGauge = new Gauge({
      name: 'aisle_imports_running',
      help: 'Imports running in this process',
      registers,
      collect: () => this.importGauge.set(this.importsRunning),
    });
    this.catalogGauges(registers);
    this.databaseGauges(registers);
  }

  /** The serving catalog and the database whose state the scrape reads. */
  watch(sources: { catalog?: CatalogGauges; database?: DatabaseGauges }): void {
    if (sources.catalog) this.catalog = sources.catalog;
    if (sources.database) this.database = sources.database;
  }

  httpRequest(method: string, route: string, status: number, seconds: number): void {
    this.httpDuration.observe({ method, route, status: String(status) }, seconds);
  }

  searchStage(stage: SearchStage, seconds: number): void {
    this.stageDuration.observe({ stage }, seconds);
  }

  searchAnswered(reader: ReaderName, outcome: 'results' | NoFillReason): void {
    this.searches.inc({ reader, outcome });
  }

  mcpToolCall(tool: string, ok: boolean, seconds: number): void {
    this.mcpDuration.observe({ tool, outcome: ok ? 'ok' : 'error' }, seconds);
  }

  embeddingBatchDone(texts: number, seconds: number): void {
    this.embeddingBatch.observe(seconds);
    this.embeddingTexts.inc(texts);
  }

  catalogCallDone(call: 'vector_search' | 'text_search' | 'by_price' | 'get_by_ids', seconds: number): void {
    this.catalogCall.observe({ call }, seconds);
  }

  eventWritten(kind: EventKind, seconds: number): void {
    this.eventWrite.observe({ kind }, seconds);
  }

  feedPull(status: 'ok' | 'not_modified' | 'failed'): void {
    this.feedPulls.inc({ result: status });
  }

  webhookAttempt(result: 'succeeded' | 'retry' | 'failed', lagSeconds: number): void {
    this.deliveries.inc({ result });
    this.deliveryLag.observe(Math.max(0, lagSeconds));
  }

  importRunning(change: 1 | -1): void {
    this.importsRunning = Math.max(0, this.importsRunning + change);
  }

  importProgressed(counts: Readonly<Record<string, number>>): void {
    for (const [kind, n] of Object.entries(counts)) if (n > 0) this.importedProducts.inc({ kind }, n);
  }

  /** Gauges of the serving catalog, read at scrape. */
  private catalogGauges(registers: Registry[]): void {
    // One read of the serving version per scrape, shared by the three gauges (each collects in turn).
    const info = perScrape(() => this.catalog?.info() ?? Promise.resolve(null));
    const products: Gauge = new Gauge({
      name: 'aisle_catalog_products',
      help: 'Products in the serving catalog version',
      registers,
      aggregator: 'max',
      collect: async () => {
        const i = await info();
        if (i) products.set(i.productCount);
      },
    });
    const version: Gauge = new Gauge({
      name: 'aisle_catalog_version',
      help: 'The serving catalog version (the largest any process serves)',
      registers,
      aggregator: 'max',
      collect: async () => {
        const i = await info();
        if (i) version.set(i.version);
      },
    });
    const age: Gauge = new Gauge({
      name: 'aisle_catalog_age_seconds',
      help: 'Time since the serving catalog version was published (the oldest any process serves)',
      registers,
      aggregator: 'max',
      collect: async () => {
        const i = await info();
        if (i) age.set(Math.max(0, (Date.now() - i.updatedAt.getTime()) / 1000));
      },
    });
    const cacheBytes = new Gauge({
      name: 'aisle_product_cache_bytes',
      help: 'Bytes of decoded products the product cache holds, as it counts them (AISLE_CATALOG_CACHE_MB bounds it)',
      registers,
      collect: () => {
        if (this.catalog) cacheBytes.set(this.catalog.cacheStats().bytes);
      },
    });
    const budget: Gauge = new Gauge({
      name: 'aisle_product_cache_budget_bytes',
      help: 'What the product cache may hold, as it counts (AISLE_CATALOG_CACHE_MB)',
      registers,
      collect: () => {
        if (this.catalog) budget.set(this.catalog.cacheStats().budgetBytes);
      },
    });
    const lookups = new Counter({
      name: 'aisle_product_cache_lookups_total',
      help: 'Product cache lookups by result: hit, miss',
      labelNames: ['result'],
      registers,
      collect: () => {
        if (!this.catalog) return;
        const s = this.catalog.cacheStats();
        // The store counts; the counter follows its count (the store's count restarts with a new version's cache).
        const hits = s.hits - this.seenCache.hits;
        const misses = s.misses - this.seenCache.misses;
        if (hits > 0) lookups.inc({ result: 'hit' }, hits);
        if (misses > 0) lookups.inc({ result: 'miss' }, misses);
        this.seenCache.hits = s.hits;
        this.seenCache.misses = s.misses;
      },
    });
  }

  /** Gauges of the database: the pool here, and the webhook queue everyone shares. */
  private databaseGauges(registers: Registry[]): void {
    const pool = new Gauge({
      name: 'aisle_db_pool_connections',
      help: 'PostgreSQL pool connections by state: in_use, idle, waiting (requests waiting for one)',
      labelNames: ['state'],
      registers,
      collect: () => {
        const s = this.database?.poolStats();
        if (!s) return;
        pool.set({ state: 'in_use' }, s.total - s.idle);
        pool.set({ state: 'idle' }, s.idle);
        pool.set({ state: 'waiting' }, s.waiting);
      },
    });
    // One query per scrape, shared by the two gauges.
    const queue = perScrape(() => this.database?.webhookQueue() ?? Promise.resolve(null));
    const depth: Gauge = new Gauge({
      name: 'aisle_webhook_queue_depth',
      help: 'Webhook deliveries waiting to be sent (pending or being sent), across the database',
      registers,
      aggregator: 'max',
      collect: async () => {
        const q = await queue();
        if (q) depth.set(q.pending);
      },
    });
    const oldest: Gauge = new Gauge({
      name: 'aisle_webhook_oldest_due_seconds',
      help: 'How long the oldest delivery that is due has waited to be sent',
      registers,
      aggregator: 'max',
      collect: async () => {
        const q = await queue();
        if (q) oldest.set(q.oldestDueSeconds);
      },
    });
  }
}

/**
 * `read` shared by the gauges one scrape collects (they collect one after another, within a
 * second): its answer is reused for a second, and a failure reads as nothing.
 */
function perScrape<T>(read: () => Promise<T | null>): () => Promise<T | null> {
  let last: { at: number; value: Promise<T | null> } | null = null;
  return () => {
    const now = Date.now();
    if (last === null || now - last.at > 1_000) last = { at: now, value: read().catch(() => null) };
    return last.value;
  };
}
