import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RequestLogEntry } from '../../../src/core/analytics/ports.js';
import { newId } from '../../../src/core/ids.js';
import { DEFAULT_RETENTION, Retention, type RetentionWindows, SESSION_PRUNE_GRACE_MS } from '../../../src/core/retention/retention.js';
import type { SessionState } from '../../../src/core/search/ports.js';
import { SESSION_TTL_MS } from '../../../src/core/search/search-service.js';
import { eventData } from '../../../src/core/webhooks/events.js';
import type { AttemptRecord } from '../../../src/core/webhooks/ports.js';
import { createLogger } from '../../../src/logger.js';
import { PgOAuthStore } from '../../../src/store/pg/oauth-store.js';
import { appendEvent } from '../../../src/store/pg/outbox.js';
import { PgRateLimitStore } from '../../../src/store/pg/rate-limit-store.js';
import { PgRequestLogStore } from '../../../src/store/pg/request-log-store.js';
import { PgSearchStore } from '../../../src/store/pg/search-store.js';
import { PgWebhookStore } from '../../../src/store/pg/webhook-store.js';
import { call, createTestApp, expectStatus, LogCapture, ManualClock, type TestApp } from '../../helpers/app.js';
import { openSampleCatalog } from '../../helpers/search.js';
import { createTestWorker, Receiver } from '../../helpers/webhooks.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const clock = new ManualClock('2026-11-22T10:00:00.000Z');
let t: TestApp;
let searches: PgSearchStore;
let webhooks: PgWebhookStore;

beforeAll(async () => {
  t = await createTestApp({ clock, webhooks: { allowPrivate: true } });
  searches = new PgSearchStore(t.db);
  webhooks = new PgWebhookStore(t.db);
});
afterAll(async () => t.close());

const count = async (sql: string, params: unknown[] = []) => (await t.db.query<{ n: number }>(sql, params))[0]!.n;
const at = (ms: number) => new Date(clock.now().getTime() + ms);
const logger = createLogger('debug', new LogCapture());
/** A Retention over the shared test database with the given windows (the defaults otherwise). */
const retentionWith = (w: Partial<RetentionWindows>, batchSize?: number) =>
  new Retention({
    stores: { searches, webhooks, requestLog: new PgRequestLogStore(t.db), oauth: new PgOAuthStore(t.db), rateLimits: new PgRateLimitStore(t.db) },
    clock,
    logger,
    windows: { ...DEFAULT_RETENTION, ...w },
    ...(batchSize ? { batchSize } : {}),
  });

/** One search as the search path records it: the search row, its impressions, the session (and any search event). */
async function recordSearchIn(
  store: PgSearchStore,
  accountId: string,
  sessionId: string,
  createdAt: Date,
  queries: string[] = ['q'],
): Promise<{ impressionIds: string[] }> {
  const impressions = [1, 2, 3].map((position) => ({ impressionId: newId(), productId: newId(), position }));
  const session: SessionState = { queries, shownProductIds: impressions.map((i) => i.productId), clickedProductIds: [] };
  await store.recordSearch({
    requestId: newId(),
    accountId,
    keyId: newId(),
    sessionId,
    query: 'q',
    normalizedQuery: 'q',
    filters: {},
    totalMatches: 3,
    tookMs: 1,
    createdAt,
    impressions,
    session,
  });
  return { impressionIds: impressions.map((i) => i.impressionId) };
}
const recordSearch = (accountId: string, sessionId: string, createdAt: Date, queries?: string[]) =>
  recordSearchIn(searches, accountId, sessionId, createdAt, queries);

/** A new account with one webhook subscription through the API; returns the account, its key and the endpoint id. */
async function subscribe(url: string, events: string[]): Promise<{ accountId: string; key: string; endpointId: string }> {
  const a = await t.core.accounts.create(`retention ${Math.random()}`);
  const res = await call(t.app, a.firstKey.key, 'POST', '/v1/webhooks', { url, events });
  expectStatus(res, 201);
  return { accountId: a.account.id, key: a.firstKey.key, endpointId: res.json().id };
}

