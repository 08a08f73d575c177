import type { CatalogStore } from '../core/catalog/ports.js';
import type { Embedder, Logger } from '../core/shared-ports.js';
import { startPeriodic } from '../periodic.js';

export interface CatalogRefresh {
  /** Runs one check now (tests and the first tick use it); resolves once a moved version is warm. */
  check(): Promise<boolean>;
  /** Stops the timer and waits for a check in progress, so the catalog can be closed after it. */
  stop(): Promise<void>;
}

/**
 * Keeps an API process on the catalog version the last import published, whichever process or
 * machine ran it: every `intervalMs` the serving pointer is re-read (one small read of the meta
 * table, local or on object storage), and a moved pointer is followed by `warm` (vocabulary and
 * product cache), so the new version is fast before it is hot. Checks never overlap; a failed one
 * is logged and retried at the next tick, and the version serving so far keeps serving.
 * `intervalMs` 0 starts no timer.
 */
export function startCatalogRefresh(deps: {
  catalog: Pick<CatalogStore, 'refresh' | 'info'>;
  embedder: Pick<Embedder, 'model' | 'dimensions'>;
  warm: () => Promise<void>;
  logger: Logger;
  intervalMs: number;
}): CatalogRefresh {
  const { catalog, embedder, logger, intervalMs } = deps;
  // The version last refused, so a refused import is reported once rather than at every tick.
  let refused: number | null = null;

  async function follow(): Promise<boolean> {
    const started = performance.now();
    const moved = await catalog.refresh((info) => {
      if (info.model === embedder.model && info.dimensions === embedder.dimensions) return true;
      // A --replace import with another model: this process cannot embed queries for it, so it
      // keeps serving the version it has and says, once, what would make it follow.
      if (refused !== info.version) {
        refused = info.version;
        logger.error(
          { catalogModel: info.model, catalogDimensions: info.dimensions, model: embedder.model, dimensions: embedder.dimensions, version: info.version },
          'the catalog was rebuilt with another embedding model; this process keeps serving the previous version until it restarts with the matching AISLE_EMBEDDING_* settings',
        );
      }
      return false;
    });
    if (!moved) return false;
    const info = await catalog.info();
    await deps.warm();
    logger.info(
      { version: info?.version ?? null, products: info?.productCount ?? 0, ms: Math.round(performance.now() - started) },
      'serving a new catalog version',
    );
    return true;
  }

  const periodic = startPeriodic({ run: follow, logger, failure: 'catalog refresh failed; the current version keeps serving', intervalMs });
  return { check: async () => (await periodic.run()) ?? false, stop: periodic.stop };
}
