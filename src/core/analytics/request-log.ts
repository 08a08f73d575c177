import type { Clock } from '../clock.js';
import type { Logger } from '../shared-ports.js';
import { recordedLatency } from './latency.js';
import type { RequestLogEntry, RequestLogStore } from './ports.js';

export interface RequestLogOptions {
  /** Off: nothing is queued or written (usage `requests` and performance figures stay at zero). */
  enabled: boolean;
  /** How long an entry may wait in memory: the most a crash can lose. */
  flushIntervalMs: number;
  /** A batch this size is written at once, without waiting for the timer. */
  maxBatch: number;
  /** Entries past this many waiting are dropped (counted and logged), so a slow database cannot grow memory. */
  maxQueue: number;
}

export const DEFAULT_REQUEST_LOG_OPTIONS: RequestLogOptions = { enabled: true, flushIntervalMs: 1_000, maxBatch: 500, maxQueue: 20_000 };

/**
 * The request log behind GET /usage and GET /analytics/performance. record() only pushes onto a
 * bounded in-memory queue, so the request path never waits on the database; the queue is written
 * in one INSERT per batch when it reaches `maxBatch`, `flushIntervalMs` after its oldest entry
 * arrived, and on close(). A crash loses at most the entries of the last `flushIntervalMs`.
 */
export class RequestLog {
  private queue: RequestLogEntry[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private writing: Promise<void> = Promise.resolve();
  private droppedCount = 0;
  /** Entries queued or handed to a write that has not finished: the bound covers both. */
  private pending = 0;

  constructor(private readonly deps: { store: RequestLogStore; clock: Clock; logger: Logger; options: RequestLogOptions }) {}

  get enabled(): boolean {
    return this.deps.options.enabled;
  }

  /** Entries lost to a full queue or a failed write since start. */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Queues one completed request; never throws, never waits. `createdAt` defaults to the clock's now. */
  record(entry: Omit<RequestLogEntry, 'createdAt'> & { createdAt?: Date }): void {
    const { options } = this.deps;
    if (!options.enabled) return;
    // Counting writes in flight too: with a stalled database, batches must not pile up behind it.
    if (this.pending >= options.maxQueue) {
      this.drop(1, null);
      return;
    }
    this.pending += 1;
    this.queue.push({ ...entry, latencyMs: recordedLatency(entry.latencyMs), createdAt: entry.createdAt ?? this.deps.clock.now() });
    if (this.queue.length >= options.maxBatch) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), options.flushIntervalMs).unref();
  }

  /** Writes everything queued so far; resolves when it is committed (or dropped after a failure). */
  flush(): Promise<void> {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = this.queue;
    if (batch.length === 0) return this.writing;
    this.queue = [];
    // Writes run one after another, so entries reach the table in the order they were queued.
    this.writing = this.writing.then(() => this.write(batch));
    return this.writing;
  }

  /** Flushes; called when the server closes. */
  close(): Promise<void> {
    return this.flush();
  }

  private async write(batch: RequestLogEntry[]): Promise<void> {
    const size = this.deps.options.maxBatch;
    for (let i = 0; i < batch.length; i += size) {
      const part = batch.slice(i, i + size);
      try {
        await this.deps.store.insertMany(part);
      } catch (err) {
        this.drop(part.length, err);
      } finally {
        this.pending -= part.length;
      }
    }
  }

  private drop(n: number, err: unknown): void {
    const before = this.droppedCount;
    this.droppedCount += n;
    // One line per thousand lost entries: a flood of drops must not become a flood of logs.
    if (err !== null || Math.floor(before / 1000) !== Math.floor(this.droppedCount / 1000) || before === 0) {
      this.deps.logger.warn(
        { err: err ?? undefined, dropped: this.droppedCount },
        err === null ? 'request log queue full; entries dropped' : 'request log write failed; entries dropped',
      );
    }
  }
}
