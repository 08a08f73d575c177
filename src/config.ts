import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';

const booleanFlag = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

const commaList = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** A bound in milliseconds; 0 turns it off. */
const timeoutMs = (max: number) => z.coerce.number().int().min(0).max(max);

/**
 * Time bounds (docs/configuration.md). Each exists so a stalled peer answers an error instead of
 * holding a request forever: the database (connect, statement, maintenance work) and a client
 * sending its request (headers, whole request).
 */
export const DEFAULT_TIMEOUTS = Object.freeze({
  /** A fresh connection opens in milliseconds; 5 s is a database that is down or unreachable. */
  databaseConnectMs: 5_000,
  /** Request-path statements take milliseconds; analytics reads on raw rows took up to 4.5 s (docs/analytics.md). */
  databaseStatementMs: 10_000,
  /** Migrations, rollups and the learner's log reads: a month of history rolled up in 5 s, with room for much more. */
  databaseMaintenanceMs: 600_000,
  /** The largest body (1 MiB batch) takes 8 s at 1 Mbit/s. */
  requestMs: 30_000,
  /** Headers are a few hundred bytes: a client still sending them after 10 s is stalled. */
  headersMs: 10_000,
  /** A feed server silent this long (before its headers, or between pieces of the body) has stalled. */
  feedIdleMs: 30_000,
  /** A whole feed download: 4 GB (the largest accepted) at about 20 Mbit/s. */
  feedMs: 1_800_000,
  /** A webhook receiver's whole answer (docs/webhooks.md). */
  webhookMs: 10_000,
  /** A client metadata document is a few hundred bytes, fetched while a person waits at the consent screen. */
  clientMetadataMs: 5_000,
  /** One request to an OpenAI-compatible endpoint (the SDK's own default is 10 minutes). */
  embeddingMs: 30_000,
  /** One call of the stdio MCP server to the Aisle at AISLE_BASE_URL: a search answers in milliseconds. */
  remoteMs: 30_000,
});

/** An outbound time bound: at least 100 ms, so a typo cannot make every call fail. */
const outboundMs = (max: number) => z.coerce.number().int().min(100).max(max);

/**
 * Every environment variable Aisle reads. docs/configuration.md's table mirrors this schema;
 * nothing else in the code base touches `process.env`.
 */
const envSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  // host:port of the Prometheus endpoint ([::1]:9464 for IPv6); unset: no metrics are kept or served.
  // The standard OpenTelemetry variables that turn traces on (docs/operations.md, "Traces"); the
  // exporter reads the rest of the OTEL_* variables itself.
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
  // The specification's only value is `true` (any case); anything else leaves the SDK on.
  OTEL_SDK_DISABLED: z.string().optional(),
  OTEL_TRACES_EXPORTER: z.string().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default('aisle'),
  AISLE_METRICS_LISTEN: z
    .string()
    .regex(/^(?:\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):\d{1,5}$/, 'must be host:port, e.g. 127.0.0.1:9464')
    .refine((v) => Number(v.slice(v.lastIndexOf(':') + 1)) <= 65_535, 'the port must be 0 to 65535')
    .optional(),
  AISLE_DATA_DIR: z.string().min(1).default('./.aisle'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  DATABASE_CONNECT_TIMEOUT_MS: timeoutMs(600_000).default(DEFAULT_TIMEOUTS.databaseConnectMs),
  DATABASE_STATEMENT_TIMEOUT_MS: timeoutMs(3_600_000).default(DEFAULT_TIMEOUTS.databaseStatementMs),
  DATABASE_MAINTENANCE_TIMEOUT_MS: timeoutMs(86_400_000).default(DEFAULT_TIMEOUTS.databaseMaintenanceMs),
  AISLE_REQUEST_TIMEOUT_MS: timeoutMs(3_600_000).default(DEFAULT_TIMEOUTS.requestMs),
  AISLE_HEADERS_TIMEOUT_MS: timeoutMs(3_600_000).default(DEFAULT_TIMEOUTS.headersMs),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  AISLE_DEFAULT_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(600),
  AISLE_TRUST_PROXY: booleanFlag.default(false),
  AISLE_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  AISLE_CATALOG_URI: z.string().min(1).optional(),
  AISLE_SAMPLE_CATALOG: booleanFlag.default(true),
  AISLE_ANN_THRESHOLD: z.coerce.number().int().min(1).default(20_000),
  AISLE_ANN_INDEX: z.enum(['ivf_hnsw_sq', 'ivf_pq']).default('ivf_hnsw_sq'),
  AISLE_CATALOG_CACHE_MB: z.coerce.number().int().min(0).max(65_536).default(256),
  AISLE_CATALOG_REFRESH_MS: z.coerce.number().int().min(0).max(86_400_000).default(10_000),
  AISLE_CATALOG_UPKEEP_MINUTES: z.coerce.number().int().min(0).max(10_080).default(60),
  AISLE_CATALOG_RETENTION_MINUTES: z.coerce.number().int().min(1).max(10_080).default(60),
  AISLE_EMBEDDING_PROVIDER: z.enum(['use-lite', 'openai', 'transformers']).default('use-lite'),
  AISLE_EMBEDDING_MODEL: z.string().min(1).optional(),
  AISLE_EMBEDDING_BASE_URL: z.url().optional(),
  AISLE_EMBEDDING_API_KEY: z.string().min(1).optional(),
  AISLE_EMBEDDING_DIMENSIONS: z.coerce.number().int().min(1).max(8192).optional(),
  AISLE_EMBEDDING_THREADS: z.coerce.number().int().min(0).max(256).optional(),
  AISLE_KNOWLEDGE: booleanFlag.default(false),
  AISLE_KNOWLEDGE_FILE: z.string().min(1).optional(),
  AISLE_READER: z.enum(['offline', 'openai']).default('offline'),
  AISLE_READER_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  AISLE_READER_MODEL: z.string().min(1).optional(),
  AISLE_READER_API_KEY: z.string().min(1).optional(),
  AISLE_READER_TIMEOUT_MS: outboundMs(60_000).default(1_500),
  AISLE_READER_CONCURRENCY: z.coerce.number().int().min(1).max(1_024).default(8),
  AISLE_READER_CACHE_ENTRIES: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
  AISLE_EMBEDDING_TIMEOUT_MS: outboundMs(600_000).default(DEFAULT_TIMEOUTS.embeddingMs),
  // The OAuth issuer (RFC 8414 §2: no query or fragment) and the base of click links.
  AISLE_PUBLIC_URL: z
    .url({ protocol: /^https?$/ })
    .refine((u) => {
      const url = new URL(u);
      return url.search === '' && url.hash === '' && url.username === '' && url.password === '';
    }, 'must have no query, fragment or user info: it is the OAuth issuer and the base of click links')
    .optional(),
  AISLE_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  AISLE_BASE_URL_TIMEOUT_MS: outboundMs(600_000).default(DEFAULT_TIMEOUTS.remoteMs),
  AISLE_API_KEY: z.string().trim().min(1).optional(),
  AISLE_MCP_ALLOWED_ORIGINS: commaList.optional(),
  AISLE_MCP_ALLOWED_HOSTS: commaList.optional(),
  AISLE_CLICK_SECRET: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .refine((list) => list.length > 0 && list.every((s) => s.length >= 32), 'a comma-separated list of secrets of at least 32 characters each, newest first')
    .optional(),
  AISLE_AFFILIATE_CONFIG: z.string().min(1).optional(),
  AISLE_WEBHOOK_ALLOW_PRIVATE: booleanFlag.default(false),
  AISLE_FEED_ALLOW_PRIVATE: booleanFlag.default(false),
  AISLE_FEED_MAX_MB: z.coerce.number().int().min(1).max(1_048_576).default(4_096),
  AISLE_FEED_IDLE_TIMEOUT_MS: outboundMs(3_600_000).default(DEFAULT_TIMEOUTS.feedIdleMs),
  AISLE_FEED_TIMEOUT_MS: outboundMs(86_400_000).default(DEFAULT_TIMEOUTS.feedMs),
  AISLE_WEBHOOK_TIMEOUT_MS: outboundMs(60_000).default(DEFAULT_TIMEOUTS.webhookMs),
  AISLE_OAUTH_METADATA_TIMEOUT_MS: outboundMs(60_000).default(DEFAULT_TIMEOUTS.clientMetadataMs),
  AISLE_OAUTH_ALLOW_PRIVATE: booleanFlag.default(false),
  AISLE_OAUTH_REGISTER_RATE_LIMIT: z.coerce.number().int().min(1).max(100_000).default(10),
  AISLE_WEBHOOK_WORKER: booleanFlag.default(true),
  AISLE_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(512).default(32),
  AISLE_WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(100),
  AISLE_WEBHOOK_LEASE_MS: z.coerce.number().int().min(1_000).max(60_000).default(60_000),
  AISLE_REQUEST_LOG: booleanFlag.default(true),
  AISLE_REQUEST_LOG_FLUSH_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  AISLE_REQUEST_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(400),
  AISLE_SESSION_TTL_HOURS: z.coerce.number().int().min(1).max(8760).default(24),
  AISLE_WEBHOOK_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  AISLE_LEARNING: booleanFlag.default(true),
  AISLE_LEARNING_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(7 * 86_400_000)
    .default(3_600_000),
  AISLE_API_PROCESSES: z.coerce.number().int().min(1).max(256).optional(),
  /** The former name of AISLE_API_PROCESSES, still read when that is unset (docs/configuration.md). */
  AISLE_WORKERS: z.coerce.number().int().min(1).max(256).optional(),
  /** Set by the primary process for each API process it starts (0, 1, …); not for operators. */
  AISLE_PROCESS_INDEX: z.coerce.number().int().min(0).optional(),
});

