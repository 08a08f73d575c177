import closeWithGrace from 'close-with-grace';
import { ConfigError, loadConfig } from '../config.js';
import { createProcessLogger } from '../logger.js';
import { openMigratedDb } from '../store/pg/index.js';
import { createDeliveryWorker } from './create.js';

/**
 * `npm run worker`: webhook delivery only, any number of processes beside the API. With the
 * embedded database (no DATABASE_URL) it can run only when no server holds the data directory.
 * It does not prune webhook history: one API process per deployment runs retention for every
 * table (docs/deployment.md, "Retention"), and any number of workers would only repeat it.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createProcessLogger(config.logLevel, config.logFormat);
  const db = await openMigratedDb(config);
  const { worker, close } = createDeliveryWorker(config, db, logger);
  closeWithGrace({ delay: config.shutdownGraceMs, logger }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'webhook worker stopping after an error');
    else logger.info({ signal }, 'webhook worker stopping');
    await close();
    await db.close();
  });
  worker.start();
  logger.info({ database: db.kind, concurrency: config.webhooks.concurrency }, 'webhook worker started');
  process.stderr.write(`Aisle webhook worker started (pid ${process.pid})\n`);
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || (err as Error).name === 'LockHeldError') process.stderr.write(`${(err as Error).message}\n`);
  else process.stderr.write(`Aisle webhook worker failed to start: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
