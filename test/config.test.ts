import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

const secret = (c: string) => c.repeat(32);

describe('loadConfig: click links', () => {
  it.each([
    [{}, 'http://127.0.0.1:8787'],
    [{ HOST: '0.0.0.0', PORT: '9000' }, 'http://127.0.0.1:9000'],
    [{ AISLE_BASE_URL: 'https://api.example.com/v1' }, 'https://api.example.com'],
    [{ AISLE_BASE_URL: 'https://api.example.com/v1', AISLE_PUBLIC_URL: 'https://go.example.com/' }, 'https://go.example.com'],
  ])('derives the public base URL from %j', (env, expected) => {
    expect(loadConfig(env).clickLinks.publicBaseUrl).toBe(expected);
  });

  it('reads AISLE_CLICK_SECRET as a newest-first list and refuses short secrets', () => {
    expect(loadConfig({ AISLE_CLICK_SECRET: `${secret('a')}, ${secret('b')}` }).clickLinks.secrets).toEqual([secret('a'), secret('b')]);
    expect(loadConfig({}).clickLinks.secrets).toEqual([]);
    expect(() => loadConfig({ AISLE_CLICK_SECRET: 'short' })).toThrow(ConfigError);
    expect(() => loadConfig({ AISLE_PUBLIC_URL: 'ftp://x' })).toThrow(ConfigError);
  });

  it.each(['https://aisle.example.com/?tenant=1', 'https://aisle.example.com/#x', 'https://user:pw@aisle.example.com'])(
    'refuses AISLE_PUBLIC_URL %s, which cannot be an OAuth issuer',
    (url) => {
      expect(() => loadConfig({ AISLE_PUBLIC_URL: url })).toThrow(/AISLE_PUBLIC_URL.*no query, fragment or user info/s);
    },
  );
});

describe('loadConfig: request log', () => {
  it('is on with a 1 s flush by default; each is configurable', () => {
    expect(loadConfig({}).requestLog).toEqual({ enabled: true, flushMs: 1000 });
    expect(loadConfig({ AISLE_REQUEST_LOG: 'false', AISLE_REQUEST_LOG_FLUSH_MS: '250' }).requestLog).toEqual({ enabled: false, flushMs: 250 });
  });
});

describe('loadConfig: retention', () => {
  it('keeps sessions 24 h after last use, webhook history 30 days and the request log 400 days by default', () => {
    expect(loadConfig({}).retention).toEqual({ sessionTtlMs: 86_400_000, webhookHistoryDays: 30, requestLogDays: 400 });
  });

  it('reads each window from its variable and refuses a window under one unit', () => {
    const env = { AISLE_SESSION_TTL_HOURS: '2', AISLE_WEBHOOK_RETENTION_DAYS: '7', AISLE_REQUEST_LOG_RETENTION_DAYS: '30' };
    expect(loadConfig(env).retention).toEqual({ sessionTtlMs: 7_200_000, webhookHistoryDays: 7, requestLogDays: 30 });
    for (const name of Object.keys(env)) expect(() => loadConfig({ [name]: '0' }), name).toThrow(name);
  });
});

describe('loadConfig: MCP', () => {
  it('reads the stdio key and the remote base URL, which always ends in /v1', () => {
    expect(loadConfig({}).mcp).toMatchObject({ apiKey: undefined, remoteBaseUrl: undefined });
    expect(loadConfig({ AISLE_API_KEY: ' aisle_sk_x ' }).mcp.apiKey).toBe('aisle_sk_x');
    expect(loadConfig({ AISLE_BASE_URL: 'http://127.0.0.1:8787' }).mcp.remoteBaseUrl).toBe('http://127.0.0.1:8787/v1');
    expect(loadConfig({ AISLE_BASE_URL: 'https://aisle.example.com/v1/' }).mcp.remoteBaseUrl).toBe('https://aisle.example.com/v1');
  });

  it('allows the server’s own origin and local hosts by default, and what the operator lists', () => {
    expect(loadConfig({}).mcp).toMatchObject({ allowedOrigins: ['http://127.0.0.1:8787'], allowedHosts: ['localhost', '127.0.0.1', '[::1]'] });
    const configured = loadConfig({
      AISLE_PUBLIC_URL: 'https://aisle.example.com',
      HOST: '0.0.0.0',
      AISLE_MCP_ALLOWED_ORIGINS: 'https://agent.example/, https://b.example',
    });
    expect(configured.mcp.allowedOrigins).toEqual(['https://aisle.example.com', 'https://agent.example', 'https://b.example']);
    expect(configured.mcp.allowedHosts).toEqual(['localhost', '127.0.0.1', '[::1]', 'aisle.example.com']);
    expect(loadConfig({ AISLE_MCP_ALLOWED_HOSTS: 'api.example.com:443,internal' }).mcp.allowedHosts).toEqual(['api.example.com:443', 'internal']);
  });
});

