/** Every store the core runs on, one per domain: what a storage back end (src/store/pg) provides. */
import type { AccountStore } from './accounts/ports.js';
import type { FeedStore } from './acp-feeds/ports.js';
import type { AnalyticsStore, RequestLogStore } from './analytics/ports.js';
import type { CatalogSourceStore } from './catalog/sources/ports.js';
import type { ClickStore } from './clicks/ports.js';
import type { FeedbackStore } from './feedback/ports.js';
import type { KeyStore } from './keys/ports.js';
import type { LearningStore, RankingModelStore } from './learning/ports.js';
import type { OAuthStore } from './oauth/ports.js';
import type { PolicyStore } from './policy/ports.js';
import type { RateLimitStore } from './rate-limit/ports.js';
import type { SearchStore } from './search/ports.js';
import type { ConsoleSessionStore } from './sessions/ports.js';
import type { HealthProbe, SecretStore } from './shared-ports.js';
import type { WebhookStore } from './webhooks/ports.js';

export interface Stores {
  searches: SearchStore;
  clicks: ClickStore;
  feedback: FeedbackStore;
  feeds: FeedStore;
  catalogSources: CatalogSourceStore;
  secrets: SecretStore;
  keys: KeyStore;
  accounts: AccountStore;
  rateLimits: RateLimitStore;
  webhooks: WebhookStore;
  analytics: AnalyticsStore;
  requestLog: RequestLogStore;
  consoleSessions: ConsoleSessionStore;
  oauth: OAuthStore;
  learning: LearningStore;
  rankingModels: RankingModelStore;
  policies: PolicyStore;
  health: HealthProbe;
}