describe('Retention: sessions', () => {
  it('deletes a session a day after its last use, keeps one used within the day, and leaves its impressions', async () => {
    const { account } = await t.core.accounts.create('sessions');
    const [kept, gone, young] = [newId(), newId(), newId()];
    await recordSearch(account.id, kept, at(-30 * HOUR), ['first']);
    await recordSearch(account.id, kept, at(-23 * HOUR), ['first', 'second']);
    const old = await recordSearch(account.id, gone, at(-SESSION_TTL_MS - SESSION_PRUNE_GRACE_MS - 1));
    await recordSearch(account.id, young, at(-HOUR));

    const deleted = await retentionWith({ sessionTtlMs: SESSION_TTL_MS }).prune();

    expect(deleted.sessions).toBe(1);
    expect(await count('SELECT count(*)::int AS n FROM search_sessions WHERE account_id = $1', [account.id])).toBe(2);
    expect(await searches.loadSession(account.id, kept, clock.now(), SESSION_TTL_MS)).toMatchObject({ queries: ['first', 'second'] });
    expect(await searches.loadSession(account.id, young, clock.now(), SESSION_TTL_MS)).not.toBeNull();
    expect(await count('SELECT count(*)::int AS n FROM search_sessions WHERE account_id = $1 AND id = $2', [account.id, gone])).toBe(0);
    // The ledger keeps the session id on its impressions.
    expect(await count('SELECT count(*)::int AS n FROM impressions WHERE id = ANY ($1) AND session_id = $2', [old.impressionIds, gone])).toBe(3);
  });

  it('never deletes a session the search path would still load, whatever the configured TTL', async () => {
    const { account } = await t.core.accounts.create('sessions ttl');
    const ttl = 2 * HOUR;
    const ids = Array.from({ length: 6 }, () => newId());
    // Last used 0.5, 1.5, 1.99…, 2.5, 3 and 10 hours ago.
    const ages = [0.5 * HOUR, 1.5 * HOUR, ttl - 1, ttl + HOUR / 2, 3 * HOUR, 10 * HOUR];
    for (const [i, id] of ids.entries()) await recordSearch(account.id, id, at(-ages[i]!));
    await retentionWith({ sessionTtlMs: ttl }).prune();
    const loadable = await Promise.all(ids.map((id) => searches.loadSession(account.id, id, clock.now(), ttl)));
    const present = await t.db.query<{ id: string }>('SELECT id FROM search_sessions WHERE account_id = $1', [account.id]);
    expect(loadable.map((s) => s !== null)).toEqual([true, true, true, false, false, false]);
    expect(new Set(present.map((r) => r.id))).toEqual(new Set(ids.slice(0, 3)));
  });
});

