import cluster from 'node:cluster';
import closeWithGrace from 'close-with-grace';
import { startCatalogRefresh } from './catalog/refresh.js';
import { startCatalogUpkeep } from './catalog/upkeep.js';
import { runPrimary } from './cluster.js';
import { loadConfig } from './config.js';
import { consoleAssets } from './console/assets.js';
import { RETENTION_INTERVAL_MS } from './core/retention/retention.js';
import { buildApp } from './http/app.js';
import { createProcessLogger } from './logger.js';
import { AisleMetrics } from './metrics/metrics.js';
import { type MetricsServer, processMetrics, serveMetrics, shareWithPrimary } from './metrics/server.js';
import { startPeriodic } from './periodic.js';
import { createdKeyLine, isStartupRefusal, openRuntime, prepareDeployment } from './runtime.js';
import { startTracing } from './tracing/tracing.js';
import { createDeliveryWorker } from './worker/create.js';

/** How often the leader looks for catalog sources due a pull (schedules are in minutes, at least 15). */
const SOURCE_TICK_MS = 60_000;

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createProcessLogger(config.logLevel, config.logFormat);
  if (config.apiProcessesIgnored !== undefined) {
    logger.warn(
      { requested: config.apiProcessesIgnored },
      'AISLE_API_PROCESSES ignored: the embedded database (PGlite) serves from one process; set DATABASE_URL to PostgreSQL for more',
    );
  }
  for (const renamed of config.formerNamesUsed) logger.warn(`${renamed}: the former name still works; use the new one`);
  if (cluster.isPrimary && config.apiProcesses > 1) {
    await runPrimary(config, logger, { prepare: () => prepareDeployment(config, logger) });
    return;
  }
  // In a cluster, process 0 runs what must run once per deployment: webhook delivery, learning,
  // retention (pruning sessions, webhook history, the request log). The others only serve.
  const inCluster = config.processIndex !== undefined;
  const leader = !inCluster || config.processIndex === 0;
  // Traces are on when the standard OTEL_* variables name an endpoint (docs/operations.md).
  const tracing = config.tracing.enabled ? startTracing({ serviceName: config.tracing.serviceName, processIndex: config.processIndex }) : null;
  // Metrics are kept only when served (AISLE_METRICS_LISTEN): by this process alone, or by a
  // cluster's primary over all its API processes (docs/operations.md).
  const metrics = config.metricsListen ? new AisleMetrics(config.processIndex === undefined ? {} : { processIndex: config.processIndex }) : null;
  if (metrics && inCluster) shareWithPrimary(metrics.registry);
  const runtime = await openRuntime(config, logger, metrics);
  const { core, db } = runtime;

  const created = await core.accounts.ensureDefault();
  if (created) process.stderr.write(createdKeyLine(created.account.id, created.firstKey.key));

  // On shutdown a client still sending its request is waited for at most half the grace period,
  // so the rest of the shutdown (request-log flush, closing the pool) runs before the forced exit.
  const closeMs = Math.min(config.httpTimeouts.requestMs || Infinity, Math.floor(config.shutdownGraceMs / 2));
  const { app } = await buildApp({
    core,
    logger,
    trustProxy: config.trustProxy,
    mcp: config.mcp,
    timeouts: { ...config.httpTimeouts, closeMs },
    ...(metrics ? { metrics } : {}),
    tracing: tracing !== null,
  });
  const onAttempt = metrics ? (result: 'succeeded' | 'retry' | 'failed', lag: number) => metrics.webhookAttempt(result, lag) : undefined;
  const delivery = config.webhooks.inProcessWorker && leader ? createDeliveryWorker(config, db, logger, onAttempt) : null;
  // Imports by other processes (npm run ingest, another server) publish a new version; follow it.
  const refresh = startCatalogRefresh({
    catalog: runtime.catalog,
    embedder: runtime.embedder,
    warm: () => core.search().warm(),
    logger,
    intervalMs: config.catalog.refreshMs,
  });
  // One process per machine tidies the catalog; on shared object storage, set
  // AISLE_CATALOG_UPKEEP_MINUTES=0 on all machines but one (docs/deployment.md).
  const upkeep = startCatalogUpkeep({ catalog: runtime.catalog, logger, intervalMs: leader ? config.catalog.upkeepMs : 0 });
  // Catalog sources whose time has come are pulled by the leader; a claim in the database keeps
  // two machines' leaders from pulling one source at once (docs/ingest.md).
  const pulls = startPeriodic({
    run: () => core.catalogSources().pullDue(),
    logger,
    failure: 'pulling catalog sources failed; retried at the next tick',
    intervalMs: leader ? SOURCE_TICK_MS : 0,
  });

  // Stop accepting, let in-flight requests finish, then close the pool; a second signal or the
  // grace period running out forces the exit.
  let closing = false;
  let metricsServer: MetricsServer | null = null;
  closeWithGrace({ delay: config.shutdownGraceMs, logger }, async ({ signal, err }) => {
    closing = true;
    if (err) logger.error({ err }, 'shutting down after an error');
    else logger.info({ signal }, 'shutting down');
    // Closing the app flushes the request log's queue.
    await app.close();
    await metricsServer?.close();
    await refresh.stop();
    await upkeep.stop();
    await pulls.stop();
    await core.retention.stop();
    await core.ranking?.stop();
    // Deliveries in flight finish (≤ 10 s each); unsent ones stay queued for the next start.
    await delivery?.close();
    await runtime.close();
    // The spans still buffered are sent before the process ends.
    await tracing?.shutdown().catch((err: unknown) => logger.warn({ err }, 'sending the last traces failed'));
  });

  // A cluster's API process whose primary is gone (killed) stops too, rather than linger unreachable.
  if (cluster.isWorker) {
    process.on('disconnect', () => {
      if (!closing) process.kill(process.pid, 'SIGTERM');
    });
  }

  const address = await app.listen({ host: config.host, port: config.port });
  metricsServer = metrics && !inCluster && config.metricsListen ? await serveMetrics(config.metricsListen, processMetrics(metrics.registry), logger) : null;
  if (metricsServer) {
    logger.info({ url: metricsServer.url }, 'serving metrics');
    process.stderr.write(`Metrics at ${metricsServer.url}\n`);
  }
  // Bundled now rather than on the first page view (about a second of esbuild); a failure here
  // is logged and retried by that page view.
  consoleAssets().catch((err: unknown) => logger.error({ err }, 'bundling the console failed'));
  delivery?.worker.start();
  // Retention and learning run in one process of a cluster. Separate servers on one database may
  // each run them: the prunes are idempotent and batched, and the database refuses a second
  // proposal or decision on the same candidate model.
  if (leader) core.retention.start(RETENTION_INTERVAL_MS);
  if (leader) core.ranking?.start(config.learningIntervalMs);
  logger.info(
    {
      address,
      database: db.kind,
      dataDir: db.kind === 'pglite' ? config.dataDir : undefined,
      processes: inCluster ? config.apiProcesses : 1,
      processIndex: config.processIndex,
    },
    'Aisle is listening',
  );
  // In a cluster the primary announces the address once, for all processes.
  if (inCluster) return;
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
