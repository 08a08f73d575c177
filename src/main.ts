import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import closeWithGrace from 'close-with-grace';
import { startCatalogRefresh } from './catalog-refresh.js';
import { ConfigError, loadConfig } from './config.js';
import { systemClock } from './core/clock.js';
import { createCore } from './core/index.js';
import { buildApp } from './http/app.js';
import { createLogger } from './logger.js';
import { CatalogModelMismatchError } from './core/catalog/errors.js';
import { ingestCatalog } from './core/catalog/ingest.js';
import { AffiliateConfigSchema, EMPTY_AFFILIATE_CONFIG, type AffiliateConfig } from './core/clicks/affiliate.js';
import { generateClickSecret } from './core/clicks/click-links.js';
import type { CatalogStore, Embedder, Logger } from './core/ports.js';
import { readFeed } from './ingest/formats/detect.js';
import { openCatalog, openEmbedder } from './runtime.js';
import { createPgStores, openMigratedDb } from './store/pg/index.js';
import { createDeliveryWorker } from './worker/create.js';
import { systemResolver } from './worker/dns.js';

const REQUEST_LOG_PRUNE_INTERVAL_MS = 3_600_000;
const SAMPLE_CATALOG = fileURLToPath(new URL('../data/sample-catalog.jsonl', import.meta.url));

/**
 * Opens the catalog and the embedder and checks they belong together. An empty catalog gets the
 * sample products (unless AISLE_SAMPLE_CATALOG=false), so a fresh install has something to search.
 */
async function prepareCatalog(catalog: CatalogStore, embedder: Embedder, loadSample: boolean, logger: Logger): Promise<void> {
  const info = await catalog.info();
  if (info && (info.model !== embedder.model || info.dimensions !== embedder.dimensions)) {
    throw new CatalogModelMismatchError(info.model, info.dimensions, embedder.model, embedder.dimensions);
  }
  if (info || !loadSample) {
    logger.info({ products: info?.productCount ?? 0, model: info?.model }, info ? 'catalog ready' : 'catalog is empty; import products with npm run ingest');
    return;
  }
  const feed = await readFeed(SAMPLE_CATALOG, {});
  const summary = await ingestCatalog(feed.records, { catalog, embedder }, { replace: false, dryRun: false });
  logger.info({ products: summary.catalog?.productCount, skipped: summary.skipped, ms: summary.durationMs }, 'loaded the sample catalog (data/sample-catalog.jsonl)');
}

/** AISLE_AFFILIATE_CONFIG's file, validated; a bad file stops the start with the reason. */
async function loadAffiliateConfig(path: string | undefined): Promise<AffiliateConfig> {
  if (path === undefined) return EMPTY_AFFILIATE_CONFIG;
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`Invalid AISLE_AFFILIATE_CONFIG (${path}): ${(err as Error).message}`);
  }
  const parsed = AffiliateConfigSchema.safeParse(json);
  if (!parsed.success) {
    throw new ConfigError(`Invalid AISLE_AFFILIATE_CONFIG (${path}):\n${parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`);
  }
  return parsed.data;
}

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const db = await openMigratedDb(config);

  const catalog = await openCatalog(config);
  const embedder = await openEmbedder(config);
  await prepareCatalog(catalog, embedder, config.catalog.loadSampleWhenEmpty, logger);
  const rankingModel = await catalog.readCalibration(embedder.model);
  logger.info({ rankingModel: rankingModel?.source ?? 'fallback (run npm run calibrate to fit one)' }, 'ranking model and relevance calibration');
  const stores = createPgStores(db);
  // Without AISLE_CLICK_SECRET the first process generates one and every later start (and every
  // process on the same database) reuses it, so links already handed out keep working.
  const clickSecrets = config.clickLinks.secrets.length > 0
    ? config.clickLinks.secrets
    : [await stores.secrets.getOrCreate('click_link', generateClickSecret, systemClock.now())];
  const core = createCore({
    stores,
    clickLinks: { publicBaseUrl: config.clickLinks.publicBaseUrl, secrets: clickSecrets },
    affiliate: await loadAffiliateConfig(config.clickLinks.affiliateConfigPath),
    clock: systemClock,
    logger,
    defaultRateLimitPerMinute: config.defaultRateLimitPerMinute,
    catalog,
    embedder,
    rankingModel,
    webhooks: { allowPrivate: config.webhooks.allowPrivate, resolver: systemResolver },
    requestLog: { enabled: config.requestLog.enabled, flushIntervalMs: config.requestLog.flushMs, retentionDays: config.requestLog.retentionDays },
  });
  // The catalog's vocabulary (spelling correction, IDF) is built before the first request, not during it.
  await core.search().warm();

  const created = await core.accounts.ensureDefault();
  if (created) {
    // One line with the key itself, so a script can pick it up (CONTRACT §0). Shown once.
    process.stderr.write(
      `Created account "default" (${created.account.id}). Its admin API key, shown only now: ${created.firstKey.key}\n`,
    );
  }

  const { app } = await buildApp({ core, logger, trustProxy: config.trustProxy });
  const delivery = config.webhooks.inProcessWorker ? createDeliveryWorker(config, db, logger) : null;
  // Imports by other processes (npm run ingest, another server) publish a new version; follow it.
  const refresh = startCatalogRefresh({ catalog, embedder, warm: () => core.search().warm(), logger, intervalMs: config.catalog.refreshMs });

  // Stop accepting, let in-flight requests finish, then close the pool; a second signal or the
  // grace period running out forces the exit.
  closeWithGrace({ delay: config.shutdownGraceMs, logger }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'shutting down after an error');
    else logger.info({ signal }, 'shutting down');
    // Closing the app flushes the request log's queue.
    await app.close();
    await refresh.stop();
    await core.requestLogRetention.stop();
    // Deliveries in flight finish (≤ 10 s each); unsent ones stay queued for the next start.
    await delivery?.close();
    await embedder.close();
    await catalog.close();
    await db.close();
  });

  const address = await app.listen({ host: config.host, port: config.port });
  delivery?.worker.start();
  // Every process on the database prunes; the deletes are idempotent and batched, so they do not clash.
  core.requestLogRetention.start(REQUEST_LOG_PRUNE_INTERVAL_MS);
  logger.info({ address, database: db.kind, dataDir: db.kind === 'pglite' ? config.dataDir : undefined }, 'Aisle is listening');
  process.stderr.write(`Aisle listening on ${address} (API ${address}/v1, docs ${address}/docs)\n`);
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof CatalogModelMismatchError || (err as Error).name === 'LockHeldError') {
    process.stderr.write(`${(err as Error).message}\n`);
  } else {
    process.stderr.write(`Aisle failed to start: ${(err as Error).stack ?? String(err)}\n`);
  }
  process.exit(1);
});
