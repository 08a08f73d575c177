import { AccountService } from './accounts/account-service.js';
import type { Clock } from './clock.js';
import { Authenticator } from './keys/authenticator.js';
import { KeyService } from './keys/key-service.js';
import { AppError } from './errors.js';
import type { CatalogStore, Embedder, Logger, Stores } from './ports.js';
import type { Calibration } from './search/ranking.js';
import { SearchService } from './search/search-service.js';
import { RateLimiter } from './rate-limit/rate-limiter.js';
import type { HostResolver } from './webhooks/url-guard.js';
import { WebhookService } from './webhooks/webhook-service.js';

export interface CoreDeps {
  stores: Stores;
  clock: Clock;
  logger: Logger;
  defaultRateLimitPerMinute: number;
  /** The catalog and embedder searches run on; without them search answers 503. */
  catalog?: CatalogStore;
  embedder?: Embedder;
  /** Fitted by npm run calibrate; the fallback calibration when absent. */
  calibration?: Calibration | null;
  /** The SSRF guard's settings; without them webhook hosts are never resolved, so only public IP literals pass. */
  webhooks?: { allowPrivate: boolean; resolver: HostResolver };
}

const noResolver: HostResolver = {
  resolve: () => Promise.reject(new Error('no resolver configured')),
};

/** The transport-free core: REST and MCP adapters call these services and nothing else. */
export interface Core {
  clock: Clock;
  keys: KeyService;
  accounts: AccountService;
  auth: Authenticator;
  rateLimiter: RateLimiter;
  webhooks: WebhookService;
  health: Stores['health'];
  /** Throws 503 unavailable when the server was started without a catalog. */
  search(): SearchService;
}

export function createCore(deps: CoreDeps): Core {
  const { stores, clock, logger, defaultRateLimitPerMinute } = deps;
  const search =
    deps.catalog && deps.embedder ? new SearchService({ catalog: deps.catalog, embedder: deps.embedder, store: stores.searches, clock, ...(deps.calibration ? { calibration: deps.calibration } : {}) }) : null;
  return {
    clock,
    keys: new KeyService({ store: stores.keys, clock, defaultRateLimitPerMinute }),
    accounts: new AccountService({ store: stores.accounts, clock, defaultRateLimitPerMinute }),
    auth: new Authenticator({ store: stores.keys, clock, logger }),
    rateLimiter: new RateLimiter({ store: stores.rateLimits, clock, logger }),
    webhooks: new WebhookService({
      store: stores.webhooks,
      clock,
      allowPrivate: deps.webhooks?.allowPrivate ?? false,
      resolver: deps.webhooks?.resolver ?? noResolver,
    }),
    health: stores.health,
    search: () => {
      if (!search) throw new AppError('unavailable', 'search is not configured on this server');
      return search;
    },
  };
}
