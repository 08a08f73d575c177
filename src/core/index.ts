import { AccountService } from './accounts/account-service.js';
import { FeedService } from './acp-feeds/feed-service.js';
import { AnalyticsService } from './analytics/analytics-service.js';
import { DEFAULT_REQUEST_LOG_OPTIONS, RequestLog, type RequestLogOptions } from './analytics/request-log.js';
import { ImageOrigins } from './catalog/image-origins.js';
import type { ProductPlacer } from './catalog/import.js';
import type { CatalogStore } from './catalog/ports.js';
import type { FeedDownloader } from './catalog/sources/ports.js';
import { CatalogSourceService } from './catalog/sources/source-service.js';
import { type AffiliateConfig, EMPTY_AFFILIATE_CONFIG } from './clicks/affiliate.js';
import { AttributionTokens } from './clicks/attribution.js';
import { ClickLinkSigner, generateClickSecret } from './clicks/click-links.js';
import { ClickService } from './clicks/click-service.js';
import { ConversionService } from './clicks/conversion-service.js';
import { DisplayService } from './clicks/display-service.js';
import type { Clock } from './clock.js';
import { AppError } from './errors.js';
import { FeedbackService } from './feedback/feedback-service.js';
import { newId } from './ids.js';
import { Authenticator } from './keys/authenticator.js';
import { KeyService } from './keys/key-service.js';
import type { ShopperKnowledge } from './knowledge/ports.js';
import type { Taxonomy } from './knowledge/taxonomy.js';
import type { fitFromLog } from './learning/global-fit.js';
import { QueryLearning } from './learning/query-learning.js';
import { createRankingLearning, type LearnerOptions, RANKING_REFRESH_MS, type RankingLearner } from './learning/ranking-learner.js';
import type { Meter } from './metering.js';
import { createOAuth, type OAuth, type OAuthOptions } from './oauth/oauth.js';
import { PolicyService } from './policy/policy-service.js';
import { catalogRankingModel } from './ranking/catalog-model.js';
import { FALLBACK_MODEL, type RankingModel } from './ranking/ranking.js';
import { RateLimiter } from './rate-limit/rate-limiter.js';
import { MODEL_ANSWER_TTL_MS, ModelReader } from './reading/model-reader.js';
import type { NeedReader, ReaderModel } from './reading/ports.js';
import { DEFAULT_RETENTION, Retention, type RetentionWindows } from './retention/retention.js';
import { SearchService } from './search/search-service.js';
import { ConsoleSessions } from './sessions/console-sessions.js';
import type { Embedder, Logger } from './shared-ports.js';
import type { Stores } from './stores.js';
import { UcpCatalog } from './ucp/catalog.js';
import type { HostResolver } from './webhooks/url-guard.js';
import { WebhookService } from './webhooks/webhook-service.js';

