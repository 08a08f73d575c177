import type { Logger } from './core/shared-ports.js';
import type { UpkeepReport } from './store/lance/catalog-store.js';

export interface CatalogUpkeep {
  /** Runs one upkeep now (tests); joins one under way. */
  run(): Promise<UpkeepReport | null>;
  /** Stops the timer and waits for a run in progress, so the catalog can be closed after it. */
  stop(): Promise<void>;
}

/**
 * Catalog upkeep on a schedule (docs/ingest.md, "Catalog upkeep"), in one process of a
 * deployment: every `intervalMs` the catalog compacts, folds new rows into its indexes and
 * removes the versions no process can still be serving. Imports do the same as they commit;
 * this keeps a catalog tidy between them (old versions pass the retention window after the last
 * import). Runs never overlap; a failed one is logged and retried at the next tick. 0 starts no timer.
 */
export function startCatalogUpkeep(deps: { catalog: { upkeep(): Promise<UpkeepReport> }; logger: Logger; intervalMs: number }): CatalogUpkeep {
  const { catalog, logger, intervalMs } = deps;
  let running: Promise<UpkeepReport | null> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  function run(): Promise<UpkeepReport | null> {
    running ??= catalog
      .upkeep()
      .then((report) => {
        if (report.action === 'done') logger.info(report, 'catalog upkeep');
        else logger.info(report, 'catalog upkeep skipped');
        return report;
      })
      .catch((err: unknown) => {
        logger.warn({ err }, 'catalog upkeep failed; retried at the next interval');
        return null;
      })
      .finally(() => {
        running = null;
      });
    return running;
  }

  function schedule(): void {
    if (stopped || intervalMs === 0) return;
    timer = setTimeout(() => void run().then(schedule), intervalMs);
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
