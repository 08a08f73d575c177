import { connect, createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { type Db, openDb } from '../../../src/store/pg/index.js';
import { PgRateLimitStore } from '../../../src/store/pg/rate-limit-store.js';
import { createTestDb, type TestDb, usingRealPostgres } from '../../helpers/db.js';

/** Far above every bound below: a call still pending then has hung. */
const HANG_GUARD_MS = 15_000;

/** Settles with what the promise gave, or fails the test if it is still pending after the guard. */
async function settle<T>(p: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${HANG_GUARD_MS} ms: hung`)), HANG_GUARD_MS);
  });
  try {
    return await Promise.race([
      p.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      guard,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Asserts an AppError `unavailable` (503 with Retry-After) and returns it. */
function expectUnavailable(outcome: { value?: unknown; error?: unknown }): AppError {
  expect(outcome.error, `expected a failure, got ${JSON.stringify(outcome.value)}`).toBeInstanceOf(AppError);
  const error = outcome.error as AppError;
  expect(error.code, error.message).toBe('unavailable');
  expect(error.status).toBe(503);
  expect(error.headers['retry-after']).toBe('5');
  return error;
}

/** A TCP server that accepts connections and never says a word: a hung database host. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('openDb (postgres): a database host that never answers', () => {
  it('fails a query with 503 unavailable once the connect bound has passed, not never', async () => {
    const silent = await silentServer();
    const db = await openDb({ kind: 'postgres', url: `postgres://aisle@127.0.0.1:${silent.port}/aisle`, timeouts: { connectMs: 300 } });
    try {
      const started = Date.now();
      const error = expectUnavailable(await settle(db.query('SELECT 1')));
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(error.message).toContain('connect timeout');
      expectUnavailable(await settle(db.transaction((tx) => tx.query('SELECT 1'))));
    } finally {
      await db.close();
      await silent.close();
    }
  });
});

