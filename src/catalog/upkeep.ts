import type { Logger } from '../core/shared-ports.js';
import { type Periodic, startPeriodic } from '../periodic.js';
import type { UpkeepReport } from '../store/lance/catalog-store.js';

/**
 * Catalog upkeep on a schedule (docs/ingest.md, "Catalog upkeep"), in one process of a
 * deployment: every `intervalMs` the catalog compacts, folds new rows into its indexes and
 * removes the versions no process can still be serving. Imports do the same as they commit;
 * this keeps a catalog tidy between them (old versions pass the retention window after the last
 * import). A failed run is logged and retried at the next tick; 0 starts no timer.
 */
export function startCatalogUpkeep(deps: { catalog: { upkeep(): Promise<UpkeepReport> }; logger: Logger; intervalMs: number }): Periodic<UpkeepReport> {
  const { catalog, logger } = deps;
  return startPeriodic({
    run: async () => {
      const report = await catalog.upkeep();
      logger.info(report, report.action === 'done' ? 'catalog upkeep' : 'catalog upkeep skipped');
      return report;
    },
    logger,
    failure: 'catalog upkeep failed; retried at the next interval',
    intervalMs: deps.intervalMs,
  });
}
