import type { Config } from '../../config.js';
import type { Stores } from '../../core/stores.js';
import { PgAccountStore } from './account-store.js';
import { PgAnalyticsStore } from './analytics-store.js';
import { PgCatalogSourceStore } from './catalog-source-store.js';
import { PgClickStore } from './click-store.js';
import { PgConsoleSessionStore } from './console-session-store.js';
import { assertDbAvailable, type Db, type DbTarget, openDb } from './db.js';
import { PgFeedStore } from './feed-store.js';
import { PgFeedbackStore } from './feedback-store.js';
import { PgKeyStore } from './key-store.js';
import { PgLearningStore } from './learning-store.js';
import { migrate, migrationsCurrent } from './migrate.js';
import { PgOAuthStore } from './oauth-store.js';
import { PgPolicyStore } from './policy-store.js';
import { PgRankingModelStore } from './ranking-model-store.js';
import { PgRateLimitStore } from './rate-limit-store.js';
import { PgRequestLogStore } from './request-log-store.js';
import { PgSearchStore } from './search-store.js';
import { PgSecretStore } from './secret-store.js';
import { PgWebhookStore } from './webhook-store.js';

export { type Db, type DbTarget, openDb } from './db.js';
export { migrate } from './migrate.js';
export { appendEvent } from './outbox.js';
export { PgWebhookStore } from './webhook-store.js';

export function createPgStores(db: Db): Stores {
  return {
    searches: new PgSearchStore(db),
    clicks: new PgClickStore(db),
    feedback: new PgFeedbackStore(db),
    feeds: new PgFeedStore(db),
    catalogSources: new PgCatalogSourceStore(db),
    secrets: new PgSecretStore(db),
    keys: new PgKeyStore(db),
    accounts: new PgAccountStore(db),
    rateLimits: new PgRateLimitStore(db),
    webhooks: new PgWebhookStore(db),
    analytics: new PgAnalyticsStore(db),
    requestLog: new PgRequestLogStore(db),
    consoleSessions: new PgConsoleSessionStore(db),
    oauth: new PgOAuthStore(db),
    learning: new PgLearningStore(db),
    rankingModels: new PgRankingModelStore(db),
    policies: new PgPolicyStore(db),
    health: { migrationsCurrent: () => migrationsCurrent(db) },
  };
}

type DbConfig = Pick<Config, 'databaseUrl' | 'databasePoolSize' | 'databaseTimeouts' | 'dataDir'>;

const dbTarget = (config: DbConfig): DbTarget =>
  config.databaseUrl
    ? { kind: 'postgres', url: config.databaseUrl, poolSize: config.databasePoolSize, timeouts: config.databaseTimeouts }
    : { kind: 'pglite', dataDir: config.dataDir };

/** Throws LockHeldError when another process holds the configured embedded database; opens nothing. */
export function assertConfiguredDbAvailable(config: DbConfig): void {
  assertDbAvailable(dbTarget(config));
}

/** Opens the configured database (PGlite in the data dir unless a URL is given) and migrates it. */
export async function openMigratedDb(config: DbConfig): Promise<Db> {
  const db = await openDb(dbTarget(config));
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}
