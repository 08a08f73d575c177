import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { readFeed } from './catalog/files/detect.js';
import { HttpFeedDownloader } from './catalog/files/download.js';
import { type Config, ConfigError } from './config.js';
import { CatalogModelMismatchError } from './core/catalog/errors.js';
import { importCatalog, type ProductPlacer } from './core/catalog/import.js';
import type { CatalogStore } from './core/catalog/ports.js';
import { type AffiliateConfig, AffiliateConfigSchema, EMPTY_AFFILIATE_CONFIG } from './core/clicks/affiliate.js';
import { generateClickSecret } from './core/clicks/click-links.js';
import { systemClock } from './core/clock.js';
import { type Core, createCore } from './core/index.js';
import { isColdStartModel } from './core/learning/cold-start.js';
import { createRankingLearning, RANKING_REFRESH_MS, type RankingLearner } from './core/learning/ranking-learner.js';
import { FALLBACK_MODEL, type RankingModel, readRankingModel } from './core/ranking/ranking.js';
import { RETRIEVAL_DEPTH } from './core/ranking/retrieval.js';
import type { Embedder, Logger } from './core/shared-ports.js';
import { createEmbedder, embeddingModelName } from './embed/embedder.js';
import { openPlacer } from './knowledge/placer.js';
import { KnowledgeService } from './knowledge/service.js';
import type { AisleMetrics } from './metrics/metrics.js';
import { HttpClientMetadataFetcher } from './outbound/client-metadata.js';
import { systemResolver } from './outbound/dns.js';
import { OpenAiChatReader } from './reader/openai-chat.js';
import { type CatalogRead, LanceCatalogStore } from './store/lance/catalog-store.js';
import { createPgStores, type Db, openMigratedDb } from './store/pg/index.js';
import { fitInThread } from './threads/fit-thread.js';

const SAMPLE_CATALOG = fileURLToPath(new URL('../data/sample-catalog.jsonl', import.meta.url));

/** The configured embedding provider (shared by the server, ingest, eval and benchmarks). */
export async function openEmbedder(config: Config, metrics?: AisleMetrics | null): Promise<Embedder> {
  const e = config.embedding;
  const embedder = await createEmbedder({
    provider: e.provider,
    cacheDir: e.cacheDir,
    ...(e.model === undefined ? {} : { model: e.model }),
    ...(e.baseUrl === undefined ? {} : { baseUrl: e.baseUrl }),
    ...(e.apiKey === undefined ? {} : { apiKey: e.apiKey }),
    ...(e.dimensions === undefined ? {} : { dimensions: e.dimensions }),
    timeoutMs: e.timeoutMs,
    threads: e.threads,
  });
  if (metrics) embedder.onBatch = (texts, seconds) => metrics.embeddingBatchDone(texts, seconds);
  return embedder;
}

/** The configured catalog (a local directory under the data dir by default, or an s3:// URI). */
export function openCatalog(config: Config, metrics?: AisleMetrics | null): Promise<LanceCatalogStore> {
  return LanceCatalogStore.open({
    recallDepth: RETRIEVAL_DEPTH,
    uri: config.catalog.uri,
    annThreshold: config.catalog.annThreshold,
    annIndex: config.catalog.annIndex,
    cacheBytes: config.catalog.cacheBytes,
    versionRetentionMs: config.catalog.versionRetentionMs,
    ...(metrics ? { onRead: (call: CatalogRead, seconds: number) => metrics.catalogCallDone(call, seconds) } : {}),
  });
}

/** Errors that mean "fix the configuration or the environment": printed as one message, no stack. */
export function isStartupRefusal(err: unknown): boolean {
  return err instanceof ConfigError || err instanceof CatalogModelMismatchError || (err as Error).name === 'LockHeldError';
}

/**
 * Opens the catalog and the embedder and checks they belong together. An empty catalog gets the
 * sample products (unless AISLE_SAMPLE_CATALOG=false), so a fresh install has something to search.
 */
async function prepareCatalog(catalog: CatalogStore, embedder: Embedder, placer: ProductPlacer, loadSample: boolean, logger: Logger): Promise<void> {
  const info = await catalog.info();
  if (info && (info.model !== embedder.model || info.dimensions !== embedder.dimensions)) {
    throw new CatalogModelMismatchError(info.model, info.dimensions, embedder.model, embedder.dimensions);
  }
  if (info || !loadSample) {
    logger.info(
      { products: info?.productCount ?? 0, model: info?.model, annIndex: info?.annIndex, annRecall: info?.annRecall },
      info ? 'catalog ready' : 'catalog is empty; import products with npm run ingest',
    );
    return;
  }
  const feed = await readFeed(SAMPLE_CATALOG, {});
  const summary = await importCatalog(feed.records, { catalog, embedder, placer }, { replace: false, dryRun: false, fitRanking: true });
  logger.info(
    { products: summary.catalog?.productCount, skipped: summary.skipped, ms: summary.durationMs },
    'loaded the sample catalog (data/sample-catalog.jsonl)',
  );
  if (summary.rankingModel) logger.info(summary.rankingModel, 'cold-start ranking model for the sample catalog');
}