describe('loadConfig: API processes', () => {
  it('runs one per two cores (at least one) on PostgreSQL unless AISLE_API_PROCESSES says otherwise, and one on the embedded database', () => {
    const pg = { DATABASE_URL: 'postgres://127.0.0.1/aisle' };
    expect(loadConfig(pg).apiProcesses).toBe(Math.max(1, Math.floor(availableParallelism() / 2)));
    expect(loadConfig({ ...pg, AISLE_API_PROCESSES: '3' }).apiProcesses).toBe(3);
    expect(loadConfig({}).apiProcesses).toBe(1);
    expect(loadConfig({ AISLE_API_PROCESSES: '3' })).toMatchObject({ apiProcesses: 1, apiProcessesIgnored: 3 });
  });

  it('still reads the former name AISLE_WORKERS, names it for a warning, and lets the new name win', () => {
    const pg = { DATABASE_URL: 'postgres://127.0.0.1/aisle' };
    expect(loadConfig({ ...pg, AISLE_WORKERS: '3' })).toMatchObject({ apiProcesses: 3, formerNamesUsed: ['AISLE_WORKERS → AISLE_API_PROCESSES'] });
    expect(loadConfig({ ...pg, AISLE_WORKERS: '3', AISLE_API_PROCESSES: '2' }).apiProcesses).toBe(2);
    expect(loadConfig(pg).formerNamesUsed).toEqual([]);
  });
});

describe('loadConfig: embedding threads', () => {
  const pg = { DATABASE_URL: 'postgres://127.0.0.1/aisle' };
  it('gives each of several API processes one thread, and tools and a single process every core', () => {
    expect(loadConfig({ ...pg, AISLE_API_PROCESSES: '2', AISLE_PROCESS_INDEX: '1' }).embedding.threads).toBe(1);
    // npm run ingest and the other tools read the same environment but are no API process.
    expect(loadConfig({ ...pg, AISLE_API_PROCESSES: '2' }).embedding.threads).toBe(0);
    expect(loadConfig({ ...pg, AISLE_API_PROCESSES: '1', AISLE_PROCESS_INDEX: '0' }).embedding.threads).toBe(0);
    expect(loadConfig({}).embedding.threads).toBe(0);
    expect(loadConfig({ ...pg, AISLE_API_PROCESSES: '2', AISLE_PROCESS_INDEX: '0', AISLE_EMBEDDING_THREADS: '2' }).embedding.threads).toBe(2);
    expect(() => loadConfig({ AISLE_EMBEDDING_THREADS: '-1' })).toThrow(ConfigError);
  });
});

