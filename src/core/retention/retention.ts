import { setImmediate as nextTurn } from 'node:timers/promises';
import type { RequestLogStore } from '../analytics/ports.js';
import type { Clock } from '../clock.js';
import { REGISTRATION_BUCKET_PREFIX, UNUSED_REGISTRATION_TTL_MS } from '../oauth/clients.js';
import type { OAuthStore } from '../oauth/ports.js';
import type { RateLimitStore } from '../rate-limit/ports.js';
import type { SearchStore } from '../search/ports.js';
import { SESSION_TTL_MS } from '../search/search-service.js';
import type { Logger } from '../shared-ports.js';
import type { WebhookStore } from '../webhooks/ports.js';

/** How long each kind of row is kept (docs/configuration.md). Impressions, clicks and conversions are the ledger: never pruned. */
export interface RetentionWindows {
  /** A session lives this long after its last use: the search path loads it within this, retention deletes it after. */
  sessionTtlMs: number;
  /** Finished webhook deliveries (with their attempts) and the events they leave behind. */
  webhookHistoryDays: number;
  /** Raw request-log rows (GET /usage, GET /analytics/performance). */
  requestLogDays: number;
}

/** 400 days of request log keeps GET /usage's longest range (366 days) complete. */
export const DEFAULT_RETENTION: RetentionWindows = { sessionTtlMs: SESSION_TTL_MS, webhookHistoryDays: 30, requestLogDays: 400 };

/** Rows deleted by one run, per table. */
export interface PruneCounts {
  sessions: number;
  webhookDeliveries: number;
  webhookEvents: number;
  requestLog: number;
  /** Dynamic client registrations never used for an authorization. */
  oauthClients: number;
  oauthCodes: number;
  /** Grants revoked or ended, with their tokens. */
  oauthGrants: number;
  oauthTokens: number;
  /** Per-address registration rate limits that have fully recovered (as good as no row). */
  registrationLimits: number;
}

export interface RetentionDeps {
  stores: {
    searches: Pick<SearchStore, 'pruneSessions'>;
    webhooks: Pick<WebhookStore, 'pruneDeliveries' | 'pruneEvents'>;
    requestLog: Pick<RequestLogStore, 'pruneBefore'>;
    oauth: Pick<OAuthStore, 'pruneUnusedClients' | 'pruneCodes' | 'pruneGrants' | 'pruneTokens'>;
    rateLimits: Pick<RateLimitStore, 'pruneRecovered'>;
  };
  clock: Clock;
  logger: Logger;
  windows: RetentionWindows;
  /** Rows per statement (default 1,000): each batch is its own short transaction. */
  batchSize?: number;
}

/** How often the servers run retention: each run then deletes about a quarter hour's worth of new rows. */
export const RETENTION_INTERVAL_MS = 15 * 60_000;

const DAY_MS = 86_400_000;
/**
 * Sessions are deleted this long after the search path stops loading them, so a search that read
 * the clock just before a run, or a server whose clock is slightly behind the pruner's, never
 * misses a session it would still load.
 */
export const SESSION_PRUNE_GRACE_MS = 60_000;

/**
 * Expired OAuth codes and tokens, and ended grants, are kept a day past their end: a code or
 * refresh token presented again within it still finds its grant to revoke, and logs can name it.
 */
const OAUTH_ENDED_KEEP_MS = DAY_MS;

interface Table {
  name: keyof PruneCounts;
  /** Rows older than now minus this go. */
  ageMs: number;
  prune(cutoff: Date, limit: number): Promise<number>;
}

/**
 * Deletes what has outlived its window: sessions, webhook history, the request log, and OAuth's
 * unused registrations, expired codes and tokens and ended grants (docs/oauth.md). Each table
 * is pruned in batches of `batchSize` rows, each batch one statement and one short transaction,
 * yielding to the event loop between batches, until a batch comes back short. Deliveries go
 * before events, so the events they leave behind go in the same run. One process of a
 * deployment runs it (main.ts); a second one on the same database is harmless, only wasted work.
 */
