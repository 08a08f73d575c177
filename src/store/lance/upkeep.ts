import { join } from 'node:path';
import type { Connection, Table } from '@lancedb/lancedb';
import type { CatalogInfo } from '../../core/catalog/ports.js';
import { acquirePidLock, type PidLock } from '../pid-lock.js';
import { isLocal, readMeta } from './meta.js';
import { PRODUCTS_TABLE } from './rows.js';

/** What one upkeep run did (docs/ingest.md, "Catalog upkeep"). */
export type UpkeepReport =
  | { action: 'skipped'; reason: string }
  | { action: 'done'; version: number; fragmentsCompacted: number; versionsRemoved: number; bytesRemoved: number; ms: number };

/** What upkeep asks of the store it keeps (LanceCatalogStore, catalog-store.ts). */
interface UpkeepStore {
  cleanupCutoff(table: Table): Promise<Date>;
  publish(info: CatalogInfo): Promise<void>;
}

/**
 * Catalog upkeep (docs/ingest.md): compacts the serving version's small fragments, folds rows
 * written since the indexes were built into them, removes versions no process can still be
 * serving, and publishes the compacted version. Skipped while an import is writing (its lock
 * is held, or, on object storage, versions newer than the pointer exist).
 */
export async function runUpkeep(conn: Connection, uri: string, store: UpkeepStore): Promise<UpkeepReport> {
  const started = performance.now();
  let lock: PidLock | null = null;
  if (isLocal(uri)) {
    try {
      lock = acquirePidLock(join(uri, 'import.lock'), (pid) => `import ${pid}`);
    } catch (err) {
      if ((err as Error).name === 'LockHeldError') return { action: 'skipped', reason: 'an import is writing the catalog' };
      throw err;
    }
  }
  try {
    const meta = await readMeta(conn);
    if (meta === null) return { action: 'skipped', reason: 'the catalog is empty' };
    const table = await conn.openTable(PRODUCTS_TABLE);
    try {
      const pointer = meta.info.version;
      if ((await table.version()) !== pointer) {
        if (lock === null)
          return { action: 'skipped', reason: 'versions newer than the serving one exist: an import is writing or died; its next import clears them' };
        // Under the lock, newer versions are commits of an import that died: discard them.
        await table.checkout(pointer);
        await table.restore();
      }
      const stats = await table.optimize({ cleanupOlderThan: await store.cleanupCutoff(table) });
      const version = await table.version();
      const now = await readMeta(conn);
      // Only the version the pointer still names is replaced by its compacted self.
      if (version !== pointer && now?.info.version === pointer) await store.publish({ ...meta.info, version, updatedAt: new Date() });
      return {
        action: 'done',
        version,
        fragmentsCompacted: stats.compaction.fragmentsRemoved,
        versionsRemoved: stats.prune.oldVersionsRemoved,
        bytesRemoved: stats.prune.bytesRemoved,
        ms: Math.round(performance.now() - started),
      };
    } finally {
      table.close();
    }
  } finally {
    lock?.release();
  }
}
