import closeWithGrace from 'close-with-grace';
import { ConfigError, loadConfig } from './config.js';
import { systemClock } from './core/clock.js';
import { createCore } from './core/index.js';
import { buildApp } from './http/app.js';
import { createLogger } from './logger.js';
import { createPgStores, openMigratedDb } from './store/pg/index.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const db = await openMigratedDb(config);
  const core = createCore({ stores: createPgStores(db), clock: systemClock, logger, defaultRateLimitPerMinute: config.defaultRateLimitPerMinute });

  const created = await core.accounts.ensureDefault();
  if (created) {
    // One line with the key itself, so a script can pick it up (CONTRACT §0). Shown once.
    process.stderr.write(
      `Created account "default" (${created.account.id}). Its admin API key, shown only now: ${created.firstKey.key}\n`,
    );
  }

  const { app } = await buildApp({ core, logger, trustProxy: config.trustProxy });

  // Stop accepting, let in-flight requests finish, then close the pool; a second signal or the
  // grace period running out forces the exit.
  closeWithGrace({ delay: config.shutdownGraceMs, logger }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'shutting down after an error');
    else logger.info({ signal }, 'shutting down');
    await app.close();
    await db.close();
  });

  const address = await app.listen({ host: config.host, port: config.port });
  logger.info({ address, database: db.kind, dataDir: db.kind === 'pglite' ? config.dataDir : undefined }, 'Aisle is listening');
  process.stderr.write(`Aisle listening on ${address} (API ${address}/v1, docs ${address}/docs)\n`);
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || (err as Error).name === 'LockHeldError') {
    process.stderr.write(`${(err as Error).message}\n`);
  } else {
    process.stderr.write(`Aisle failed to start: ${(err as Error).stack ?? String(err)}\n`);
  }
  process.exit(1);
});
