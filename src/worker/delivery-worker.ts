import type { Clock } from '../core/clock.js';
import { prefixedId } from '../core/ids.js';
import type { Logger } from '../core/shared-ports.js';
import type { ClaimedDelivery, CompletedAttempt, DeliveryQueue } from '../core/webhooks/ports.js';
import { DISABLE_AFTER_MS, nextStep } from '../core/webhooks/retry-policy.js';
import { signPayload } from '../core/webhooks/signing.js';
import type { Transport } from './transport.js';

/** A claim is leased for at most 60 s, a delivery times out at 10 s (docs/webhooks.md). */
const MAX_LEASE_MS = 60_000;

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
  /** Told of each attempt: what became of the delivery, and how long after it fell due the attempt started (seconds). */
  onAttempt?: (result: 'succeeded' | 'retry' | 'failed', lagSeconds: number) => void;
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
  private slotFreed: (() => void) | null = null;
  /** Attempts waiting to be recorded; written together by one flush (one commit). */
  private unrecorded: { item: CompletedAttempt; settle: (kept: boolean | Error) => void }[] = [];
  private flushing: Promise<void> | null = null;

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
    // Claims come in batches of at least a quarter of the slots, not one per freed slot: each claim is a commit.
    const batch = Math.ceil(this.deps.concurrency / 4);
    while (this.running) {
      const free = this.deps.concurrency - this.inFlight.size;
      if (free < batch) {
        await this.sleep(null, true);
        continue;
      }
      let claimed = 0;
      try {
        const claims = await this.claim(free);
        claimed = claims.length;
        for (const c of claims) this.track(this.deliver(c));
      } catch (err) {
        this.deps.logger.error({ err }, 'webhook claim failed; retrying after the poll interval');
      }
      if (claimed === 0) await this.sleep(this.deps.pollMs, false);
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
      this.slotFreed?.();
    });
  }

  /** Resolves after `ms` (null: no timeout), on stop(), and, when `onSlot`, as soon as a delivery finishes. */
  private sleep(ms: number | null, onSlot: boolean): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        if (timer) clearTimeout(timer);
        this.wake = null;
        this.slotFreed = null;
        resolve();
      };
      const timer = ms === null ? null : setTimeout(done, ms);
      this.wake = done;
      if (onSlot) this.slotFreed = done;
    });
  }

  private async deliver(c: ClaimedDelivery): Promise<void> {
    const { clock, transport, logger } = this.deps;
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
      const next = nextStep(
        c.attemptCount + 1,
        ok ? { ok: true } : { ok: false, retryAfter: result.statusCode === null ? undefined : result.retryAfter },
        now,
        this.deps.random,
      );
      this.deps.onAttempt?.(next.status === 'pending' ? 'retry' : next.status, (startedAt.getTime() - c.dueAt.getTime()) / 1000);
      const kept = await this.record({
        claim: c,
        attempt: {
          startedAt,
          ok,
          next,
          statusCode: result.statusCode,
          durationMs: result.durationMs,
          error: result.statusCode === null ? result.error : null,
          responseBody: result.statusCode === null ? null : result.body,
        },
        disableIfFailingSince: new Date(now.getTime() - DISABLE_AFTER_MS),
      });
      if (!kept) logger.warn({ delivery: c.id }, 'webhook lease was lost before the attempt was recorded; another worker resends it');
    } catch (err) {
      // The lease expires and another claim resends it: nothing is lost, at worst sent twice.
      logger.error({ err, delivery: c.id }, 'webhook delivery could not be recorded');
    }
  }

  /** Queues the attempt for the next flush; attempts finishing during a flush share the following one. */
  private record(item: CompletedAttempt): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.unrecorded.push({ item, settle: (r) => (r instanceof Error ? reject(r) : resolve(r)) });
      this.flushing ??= this.flush().finally(() => {
        this.flushing = null;
      });
    });
  }

  private async flush(): Promise<void> {
    while (this.unrecorded.length > 0) {
      const batch = this.unrecorded.splice(0, 100);
      try {
        const kept = await this.deps.queue.completeMany(batch.map((b) => b.item));
        for (const [i, b] of batch.entries()) b.settle(kept[i] ?? false);
      } catch (err) {
        for (const b of batch) b.settle(err instanceof Error ? err : new Error(String(err)));
      }
    }
  }
}
