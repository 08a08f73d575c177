import { afterEach, describe, expect, it } from 'vitest';
import { call, createKey, createTestApp, expectProblem, expectStatus, ManualClock, type TestApp } from '../helpers/app.js';
import { usingRealPostgres } from '../helpers/db.js';

const apps: TestApp[] = [];
afterEach(async () => {
  for (const a of apps.splice(0).reverse()) await a.close();
});

/** Two app instances on one database: separate pools on real Postgres, one handle on PGlite (single-process by nature). */
async function twoInstances(clock: ManualClock): Promise<[TestApp, TestApp]> {
  const a = await createTestApp({ clock });
  apps.push(a);
  const db = usingRealPostgres() ? await a.testDb.openAnother() : a.db;
  const b = await createTestApp({ clock, shared: { testDb: a.testDb, db, adminKey: a.adminKey, accountId: a.accountId } });
  apps.push(b);
  return [a, b];
}

describe('rate limiting', () => {
  it('lets exactly q requests of a burst through across two instances, with Retry-After that holds', async () => {
    const clock = new ManualClock();
    const [a, b] = await twoInstances(clock);
    const { key } = await createKey(a.app, a.adminKey, { name: 'burst', rate_limit_per_minute: 30 });
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => call(i % 2 === 0 ? a.app : b.app, key, 'GET', '/v1/keys?limit=1')));
    const ok = responses.filter((r) => r.statusCode === 200);
    const limited = responses.filter((r) => r.statusCode === 429);
    expect(ok).toHaveLength(30);
    expect(limited).toHaveLength(20);
    for (const r of ok) expect(r.headers['ratelimit-policy']).toBe('"default";q=30;w=60');
    let maxRetry = 0;
    for (const r of limited) {
      expectProblem(r, 429, 'rate_limited');
      const retry = Number(r.headers['retry-after']);
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(r.headers.ratelimit).toMatch(/^"default";r=0;t=\d+$/);
      maxRetry = Math.max(maxRetry, retry);
    }
    // After waiting what the 429 said, a request passes again; before it, it does not.
    clock.advance(maxRetry * 1000 - 1000);
    expectProblem(await call(b.app, key, 'GET', '/v1/keys?limit=1'), 429, 'rate_limited');
    clock.advance(1000);
    expectStatus(await call(b.app, key, 'GET', '/v1/keys?limit=1'), 200);
  });

  it('reports remaining budget and refills at q per window', async () => {
    const clock = new ManualClock();
    const [a] = await twoInstances(clock);
    const { key } = await createKey(a.app, a.adminKey, { name: 'steady', rate_limit_per_minute: 60 });
    const first = await call(a.app, key, 'GET', '/v1/keys?limit=1');
    expect(first.headers.ratelimit).toBe('"default";r=59;t=1');
    for (let i = 0; i < 59; i++) expectStatus(await call(a.app, key, 'GET', '/v1/keys?limit=1'), 200);
    expectProblem(await call(a.app, key, 'GET', '/v1/keys?limit=1'), 429, 'rate_limited');
    clock.advance(10_000);
    const refilled = await call(a.app, key, 'GET', '/v1/keys?limit=1');
    expectStatus(refilled, 200);
    expect(refilled.headers.ratelimit).toBe('"default";r=9;t=51');
  });

  it('keeps one budget per key', async () => {
    const clock = new ManualClock();
    const [a] = await twoInstances(clock);
    const one = await createKey(a.app, a.adminKey, { name: 'one', rate_limit_per_minute: 1 });
    const two = await createKey(a.app, a.adminKey, { name: 'two', rate_limit_per_minute: 1 });
    expectStatus(await call(a.app, one.key, 'GET', '/v1/keys?limit=1'), 200);
    expectProblem(await call(a.app, one.key, 'GET', '/v1/keys?limit=1'), 429, 'rate_limited');
    expectStatus(await call(a.app, two.key, 'GET', '/v1/keys?limit=1'), 200);
  });
});