describe('Retention and the search path', () => {
  it('share one session TTL: searches continue a session within it, and it is deleted only after', { timeout: 300_000 }, async () => {
    const sample = await openSampleCatalog();
    const sim = new ManualClock('2027-03-01T00:00:00.000Z');
    const ttl = 2 * HOUR;
    const app = await createTestApp({ clock: sim, search: sample, retention: { sessionTtlMs: ttl } });
    try {
      const search = async (query: string, sessionId?: string): Promise<string> => {
        const res = await call(app.app, app.adminKey, 'POST', '/v1/search', { query, ...(sessionId ? { session_id: sessionId } : {}) });
        expectStatus(res, 200);
        return res.json().metadata.session_id;
      };
      const queriesOf = async (id: string) =>
        (await app.db.query<{ state: SessionState }>('SELECT state FROM search_sessions WHERE id = $1', [id]))[0]?.state.queries ?? null;
      const kept = await search('trail running shoes');
      const lapsed = await search('a coffee grinder');
      sim.advance(ttl - 60_000);
      await search('waterproof ones', kept);
      expect(await queriesOf(kept)).toEqual(['trail running shoes', 'waterproof ones']);
      sim.advance(2 * 60_000);
      // Past the TTL the search path starts afresh, whether or not retention ran yet...
      await search('a burr grinder', lapsed);
      expect(await queriesOf(lapsed)).toEqual(['a burr grinder']);
      // ...and retention deletes only what searches no longer load: `kept` was last used 2 min before `lapsed`.
      sim.advance(ttl + SESSION_PRUNE_GRACE_MS - 2 * 60_000 - 1_000);
      await app.core.retention.prune();
      expect(await queriesOf(kept)).toEqual(['trail running shoes', 'waterproof ones']);
      sim.advance(2_000);
      await app.core.retention.prune();
      expect(await queriesOf(kept)).toBeNull();
      expect(await queriesOf(lapsed)).toEqual(['a burr grinder']);
    } finally {
      await app.close();
      await sample.close();
    }
  });
});