export interface CoreDeps {
  stores: Stores;
  /** Places imported products in the taxonomy (feed pulls, ACP feeds); without it they are written unplaced. */
  placer?: ProductPlacer;
  /** The Google product taxonomy: category filters by id, path or word, and policy exclusions (docs/policy.md). */
  taxonomy?: Taxonomy;
  clock: Clock;
  logger: Logger;
  defaultRateLimitPerMinute: number;
  /** The shopper's knowledge base conversations are read with (docs/knowledge.md); without it they are read from the catalog alone. */
  knowledge?: ShopperKnowledge;
  /**
   * A language model that reads conversations (docs/search.md, "Readers"), with the offline reader
   * as its fallback; the offline reader alone when absent.
   */
  readerModel?: { model: ReaderModel; timeoutMs: number; concurrency: number; cacheEntries: number };
  /** Told of search stages, answers, event writes and feed pulls: the server's metrics (docs/operations.md). */
  meter?: Meter;
  /** The catalog and embedder searches run on; without them search answers 503. */
  catalog?: CatalogStore;
  embedder?: Embedder;
  /**
   * The catalog's own ranking model: 'catalog' follows the model each catalog version carries
   * (the server), a model pins one (evaluation, tests); the fallback model when absent.
   */
  rankingModel?: RankingModel | null | 'catalog';
  /**
   * Signing of click links. main.ts always passes the configured or persisted secrets; without
   * them a random secret is made, and links work only as long as this process lives (tests).
   */
  clickLinks?: { publicBaseUrl: string; secrets: readonly string[] };
  /** Affiliate parameters per merchant or network for click redirects. */
  affiliate?: AffiliateConfig;
  /** Downloads feeds for catalog sources (src/catalog/files/download.ts); without it the sources API answers 503. */
  feedDownloader?: FeedDownloader;
  /** The SSRF guard's settings; without them webhook hosts are never resolved, so only public IP literals pass. */
  webhooks?: { allowPrivate: boolean; resolver: HostResolver };
  /** Learning from the event log, per query and global (AISLE_LEARNING; default on). */
  learning?: boolean;
  /**
   * Global learning's settings: how often each process re-reads which model serves (default
   * 10 s), the share of searches interleaved while a candidate is tested (default ½), and the
   * learner's options (ranking-learner.ts).
   */
  rankingLearning?: { refreshMs?: number; interleaveShare?: number; options?: Partial<LearnerOptions>; fit?: typeof fitFromLog };
  /** The request log's batching (defaults: on, 1 s, 500 per batch, 20,000 queued). */
  requestLog?: Partial<RequestLogOptions>;
  /**
   * How long sessions, webhook history and the request log are kept (DEFAULT_RETENTION: 24 h after
   * a session's last use, 30 days, 400 days). The session TTL is also what searches load within.
   */
  retention?: Partial<RetentionWindows> & { batchSize?: number };
  /**
   * Aisle as an OAuth authorization server (docs/oauth.md). The issuer defaults to the click
   * links' public URL (AISLE_PUBLIC_URL); without a metadata fetcher, client ids that are URLs
   * are refused.
   */
  oauth?: Partial<OAuthOptions>;
}

/** Where click links and OAuth point when the caller names no public URL (tests, tools). */
const DEFAULT_PUBLIC_URL = 'http://127.0.0.1:8787';

const noResolver: HostResolver = {
  resolve: () => Promise.reject(new Error('no resolver configured')),
};

/** The transport-free core: REST and MCP adapters call these services and nothing else. */
export interface Core {
  clock: Clock;
  keys: KeyService;
  accounts: AccountService;
  /** Publisher policy per account and key (docs/policy.md). */
  policy: PolicyService;
  auth: Authenticator;
  rateLimiter: RateLimiter;
  webhooks: WebhookService;
  health: Stores['health'];
  clicks: ClickService;
  conversions: ConversionService;
  /** Console sign-in sessions (the console at `/`). */
  consoleSessions: ConsoleSessions;
  /** The OAuth authorization server: clients, consent, tokens and grants (docs/oauth.md). */
  oauth: OAuth;
  /** Display receipts: POST /displays and the MCP view's record_display. */
  displays: DisplayService;
  feedback: FeedbackService;
  /** ACP product feeds: merchants push products into the catalog (docs/commerce.md). */
  feeds: FeedService;
  /** Feeds pulled on a schedule (docs/ingest.md); throws 503 unavailable without a feed downloader. */
  catalogSources(): CatalogSourceService;
  clickLinks: ClickLinkSigner;
  /** Attribution tokens: issued with every result, verified for merchants (docs/commerce.md). */
  attribution: AttributionTokens;
  analytics: AnalyticsService;
  /** Authenticated requests, batched (the HTTP adapter records, the server's close flushes). */
  requestLog: RequestLog;
  /** Prunes sessions, webhook history and the request log past their windows; main.ts starts it, tests call prune(). */
  retention: Retention;
  /** Global learning (status, runs, rollback); null without a catalog or with learning off. */
  ranking: RankingLearner | null;
  /** Throws 503 unavailable when the server was started without a catalog. */
  search(): SearchService;
  /** UCP's catalog capability over search and the catalog (docs/commerce.md). */
  ucp: UcpCatalog;
  /** Where this deployment is reached (AISLE_PUBLIC_URL): click links, OAuth and the UCP profile name it. */
  publicBaseUrl: string;
  /** https origins of the catalog's product images (the MCP view's CSP); [] without a catalog. */
  imageOrigins(): Promise<string[]>;
}

