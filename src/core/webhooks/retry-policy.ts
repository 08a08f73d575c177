/** Delivery schedule (docs/webhooks.md): when to retry, when to give up, when to disable an endpoint. */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Waits after the 1st, 2nd, … failed attempt. After the last one the delivery is `failed`. */
export const RETRY_DELAYS_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR] as const;
const JITTER = 0.2;
/** An endpoint failing without a single success for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * HOUR;

export type AttemptResult = { ok: true } | { ok: false; retryAfter?: string | undefined };

export type NextStep = { status: 'succeeded' } | { status: 'failed' } | { status: 'pending'; nextAttemptAt: Date };

/**
 * `attempt` is the 1-based number of the attempt that just ended. `random` returns [0, 1)
 * (Math.random in production; tests pass their own to pin the jitter).
 */
export function nextStep(attempt: number, result: AttemptResult, now: Date, random: () => number = Math.random): NextStep {
  if (result.ok) return { status: 'succeeded' };
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return { status: 'failed' };
  const asked = result.retryAfter === undefined ? null : parseRetryAfter(result.retryAfter, now);
  // Retry-After is honoured, but only within [base, 2×base]: a receiver can slow us down, not
  // speed us up, nor park a delivery for days.
  const delay = asked === null ? base * (1 - JITTER + 2 * JITTER * random()) : Math.min(Math.max(asked, base), 2 * base);
  return { status: 'pending', nextAttemptAt: new Date(now.getTime() + Math.round(delay)) };
}

/** Retry-After as delay-seconds or an HTTP date; null when it is neither. Returns milliseconds. */
export function parseRetryAfter(value: string, now: Date): number | null {
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * SECOND;
  const at = Date.parse(text);
  if (!Number.isFinite(at) || !/[a-z]/i.test(text)) return null;
  return Math.max(0, at - now.getTime());
}
