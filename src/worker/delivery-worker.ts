import type { Clock } from '../core/clock.js';
import { prefixedId } from '../core/ids.js';
import type { ClaimedDelivery, DeliveryQueue, Logger } from '../core/ports.js';
import { DISABLE_AFTER_MS, nextStep } from '../core/webhooks/retry-policy.js';
import { signPayload } from '../core/webhooks/signing.js';
import type { Transport } from './transport.js';

/** CONTRACT §8 and the issue: a claim is leased for at most 60 s (a delivery times out at 10 s). */
export const MAX_LEASE_MS = 60_000;

export interface DeliveryWorkerDeps {
  queue: DeliveryQueue;
  transport: Transport;
  clock: Clock;
  logger: Logger;
  /** Deliveries in flight at once. */
  concurrency: number;
  /** How long a claim is held before another worker may take it over (≤ 60 s). */
  leaseMs: number;
  /** Sleep between claims when nothing is due. */
  pollMs: number;
  /** Jitter source, [0, 1). */
  random?: () => number;
}

/**
 * Claims due deliveries (SKIP LOCKED, leased), signs and POSTs them, records every attempt and
 * schedules the next. Any number of workers, in-process or `npm run worker`, share the queue.
 * A worker that dies mid-delivery loses nothing: its lease runs out and another worker resends
 * the same event (same `webhook-id`) — delivery is at least once.
 */
export class DeliveryWorker {
  private running = false;
  private loop: Promise<void> | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private wake: (() => void) | null = null;

  constructor(private readonly deps: DeliveryWorkerDeps) {
    if (deps.leaseMs > MAX_LEASE_MS) throw new Error(`lease ${deps.leaseMs} ms exceeds ${MAX_LEASE_MS} ms`);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops claiming and lets deliveries in flight finish (each is bounded by the send timeout). */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await Promise.all(this.inFlight);
  }

  /** Claims what is due now (up to the concurrency) and delivers it; returns how many. For tests and tools. */
  async runOnce(): Promise<number> {
    const claims = await this.claim(this.deps.concurrency);
    await Promise.all(claims.map((c) => this.deliver(c)));
    return claims.length;
  }

  /** runOnce until nothing is due. */
  async drain(): Promise<number> {
    let total = 0;
    for (let n = await this.runOnce(); n > 0; n = await this.runOnce()) total += n;
    return total;
  }

  private async run(): Promise<void> {
    while (this.running) {
      const free = this.deps.concurrency - this.inFlight.size;
      let claimed = 0;
      if (free > 0) {
        try {
          const claims = await this.claim(free);
          claimed = claims.length;
          for (const c of claims) this.track(this.deliver(c));
        } catch (err) {
          this.deps.logger.error({ err }, 'webhook claim failed; retrying after the poll interval');
        }
      }
      // Something was due: look again at once (or when a slot frees up). Nothing: sleep.
      if (claimed === 0 || this.inFlight.size >= this.deps.concurrency) {
        await this.sleep(claimed === 0 ? this.deps.pollMs : null);
      }
    }
  }

  private claim(limit: number): Promise<ClaimedDelivery[]> {
    const now = this.deps.clock.now();
    return this.deps.queue.claim(now, limit, new Date(now.getTime() + this.deps.leaseMs));
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.finally(() => {
      this.inFlight.delete(p);
      this.wake?.();
    });
  }

  /** Resolves after `ms` (null: only when woken), or at once when woken by a finished delivery or stop(). */
  private sleep(ms: number | null): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === null ? null : setTimeout(done, ms);
      const self = this;
      function done() {
        if (timer) clearTimeout(timer);
        self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }

  private async deliver(c: ClaimedDelivery): Promise<void> {
    const { clock, transport, queue, logger } = this.deps;
    try {
      const startedAt = clock.now();
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'Aisle-Webhooks/1.0',
        ...signPayload(prefixedId('event', c.eventId), startedAt, c.payload, c.secrets),
      };
      const result = await transport.send(c.url, headers, c.payload);
      const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
      const now = clock.now();
      const next = nextStep(c.attemptCount + 1, ok ? { ok: true } : { ok: false, retryAfter: result.statusCode === null ? undefined : result.retryAfter }, now, this.deps.random);
      const kept = await queue.complete(
        c,
        {
          startedAt,
          ok,
          next,
          statusCode: result.statusCode,
          durationMs: result.durationMs,
          error: result.statusCode === null ? result.error : null,
          responseBody: result.statusCode === null ? null : result.body,
        },
        new Date(now.getTime() - DISABLE_AFTER_MS),
      );
      if (!kept) logger.warn({ delivery: c.id }, 'webhook lease was lost before the attempt was recorded; another worker resends it');
    } catch (err) {
      // The lease expires and another claim resends it: nothing is lost, at worst sent twice.
      logger.error({ err, delivery: c.id }, 'webhook delivery could not be recorded');
    }
  }
}