/** Why `model` serves, for the start-up log. */
function rankingModelReason(model: RankingModel | null): string {
  if (model === null)
    return 'no model is stored for this embedding model: the hand-set fallback serves (npm run ingest fits one from the catalog, npm run calibrate one from labelled data)';
  return isColdStartModel(model)
    ? 'fitted from the catalog itself at import (cold start); npm run calibrate on labelled data replaces it'
    : 'fitted on labelled data (npm run calibrate)';
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

export interface Runtime {
  core: Core;
  db: Db;
  catalog: LanceCatalogStore;
  embedder: Embedder;
  /** Closes the embedder, the catalog and the database, in that order. */
  close(): Promise<void>;
}

/**
 * The configured stores and the core on them, ready to search: what `npm start` serves over HTTP
 * and the stdio MCP server calls in-process. Throws LockHeldError when another process holds the
 * embedded database.
 */
/** The migrated database, the catalog and the embedder; close() closes them in reverse, as does a failure part-way. */
async function openParts(config: Config, metrics: AisleMetrics | null): Promise<Omit<Runtime, 'core'>> {
  const db = await openMigratedDb(config);
  const opened: { close(): Promise<void> }[] = [db];
  const close = async () => {
    for (const resource of opened.reverse()) await resource.close();
  };
  try {
    const catalog = await openCatalog(config, metrics);
    opened.push(catalog);
    const embedder = await openEmbedder(config, metrics);
    opened.push(embedder);
    return { db, catalog, embedder, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** `metrics` (AISLE_METRICS_LISTEN set) is told of the work and reads the catalog's and the database's state at each scrape. */
export async function openRuntime(config: Config, logger: Logger, metrics: AisleMetrics | null = null): Promise<Runtime> {
  const parts = await openParts(config, metrics);
  const { db, catalog, embedder } = parts;
  const clientMetadata = new HttpClientMetadataFetcher({ allowPrivate: config.oauth.allowPrivate, timeoutMs: config.oauth.metadataTimeoutMs });
  const feedDownloader = new HttpFeedDownloader(config.catalog.feeds);
  const readerModel = config.reader.kind === 'openai' ? new OpenAiChatReader(config.reader) : null;
  const close = async () => {
    await readerModel?.close();
    await clientMetadata.close();
    await feedDownloader.close();
    await parts.close();
  };
  try {
    // Imports place products in the taxonomy with the knowledge base's names (an operator's file
    // included: a bad one stops the start below, naming its lines).
    const placer = await openPlacer(embedder, config.knowledge.extraFiles).catch((err: unknown) => {
      throw new ConfigError(`Invalid configuration:\n  AISLE_KNOWLEDGE_FILE: ${(err as Error).message}`);
    });
    await prepareCatalog(catalog, embedder, placer, config.catalog.loadSampleWhenEmpty, logger);
    const rankingModel = await readRankingModel(catalog, embedder.model);
    logger.info(
      { rankingModel: rankingModel?.source ?? FALLBACK_MODEL.source, reason: rankingModelReason(rankingModel) },
      'ranking model and relevance calibration',
    );
    const stores = createPgStores(db);
    // Without AISLE_CLICK_SECRET the first process generates one and every later start (and every
    // process on the same database) reuses it, so links already handed out keep working.
    const clickSecrets =
      config.clickLinks.secrets.length > 0
        ? config.clickLinks.secrets
        : [await stores.secrets.getOrCreate('click_link', generateClickSecret, systemClock.now())];
    const knowledge = config.knowledge.enabled
      ? new KnowledgeService({ embedder, cacheDir: config.embedding.cacheDir, extraFiles: config.knowledge.extraFiles, logger })
      : null;
    // Its entries are read now, so a bad operator file stops the start naming its lines (a
    // configuration mistake: said in one message, without a stack).
    await knowledge?.load().catch((err: unknown) => {
      throw new ConfigError(`Invalid configuration:\n  AISLE_KNOWLEDGE_FILE: ${(err as Error).message}`);
    });
    const core = createCore({
      stores,
      ...(knowledge ? { knowledge } : {}),
      ...(readerModel && config.reader.kind === 'openai' ? { readerModel: { ...config.reader, model: readerModel } } : {}),
      ...(metrics ? { meter: metrics } : {}),
      clickLinks: { publicBaseUrl: config.clickLinks.publicBaseUrl, secrets: clickSecrets },
      affiliate: await loadAffiliateConfig(config.clickLinks.affiliateConfigPath),
      clock: systemClock,
      logger,
      defaultRateLimitPerMinute: config.defaultRateLimitPerMinute,
      catalog,
      embedder,
      placer,
      taxonomy: placer.taxonomy,
      // Each catalog version's own model, followed with the version (no restart after an import).
      rankingModel: 'catalog',
      webhooks: { allowPrivate: config.webhooks.allowPrivate, resolver: systemResolver },
      feedDownloader,
      oauth: { publicBaseUrl: config.clickLinks.publicBaseUrl, clientMetadata, registrationsPerMinute: config.oauth.registrationsPerMinute },
      requestLog: { enabled: config.requestLog.enabled, flushIntervalMs: config.requestLog.flushMs },
      retention: config.retention,
      learning: config.learning,
      // The learner's fit takes a worker thread, not time between this process's searches.
      rankingLearning: { fit: fitInThread },
    });
    metrics?.watch({
      catalog,
      database: { poolStats: () => db.poolStats(), webhookQueue: () => stores.webhooks.queueDepth(systemClock.now()) },
    });
    // The catalog's vocabulary (spelling correction, IDF) is built before the first request, not during it.
    await core.search().warm();
    // The knowledge base's vectors are built in the background at the first start (cached after):
    // the server serves meanwhile, reading conversations from the catalog alone.
    knowledge
      ?.start()
      .catch((err: unknown) => logger.error({ err }, "the shopper's knowledge base's vectors could not be built; conversations are read without it"));
    return { core, db, catalog, embedder, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * Global learning from outside the server (`npm run learn`, `npm run aisle -- ranking`): the
 * database and the catalog's own model, under the configured embedding model's name (the learned
 * models' scope). The embedding model itself is not loaded: judging, fitting and rolling back
 * never embed (loading USE-lite costs about half a CPU-second even from its cache: docs/learning.md).
 */
export async function openLearningRuntime(config: Config, logger: Logger): Promise<{ ranking: RankingLearner; close(): Promise<void> }> {
  const scope = embeddingModelName(config.embedding);
  const db = await openMigratedDb(config);
  try {
    const catalog = await openCatalog(config);
    try {
      const { learner } = createRankingLearning({
        store: createPgStores(db).rankingModels,
        scope,
        base: (await readRankingModel(catalog, scope)) ?? FALLBACK_MODEL,
        clock: systemClock,
        logger,
        refreshMs: RANKING_REFRESH_MS,
      });
      return { ranking: learner, close: () => catalog.close().finally(() => db.close()) };
    } catch (err) {
      await catalog.close();
      throw err;
    }
  } catch (err) {
    await db.close();
    throw err;
  }
}

/**
 * The once-per-start work when several API processes start together (src/cluster.ts): the
 * migrations, the default account (its key is shown once, by the caller) and the sample catalog
 * for an empty catalog, done by the primary before any API process opens anything, so they
 * never race each other for them.
 */
export async function prepareDeployment(config: Config, logger: Logger): Promise<{ createdKeyNotice: string | null }> {
  const db = await openMigratedDb(config);
  try {
    const core = createCore({ stores: createPgStores(db), clock: systemClock, logger, defaultRateLimitPerMinute: config.defaultRateLimitPerMinute });
    const created = await core.accounts.ensureDefault();
    const catalog = await openCatalog(config);
    try {
      if ((await catalog.info()) === null && config.catalog.loadSampleWhenEmpty) {
        const embedder = await openEmbedder(config);
        try {
          await prepareCatalog(catalog, embedder, await openPlacer(embedder, config.knowledge.extraFiles), true, logger);
        } finally {
          await embedder.close();
        }
      }
    } finally {
      await catalog.close();
    }
    return { createdKeyNotice: created ? createdKeyLine(created.account.id, created.firstKey.key) : null };
  } finally {
    await db.close();
  }
}

/** The one line with the new admin key, so a script can pick it up (docs/api.md). Shown once. */
export const createdKeyLine = (accountId: string, key: string): string =>
  `Created account "default" (${accountId}). Its admin API key, shown only now: ${key}\n`;
