import type { Db, Queryable } from './db.js';
import { latestVersion, migrations } from './migrations/index.js';

// Arbitrary constant shared by every Aisle process: the advisory lock that serialises migrations.
const MIGRATION_LOCK_ID = 7_302_215_014;

/**
 * Applies pending migrations in one transaction under an advisory lock, so two processes
 * starting at once apply each migration exactly once and never see a half-migrated schema.
 * Returns the versions applied by this call. Maintenance work: a migration on a large table, or
 * waiting for another process's, may take up to the maintenance bound (DATABASE_MAINTENANCE_TIMEOUT_MS).
 */
export async function migrate(db: Db): Promise<number[]> {
  return db.transaction(
    async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_ID]);
      await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
      const done = new Set((await tx.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version));
      const applied: number[] = [];
      for (const m of migrations) {
        if (done.has(m.version)) continue;
        await tx.exec(m.sql);
        await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        applied.push(m.version);
      }
      return applied;
    },
    { maintenance: true },
  );
}

/** True when every migration this build knows is applied. Throws when the database is unreachable. */
export async function migrationsCurrent(db: Queryable): Promise<boolean> {
  const rows = await db.query<{ v: number | null }>(`SELECT max(version) AS v FROM schema_migrations`).catch((err: unknown) => {
    if ((err as { code?: string }).code === '42P01') return [{ v: null }];
    throw err;
  });
  return (rows[0]?.v ?? 0) >= latestVersion();
}
