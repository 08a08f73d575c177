import closeWithGrace from 'close-with-grace';
import { startCatalogRefresh } from './catalog-refresh.js';
import { consoleAssets } from './console/assets.js';
import { loadConfig } from './config.js';
import { buildApp } from './http/app.js';
import { createLogger } from './logger.js';
import { isStartupRefusal, openRuntime } from './runtime.js';
import { createDeliveryWorker } from './worker/create.js';

const REQUEST_LOG_PRUNE_INTERVAL_MS = 3_600_000;

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const runtime = await openRuntime(config, logger);
  const { core, db } = runtime;

  const created = await core.accounts.ensureDefault();
  if (created) {
    // One line with the key itself, so a script can pick it up (CONTRACT §0). Shown once.
    process.stderr.write(
      `Created account "default" (${created.account.id}). Its admin API key, shown only now: ${created.firstKey.key}\n`,
    );
  }

  const { app } = await buildApp({ core, logger, trustProxy: config.trustProxy, mcp: config.mcp });
  const delivery = config.webhooks.inProcessWorker ? createDeliveryWorker(config, db, logger) : null;
  // Imports by other processes (npm run ingest, another server) publish a new version; follow it.
  const refresh = startCatalogRefresh({ catalog: runtime.catalog, embedder: runtime.embedder, warm: () => core.search().warm(), logger, intervalMs: config.catalog.refreshMs });

  // Stop accepting, let in-flight requests finish, then close the pool; a second signal or the
  // grace period running out forces the exit.
  closeWithGrace({ delay: config.shutdownGraceMs, logger }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'shutting down after an error');
    else logger.info({ signal }, 'shutting down');
    // Closing the app flushes the request log's queue.
    await app.close();
    await refresh.stop();
    await core.requestLogRetention.stop();
    await core.ranking?.stop();
    // Deliveries in flight finish (≤ 10 s each); unsent ones stay queued for the next start.
    await delivery?.close();
    await runtime.close();
  });

  const address = await app.listen({ host: config.host, port: config.port });
  // Bundled now rather than on the first page view (about a second of esbuild); a failure here
  // is logged and retried by that page view.
  consoleAssets().catch((err: unknown) => logger.error({ err }, 'bundling the console failed'));
  delivery?.worker.start();
  // Every process on the database prunes; the deletes are idempotent and batched, so they do not clash.
  core.requestLogRetention.start(REQUEST_LOG_PRUNE_INTERVAL_MS);
  // Global learning: each run judges the candidate under test or fits one; any process may run it
  // (a second proposal or decision on the same candidate is refused by the database).
  core.ranking?.start(config.learningIntervalMs);
  logger.info({ address, database: db.kind, dataDir: db.kind === 'pglite' ? config.dataDir : undefined }, 'Aisle is listening');
  process.stderr.write(`Aisle listening on ${address} (console ${address}/, API ${address}/v1, MCP ${address}/mcp, docs ${address}/docs)\n`);
  // Printed once the console can answer; the key line above is for scripts, this one for people.
  if (created) process.stderr.write(`Open ${address}/ and sign in with this key\n`);
}

main().catch((err: unknown) => {
  if (isStartupRefusal(err)) {
    process.stderr.write(`${(err as Error).message}\n`);
  } else {
    process.stderr.write(`Aisle failed to start: ${(err as Error).stack ?? String(err)}\n`);
  }
  process.exit(1);
});