describe.skipIf(!usingRealPostgres())('openDb (postgres): bounds on a real server (real PostgreSQL only: skipped on PGlite, set DATABASE_URL)', () => {
  let t: TestDb;
  const holders: pg.Client[] = [];

  beforeAll(async () => {
    t = await createTestDb();
  });
  afterEach(async () => {
    for (const c of holders.splice(0)) await c.end().catch(() => undefined);
  });
  afterAll(async () => {
    await t.cleanup();
  });

  /** A second session holding an exclusive lock on `table` in an open transaction; commit() lets go. */
  async function holdLock(table: string): Promise<{ commit(): Promise<void> }> {
    const c = new pg.Client({ connectionString: t.url });
    holders.push(c);
    await c.connect();
    await c.query('BEGIN');
    await c.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    return { commit: async () => void (await c.query('COMMIT')) };
  }

  it('fails a statement waiting on a held lock with 503 unavailable after the statement bound, and runs it once the lock is gone', async () => {
    const db = await t.openAnother({ statementMs: 400 });
    const lock = await holdLock('rate_limits');
    const error = expectUnavailable(await settle(db.query('SELECT count(*)::int AS n FROM rate_limits')));
    expect(error.message).toContain('statement timeout');
    await lock.commit();
    expect(await db.query('SELECT count(*)::int AS n FROM rate_limits')).toEqual([{ n: 0 }]);
  });

  it('rolls a transaction back when one of its statements times out: nothing it wrote is kept, and the pool goes on', async () => {
    const db = await t.openAnother({ statementMs: 400 });
    const lock = await holdLock('api_keys');
    expectUnavailable(
      await settle(
        db.transaction(async (tx) => {
          await tx.query(`INSERT INTO rate_limits (bucket, tat_ms) VALUES ('half-written', 1)`);
          await tx.query('SELECT count(*) FROM api_keys');
        }),
      ),
    );
    await lock.commit();
    expect(await db.query(`SELECT bucket FROM rate_limits WHERE bucket = 'half-written'`)).toEqual([]);
    expect(await db.transaction((tx) => tx.query<{ one: number }>('SELECT 1 AS one'))).toEqual([{ one: 1 }]);
  });

  it('gives maintenance transactions their own, longer bound', async () => {
    const db = await t.openAnother({ statementMs: 300, maintenanceMs: 5_000 });
    expectUnavailable(await settle(db.query('SELECT pg_sleep(0.6)')));
    expect(await db.transaction((tx) => tx.query<{ ok: number }>('SELECT 1 AS ok FROM pg_sleep(0.6)'), { maintenance: true })).toEqual([{ ok: 1 }]);
    // The raised bound ends with its transaction.
    expect(await db.query<{ statement_timeout: string }>('SHOW statement_timeout')).toEqual([{ statement_timeout: '300ms' }]);
    const bounded = await t.openAnother({ statementMs: 5_000, maintenanceMs: 300 });
    expectUnavailable(await settle(bounded.transaction((tx) => tx.query('SELECT pg_sleep(1)'), { maintenance: true })));
  });

  it('fails a caller waiting for a pool connection after the connect bound when every connection is busy', async () => {
    const db = await openDb({ kind: 'postgres', url: t.url!, poolSize: 1, timeouts: { connectMs: 300 } });
    try {
      const busy = db.transaction(() => sleep(1_500));
      const error = expectUnavailable(await settle(db.query('SELECT 1')));
      expect(error.message).toContain('no pool connection in time');
      await busy;
      expect(await db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  });

  it('ends a transaction left idle past the statement bound, so its locks do not outlive it', async () => {
    const db = await t.openAnother({ statementMs: 300 });
    const other = await t.openAnother({ statementMs: 3_000 });
    const stuck = settle(
      db.transaction(async (tx) => {
        await tx.query('LOCK TABLE rate_limits IN ACCESS EXCLUSIVE MODE');
        await sleep(1_500);
        await tx.query('SELECT 1');
      }),
    );
    await sleep(100);
    // The server ends the idle session at 300 ms and its lock goes with it, well inside 3 s.
    expect(await other.query('SELECT count(*)::int AS n FROM rate_limits')).toEqual([{ n: 0 }]);
    expectUnavailable(await stuck);
    expect(await db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('gives up on a server that stops answering mid-connection shortly after the statement bound (driver query_timeout)', async () => {
    const target = new URL(t.url!);
    const proxy = await freezableProxy(Number(target.port), target.hostname);
    const url = new URL(t.url!);
    url.port = String(proxy.port);
    url.hostname = '127.0.0.1';
    const db = await openDb({ kind: 'postgres', url: url.toString(), timeouts: { statementMs: 300, connectMs: 2_000 } });
    try {
      expect(await db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
      proxy.freeze(true);
      const started = Date.now();
      const error = expectUnavailable(await settle(db.query('SELECT 2')));
      expect(error.message).toContain('no answer in time');
      // The server's own bound cannot fire (it answered; the answer never arrives): the driver's, 1 s later, does.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_200);
      proxy.freeze(false);
      expect(await db.query<{ three: number }>('SELECT 3 AS three')).toEqual([{ three: 3 }]);
    } finally {
      await db.close();
      await proxy.close();
    }
  });

  it('fails every caller of a grouped batch once when its statement times out, writing none of it (group commit)', async () => {
    const db = await t.openAnother({ statementMs: 400 });
    const store = new PgRateLimitStore(db);
    const lock = await holdLock('rate_limits');
    const before = db.queryCount;
    const outcomes = await Promise.all(['a', 'b', 'c', 'd'].map((b) => settle(store.consume(`gc:${b}`, 1_000, 100, 60_000))));
    for (const outcome of outcomes) expectUnavailable(outcome);
    // One batch, one statement: no per-item rerun that would wait out the bound once per caller.
    expect(db.queryCount - before).toBe(1);
    await lock.commit();
    expect(await db.query(`SELECT bucket FROM rate_limits WHERE bucket LIKE 'gc:%'`)).toEqual([]);
    expect((await store.consume('gc:a', 1_000, 100, 60_000)).allowed).toBe(true);
  });
});

describe.skipIf(usingRealPostgres())('openDb (pglite): statement_timeout (PGlite only)', () => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await createTestDb();
    db = t.db;
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it('is accepted but not enforced: PGlite runs in this process and has no timer to cancel a statement with', async () => {
    await db.exec('SET statement_timeout = 50');
    expect(await db.query<{ statement_timeout: string }>('SHOW statement_timeout')).toEqual([{ statement_timeout: '50ms' }]);
    const started = Date.now();
    expect(await db.query<{ ok: number }>('SELECT 1 AS ok FROM pg_sleep(0.3)')).toEqual([{ ok: 1 }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });
});

/** A TCP proxy to the real server that can stop forwarding in both directions: a network that goes silent. */
async function freezableProxy(port: number, host: string): Promise<{ port: number; freeze(on: boolean): void; close(): Promise<void> }> {
  let frozen = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (d: Buffer) => void (frozen || upstream.write(d)));
    upstream.on('data', (d: Buffer) => void (frozen || client.write(d)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    freeze: (on) => {
      frozen = on;
    },
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