describe('Retention: webhook history', () => {
  const receivers: Receiver[] = [];
  afterEach(async () => Promise.all(receivers.splice(0).map((r) => r.close())));
  const receiver = async () => {
    const r = await Receiver.start();
    receivers.push(r);
    return r;
  };

  const emit = (accountId: string, createdAt: Date) =>
    t.db.transaction(
      async (tx) =>
        (
          await appendEvent(tx, {
            accountId,
            type: 'click',
            data: eventData.click({ clickId: newId(), impressionId: newId(), productId: newId(), requestId: newId() }),
            createdAt,
          })
        ).eventId,
    );
  const attempt = (startedAt: Date, next: AttemptRecord['next']): AttemptRecord => ({
    startedAt,
    next,
    ok: next.status === 'succeeded',
    statusCode: next.status === 'succeeded' ? 200 : 500,
    durationMs: 3,
    error: null,
    responseBody: '',
  });
  /** Claims the one due delivery at `now` and records an attempt that moves it to `next`; returns the delivery id. */
  async function attemptOne(now: Date, next: AttemptRecord['next'] | null): Promise<string> {
    const [claim, ...more] = await webhooks.claim(now, 10, new Date(now.getTime() + 60_000));
    expect(more).toEqual([]);
    if (next !== null) expect(await webhooks.complete(claim!, attempt(now, next), new Date(0))).toBe(true);
    return claim!.id;
  }
  const deliveryIds = async (accountId: string) =>
    new Set((await t.db.query<{ id: string }>('SELECT id FROM webhook_deliveries WHERE account_id = $1', [accountId])).map((r) => r.id));
  const eventCount = (accountId: string) => count('SELECT count(*)::int AS n FROM webhook_events WHERE account_id = $1', [accountId]);

  it('deletes finished deliveries past the window with their attempts and events, and never one that is due or under lease', async () => {
    const sub = await subscribe((await receiver()).url(), ['click']);
    const now = clock.now().getTime();
    const old = (ms = 0) => new Date(now - 40 * DAY + ms);
    await emit(sub.accountId, old());
    const succeeded = await attemptOne(old(), { status: 'succeeded' });
    await emit(sub.accountId, old(1_000));
    const failed = await attemptOne(old(1_000), { status: 'failed' });
    await emit(sub.accountId, old(2_000));
    const retrying = await attemptOne(old(2_000), { status: 'pending', nextAttemptAt: at(HOUR) });
    await emit(sub.accountId, old(10_000));
    const leased = await attemptOne(old(10_000), { status: 'succeeded' });
    await emit(sub.accountId, new Date(now - 29 * DAY));
    const recent = await attemptOne(new Date(now - 29 * DAY), { status: 'succeeded' });
    // Delivered 40 days ago, replayed yesterday: its last attempt is inside the window.
    await emit(sub.accountId, old(20_000));
    const replayed = await attemptOne(old(20_000), { status: 'succeeded' });
    expect(await webhooks.requeueDelivery(sub.accountId, sub.endpointId, replayed, new Date(now - DAY))).toBe(true);
    expect(await attemptOne(new Date(now - DAY), { status: 'succeeded' })).toBe(replayed);
    // Delivered 40 days ago, replayed now and being sent: under lease as retention runs.
    expect(await webhooks.requeueDelivery(sub.accountId, sub.endpointId, leased, clock.now())).toBe(true);
    expect(await attemptOne(clock.now(), null)).toBe(leased);
    // Nothing else is due, so the claims above took exactly the deliveries named.
    expect(await deliveryIds(sub.accountId)).toEqual(new Set([succeeded, failed, retrying, leased, replayed, recent]));
    const attemptsOf = (ids: string[]) => count('SELECT count(*)::int AS n FROM webhook_attempts WHERE delivery_id = ANY ($1)', [ids]);
    expect(await attemptsOf([succeeded, failed])).toBe(2);

    const deleted = await retentionWith({ webhookHistoryDays: 30 }).prune();

    expect(deleted).toMatchObject({ webhookDeliveries: 2, webhookEvents: 2 });
    expect(await deliveryIds(sub.accountId)).toEqual(new Set([retrying, leased, replayed, recent]));
    expect(await attemptsOf([succeeded, failed])).toBe(0);
    expect(await attemptsOf([retrying, leased])).toBe(2);
    expect(await eventCount(sub.accountId)).toBe(4);
    const states = await t.db.query<{ id: string; status: string }>('SELECT id, status FROM webhook_deliveries WHERE id = ANY ($1)', [[retrying, leased]]);
    expect(Object.fromEntries(states.map((s) => [s.id, s.status]))).toEqual({ [retrying]: 'pending', [leased]: 'delivering' });
    // Both are still there for a worker to send: the retry once due, the leased one once its lease ran out.
    const reclaimed = await webhooks.claim(at(2 * HOUR), 10, at(2 * HOUR + 60_000));
    expect(new Set(reclaimed.map((c) => c.id))).toEqual(new Set([retrying, leased]));
    expect(reclaimed.every((c) => c.payload.length > 0)).toBe(true);
  });

  it('deletes the parked deliveries of a disabled endpoint once past the window; re-enabling resumes the younger ones', async () => {
    const sub = await subscribe((await receiver()).url(), ['click']);
    const now = clock.now().getTime();
    await emit(sub.accountId, new Date(now - 31 * DAY));
    await emit(sub.accountId, new Date(now - 2 * DAY));
    expectStatus(await call(t.app, sub.key, 'PATCH', `/v1/webhooks/${sub.endpointId}`, { status: 'disabled' }), 200);

    const deleted = await retentionWith({ webhookHistoryDays: 30 }).prune();

    expect(deleted).toMatchObject({ webhookDeliveries: 1, webhookEvents: 1 });
    const left = await t.db.query<{ created_at: Date; status: string }>('SELECT created_at, status FROM webhook_deliveries WHERE account_id = $1', [
      sub.accountId,
    ]);
    expect(left).toEqual([{ created_at: new Date(now - 2 * DAY), status: 'pending' }]);
    expectStatus(await call(t.app, sub.key, 'PATCH', `/v1/webhooks/${sub.endpointId}`, { status: 'enabled' }), 200);
    const claimed = await webhooks.claim(clock.now(), 10, at(60_000));
    expect(claimed.map((c) => c.endpointId)).toEqual([sub.endpointId]);
  });

  it('deletes the events a deleted endpoint left behind once past the window', async () => {
    const sub = await subscribe((await receiver()).url(), ['click']);
    const now = clock.now().getTime();
    await emit(sub.accountId, new Date(now - 31 * DAY));
    await emit(sub.accountId, new Date(now - DAY));
    expectStatus(await call(t.app, sub.key, 'DELETE', `/v1/webhooks/${sub.endpointId}`), 204);
    expect(await eventCount(sub.accountId)).toBe(2);

    await retentionWith({ webhookHistoryDays: 30 }).prune();

    expect(await t.db.query('SELECT created_at FROM webhook_events WHERE account_id = $1', [sub.accountId])).toEqual([{ created_at: new Date(now - DAY) }]);
  });
});