export function createCore(deps: CoreDeps): Core {
  const { stores, clock, logger, defaultRateLimitPerMinute } = deps;
  const linkOptions = deps.clickLinks ?? { publicBaseUrl: DEFAULT_PUBLIC_URL, secrets: [generateClickSecret()] };
  const clickLinks = new ClickLinkSigner(linkOptions);
  // Attribution tokens are keyed by the click-link secrets, so one rotation covers both.
  const attribution = new AttributionTokens(linkOptions);
  const feedback = new FeedbackService({
    store: stores.feedback,
    clock,
    logger,
    ...(deps.embedder ? { embedder: deps.embedder } : {}),
    ...(deps.meter ? { meter: deps.meter } : {}),
  });
  const { batchSize, ...windows } = deps.retention ?? {};
  const retentionWindows: RetentionWindows = { ...DEFAULT_RETENTION, ...windows };
  const learning = deps.learning !== false && deps.catalog !== undefined && deps.embedder !== undefined;
  const baseModel: RankingModel | (() => RankingModel) =
    deps.rankingModel === 'catalog' ? (deps.catalog ? catalogRankingModel(deps.catalog) : FALLBACK_MODEL) : (deps.rankingModel ?? FALLBACK_MODEL);
  const learned = learning
    ? createRankingLearning({
        store: stores.rankingModels,
        scope: deps.embedder!.model,
        base: baseModel,
        clock,
        logger,
        refreshMs: deps.rankingLearning?.refreshMs ?? RANKING_REFRESH_MS,
        ...(deps.rankingLearning?.options ? { options: deps.rankingLearning.options } : {}),
        ...(deps.rankingLearning?.fit ? { fit: deps.rankingLearning.fit } : {}),
      })
    : null;
  const models = learned?.models ?? null;
  const ranking = learned?.learner ?? null;
  const policy = new PolicyService({ store: stores.policies, keys: stores.keys, clock, ...(deps.taxonomy ? { taxonomy: deps.taxonomy } : {}) });
  const search =
    deps.catalog && deps.embedder
      ? new SearchService({
          policy,
          ...(deps.taxonomy ? { taxonomy: deps.taxonomy } : {}),
          catalog: deps.catalog,
          embedder: deps.embedder,
          store: stores.searches,
          clock,
          sessionTtlMs: retentionWindows.sessionTtlMs,
          clickLinks,
          attribution,
          feedback,
          model: baseModel,
          ...(learning ? { learning: new QueryLearning({ store: stores.learning, clock, logger }) } : {}),
          ...(models ? { models } : {}),
          ...(deps.rankingLearning?.interleaveShare !== undefined ? { interleaveShare: deps.rankingLearning.interleaveShare } : {}),
          ...(deps.knowledge ? { knowledge: deps.knowledge } : {}),
          ...(deps.readerModel ? { reader: modelReader(deps.readerModel, clock, logger) } : {}),
          ...(deps.meter ? { meter: deps.meter } : {}),
        })
      : null;
  const catalogSources = deps.feedDownloader
    ? new CatalogSourceService({
        store: stores.catalogSources,
        downloader: deps.feedDownloader,
        clock,
        logger,
        ...(deps.catalog ? { catalog: deps.catalog } : {}),
        ...(deps.embedder ? { embedder: deps.embedder } : {}),
        ...(deps.placer ? { placer: deps.placer } : {}),
        onPublished: async () => search?.warm(),
        ...(deps.meter ? { meter: deps.meter } : {}),
      })
    : null;
  const rateLimiter = new RateLimiter({ store: stores.rateLimits, clock, logger });
  const imageOrigins = new ImageOrigins(deps.catalog);
  const requestLog = new RequestLog({ store: stores.requestLog, clock, logger, options: { ...DEFAULT_REQUEST_LOG_OPTIONS, ...deps.requestLog } });
  const auth = new Authenticator({ store: stores.keys, clock, logger });
  const oauth = createOAuth({
    store: stores.oauth,
    clock,
    logger,
    rateLimiter,
    options: { ...deps.oauth, publicBaseUrl: deps.oauth?.publicBaseUrl ?? deps.clickLinks?.publicBaseUrl ?? DEFAULT_PUBLIC_URL },
  });
  const searchService = () => {
    if (!search) throw new AppError('unavailable', 'search is not configured on this server');
    return search;
  };
  const ucp = new UcpCatalog({
    search: searchService,
    ...(deps.catalog ? { catalog: deps.catalog } : {}),
    resultMetadata: (r, response) => ({
      impression_id: r.impression_id,
      click_url: r.click_url,
      request_id: response.request_id,
      relevance_score: r.relevance_score,
      relevance_explanation: r.relevance_explanation,
      affiliate_attribution: r.affiliate_attribution,
      // UCP carries attribution as URL-style string parameters; a platform forwards them to checkout.
      attribution: { aisle_attr: r.affiliate_attribution.token },
    }),
  });
  return {
    clock,
    keys: new KeyService({
      store: stores.keys,
      clock,
      defaultRateLimitPerMinute,
      testAccountOf: (liveAccountId, now) => stores.accounts.testAccountOf(liveAccountId, newId(), now),
    }),
    accounts: new AccountService({ store: stores.accounts, clock, defaultRateLimitPerMinute }),
    policy,
    auth,
    consoleSessions: new ConsoleSessions({ store: stores.consoleSessions, auth, clock, logger }),
    oauth,
    rateLimiter,
    webhooks: new WebhookService({
      store: stores.webhooks,
      clock,
      allowPrivate: deps.webhooks?.allowPrivate ?? false,
      resolver: deps.webhooks?.resolver ?? noResolver,
    }),
    health: stores.health,
    clicks: new ClickService({
      store: stores.clicks,
      clock,
      links: clickLinks,
      attribution,
      affiliate: deps.affiliate ?? EMPTY_AFFILIATE_CONFIG,
      ...(deps.catalog ? { catalog: deps.catalog } : {}),
      ...(deps.meter ? { meter: deps.meter } : {}),
    }),
    conversions: new ConversionService({
      store: stores.clicks,
      clock,
      attribution,
      ...(deps.catalog ? { catalog: deps.catalog } : {}),
      ...(deps.meter ? { meter: deps.meter } : {}),
    }),
    displays: new DisplayService({ store: stores.clicks, clock }),
    feedback,
    feeds: new FeedService({
      store: stores.feeds,
      clock,
      logger,
      ...(deps.catalog ? { catalog: deps.catalog } : {}),
      ...(deps.embedder ? { embedder: deps.embedder } : {}),
      ...(deps.placer ? { placer: deps.placer } : {}),
      onPublished: async () => search?.warm(),
    }),
    catalogSources: () => {
      if (!catalogSources) throw new AppError('unavailable', 'catalog sources are not configured on this server');
      return catalogSources;
    },
    clickLinks,
    attribution,
    analytics: new AnalyticsService({
      store: stores.analytics,
      clock,
      rateLimiter,
      requestLog,
      findTestAccount: (id) => stores.accounts.findTestAccount(id),
      ...(deps.catalog ? { catalog: deps.catalog } : {}),
      ...(deps.taxonomy ? { taxonomy: deps.taxonomy } : {}),
    }),
    requestLog,
    retention: new Retention({ stores, clock, logger, windows: retentionWindows, ...(batchSize === undefined ? {} : { batchSize }) }),
    ranking,
    search: searchService,
    ucp,
    publicBaseUrl: deps.clickLinks?.publicBaseUrl ?? DEFAULT_PUBLIC_URL,
    imageOrigins: () => imageOrigins.list(),
  };
}

/** The model reader over the offline one, its fallback. */
const modelReader =
  (settings: NonNullable<CoreDeps['readerModel']>, clock: Clock, logger: Logger) =>
  (offline: NeedReader): NeedReader =>
    new ModelReader({ ...settings, fallback: offline, cacheTtlMs: MODEL_ANSWER_TTL_MS, clock, logger });
