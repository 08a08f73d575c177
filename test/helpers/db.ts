import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { inject } from 'vitest';
import type { DatabaseTimeouts } from '../../src/config.js';
import { type Db, openDb } from '../../src/store/pg/index.js';

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
 * A fresh, migrated database: a copy of the run's template on Postgres; on PGlite a loaded dump,
 * or one an earlier test gave back, emptied (below).
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
  const db = idlePglite.pop() ?? (await freshPglite());
  const handle = handleOn(db);
  return {
    db: handle.db,
    openAnother: async () => {
      throw new Error('PGlite is single-process: one handle per database');
    },
    cleanup: async () => {
      if (!handle.release()) return;
      if (await emptiedForReuse(db)) idlePglite.push(db);
      else await db.close().catch(() => undefined);
    },
  };
}

/**
 * The test's handle on a pooled database. Once the test gives it back, every call through it
 * fails (close() does nothing), as on a closed database: a timer or loop that outlives its test
 * cannot write into the next test's data. release() says whether this call released it.
 */
function handleOn(db: Db): { db: Db; release(): boolean } {
  let released = false;
  const handle = new Proxy(db, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (!released) return (value as (...a: unknown[]) => unknown).apply(target, args);
        if (prop === 'close') return Promise.resolve();
        return Promise.reject(new Error('this test database was given back (its cleanup ran): something outlived its test'));
      };
    },
  });
  return {
    db: handle,
    release: () => {
      const first = !released;
      released = true;
      return first;
    },
  };
}

/**
 * PGlite databases that earlier tests in this worker gave back, emptied, for the next test to
 * take. Loading the dump and starting PostgreSQL inside WASM costs about a CPU-second; emptying
 * a database costs a few milliseconds. A database is reused only if it still answers and its
 * schema (relations, columns and their defaults, views, types, indexes, constraints, functions,
 * triggers, applied migrations) is the migrated one: a test that ran DDL, rolled a migration
 * back or closed its database gets it closed instead. What a test wrote is removed with
 * TRUNCATE … RESTART IDENTITY, and session settings, advisory locks and temporary tables with
 * RESET ALL, pg_advisory_unlock_all() and DISCARD TEMP, so a test sees what a fresh database
 * would show it.
 */
const idlePglite: Db[] = [];
let migratedSchema: Promise<string> | undefined;

/** How many emptied PGlite databases wait in this worker for a test to take (test/helpers/db.test.ts). */
export const idlePgliteCount = (): number => idlePglite.length;

async function freshPglite(): Promise<Db> {
  const db = await openDb({ kind: 'pglite-memory', snapshot: new Blob([await readFile(inject('pgliteSnapshot'))]) });
  migratedSchema ??= schemaOf(db);
  await migratedSchema;
  return db;
}

const SCHEMA = `SELECT md5(string_agg(item, ',' ORDER BY item)) AS digest FROM (
  SELECT 'rel ' || c.relname || ' ' || c.relkind::text || ' ' || coalesce(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text, '') AS item
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
   WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
  UNION ALL SELECT 'con ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = 'public'::regnamespace
  UNION ALL SELECT 'idx ' || indexrelid::regclass::text || ' ' || pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid::regclass::text NOT LIKE 'pg_%'
  UNION ALL SELECT 'fn ' || p.oid::regprocedure::text || ' ' || md5(p.prosrc) FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace
  UNION ALL SELECT 'trg ' || tgname || ' ' || tgrelid::regclass::text FROM pg_trigger WHERE NOT tgisinternal
  UNION ALL SELECT 'def ' || adrelid::regclass::text || ' ' || adnum::text || ' ' || pg_get_expr(adbin, adrelid) FROM pg_attrdef
  UNION ALL SELECT 'view ' || c.oid::regclass::text || ' ' || pg_get_viewdef(c.oid) FROM pg_class c WHERE c.relkind IN ('v', 'm') AND c.relnamespace = 'public'::regnamespace
  UNION ALL SELECT 'type ' || t.typname || ' ' || t.typtype::text FROM pg_type t WHERE t.typnamespace = 'public'::regnamespace
  UNION ALL SELECT 'enum ' || enumtypid::regtype::text || ' ' || enumlabel FROM pg_enum
  UNION ALL SELECT 'mig ' || version::text || ' ' || name FROM schema_migrations
) s`;

const schemaOf = async (db: Db): Promise<string> => (await db.query<{ digest: string }>(SCHEMA))[0]!.digest;

async function emptiedForReuse(db: Db): Promise<boolean> {
  try {
    if ((await schemaOf(db)) !== (await migratedSchema)) return false;
    const tables = await db.query<{ name: string }>(
      `SELECT quote_ident(relname) AS name FROM pg_class
        WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p') AND relname <> 'schema_migrations' ORDER BY relname`,
    );
    await db.query(`TRUNCATE ${tables.map((t) => t.name).join(', ')} RESTART IDENTITY CASCADE`);
    await db.query('RESET ALL');
    await db.query('SELECT pg_advisory_unlock_all()');
    await db.query('DISCARD TEMP');
    return true;
  } catch {
    return false;
  }
}