describe('Retention: request log', () => {
  it('deletes entries older than the window in batches, and keeps younger ones', async () => {
    const store = new PgRequestLogStore(t.db);
    const accountId = newId();
    const entry = (ageMs: number): RequestLogEntry => ({
      accountId,
      keyId: newId(),
      method: 'POST',
      route: '/v1/search',
      status: 200,
      latencyMs: 1,
      createdAt: at(-ageMs),
    });
    await store.insertMany([...Array.from({ length: 25 }, (_, i) => entry(31 * DAY + i * 1000)), ...Array.from({ length: 4 }, () => entry(29 * DAY))]);
    const retention = retentionWith({ requestLogDays: 30 }, 10);
    // Nothing else writes meanwhile: the request log's queue from earlier tests is flushed first.
    await t.core.requestLog.flush();
    const statements = async (run: () => Promise<unknown>) => {
      const before = t.db.queryCount;
      await run();
      return t.db.queryCount - before;
    };

    let deleted = 0;
    const first = await statements(async () => (deleted = (await retention.prune()).requestLog));
    const idle = await statements(() => retention.prune());

    expect(deleted).toBe(25);
    // Batches of 10, 10 and 5 where an idle run takes one short batch per table.
    expect(first - idle).toBe(2);
    expect(await count('SELECT count(*)::int AS n FROM request_log WHERE account_id = $1', [accountId])).toBe(4);
  });

  it('prunes in the background once started, until stopped', async () => {
    const store = new PgRequestLogStore(t.db);
    const accountId = newId();
    await store.insertMany([{ accountId, keyId: newId(), method: 'GET', route: '/v1/usage', status: 200, latencyMs: 1, createdAt: at(-2 * DAY) }]);
    const retention = retentionWith({ requestLogDays: 1 });
    const left = () => count('SELECT count(*)::int AS n FROM request_log WHERE account_id = $1', [accountId]);
    retention.start(10);
    // A generous guard, not a bound: the row goes at the first background run.
    await vi.waitUntil(async () => (await left()) === 0, { timeout: 30_000, interval: 20 });
    await retention.stop();
    expect(await left()).toBe(0);
  });
});

describe('Retention over 30 simulated days', () => {
  it('keeps sessions, webhook history and the request log within their windows while the ledger stays whole', { timeout: 600_000 }, async () => {
    // Its own database and core: the windows are the test's, and every row counted is this test's.
    const sim = new ManualClock('2027-01-01T00:00:00.000Z');
    const app = await createTestApp({ clock: sim, webhooks: { allowPrivate: true }, retention: { webhookHistoryDays: 7, requestLogDays: 2 } });
    const ok = await Receiver.start();
    const failing = await Receiver.start((_req, res) => void res.writeHead(500).end('down'));
    const worker = createTestWorker(app.db, { clock: sim, allowPrivate: true, random: () => 0.5, concurrency: 32 });
    try {
      await runSimulation(app, sim, ok, failing, worker.worker);
    } finally {
      await worker.close();
      await Promise.all([ok.close(), failing.close()]);
      await app.close();
    }
  });
});

const SEARCHES_PER_HOUR = 4;
const SIM_HOURS = 30 * 24;
const WEBHOOK_DAYS = 7;
const REQUEST_LOG_DAYS = 2;
/** How far a delivery's life can stretch past its creation: the failing endpoint's 8 attempts over about 28 h, run hourly. */
const RETRY_SLACK_HOURS = 48;

