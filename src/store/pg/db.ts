import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Mutex, PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { acquirePidLock, type PidLock } from '../pid-lock.js';
import { PglitePrepared } from './pglite-prepared.js';

export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/** One SQL interface over PGlite (embedded default) and a real PostgreSQL pool. */
export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** Statements sent so far, counted so tests can prove a path does no I/O. */
  readonly queryCount: number;
}

export type DbTarget =
  | { kind: 'postgres'; url: string; poolSize?: number }
  | { kind: 'pglite'; dataDir: string }
  /** In memory, optionally loaded from a dump of a migrated database (tests, tools). */
  | { kind: 'pglite-memory'; snapshot?: Blob };

/** Opens the database named by the target. PGlite in a data dir takes an exclusive lock file. */
export async function openDb(target: DbTarget): Promise<Db> {
  if (target.kind === 'postgres') return new PostgresDb(target.url, target.poolSize ?? 10);
  if (target.kind === 'pglite-memory') {
    const pglite = await PGlite.create(target.snapshot ? { loadDataDir: target.snapshot, relaxedDurability: true } : { relaxedDurability: true });
    return new PgliteDb(pglite, null);
  }
  mkdirSync(target.dataDir, { recursive: true });
  // PGlite is single-process: a second process on the same directory would corrupt it.
  const lock = acquirePidLock(
    join(target.dataDir, 'pglite.lock'),
    (pid) =>
      `The embedded database in ${target.dataDir} is in use by process ${pid}. PGlite is single-process: ` +
      'stop that process, use another AISLE_DATA_DIR, or set DATABASE_URL to share a PostgreSQL server.',
  );
  try {
    const pglite = await PGlite.create({ dataDir: join(target.dataDir, 'pg') });
    return new PgliteDb(pglite, lock);
  } catch (err) {
    lock.release();
    throw err;
  }
}

class PgliteDb implements Db {
  readonly kind = 'pglite' as const;
  queryCount = 0;
  private readonly prepared: PglitePrepared;
  /**
   * Prepared statements go around PGlite's own locks (PglitePrepared), so this one keeps them
   * out of an open transaction: held by every transaction and every prepared statement.
   */
  private readonly mutex = new Mutex();

  constructor(
    private readonly pglite: PGlite,
    private readonly lock: PidLock | null,
  ) {
    this.prepared = new PglitePrepared(pglite);
  }

  async query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    this.queryCount += 1;
    return this.mutex.runExclusive(() => this.pglite.runExclusive(() => this.prepared.query<R>(sql, params)));
  }

  async exec(sql: string): Promise<void> {
    this.queryCount += 1;
    await this.pglite.exec(sql);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.mutex.runExclusive(() => this.pglite.transaction(async (tx) =>
      fn({
        query: async <R>(sql: string, params: readonly unknown[] = []) => {
          this.queryCount += 1;
          return (await tx.query<R>(sql, params as unknown[])).rows;
        },
        exec: async (sql: string) => {
          this.queryCount += 1;
          await tx.exec(sql);
        },
      }),
    ));
  }

  /** The migrated database as a tarball, used by the test suite to skip initdb. */
  dump(): Promise<Blob> {
    return this.pglite.dumpDataDir('none') as Promise<Blob>;
  }

  async close(): Promise<void> {
    await this.pglite.close();
    this.lock?.release();
  }
}

/** Distinct statement texts given a name; past it, a new text runs unnamed (parsed and planned each time). */
const MAX_NAMED_STATEMENTS = 1_000;
const statementNames = new Map<string, string>();

/**
 * A named statement: PostgreSQL parses and plans it once per connection and reuses the plan,
 * where an unnamed one is parsed and planned on every call. The name comes from the text, so one
 * text is one prepared statement on each pooled connection. Our statements are fixed texts
 * (values always travel as parameters), so the set stays small; the cap keeps a runaway caller
 * from preparing without bound.
 */
function namedQuery(sql: string, params: readonly unknown[]): pg.QueryConfig {
  let name = statementNames.get(sql);
  if (name === undefined && statementNames.size < MAX_NAMED_STATEMENTS) {
    name = `aisle_${createHash('sha256').update(sql).digest('base64url').slice(0, 24)}`;
    statementNames.set(sql, name);
  }
  return name === undefined ? { text: sql, values: params as unknown[] } : { name, text: sql, values: params as unknown[] };
}

class PostgresDb implements Db {
  readonly kind = 'postgres' as const;
  queryCount = 0;
  private readonly pool: pg.Pool;

  constructor(url: string, poolSize: number) {
    this.pool = new pg.Pool({ connectionString: url, max: poolSize });
    // An idle client losing its connection emits here; without a listener it would crash the process.
    this.pool.on('error', () => undefined);
  }

  async query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    this.queryCount += 1;
    return (await this.pool.query(namedQuery(sql, params))).rows as R[];
  }

  async exec(sql: string): Promise<void> {
    this.queryCount += 1;
    await this.pool.query(sql);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      const result = await fn({
        query: async <R>(sql: string, params: readonly unknown[] = []) => {
          this.queryCount += 1;
          return (await client.query(namedQuery(sql, params))).rows as R[];
        },
        exec: async (sql: string) => {
          this.queryCount += 1;
          await client.query(sql);
        },
      });
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw err;
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

export const isPgliteDb = (db: Db): db is Db & { dump(): Promise<Blob> } => db instanceof PgliteDb;