export class Retention {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<PruneCounts> | null = null;
  private stopping = false;
  private readonly tables: readonly Table[];

  constructor(private readonly deps: RetentionDeps) {
    const { stores, windows } = deps;
    const history = windows.webhookHistoryDays * DAY_MS;
    this.tables = [
      { name: 'sessions', ageMs: windows.sessionTtlMs + SESSION_PRUNE_GRACE_MS, prune: (c, n) => stores.searches.pruneSessions(c, n) },
      { name: 'webhookDeliveries', ageMs: history, prune: (c, n) => stores.webhooks.pruneDeliveries(c, n) },
      { name: 'webhookEvents', ageMs: history, prune: (c, n) => stores.webhooks.pruneEvents(c, n) },
      { name: 'requestLog', ageMs: windows.requestLogDays * DAY_MS, prune: (c, n) => stores.requestLog.pruneBefore(c, n) },
      { name: 'oauthClients', ageMs: UNUSED_REGISTRATION_TTL_MS, prune: (c, n) => stores.oauth.pruneUnusedClients(c, n) },
      { name: 'oauthCodes', ageMs: OAUTH_ENDED_KEEP_MS, prune: (c, n) => stores.oauth.pruneCodes(c, n) },
      { name: 'oauthGrants', ageMs: OAUTH_ENDED_KEEP_MS, prune: (c, n) => stores.oauth.pruneGrants(c, n) },
      { name: 'oauthTokens', ageMs: OAUTH_ENDED_KEEP_MS, prune: (c, n) => stores.oauth.pruneTokens(c, n) },
      { name: 'registrationLimits', ageMs: 0, prune: (c, n) => stores.rateLimits.pruneRecovered(REGISTRATION_BUCKET_PREFIX, c, n) },
    ];
  }

  /**
   * Prunes every table now and resolves with what went. A run already going is joined, not
   * doubled. A table that fails does not stop the others; the run then rejects with every failure.
   */
  prune(): Promise<PruneCounts> {
    this.running ??= this.pruneAll().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Prunes now and every `intervalMs` after, until stop(). */
  start(intervalMs: number): void {
    if (this.timer !== null) return;
    this.stopping = false;
    const tick = () => {
      this.prune().catch((err: unknown) => this.deps.logger.error({ err }, 'retention pruning failed'));
    };
    tick();
    this.timer = setInterval(tick, intervalMs).unref();
  }

  /** Stops the timer; a run in progress ends after its current batch. Pruning resumes only with start(). */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.stopping = true;
    await this.running?.catch(() => undefined);
  }

  private async pruneAll(): Promise<PruneCounts> {
    const started = this.deps.clock.now().getTime();
    const counts: PruneCounts = {
      sessions: 0,
      webhookDeliveries: 0,
      webhookEvents: 0,
      requestLog: 0,
      oauthClients: 0,
      oauthCodes: 0,
      oauthGrants: 0,
      oauthTokens: 0,
      registrationLimits: 0,
    };
    const failures: unknown[] = [];
    for (const table of this.tables) {
      if (this.stopping) break;
      try {
        counts[table.name] = await this.pruneTable(table, new Date(started - table.ageMs));
      } catch (err) {
        failures.push(err);
      }
    }
    if (Object.values(counts).some((n) => n > 0)) this.deps.logger.info({ deleted: counts }, 'retention pruned expired rows');
    if (failures.length > 0) throw new AggregateError(failures, `retention: ${failures.length} table(s) could not be pruned`);
    return counts;
  }

  private async pruneTable(table: Table, cutoff: Date): Promise<number> {
    const batch = this.deps.batchSize ?? 1_000;
    let total = 0;
    for (;;) {
      const n = await table.prune(cutoff, batch);
      total += n;
      if (n < batch || this.stopping) return total;
      // Requests waiting on the database (PGlite has one connection) get in between batches.
      await nextTurn();
    }
  }
}
