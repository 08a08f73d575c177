import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { Logger, Principal } from '../shared-ports.js';
import type { RateLimitStore } from './ports.js';

const RATE_LIMIT_WINDOW_SECONDS = 60;

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the full quota is available again. */
  resetSeconds: number;
  /** Seconds to wait before a request of the same cost can pass; 0 when allowed. */
  retryAfterSeconds: number;
  windowSeconds: number;
}

/**
 * Per-key GCRA limiter (docs/api.md): `limit` requests per 60 s window, bursts up to `limit`.
 * State lives in the store so every process enforces one budget. When the store fails, the
 * request passes: an outage of the limiter must not become an outage of the API.
 */
export class RateLimiter {
  private storeFailures = 0;

  constructor(private readonly deps: { store: RateLimitStore; clock: Clock; logger: Logger }) {}

  get failures(): number {
    return this.storeFailures;
  }

  /** Returns null when the limiter's store failed (request allowed, failure logged and counted). */
  consume(principal: Principal, cost = 1): Promise<RateLimitDecision | null> {
    return this.consumeBucket(`key:${principal.keyId}`, principal.rateLimitPerMinute, cost);
  }

  /**
   * One GCRA step on any bucket at `limit` per minute: the per-key limit above, and limits that
   * have no key behind them (client registrations per address, docs/oauth.md). Null when the
   * store failed, as for consume().
   */
  async consumeBucket(bucket: string, limit: number, cost = 1): Promise<RateLimitDecision | null> {
    const windowMs = RATE_LIMIT_WINDOW_SECONDS * 1000;
    const intervalMs = windowMs / limit;
    const nowMs = this.deps.clock.now().getTime();
    let result: { allowed: boolean; tatMs: number };
    try {
      result = await this.deps.store.consume(bucket, nowMs, intervalMs * cost, windowMs);
    } catch (err) {
      this.storeFailures += 1;
      this.deps.logger.error({ err, failures: this.storeFailures }, 'rate limiter store failed; request allowed');
      return null;
    }
    const ahead = Math.max(0, result.tatMs - nowMs);
    const remaining = Math.max(0, Math.floor((windowMs - ahead + 1e-6) / intervalMs));
    const retryAfterMs = result.allowed ? 0 : ahead + intervalMs * cost - windowMs;
    return {
      allowed: result.allowed,
      limit,
      remaining: result.allowed ? remaining : 0,
      resetSeconds: Math.ceil(ahead / 1000),
      retryAfterSeconds: result.allowed ? 0 : Math.max(1, Math.ceil(retryAfterMs / 1000)),
      windowSeconds: RATE_LIMIT_WINDOW_SECONDS,
    };
  }

  /**
   * The key's budget now, without spending any (GET /usage). A store failure answers a full
   * budget, as consume() lets requests pass then.
   */
  async status(principal: Principal): Promise<{ limit: number; remaining: number; resetAt: Date; windowSeconds: number }> {
    const limit = principal.rateLimitPerMinute;
    const windowMs = RATE_LIMIT_WINDOW_SECONDS * 1000;
    const nowMs = this.deps.clock.now().getTime();
    let tatMs: number | null = null;
    try {
      tatMs = await this.deps.store.peek(`key:${principal.keyId}`);
    } catch (err) {
      this.deps.logger.error({ err }, 'rate limiter store failed; reporting a full budget');
    }
    const ahead = Math.max(0, (tatMs ?? nowMs) - nowMs);
    const remaining = Math.max(0, Math.min(limit, Math.floor((windowMs - ahead + 1e-6) / (windowMs / limit))));
    return { limit, remaining, resetAt: new Date(nowMs + Math.ceil(ahead)), windowSeconds: RATE_LIMIT_WINDOW_SECONDS };
  }
}

/** 429 rate_limited with Retry-After, as REST and MCP answer a refused decision. */
export const rateLimitedError = (d: RateLimitDecision): AppError =>
  new AppError('rate_limited', `Rate limit of ${d.limit} requests per minute exceeded; retry in ${d.retryAfterSeconds} s.`, {
    headers: { 'retry-after': String(d.retryAfterSeconds) },
    extensions: { retry_after_seconds: d.retryAfterSeconds },
  });