async function runSimulation(app: TestApp, sim: ManualClock, ok: Receiver, failing: Receiver, worker: { drain(): Promise<number> }): Promise<void> {
  const n = async (sql: string, params: unknown[] = []) => (await app.db.query<{ n: number }>(sql, params))[0]!.n;
  const store = new PgSearchStore(app.db);
  // The healthy endpoint hears every search, click and conversion; the failing one hears
  // conversions, tries each 8 times, and is disabled after 5 days of failure (its last deliveries parked).
  expectStatus(await call(app.app, app.adminKey, 'POST', '/v1/webhooks', { url: ok.url(), events: ['search', 'click', 'conversion'] }), 201);
  const failingEndpoint = await call(app.app, app.adminKey, 'POST', '/v1/webhooks', { url: failing.url(), events: ['conversion'] });
  expectStatus(failingEndpoint, 201);
  const conversational = newId();
  const perHour: { events: number; conversions: number; requests: number }[] = [];
  const written = { searches: 0, clicks: 0, conversions: 0 };
  const peak = { sessions: 0, deliveries: 0, events: 0, attempts: 0, requestLog: 0 };
  const failingId: string = failingEndpoint.json().id;
  let parked = 0;

  for (let hour = 0; hour < SIM_HOURS; hour++) {
    const now = sim.now();
    let last = { impressionIds: [] as string[] };
    for (let i = 0; i < SEARCHES_PER_HOUR; i++) last = await recordSearchIn(store, app.accountId, newId(), now);
    // One conversation goes on all month: its session must never go.
    await recordSearchIn(store, app.accountId, conversational, now);
    const click = await call(app.app, app.adminKey, 'POST', `/v1/clicks/${last.impressionIds[0]}`);
    expectStatus(click, 201);
    const converts = hour % 3 === 0;
    if (converts) {
      const body = { click_id: click.json().click_id, order_id: `order-${hour}`, sale_amount: 10, commission_amount: 1, currency: 'USD' };
      expectStatus(await call(app.app, app.adminKey, 'POST', '/v1/conversions', body), 201);
    }
    written.searches += SEARCHES_PER_HOUR + 1;
    written.clicks += 1;
    written.conversions += converts ? 1 : 0;
    perHour.push({ events: SEARCHES_PER_HOUR + 1 + 1 + (converts ? 1 : 0), conversions: converts ? 1 : 0, requests: converts ? 2 : 1 });
    await worker.drain();
    await app.core.requestLog.flush();
    sim.advance(HOUR);
    await app.core.retention.prune();

    // The five tables' sizes in one statement: this runs 720 times.
    const [sizes] = await app.db.query<{ sessions: number; deliveries: number; events: number; attempts: number; requestLog: number }>(
      `SELECT (SELECT count(*)::int FROM search_sessions) AS sessions, (SELECT count(*)::int FROM webhook_deliveries) AS deliveries,
              (SELECT count(*)::int FROM webhook_events) AS events, (SELECT count(*)::int FROM webhook_attempts) AS attempts,
              (SELECT count(*)::int FROM request_log) AS "requestLog"`,
    );
    if (sizes === undefined) throw new Error('the size query answered no row');
    for (const k of Object.keys(peak) as (keyof typeof peak)[]) peak[k] = Math.max(peak[k], sizes[k]);
    // Every session used within the last 24 h is there, and none older: the search path's window exactly.
    expect(sizes.sessions, `hour ${hour}`).toBe(SEARCHES_PER_HOUR * Math.min(hour + 1, 24) + 1);
    if (hour % 24 === 23)
      parked = Math.max(
        parked,
        await n("SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at IS NULL", [failingId]),
      );
  }

  const now = sim.now().getTime();
  type Rate = keyof (typeof perHour)[number];
  const lastHours = (h: number, k: Rate) => perHour.slice(-h).reduce((sum, x) => sum + x[k], 0);
  const maxOver = (h: number, k: Rate) => Math.max(...perHour.map((_, i) => perHour.slice(Math.max(0, i - h + 1), i + 1).reduce((sum, x) => sum + x[k], 0)));
  const totalEvents = lastHours(SIM_HOURS, 'events');
  // What one window holds: the healthy endpoint's deliveries and the failing one's, over the
  // window and the slack its retries add. A month without retention holds far more.
  const windowHours = WEBHOOK_DAYS * 24 + RETRY_SLACK_HOURS;
  const eventBound = maxOver(windowHours, 'events');
  const deliveryBound = eventBound + maxOver(windowHours, 'conversions');
  const summary = JSON.stringify({ written, peak, eventBound, deliveryBound });
  expect(totalEvents, summary).toBeGreaterThan(deliveryBound);
  expect(peak.deliveries, summary).toBeLessThanOrEqual(deliveryBound);
  expect(peak.events, summary).toBeLessThanOrEqual(eventBound);
  expect(peak.requestLog, summary).toBeLessThanOrEqual(maxOver(REQUEST_LOG_DAYS * 24 + 1, 'requests') + 2);

  // Old rows are gone: nothing older than its window is left.
  const age = async (sql: string) => now - (await app.db.query<{ t: Date }>(sql))[0]!.t.getTime();
  expect(await age('SELECT min(created_at) AS t FROM webhook_events')).toBeLessThanOrEqual(WEBHOOK_DAYS * DAY);
  expect(await age('SELECT min(created_at) AS t FROM webhook_deliveries')).toBeLessThanOrEqual(WEBHOOK_DAYS * DAY);
  expect(await age('SELECT min(created_at) AS t FROM request_log')).toBeLessThanOrEqual(REQUEST_LOG_DAYS * DAY);
  expect(await age('SELECT min(last_used_at) AS t FROM search_sessions')).toBeLessThanOrEqual(SESSION_TTL_MS);
  // The failing endpoint was disabled after 5 days with deliveries parked; they and its failed ones have gone since.
  const endpoint = await call(app.app, app.adminKey, 'GET', `/v1/webhooks/${failingId}`);
  expect(endpoint.json(), endpoint.body).toMatchObject({ status: 'disabled', disabled_reason: 'failing' });
  expect(parked, summary).toBeGreaterThan(0);
  expect(await n('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [failingId])).toBe(0);
  // Every event reached the healthy endpoint: retention never took a delivery before it was done.
  expect(new Set(ok.received.map((r) => r.headers['webhook-id'])).size).toBe(totalEvents);
  // The last 7 days are all there to list, each delivery with its one attempt, and nothing else.
  const recent = lastHours(WEBHOOK_DAYS * 24, 'events');
  expect(await n('SELECT count(*)::int AS n FROM webhook_deliveries')).toBe(recent);
  expect(await n('SELECT count(*)::int AS n FROM webhook_events')).toBe(recent);
  expect(await n('SELECT count(*)::int AS n FROM webhook_attempts')).toBe(recent);
  expect(await n('SELECT count(*)::int AS n FROM request_log')).toBe(lastHours(REQUEST_LOG_DAYS * 24, 'requests'));

  // The ledger stays whole, from the first hour on.
  expect(await n('SELECT count(*)::int AS n FROM search_requests')).toBe(written.searches);
  expect(await n('SELECT count(*)::int AS n FROM impressions')).toBe(written.searches * 3);
  expect(await n('SELECT count(*)::int AS n FROM clicks')).toBe(written.clicks);
  expect(await n('SELECT count(*)::int AS n FROM conversions')).toBe(written.conversions);
  expect(await age('SELECT min(created_at) AS t FROM impressions')).toBe(SIM_HOURS * HOUR);
  // And the conversation that went on all month still loads.
  expect(await store.loadSession(app.accountId, conversational, sim.now(), SESSION_TTL_MS)).not.toBeNull();
}
