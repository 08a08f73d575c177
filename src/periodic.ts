import type { Logger } from './core/shared-ports.js';

export interface Periodic<T> {
  /** Runs once now (tests); joins a run under way. Resolves to null when the run failed (it is logged). */
  run(): Promise<T | null>;
  /** Stops the timer and waits for a run in progress, so what it uses can be closed after it. */
  stop(): Promise<void>;
}

/**
 * A background job every `intervalMs` (0: no timer): runs never overlap, a failed one is logged
 * as `failure` and tried again at the next tick, and the timer never keeps the process alive.
 */
export function startPeriodic<T>(deps: { run: () => Promise<T>; logger: Logger; failure: string; intervalMs: number }): Periodic<T> {
  let running: Promise<T | null> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  function run(): Promise<T | null> {
    running ??= deps
      .run()
      .catch((err: unknown) => {
        deps.logger.warn({ err }, deps.failure);
        return null;
      })
      .finally(() => {
        running = null;
      });
    return running;
  }

  function schedule(): void {
    if (stopped || deps.intervalMs === 0) return;
    timer = setTimeout(() => void run().then(schedule), deps.intervalMs);
    timer.unref();
  }

  schedule();
  return {
    run,
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
