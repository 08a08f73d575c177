import { AccountService } from './accounts/account-service.js';
import type { Clock } from './clock.js';
import { Authenticator } from './keys/authenticator.js';
import { KeyService } from './keys/key-service.js';
import type { Logger, Stores } from './ports.js';
import { RateLimiter } from './rate-limit/rate-limiter.js';

export interface CoreDeps {
  stores: Stores;
  clock: Clock;
  logger: Logger;
  defaultRateLimitPerMinute: number;
}

/** The transport-free core: REST and MCP adapters call these services and nothing else. */
export interface Core {
  clock: Clock;
  keys: KeyService;
  accounts: AccountService;
  auth: Authenticator;
  rateLimiter: RateLimiter;
  health: Stores['health'];
}

export function createCore(deps: CoreDeps): Core {
  const { stores, clock, logger, defaultRateLimitPerMinute } = deps;
  return {
    clock,
    keys: new KeyService({ store: stores.keys, clock, defaultRateLimitPerMinute }),
    accounts: new AccountService({ store: stores.accounts, clock, defaultRateLimitPerMinute }),
    auth: new Authenticator({ store: stores.keys, clock, logger }),
    rateLimiter: new RateLimiter({ store: stores.rateLimits, clock, logger }),
    health: stores.health,
  };
}