export type Config = Readonly<{
  host: string;
  port: number;
  /** Where GET /metrics is served (AISLE_METRICS_LISTEN; docs/operations.md); null: no metrics. */
  metricsListen: Readonly<{ host: string; port: number }> | null;
  /** OpenTelemetry traces over OTLP/HTTP: on when an endpoint is set and the SDK is not disabled. */
  tracing: Readonly<{ enabled: boolean; serviceName: string }>;
  dataDir: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /** Bounds on database work in milliseconds, 0 for none (PostgreSQL only; docs/configuration.md). */
  databaseTimeouts: DatabaseTimeouts;
  /** Bounds on receiving a request in milliseconds, 0 for none: the whole request, and its headers. */
  httpTimeouts: Readonly<{ requestMs: number; headersMs: number }>;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  /** `auto`: readable lines when stderr is a terminal, JSON otherwise (pipes, files, log shippers). */
  logFormat: 'auto' | 'json' | 'pretty';
  defaultRateLimitPerMinute: number;
  trustProxy: boolean;
  shutdownGraceMs: number;
  catalog: Readonly<{
    uri: string;
    loadSampleWhenEmpty: boolean;
    annThreshold: number;
    annIndex: 'ivf_hnsw_sq' | 'ivf_pq';
    /** Decoded products kept in memory by the search path; 0 turns the cache off. */
    cacheBytes: number;
    /** How often an API process re-reads the serving pointer (imports by other processes); 0 never. */
    refreshMs: number;
    /** Catalog sources' downloads: http and private addresses allowed (local feeds, tests), the largest feed after decompression, and the time bounds. */
    feeds: Readonly<{ allowPrivate: boolean; maxBytes: number; idleTimeoutMs: number; totalTimeoutMs: number }>;
    /** How often the leader process runs catalog upkeep (docs/ingest.md); 0 never. */
    upkeepMs: number;
    /** How long a version the serving pointer left keeps its files. */
    versionRetentionMs: number;
  }>;
  /** The shopper's knowledge base (docs/knowledge.md): on or off, and an operator's own file of entries. */
  knowledge: Readonly<{ enabled: boolean; extraFiles: readonly string[] }>;
  /** Who reads conversations (docs/search.md, "Readers"): offline, or a language model behind an OpenAI-compatible chat endpoint. */
  reader: Readonly<
    | { kind: 'offline' }
    | { kind: 'openai'; baseUrl: string | undefined; model: string; apiKey: string | undefined; timeoutMs: number; concurrency: number; cacheEntries: number }
  >;
  embedding: Readonly<{
    provider: 'use-lite' | 'openai' | 'transformers';
    model: string | undefined;
    baseUrl: string | undefined;
    apiKey: string | undefined;
    dimensions: number | undefined;
    /** One request to an OpenAI-compatible endpoint. */
    timeoutMs: number;
    /** Where built model files are cached (the USE-lite ONNX graph). */
    cacheDir: string;
    /**
     * Threads of the local model's runs (use-lite): 0 lets onnxruntime take every core. The
     * default is 1 in each API process when several share the machine's cores (each already
     * keeps a core busy), else 0.
     */
    threads: number;
  }>;
  clickLinks: Readonly<{
    /** Origin (and optional path prefix) click links start with: `{publicBaseUrl}/r/{impression_id}`. */
    publicBaseUrl: string;
    /** First signs, all verify; empty means "generate one and keep it in the database". */
    secrets: readonly string[];
    /** JSON file of affiliate parameters per merchant/network (docs/clicks.md). */
    affiliateConfigPath: string | undefined;
  }>;
  mcp: Readonly<{
    /** The key the stdio MCP server acts with (AISLE_API_KEY). */
    apiKey: string | undefined;
    /** Set: the stdio MCP server forwards to this Aisle over REST instead of opening the stores. Ends in /v1. */
    remoteBaseUrl: string | undefined;
    /** One call to the Aisle at remoteBaseUrl. */
    remoteTimeoutMs: number;
    /** Origins a browser may call POST /mcp from (besides this server's own public origin). */
    allowedOrigins: readonly string[];
    /** Host header values POST /mcp answers (hostname or hostname:port); guards against DNS rebinding. */
    allowedHosts: readonly string[];
  }>;
  webhooks: Readonly<{
    /** http and private/loopback destinations allowed: local development and tests only. */
    allowPrivate: boolean;
    /** A receiver's whole answer. */
    timeoutMs: number;
    /** Run the delivery worker inside the API process (npm start); `npm run worker` runs more. */
    inProcessWorker: boolean;
    concurrency: number;
    pollMs: number;
    leaseMs: number;
  }>;
  /** Aisle as the OAuth authorization server of its own API (docs/oauth.md); the issuer is clickLinks.publicBaseUrl. */
  oauth: Readonly<{
    /** Client metadata documents may be fetched from private, loopback and reserved addresses: local development and tests only. */
    allowPrivate: boolean;
    /** A client metadata document's whole fetch. */
    metadataTimeoutMs: number;
    /** Dynamic client registrations per minute from one client address. */
    registrationsPerMinute: number;
  }>;
  requestLog: Readonly<{
    /** Off: no request log (GET /usage `requests` and GET /analytics/performance stay at zero). */
    enabled: boolean;
    /** The longest an entry waits in memory: what a crash can lose. */
    flushMs: number;
  }>;
  /** How long rows that are not the ledger are kept; one process of a deployment prunes them. */
  retention: Readonly<{
    /** A session lives this long after its last use: searches load it within, retention deletes it after. */
    sessionTtlMs: number;
    /** Finished webhook deliveries, their attempts and their events. */
    webhookHistoryDays: number;
    requestLogDays: number;
  }>;
  /** Ranking learns from this deployment's clicks, conversions and votes (docs/relevance.md). */
  learning: boolean;
  /** How often global learning runs in this process: judge the candidate under test, or fit one. */
  learningIntervalMs: number;
  /**
   * API processes `npm start` runs: AISLE_API_PROCESSES, else one per two available cores with
   * PostgreSQL. Always 1 on the embedded database (PGlite is single-process);
   * `apiProcessesIgnored` then says how many were asked for.
   */
  apiProcesses: number;
  apiProcessesIgnored: number | undefined;
  /** Settings given under a former name (still honoured), for a warning at start. */
  formerNamesUsed: readonly string[];
  /** This API process's index among the API processes (0 runs the once-per-deployment jobs); undefined outside a cluster. */
  processIndex: number | undefined;
}>;

