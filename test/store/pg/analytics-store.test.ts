import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../../src/core/analytics/ports.js';
import { newId } from '../../../src/core/ids.js';
import { PgAnalyticsStore, SETTLE_MS } from '../../../src/store/pg/analytics-store.js';
import { PgRequestLogStore } from '../../../src/store/pg/request-log-store.js';
import { PgSearchStore } from '../../../src/store/pg/search-store.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-11-01T00:00:00.000Z');

let testDb: TestDb;
let store: PgAnalyticsStore;
let accountId: string;
const keyId = newId();

beforeEach(async () => {
  testDb = await createTestDb();
  store = new PgAnalyticsStore(testDb.db);
  accountId = newId();
  await testDb.db.query("INSERT INTO accounts (id, name, created_at) VALUES ($1, 'a', now())", [accountId]);
  // Three days of traffic: a search with 2 results and 3 logged requests every 20 minutes.
  const searches = new PgSearchStore(testDb.db);
  const log: RequestLogEntry[] = [];
  for (let t = T0; t < T0 + 3 * DAY; t += 20 * 60_000) {
    await searches.recordSearch({
      requestId: newId(),
      accountId,
      keyId,
      sessionId: newId(),
      query: 'q',
      normalizedQuery: 'q',
      filters: {},
      totalMatches: 2,
      tookMs: 1,
      createdAt: new Date(t),
      impressions: [
        { impressionId: newId(), productId: newId(), position: 1 },
        { impressionId: newId(), productId: newId(), position: 2 },
      ],
      session: { queries: [], shownProductIds: [], clickedProductIds: [] },
    });
    for (let i = 0; i < 3; i++)
      log.push({
        accountId,
        keyId,
        method: 'POST',
        route: '/v1/search',
        status: i === 2 ? 429 : 200,
        latencyMs: 1 + ((t / 60_000) % 7) + i,
        createdAt: new Date(t + i * 1000),
      });
  }
  await new PgRequestLogStore(testDb.db).insertMany(log);
});
afterEach(async () => testDb.cleanup());

const rolledHours = async () =>
  (await testDb.db.query<{ n: number }>('SELECT count(*)::int AS n FROM activity_hourly WHERE account_id = $1', [accountId]))[0]!.n;

describe('PgAnalyticsStore rollups', () => {
  it('answers the same figures from raw rows and from rollups, split at any hour', async () => {
    const range = { start: new Date(T0 + 30 * 60_000), end: new Date(T0 + 2 * DAY + 10 * 60_000), bucketMs: HOUR };
    // Before anything settled: everything is read raw.
    const rawNow = new Date(T0);
    const top = (now: Date) =>
      Promise.all([store.topProducts(accountId, range.start, range.end, 10, now), store.topQueries(accountId, range.start, range.end, 10, now)]);
    const raw = {
      usage: await store.usage(accountId, range, rawNow),
      business: await store.business(accountId, range, rawNow),
      perf: await store.performance(accountId, { ...range, bucketMs: DAY }, rawNow),
      top: await top(rawNow),
    };
    expect(await rolledHours()).toBe(0);
    // Later, with the first day and a half settled: part rollups, part raw rows.
    const later = new Date(T0 + DAY + 12 * HOUR + SETTLE_MS + 1);
    const mixed = {
      usage: await store.usage(accountId, range, later),
      business: await store.business(accountId, range, later),
      perf: await store.performance(accountId, { ...range, bucketMs: DAY }, later),
      top: await top(later),
    };
    expect(mixed.top).toEqual(raw.top);
    expect(raw.top[1]).toEqual([{ query: 'q', searches: 143, resultsReturned: 286, clicks: 0 }]);
    expect(await rolledHours()).toBe(36);
    const byBucket = <T extends { bucket: number }>(rows: T[]) => [...rows].sort((a, b) => a.bucket - b.bucket);
    expect(byBucket(mixed.usage.buckets)).toEqual(byBucket(raw.usage.buckets));
    expect(mixed.usage.byKey).toEqual(raw.usage.byKey);
    expect(byBucket(mixed.business)).toEqual(byBucket(raw.business));
    expect(mixed.perf.overall).toEqual(raw.perf.overall);
    expect(mixed.perf.byStatus).toEqual(raw.perf.byStatus);
    expect(byBucket(mixed.perf.series)).toEqual(byBucket(raw.perf.series));
    expect(raw.usage.byKey).toEqual([{ keyId, name: null, requests: raw.perf.overall.requests }]);
    expect(raw.perf.byStatus.map((s) => s.status)).toEqual([200, 429]);
  });

  it('rolls each settled hour once, also when readers race', async () => {
    const now = new Date(T0 + 3 * DAY + SETTLE_MS + 1);
    const range = { start: new Date(T0), end: now, bucketMs: DAY };
    const results = await Promise.all([store.business(accountId, range, now), store.business(accountId, range, now), store.usage(accountId, range, now)]);
    expect(await rolledHours()).toBe(72);
    expect(results[0].reduce((n, b) => n + b.impressions, 0)).toBe(3 * 72 * 2);
    expect(results[1]).toEqual(results[0]);
    // Rows arriving for an hour not yet settled are still counted.
    await store.business(accountId, range, now);
    expect(await rolledHours()).toBe(72);
  });
});
