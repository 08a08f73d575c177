import { isDatabaseUnavailable } from './db-errors.js';

export interface GroupCommitOptions<I, R> {
  /**
   * Does the work of a batch in as few statements as it can and returns one result per item, in
   * the items' order. A throw fails the batch; its items are then run again one at a time.
   */
  run(items: readonly I[]): Promise<R[]>;
  /** Batches at the database at once; the rest wait and grow. Default 1. */
  maxInFlight?: number;
  /** Items per batch at most (bounds statement size and the time one batch holds its locks). Default 500. */
  maxBatch?: number;
}

interface Waiting<I, R> {
  item: I;
  resolve(result: R): void;
  reject(err: unknown): void;
}

/**
 * Group commit: each caller submits one item and gets its own result, but items that arrive
 * while earlier batches are at the database wait and then go together, so N concurrent callers
 * cost a few round trips and one commit instead of N. A caller's promise settles only after its
 * batch's `run` has returned (for a transaction: after COMMIT).
 *
 * Items submitted in the same tick are collected before the first batch leaves (a microtask),
 * so a burst is one batch even when the pipeline is idle. When a batch fails, its items are run
 * again one at a time, in arrival order: one bad item fails only its own caller, and a transient
 * failure (a deadlock victim, a serialization failure) is retried once. A batch that failed
 * because the database is unavailable (a statement or connection timeout) is not run again: every
 * caller in it gets that error at once, instead of one more timeout each.
 */
export class GroupCommit<I, R> {
  private readonly waiting: Waiting<I, R>[] = [];
  private inFlight = 0;
  private scheduled = false;
  private readonly maxInFlight: number;
  private readonly maxBatch: number;

  constructor(private readonly options: GroupCommitOptions<I, R>) {
    this.maxInFlight = options.maxInFlight ?? 1;
    this.maxBatch = options.maxBatch ?? 500;
  }

  /** Settles with this item's result once its batch is done, or with its own error. */
  submit(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.scheduled && this.inFlight < this.maxInFlight) {
        this.scheduled = true;
        queueMicrotask(() => {
          this.scheduled = false;
          this.dispatch();
        });
      }
    });
  }

  private dispatch(): void {
    while (this.inFlight < this.maxInFlight && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.maxBatch);
      this.inFlight += 1;
      void this.runBatch(batch).finally(() => {
        this.inFlight -= 1;
        this.dispatch();
      });
    }
  }

  private async runBatch(batch: Waiting<I, R>[]): Promise<void> {
    let results: R[];
    try {
      results = await this.runChecked(batch.map((w) => w.item));
    } catch (err) {
      if (batch.length === 1 || isDatabaseUnavailable(err)) for (const w of batch) w.reject(err);
      else for (const w of batch) await this.runChecked([w.item]).then(([r]) => w.resolve(r!), w.reject);
      return;
    }
    for (const [i, w] of batch.entries()) w.resolve(results[i]!);
  }

  private async runChecked(items: readonly I[]): Promise<R[]> {
    const results = await this.options.run(items);
    if (results.length !== items.length) throw new Error(`group commit: ${results.length} results for ${items.length} items`);
    return results;
  }
}
