import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LATENCY_ERROR_BOUND, recordedLatency } from '../../../src/core/analytics/latency.js';
import { RequestLog, type RequestLogOptions } from '../../../src/core/analytics/request-log.js';
import { createLogger } from '../../../src/logger.js';
import { PgRequestLogStore } from '../../../src/store/pg/request-log-store.js';
import { call, createKey, createTestApp, LogCapture, ManualClock } from '../../helpers/app.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';

const ACCOUNT = '11111111-1111-4111-8111-111111111111';
const KEY = '22222222-2222-4222-8222-222222222222';

let testDb: TestDb;
let store: PgRequestLogStore;
const clock = new ManualClock('2026-11-22T10:00:00.000Z');
const logs = new LogCapture();
const logger = createLogger('debug', logs);

beforeEach(async () => {
  testDb = await createTestDb();
  store = new PgRequestLogStore(testDb.db);
});
afterEach(async () => testDb.cleanup());

const count = async () => (await testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM request_log'))[0]!.n;
const entry = (i = 0) => ({ accountId: ACCOUNT, keyId: KEY, method: 'POST', route: '/v1/search', status: 200, latencyMs: 1.5 + i });
const makeLog = (options: Partial<RequestLogOptions>) =>
  new RequestLog({ store, clock, logger, options: { enabled: true, flushIntervalMs: 60_000, maxBatch: 100, maxQueue: 1_000, ...options } });

describe('RequestLog', () => {
  it('holds entries in memory until the batch is full, then writes them in one statement', async () => {
    const log = makeLog({ maxBatch: 5 });
    const before = testDb.db.queryCount;
    for (let i = 0; i < 4; i++) log.record(entry(i));
    expect(testDb.db.queryCount).toBe(before);
    log.record(entry(4));
    await log.flush();
    expect(testDb.db.queryCount).toBe(before + 1);
    expect(await count()).toBe(5);
    const rows = await testDb.db.query<{ created_at: Date; latency_ms: number; status: number }>(
      'SELECT created_at, latency_ms, status FROM request_log ORDER BY latency_ms',
    );
    expect(rows[0]).toEqual({ created_at: clock.now(), latency_ms: recordedLatency(1.5), status: 200 });
    expect(Math.abs(recordedLatency(1.5) - 1.5) / 1.5).toBeLessThanOrEqual(LATENCY_ERROR_BOUND);
  });

  it('writes a partial batch once the flush interval has passed', async () => {
    // Synchronous check first: an awaited count() on a loaded database can take longer than the
    // interval itself. Then the timer alone must write the entry; flush() is never called.
    const log = makeLog({ flushIntervalMs: 20 });
    const before = testDb.db.queryCount;
    log.record(entry());
    expect(testDb.db.queryCount).toBe(before);
    const deadline = Date.now() + 5_000;
    while ((await count()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(await count()).toBe(1);
    await log.close();
  });

  it('flushes what is queued on close', async () => {
    const log = makeLog({});
    for (let i = 0; i < 3; i++) log.record(entry(i));
    await log.close();
    expect(await count()).toBe(3);
  });

  it('drops entries beyond the bounded queue, counts and logs them, and keeps the rest', async () => {
    const log = makeLog({ maxQueue: 3, maxBatch: 100 });
    for (let i = 0; i < 5; i++) log.record(entry(i));
    expect(log.dropped).toBe(2);
    await log.flush();
    expect(await count()).toBe(3);
    expect(logs.text).toContain('request log queue full');
  });

  it('bounds entries waiting on a stalled database too, not only the queue', async () => {
    // A transaction holds request_log locked, so the store's INSERT waits behind it (on PGlite,
    // behind the transaction itself: one connection) until it ends.
    let locked: () => void = () => {};
    let release: () => void = () => {};
    const isLocked = new Promise<void>((r) => (locked = r));
    const released = new Promise<void>((r) => (release = r));
    const holder = testDb.db.transaction(async (tx) => {
      await tx.query('LOCK TABLE request_log IN ACCESS EXCLUSIVE MODE');
      locked();
      await released;
    });
    await isLocked;
    const log = makeLog({ maxQueue: 4, maxBatch: 2 });
    const issued = testDb.db.queryCount;
    log.record(entry(0));
    log.record(entry(1));
    // A full batch: its INSERT is sent, and stalls.
    await vi.waitUntil(() => testDb.db.queryCount > issued, { timeout: 10_000, interval: 5 });
    for (let i = 2; i < 10; i++) log.record(entry(i));
    // Two entries in the stalled write and two queued behind it: the other six are dropped.
    expect(log.dropped).toBe(6);
    release();
    await holder;
    await log.flush();
    expect(await count()).toBe(4);
    // Written, they no longer count against the bound.
    for (let i = 0; i < 4; i++) log.record(entry(i));
    await log.flush();
    expect(log.dropped).toBe(6);
    expect(await count()).toBe(8);
  });

  it('survives a failing database: the batch is dropped, counted and logged, nothing throws, and later batches are written', async () => {
    // The table the store writes to is gone (renamed away), so its INSERT fails on the server.
    await testDb.db.exec('ALTER TABLE request_log RENAME TO request_log_away');
    const log = makeLog({});
    log.record(entry());
    await expect(log.flush()).resolves.toBeUndefined();
    expect(log.dropped).toBe(1);
    const warning = logs.lines.map((l) => JSON.parse(l) as { msg: string; err?: { message: string } }).find((l) => l.msg.includes('write failed'));
    expect(warning?.err?.message, logs.text).toMatch(/relation "request_log" does not exist/);
    await testDb.db.exec('ALTER TABLE request_log_away RENAME TO request_log');
    log.record(entry(1));
    log.record(entry(2));
    await log.flush();
    expect(log.dropped).toBe(1);
    expect(await count()).toBe(2);
  });

  it('records nothing when disabled', async () => {
    const log = makeLog({ enabled: false });
    log.record(entry());
    await log.flush();
    expect(await count()).toBe(0);
  });
});

describe('request log on the HTTP path', () => {
  it('answers without waiting for the write; the entry carries the route template, status and key', async () => {
    // An hour between flushes: however long the request and the count below take, the timer
    // cannot write the entry in between, so only a write on the request path could.
    const t = await createTestApp({ clock, requestLog: { flushIntervalMs: 3_600_000 } });
    try {
      const { key, id } = await createKey(t.app, t.adminKey, { name: 'probe', scopes: ['events:write'] });
      await t.core.requestLog.flush();
      const before = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM request_log WHERE key_id = $1', [id]);
      const res = await call(t.app, key, 'POST', '/v1/clicks/00000000-0000-4000-8000-000000000000');
      expect(res.statusCode).toBe(404);
      // Answered, and still only queued: the request did not wait on an INSERT.
      expect((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM request_log WHERE key_id = $1', [id]))[0]!.n).toBe(before[0]!.n);
      await t.core.requestLog.flush();
      const rows = await t.db.query('SELECT account_id, method, route, status, created_at FROM request_log WHERE key_id = $1', [id]);
      expect(rows).toEqual([{ account_id: t.accountId, method: 'POST', route: '/v1/clicks/:impression_id', status: 404, created_at: clock.now() }]);
      // Unauthenticated requests have no account to charge: not logged.
      await call(t.app, null, 'GET', '/v1/usage');
      await call(t.app, 'aisle_sk_nope', 'GET', '/v1/usage');
      await t.core.requestLog.flush();
      expect((await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM request_log WHERE route = '/v1/usage'"))[0]!.n).toBe(0);
    } finally {
      await t.close();
    }
  });
});
