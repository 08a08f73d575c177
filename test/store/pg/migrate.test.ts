import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrate, openDb } from '../../../src/store/pg/index.js';
import { latestVersion, migrations } from '../../../src/store/pg/migrations/index.js';
import { createTestDb, usingRealPostgres } from '../../helpers/db.js';

describe('migrate', () => {
  it('is idempotent on a migrated database', async () => {
    const { db, cleanup } = await createTestDb();
    try {
      expect(await migrate(db)).toEqual([]);
      const rows = await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((r) => r.version)).toEqual(migrations.map((m) => m.version));
    } finally {
      await cleanup();
    }
  });

  it.skipIf(!usingRealPostgres())('applies each migration exactly once when four processes start at once (real PostgreSQL)', async () => {
    const url = process.env.DATABASE_URL!;
    const name = `aisle_m_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const target = new URL(url);
    target.pathname = `/${name}`;
    const dbs = await Promise.all(Array.from({ length: 4 }, () => openDb({ kind: 'postgres', url: target.toString(), poolSize: 2 })));
    try {
      const applied = await Promise.all(dbs.map((db) => migrate(db)));
      expect(applied.flat().sort((a, b) => a - b)).toEqual(migrations.map((m) => m.version));
      expect(applied.filter((a) => a.length > 0)).toHaveLength(1);
      const rows = await dbs[0]!.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
      // Versions need not be contiguous while branches merge (004 before 003): count what the build knows.
      expect(rows[0]?.n).toBe(migrations.length);
      expect(latestVersion()).toBe(migrations.at(-1)?.version);
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
    }
  });
});