export type DatabaseTimeouts = Readonly<{
  /** Opening a connection, or waiting for a free one in the pool. */
  connectMs: number;
  /** One statement on the request path (statement_timeout; also idle time inside a transaction). */
  statementMs: number;
  /** One statement of maintenance work: migrations, rollups, the learner's log reads. */
  maintenanceMs: number;
}>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * onnxruntime-node (1.29 and later, which runs the local embedding models) collects usage
 * telemetry for Microsoft unless ORT_DISABLE_TELEMETRY is set: a device id and a database of events
 * for upload (one per session, naming the model's file) under ~/.cache/Microsoft, and files in the
 * temp folder. A server should not report to a third party unasked, so Aisle sets the variable
 * before its first onnxruntime session; an operator who set it decides (`0` turns the telemetry
 * on; docs/configuration.md, "onnxruntime's telemetry"). onnxruntime reads it when a session is
 * created, in any thread, so setting it before then is enough.
 */
export function turnOffOnnxTelemetry(env: NodeJS.ProcessEnv = process.env): void {
  if (!env.ORT_DISABLE_TELEMETRY) env.ORT_DISABLE_TELEMETRY = '1';
}

/** Parses and freezes the configuration; throws ConfigError naming each bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.AISLE_EMBEDDING_PROVIDER === 'openai' && (!e.AISLE_EMBEDDING_MODEL || !e.AISLE_EMBEDDING_BASE_URL)) {
    throw new ConfigError('Invalid configuration:\n  AISLE_EMBEDDING_PROVIDER=openai needs AISLE_EMBEDDING_BASE_URL and AISLE_EMBEDDING_MODEL');
  }
  if (e.AISLE_READER === 'openai' && !e.AISLE_READER_MODEL) {
    throw new ConfigError("Invalid configuration:\n  AISLE_READER=openai needs AISLE_READER_MODEL (and AISLE_READER_BASE_URL for any endpoint but OpenAI's)");
  }
  if (e.AISLE_EMBEDDING_PROVIDER === 'transformers' && !e.AISLE_EMBEDDING_MODEL) {
    throw new ConfigError('Invalid configuration:\n  AISLE_EMBEDDING_PROVIDER=transformers needs AISLE_EMBEDDING_MODEL (a model id or a local folder)');
  }
  if (e.AISLE_REQUEST_TIMEOUT_MS > 0 && e.AISLE_HEADERS_TIMEOUT_MS > e.AISLE_REQUEST_TIMEOUT_MS) {
    // Node refuses a headers timeout longer than the request timeout: the headers are part of the request.
    throw new ConfigError('Invalid configuration:\n  AISLE_HEADERS_TIMEOUT_MS: must not exceed AISLE_REQUEST_TIMEOUT_MS (the headers are part of the request)');
  }
  const dataDir = resolve(e.AISLE_DATA_DIR);
  // One API process per two cores: under load a process keeps about 1.5 cores busy (its event
  // loop, the embedding thread, LanceDB's threads) and holds its own catalog cache and model, so
  // a process per core doubled the memory for no more searches (docs/deployment.md, "API
  // processes per machine").
  const askedProcesses = e.AISLE_API_PROCESSES ?? e.AISLE_WORKERS;
  const apiProcesses = e.DATABASE_URL === undefined ? 1 : (askedProcesses ?? Math.max(1, Math.floor(availableParallelism() / 2)));
  return Object.freeze({
    host: e.HOST,
    port: e.PORT,
    metricsListen: e.AISLE_METRICS_LISTEN === undefined ? null : hostPort(e.AISLE_METRICS_LISTEN),
    tracing: Object.freeze({
      enabled:
        (e.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined) &&
        e.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true' &&
        (e.OTEL_TRACES_EXPORTER ?? 'otlp')
          .split(',')
          .map((s) => s.trim())
          .includes('otlp'),
      serviceName: e.OTEL_SERVICE_NAME,
    }),
    dataDir,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databaseTimeouts: Object.freeze({
      connectMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      statementMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      maintenanceMs: e.DATABASE_MAINTENANCE_TIMEOUT_MS,
    }),
    httpTimeouts: Object.freeze({ requestMs: e.AISLE_REQUEST_TIMEOUT_MS, headersMs: e.AISLE_HEADERS_TIMEOUT_MS }),
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    defaultRateLimitPerMinute: e.AISLE_DEFAULT_RATE_LIMIT,
    trustProxy: e.AISLE_TRUST_PROXY,
    shutdownGraceMs: e.AISLE_SHUTDOWN_GRACE_MS,
    catalog: Object.freeze({
      uri: e.AISLE_CATALOG_URI ?? `${dataDir}/catalog`,
      loadSampleWhenEmpty: e.AISLE_SAMPLE_CATALOG,
      annThreshold: e.AISLE_ANN_THRESHOLD,
      annIndex: e.AISLE_ANN_INDEX,
      cacheBytes: e.AISLE_CATALOG_CACHE_MB * 1024 * 1024,
      refreshMs: e.AISLE_CATALOG_REFRESH_MS,
      upkeepMs: e.AISLE_CATALOG_UPKEEP_MINUTES * 60_000,
      feeds: Object.freeze({
        allowPrivate: e.AISLE_FEED_ALLOW_PRIVATE,
        maxBytes: e.AISLE_FEED_MAX_MB * 1024 * 1024,
        idleTimeoutMs: e.AISLE_FEED_IDLE_TIMEOUT_MS,
        totalTimeoutMs: e.AISLE_FEED_TIMEOUT_MS,
      }),
      versionRetentionMs: e.AISLE_CATALOG_RETENTION_MINUTES * 60_000,
    }),
    knowledge: Object.freeze({
      enabled: e.AISLE_KNOWLEDGE,
      extraFiles: Object.freeze(e.AISLE_KNOWLEDGE_FILE === undefined ? [] : [resolve(e.AISLE_KNOWLEDGE_FILE)]),
    }),
    reader: Object.freeze(
      e.AISLE_READER === 'openai'
        ? {
            kind: 'openai' as const,
            baseUrl: e.AISLE_READER_BASE_URL,
            model: e.AISLE_READER_MODEL!,
            apiKey: e.AISLE_READER_API_KEY,
            timeoutMs: e.AISLE_READER_TIMEOUT_MS,
            concurrency: e.AISLE_READER_CONCURRENCY,
            cacheEntries: e.AISLE_READER_CACHE_ENTRIES,
          }
        : { kind: 'offline' as const },
    ),
    embedding: Object.freeze({
      provider: e.AISLE_EMBEDDING_PROVIDER,
      model: e.AISLE_EMBEDDING_MODEL,
      baseUrl: e.AISLE_EMBEDDING_BASE_URL,
      apiKey: e.AISLE_EMBEDDING_API_KEY,
      dimensions: e.AISLE_EMBEDDING_DIMENSIONS,
      timeoutMs: e.AISLE_EMBEDDING_TIMEOUT_MS,
      cacheDir: `${dataDir}/models`,
      // Tools (ingest, eval) are no API process: their batches take every core.
      threads: e.AISLE_EMBEDDING_THREADS ?? (e.AISLE_PROCESS_INDEX !== undefined && apiProcesses > 1 ? 1 : 0),
    }),
    clickLinks: Object.freeze({
      publicBaseUrl: publicBaseUrl(e),
      secrets: Object.freeze([...(e.AISLE_CLICK_SECRET ?? [])]),
      affiliateConfigPath: e.AISLE_AFFILIATE_CONFIG === undefined ? undefined : resolve(e.AISLE_AFFILIATE_CONFIG),
    }),
    mcp: Object.freeze({
      apiKey: e.AISLE_API_KEY,
      remoteBaseUrl: e.AISLE_BASE_URL === undefined ? undefined : `${e.AISLE_BASE_URL.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1`,
      remoteTimeoutMs: e.AISLE_BASE_URL_TIMEOUT_MS,
      allowedOrigins: Object.freeze([publicOrigin(e), ...(e.AISLE_MCP_ALLOWED_ORIGINS ?? []).map((o) => o.replace(/\/+$/, ''))]),
      allowedHosts: Object.freeze(e.AISLE_MCP_ALLOWED_HOSTS ?? defaultMcpHosts(e)),
    }),
    webhooks: Object.freeze({
      allowPrivate: e.AISLE_WEBHOOK_ALLOW_PRIVATE,
      timeoutMs: e.AISLE_WEBHOOK_TIMEOUT_MS,
      inProcessWorker: e.AISLE_WEBHOOK_WORKER,
      concurrency: e.AISLE_WEBHOOK_CONCURRENCY,
      pollMs: e.AISLE_WEBHOOK_POLL_MS,
      leaseMs: e.AISLE_WEBHOOK_LEASE_MS,
    }),
    oauth: Object.freeze({
      allowPrivate: e.AISLE_OAUTH_ALLOW_PRIVATE,
      metadataTimeoutMs: e.AISLE_OAUTH_METADATA_TIMEOUT_MS,
      registrationsPerMinute: e.AISLE_OAUTH_REGISTER_RATE_LIMIT,
    }),
    requestLog: Object.freeze({
      enabled: e.AISLE_REQUEST_LOG,
      flushMs: e.AISLE_REQUEST_LOG_FLUSH_MS,
    }),
    retention: Object.freeze({
      sessionTtlMs: e.AISLE_SESSION_TTL_HOURS * 3_600_000,
      webhookHistoryDays: e.AISLE_WEBHOOK_RETENTION_DAYS,
      requestLogDays: e.AISLE_REQUEST_LOG_RETENTION_DAYS,
    }),
    learning: e.AISLE_LEARNING,
    learningIntervalMs: e.AISLE_LEARNING_INTERVAL_MS,
    apiProcesses,
    apiProcessesIgnored: e.DATABASE_URL === undefined && (askedProcesses ?? 1) > 1 ? askedProcesses : undefined,
    formerNamesUsed: e.AISLE_WORKERS !== undefined ? ['AISLE_WORKERS → AISLE_API_PROCESSES'] : [],
    processIndex: e.AISLE_PROCESS_INDEX,
  });
}

/**
 * Where people reach this server: AISLE_PUBLIC_URL, else AISLE_BASE_URL without its `/v1`, else
 * HOST:PORT (an unspecified bind address stands for this machine).
 */
function publicBaseUrl(e: z.infer<typeof envSchema>): string {
  if (e.AISLE_PUBLIC_URL) return e.AISLE_PUBLIC_URL.replace(/\/+$/, '');
  if (e.AISLE_BASE_URL) return e.AISLE_BASE_URL.replace(/\/+$/, '').replace(/\/v1$/, '');
  const host = e.HOST === '0.0.0.0' || e.HOST === '::' ? '127.0.0.1' : e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST;
  return `http://${host}:${e.PORT}`;
}

const publicOrigin = (e: z.infer<typeof envSchema>): string => new URL(publicBaseUrl(e)).origin;

/**
 * Without AISLE_MCP_ALLOWED_HOSTS, /mcp answers the names this machine is reached by locally, the
 * bind address and the public URL's host: a DNS-rebinding page reaches us under its own name.
 */
function defaultMcpHosts(e: z.infer<typeof envSchema>): string[] {
  const hosts = ['localhost', '127.0.0.1', '[::1]', new URL(publicBaseUrl(e)).hostname];
  if (e.HOST !== '0.0.0.0' && e.HOST !== '::') hosts.push(e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST);
  return [...new Set(hosts)];
}

/** `127.0.0.1:9464` or `[::1]:9464` as a host (brackets dropped) and a port. */
function hostPort(value: string): { host: string; port: number } {
  const colon = value.lastIndexOf(':');
  return Object.freeze({ host: value.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port: Number(value.slice(colon + 1)) });
}
