import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { HttpFeedDownloader } from '../../src/catalog/files/download.js';
import type { DatabaseTimeouts } from '../../src/config.js';
import type { CatalogStore } from '../../src/core/catalog/ports.js';
import type { Clock } from '../../src/core/clock.js';
import { type Core, type CoreDeps, createCore } from '../../src/core/index.js';
import type { Scope } from '../../src/core/keys/scopes.js';
import type { ShopperKnowledge } from '../../src/core/knowledge/ports.js';
import type { Embedder } from '../../src/core/shared-ports.js';
import type { HostResolver } from '../../src/core/webhooks/url-guard.js';
import { buildApp } from '../../src/http/app.js';
import type { HttpTimeouts } from '../../src/http/receive-timeouts.js';
import type { RouteEntry } from '../../src/http/route-table.js';
import { loadTaxonomy } from '../../src/knowledge/files.js';
import { openPlacer } from '../../src/knowledge/placer.js';
import { createLogger } from '../../src/logger.js';
import { systemResolver } from '../../src/outbound/dns.js';
import { createPgStores, type Db } from '../../src/store/pg/index.js';
import { createTestDb, type TestDb } from './db.js';

/** A clock tests move by hand: expiry, grace periods and rate-limit windows without sleeping. */
export class ManualClock implements Clock {
  private t: number;
  constructor(start: string | number = '2026-11-22T10:00:00.000Z') {
    this.t = typeof start === 'number' ? start : Date.parse(start);
  }
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/** Captures every log line the app writes, so tests can search them. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.lines.push(chunk.toString('utf8'));
    done();
  }
  get text(): string {
    return this.lines.join('');
  }
}

export interface TestApp {
  app: FastifyInstance;
  routes: readonly RouteEntry[];
  core: Core;
  db: Db;
  testDb: TestDb;
  clock: Clock;
  logs: LogCapture;
  /** All-scope key of the test account. */
  adminKey: string;
  accountId: string;
  close(): Promise<void>;
}

export interface TestAppOptions {
  clock?: Clock;
  /** Reuse a database (and skip creating an account) — e.g. a second app on the same database. */
  shared?: { testDb: TestDb; db: Db; adminKey: string; accountId: string };
  defaultRateLimitPerMinute?: number;
  /** Enables search: a catalog and the embedder it was built with (see helpers/search.ts). */
  search?: { catalog: CatalogStore; embedder: Embedder; knowledge?: ShopperKnowledge; readerModel?: CoreDeps['readerModel'] };
  /** Affiliate parameters for click redirects. */
  affiliate?: CoreDeps['affiliate'];
  /** The webhook SSRF guard: private destinations refused and system DNS unless given. */
  webhooks?: { allowPrivate: boolean; resolver?: HostResolver };
  /** Global learning's settings (model refresh, interleaving share, guard). */
  rankingLearning?: CoreDeps['rankingLearning'];
  /** The catalog's own ranking model (what serves before anything is learned). */
  rankingModel?: CoreDeps['rankingModel'];
  /** Retention windows (sessions, webhook history, request log) and batch size. */
  retention?: CoreDeps['retention'];
  /** The request log's batching (flush interval, batch and queue bounds); the defaults when absent. */
  requestLog?: CoreDeps['requestLog'];
  /** Bounds on receiving requests; the defaults when absent. */
  httpTimeouts?: HttpTimeouts;
  /** Bounds on the Postgres pool of a new test database; the defaults when absent. */
  dbTimeouts?: Partial<DatabaseTimeouts>;
  /** The OAuth authorization server: its public URL, metadata fetcher and registration limit. */
  oauth?: CoreDeps['oauth'];
  /** Catalog sources' downloads (src/catalog/files/download.ts); the real downloader, public https only, unless given. */
  feedDownloader?: CoreDeps['feedDownloader'];
}

/** One real downloader for the suite's apps that bring none: public https only, 64 MB. */
const defaultDownloader = new HttpFeedDownloader({ allowPrivate: false, maxBytes: 64 * 1024 * 1024 });

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const testDb = options.shared?.testDb ?? (await createTestDb(options.dbTimeouts ? { timeouts: options.dbTimeouts } : {}));
  const db = options.shared?.db ?? testDb.db;
  const clock = options.clock ?? { now: () => new Date() };
  const logs = new LogCapture();
  const logger = createLogger('debug', logs);
  const core = createCore({
    stores: createPgStores(db),
    clock,
    logger,
    defaultRateLimitPerMinute: options.defaultRateLimitPerMinute ?? 600,
    ...(options.search ?? {}),
    // Imports place products, and filters and policies read the taxonomy, as `npm start` has them.
    ...(options.search ? { placer: await openPlacer(options.search.embedder) } : {}),
    taxonomy: await loadTaxonomy(),
    ...(options.affiliate ? { affiliate: options.affiliate } : {}),
    ...(options.rankingLearning ? { rankingLearning: options.rankingLearning } : {}),
    ...(options.rankingModel ? { rankingModel: options.rankingModel } : {}),
    ...(options.retention ? { retention: options.retention } : {}),
    ...(options.oauth ? { oauth: options.oauth } : {}),
    ...(options.requestLog ? { requestLog: options.requestLog } : {}),
    webhooks: { allowPrivate: options.webhooks?.allowPrivate ?? false, resolver: options.webhooks?.resolver ?? systemResolver },
    feedDownloader: options.feedDownloader ?? defaultDownloader,
  });
  let adminKey = options.shared?.adminKey;
  let accountId = options.shared?.accountId;
  if (adminKey === undefined || accountId === undefined) {
    const created = await core.accounts.create('test account');
    adminKey = created.firstKey.key;
    accountId = created.account.id;
  }
  const { app, routes } = await buildApp({ core, logger, ...(options.httpTimeouts ? { timeouts: options.httpTimeouts } : {}) });
  return {
    app,
    routes,
    core,
    db,
    testDb,
    clock,
    logs,
    adminKey,
    accountId,
    close: async () => {
      await app.close();
      if (!options.shared) await testDb.cleanup();
    },
  };
}

/** inject() with an API key; the body is sent as JSON when given. */
export function call(
  app: FastifyInstance,
  key: string | null,
  method: InjectOptions['method'],
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const h: Record<string, string> = { ...headers };
  if (key !== null) h['x-api-key'] = key;
  return app.inject({ method, url, headers: h, ...(body === undefined ? {} : { payload: body as object }) });
}

/** Asserts the status and prints the body when it differs. */
export function expectStatus(res: LightMyRequestResponse, status: number): void {
  expect(res.statusCode, `${res.statusCode} ${res.body}`).toBe(status);
}

/** Asserts a problem+json response with the given status and code. */
export function expectProblem(res: LightMyRequestResponse, status: number, code: string): Record<string, unknown> {
  expectStatus(res, status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json() as Record<string, unknown>;
  expect(body).toMatchObject({ status, code, type: `/docs/errors#${code}`, request_id: res.headers['x-request-id'] });
  return body;
}

/** Creates a key through the API and returns its secret and id. */
export async function createKey(
  app: FastifyInstance,
  adminKey: string,
  body: { name: string; scopes?: Scope[]; rate_limit_per_minute?: number; expires_at?: string; merchant?: string; mode?: 'live' | 'test' },
): Promise<{ key: string; id: string }> {
  const res = await call(app, adminKey, 'POST', '/v1/keys', body);
  expectStatus(res, 201);
  const json = res.json() as { key: string; metadata: { id: string } };
  return { key: json.key, id: json.metadata.id };
}
