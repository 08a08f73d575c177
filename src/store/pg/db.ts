import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Mutex, PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { type DatabaseTimeouts, DEFAULT_TIMEOUTS } from '../../config.js';
import { inSpan } from '../../core/spans.js';
import { acquirePidLock, assertPidLockFree, type PidLock } from '../pid-lock.js';
import { connectionUnusable, databaseUnavailable } from './db-errors.js';
import { PglitePrepared } from './pglite-prepared.js';

export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

interface TransactionOptions {
  /**
   * Maintenance work (migrations, rollups, the learner's log reads): its statements get the
   * maintenance bound instead of the request path's statement bound.
   */
  maintenance?: boolean;
}

/**
 * One SQL interface over PGlite (embedded default) and a real PostgreSQL pool. On PostgreSQL a
 * statement that outlasts its bound, or a connection that cannot be had in time, throws AppError
 * `unavailable` (503, see db-errors.ts); PGlite runs in this process and has no such bounds.
 */
export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  close(): Promise<void>;
  /** Statements sent so far, counted so tests can prove a path does no I/O. */
  readonly queryCount: number;
  /** The pool's connections and the requests waiting for one; null on PGlite, which has one connection in this process. */
  poolStats(): { total: number; idle: number; waiting: number } | null;
}

export type DbTarget =
  /** `timeouts` defaults to DEFAULT_TIMEOUTS (src/config.ts); 0 turns one off. */
  | { kind: 'postgres'; url: string; poolSize?: number; timeouts?: Partial<DatabaseTimeouts> }
  | { kind: 'pglite'; dataDir: string }
  /** In memory, optionally loaded from a dump of a migrated database (tests, tools). */
  | { kind: 'pglite-memory'; snapshot?: Blob };

const pgliteLockFile = (dataDir: string) => join(dataDir, 'pglite.lock');
const pgliteLockHeld = (dataDir: string) => (pid: number) =>
  `The embedded database in ${dataDir} is in use by process ${pid}. PGlite is single-process: ` +
  'stop that process, use another AISLE_DATA_DIR, or set DATABASE_URL to share a PostgreSQL server.';

/** Throws the LockHeldError openDb would, without opening anything (PostgreSQL: never). */
export function assertDbAvailable(target: DbTarget): void {
  if (target.kind === 'pglite') assertPidLockFree(pgliteLockFile(target.dataDir), pgliteLockHeld(target.dataDir));
}

/** Opens the database named by the target. PGlite in a data dir takes an exclusive lock file. */
export async function openDb(target: DbTarget): Promise<Db> {
  if (target.kind === 'postgres') {
    const timeouts = {
      connectMs: target.timeouts?.connectMs ?? DEFAULT_TIMEOUTS.databaseConnectMs,
      statementMs: target.timeouts?.statementMs ?? DEFAULT_TIMEOUTS.databaseStatementMs,
      maintenanceMs: target.timeouts?.maintenanceMs ?? DEFAULT_TIMEOUTS.databaseMaintenanceMs,
    };
    return new PostgresDb(target.url, target.poolSize ?? 10, timeouts);
  }
  if (target.kind === 'pglite-memory') {
    const pglite = await PGlite.create(target.snapshot ? { loadDataDir: target.snapshot, relaxedDurability: true } : { relaxedDurability: true });
    return new PgliteDb(pglite, null);
  }
  mkdirSync(target.dataDir, { recursive: true });
  // PGlite is single-process: a second process on the same directory would corrupt it.
  const lock = acquirePidLock(pgliteLockFile(target.dataDir), pgliteLockHeld(target.dataDir));
  try {
    const pglite = await PGlite.create({ dataDir: join(target.dataDir, 'pg') });
    return new PgliteDb(pglite, lock);
  } catch (err) {
    lock.release();
    throw err;
  }
}

/**
 * PGlite runs inside this process on one connection: no connection to wait for, no other session
 * to hold a lock, and statement_timeout is accepted but not enforced (WASM has no timer signal;
 * test/store/pg/db-timeouts.test.ts shows it). So the timeouts are PostgreSQL's only.
 */
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
    return statement(this.kind, sql, () => this.mutex.runExclusive(() => this.pglite.runExclusive(() => this.prepared.query<R>(sql, params))));
  }

  /** One connection, in this process: no pool to report. */
  poolStats(): null {
    return null;
  }

  async exec(sql: string): Promise<void> {
    this.queryCount += 1;
    await this.pglite.exec(sql);
    // exec runs DDL (migrations, tests): statements prepared before it are prepared anew.
    this.prepared.forgetAll();
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return inSpan('db.transaction', { 'db.system.name': 'postgresql' }, () => this.transactionNow(fn));
  }

  private async transactionNow<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.mutex.runExclusive(() =>
      this.pglite.transaction(async (tx) =>
        fn({
          // Prepared statements here too: PGlite's own tx.query parses and plans every statement anew.
          query: async <R>(sql: string, params: readonly unknown[] = []) => {
            this.queryCount += 1;
            return statement(this.kind, sql, () => this.pglite.runExclusive(() => this.prepared.query<R>(sql, params, { inTransaction: true })));
          },
          exec: async (sql: string) => {
            this.queryCount += 1;
            await tx.exec(sql);
            this.prepared.forgetAll();
          },
        }),
      ),
    );
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

