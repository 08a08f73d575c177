import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { inject } from 'vitest';
import type { DatabaseTimeouts } from '../../src/config.js';
import { openDb, type Db } from '../../src/store/pg/index.js';

export const usingRealPostgres = (): boolean => Boolean(process.env.DATABASE_URL);

export interface TestDb {
  db: Db;
  /** The database's URL on real Postgres (child processes connect to it); undefined on PGlite. */
  url?: string;
  /** Opens another handle on the same database (a second process's pool); real Postgres only. */
  openAnother(timeouts?: Partial<DatabaseTimeouts>): Promise<Db>;
  cleanup(): Promise<void>;
}

/**
 * A fresh, migrated database: a copy of the run's template on Postgres, a loaded dump on PGlite.
 * `timeouts` bound the Postgres pool (their defaults when absent); PGlite has none.
 */
export async function createTestDb(options: { timeouts?: Partial<DatabaseTimeouts> } = {}): Promise<TestDb> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const name = `aisle_t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('pgTemplate')}`);
    const target = new URL(url);
    target.pathname = `/${name}`;
    const handles: Db[] = [];
    const open = async (timeouts = options.timeouts) => {
      const db = await openDb({ kind: 'postgres', url: target.toString(), poolSize: 10, ...(timeouts ? { timeouts } : {}) });
      handles.push(db);
      return db;
    };
    const db = await open();
    return {
      db,
      url: target.toString(),
      openAnother: (timeouts) => open(timeouts),
      cleanup: async () => {
        await Promise.all(handles.map((h) => h.close().catch(() => undefined)));
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      },
    };
  }
  const snapshot = new Blob([await readFile(inject('pgliteSnapshot'))]);
  const db = await openDb({ kind: 'pglite-memory', snapshot });
  return {
    db,
    openAnother: async () => {
      throw new Error('PGlite is single-process: one handle per database');
    },
    cleanup: () => db.close(),
  };
}