describe('loadConfig: the reader', () => {
  it('reads conversations offline by default; a model reader needs its model, and its bounds are checked', () => {
    expect(loadConfig({}).reader).toEqual({ kind: 'offline' });
    expect(
      loadConfig({ AISLE_READER: 'openai', AISLE_READER_MODEL: 'qwen2.5:3b-instruct', AISLE_READER_BASE_URL: 'http://127.0.0.1:11434/v1' }).reader,
    ).toEqual({
      kind: 'openai',
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'qwen2.5:3b-instruct',
      apiKey: undefined,
      timeoutMs: 1500,
      concurrency: 8,
      cacheEntries: 10_000,
    });
    expect(() => loadConfig({ AISLE_READER: 'openai' })).toThrow(/AISLE_READER=openai needs AISLE_READER_MODEL/);
    expect(() => loadConfig({ AISLE_READER: 'gpt' })).toThrow(ConfigError);
    expect(() => loadConfig({ AISLE_READER: 'openai', AISLE_READER_MODEL: 'm', AISLE_READER_TIMEOUT_MS: '50' })).toThrow(ConfigError);
    expect(() => loadConfig({ AISLE_READER: 'openai', AISLE_READER_MODEL: 'm', AISLE_READER_CONCURRENCY: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ AISLE_READER: 'openai', AISLE_READER_MODEL: 'm', AISLE_READER_BASE_URL: 'file:///etc' })).toThrow(ConfigError);
  });
});

describe('loadConfig: metrics and traces', () => {
  it('serves no metrics unless AISLE_METRICS_LISTEN names host:port', () => {
    expect(loadConfig({}).metricsListen).toBeNull();
    expect(loadConfig({ AISLE_METRICS_LISTEN: '127.0.0.1:9464' }).metricsListen).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(loadConfig({ AISLE_METRICS_LISTEN: '[::1]:0' }).metricsListen).toEqual({ host: '::1', port: 0 });
    for (const bad of ['9464', '127.0.0.1', '127.0.0.1:99999', 'http://127.0.0.1:9464', ':9464'])
      expect(() => loadConfig({ AISLE_METRICS_LISTEN: bad }), bad).toThrow(ConfigError);
  });

  it('turns traces on only when a standard OTLP endpoint variable is set and the SDK is not disabled', () => {
    expect(loadConfig({}).tracing).toEqual({ enabled: false, serviceName: 'aisle' });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).tracing.enabled).toBe(true);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces', OTEL_SERVICE_NAME: 'shop' }).tracing).toEqual({
      enabled: true,
      serviceName: 'shop',
    });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }).tracing.enabled).toBe(false);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'TRUE' }).tracing.enabled).toBe(false);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'false' }).tracing.enabled).toBe(true);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing.enabled).toBe(false);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow(ConfigError);
  });
});

describe('loadConfig: timeouts', () => {
  it('bounds the database and receiving a request by default; each bound is configurable and 0 turns it off', () => {
    const defaults = loadConfig({});
    expect(defaults.databaseTimeouts).toEqual({ connectMs: 5_000, statementMs: 10_000, maintenanceMs: 600_000 });
    expect(defaults.httpTimeouts).toEqual({ requestMs: 30_000, headersMs: 10_000 });
    const set = loadConfig({
      DATABASE_CONNECT_TIMEOUT_MS: '2000',
      DATABASE_STATEMENT_TIMEOUT_MS: '0',
      DATABASE_MAINTENANCE_TIMEOUT_MS: '0',
      AISLE_REQUEST_TIMEOUT_MS: '60000',
      AISLE_HEADERS_TIMEOUT_MS: '5000',
    });
    expect(set.databaseTimeouts).toEqual({ connectMs: 2_000, statementMs: 0, maintenanceMs: 0 });
    expect(set.httpTimeouts).toEqual({ requestMs: 60_000, headersMs: 5_000 });
    expect(() => loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '-1' })).toThrow(ConfigError);
  });

  it('refuses a headers bound longer than the request bound, which includes the headers', () => {
    expect(() => loadConfig({ AISLE_REQUEST_TIMEOUT_MS: '5000', AISLE_HEADERS_TIMEOUT_MS: '6000' })).toThrow(/AISLE_HEADERS_TIMEOUT_MS/);
    expect(loadConfig({ AISLE_REQUEST_TIMEOUT_MS: '0', AISLE_HEADERS_TIMEOUT_MS: '6000' }).httpTimeouts).toEqual({ requestMs: 0, headersMs: 6_000 });
  });
});