/**
 * How much longer than its statement bound the driver waits for an answer before giving up on
 * its own: the server cancels at the bound and its error needs a moment to arrive; past that the
 * server (or the network to it) is not answering at all.
 */
const CLIENT_MARGIN_MS = 1_000;
/** setTimeout's longest delay (about 24.8 days): pg reads a per-query 0 as "the client's default". */
const NO_CLIENT_TIMEOUT = 2_147_483_647;

const clientTimeout = (statementMs: number): number => (statementMs > 0 ? statementMs + CLIENT_MARGIN_MS : NO_CLIENT_TIMEOUT);

type TimedQuery = pg.QueryConfig & { query_timeout?: number };

/**
 * A pg Pool with bounds on every wait (docs/configuration.md): connectionTimeoutMillis for a
 * connection (opening one, or waiting for a free one), statement_timeout on the server for each
 * statement, idle_in_transaction_session_timeout so a stuck transaction does not hold its locks
 * forever, and query_timeout in the driver for a server that does not answer at all.
 */
class PostgresDb implements Db {
  readonly kind = 'postgres' as const;
  queryCount = 0;
  private readonly pool: pg.Pool;

  poolStats(): { total: number; idle: number; waiting: number } {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  constructor(
    url: string,
    poolSize: number,
    private readonly timeouts: DatabaseTimeouts,
  ) {
    const statementMs = timeouts.statementMs;
    this.pool = new pg.Pool({
      connectionString: url,
      max: poolSize,
      connectionTimeoutMillis: timeouts.connectMs,
      // 0 sends nothing: the server's (or the role's) own setting applies.
      ...(statementMs > 0
        ? { statement_timeout: statementMs, idle_in_transaction_session_timeout: statementMs, query_timeout: statementMs + CLIENT_MARGIN_MS }
        : {}),
    });
    // An idle client losing its connection emits here; without a listener it would crash the process.
    this.pool.on('error', () => undefined);
  }

  async query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    this.queryCount += 1;
    return statement(this.kind, sql, async () => {
      try {
        return (await this.pool.query(namedQuery(sql, params))).rows as R[];
      } catch (err) {
        throw databaseUnavailable(err) ?? err;
      }
    });
  }

  async exec(sql: string): Promise<void> {
    this.queryCount += 1;
    try {
      await this.pool.query(sql);
    } catch (err) {
      throw databaseUnavailable(err) ?? err;
    }
  }

  /**
   * BEGIN … COMMIT on one pooled connection. A maintenance transaction raises its statements'
   * bound with SET LOCAL, which ends with the transaction (and works through a transaction-mode
   * pooler). Any failure rolls back; a connection whose state is unknown is dropped instead.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    return inSpan('db.transaction', { 'db.system.name': 'postgresql' }, () => this.transactionNow(fn, options));
  }

  private async transactionNow<T>(fn: (tx: Queryable) => Promise<T>, options: TransactionOptions): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw databaseUnavailable(err) ?? err;
    }
    // A checked-out client has no pool listener: the server ending the session (the idle-in-
    // transaction timeout) would otherwise be an unhandled 'error' event. The next query fails anyway.
    const onError = () => undefined;
    client.on('error', onError);
    const queryTimeout = options.maintenance ? clientTimeout(this.timeouts.maintenanceMs) : undefined;
    const timed = (q: TimedQuery): TimedQuery => (queryTimeout === undefined ? q : { ...q, query_timeout: queryTimeout });
    let broken = false;
    try {
      await client.query('BEGIN');
      if (options.maintenance) await client.query(`SET LOCAL statement_timeout = ${Math.trunc(this.timeouts.maintenanceMs)}`);
      const result = await fn({
        query: async <R>(sql: string, params: readonly unknown[] = []) => {
          this.queryCount += 1;
          return statement(this.kind, sql, async () => (await client.query(timed(namedQuery(sql, params)))).rows as R[]);
        },
        exec: async (sql: string) => {
          this.queryCount += 1;
          await client.query(timed({ text: sql }));
        },
      });
      await client.query(timed({ text: 'COMMIT' }));
      return result;
    } catch (err) {
      if (connectionUnusable(err)) broken = true;
      else {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
      }
      throw databaseUnavailable(err) ?? err;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/**
 * One statement in a span (`db.query`): the statement's text is a fixed, parameterised text of
 * src/store (values travel apart), so it carries no personal data; its first 300 characters name it.
 */
function statement<R>(kind: Db['kind'], sql: string, run: () => Promise<R>): Promise<R> {
  return inSpan('db.query', { 'db.system.name': 'postgresql', 'aisle.database': kind, 'db.query.text': sql.slice(0, 300) }, run);
}

export const isPgliteDb = (db: Db): db is Db & { dump(): Promise<Blob> } => db instanceof PgliteDb;
