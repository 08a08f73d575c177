import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { hashKeySecret } from '../../../src/core/keys/key-secret.js';
import { createPgStores } from '../../../src/store/pg/index.js';
import { createKey, createTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const WINDOW_MS = 60_000;

describe('PgKeyStore.findBySecretHashAndSpend', () => {
  it('takes exactly the rate limiter store’s GCRA step, in one statement with the lookup', async () => {
    t = await createTestApp();
    const stores = createPgStores(t.db);
    const combined = await createKey(t.app, t.adminKey, { name: 'combined', rate_limit_per_minute: 7 });
    const separate = await createKey(t.app, t.adminKey, { name: 'separate', rate_limit_per_minute: 7 });
    const hash = hashKeySecret(combined.key);
    let run = 0;
    // Random arrival gaps and costs: both paths must allow and refuse the same requests and
    // leave the same theoretical arrival time behind.
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ gapMs: fc.integer({ min: 0, max: 20_000 }), cost: fc.integer({ min: 1, max: 3 }) }), { minLength: 1, maxLength: 25 }), async (steps) => {
        let nowMs = Date.UTC(2026, 0, 1) + run++ * 3_600_000;
        for (const { gapMs, cost } of steps) {
          nowMs += gapMs;
          const found = await stores.keys.findBySecretHashAndSpend(hash, { now: new Date(nowMs), windowMs: WINDOW_MS, cost });
          const expected = await stores.rateLimits.consume(`key:${separate.id}`, nowMs, (WINDOW_MS / 7) * cost, WINDOW_MS);
          expect(found?.key.id).toBe(combined.id);
          expect(found?.spent).toEqual(expected);
        }
      }),
      { numRuns: 15 },
    );
  });

  it('spends nothing for a key that is not usable now, and answers null for an unknown hash', async () => {
    t = await createTestApp();
    const stores = createPgStores(t.db);
    const now = new Date();
    const later = new Date(now.getTime() + 3_600_000);
    const earlier = new Date(now.getTime() - 3_600_000);
    const cases = [
      { name: 'disabled', sql: `status = 'disabled'`, usable: false },
      { name: 'revoked', sql: `status = 'revoked'`, usable: false },
      { name: 'expired', sql: `expires_at = '${earlier.toISOString()}'`, usable: false },
      { name: 'grace-over', sql: `revoke_at = '${earlier.toISOString()}'`, usable: false },
      { name: 'in-grace', sql: `revoke_at = '${later.toISOString()}'`, usable: true },
      { name: 'expires-later', sql: `expires_at = '${later.toISOString()}'`, usable: true },
    ];
    for (const c of cases) {
      const { key, id } = await createKey(t.app, t.adminKey, { name: c.name });
      await t.db.query(`UPDATE api_keys SET ${c.sql} WHERE id = $1`, [id]);
      const found = await stores.keys.findBySecretHashAndSpend(hashKeySecret(key), { now, windowMs: WINDOW_MS, cost: 1 });
      expect(found?.key.id, c.name).toBe(id);
      expect(found?.spent !== null, c.name).toBe(c.usable);
      expect(await stores.rateLimits.peek(`key:${id}`), c.name).toBe(c.usable ? now.getTime() + WINDOW_MS / 600 : null);
    }
    expect(await stores.keys.findBySecretHashAndSpend(hashKeySecret(`${t.adminKey.slice(0, -4)}zzzz`), { now, windowMs: WINDOW_MS, cost: 1 })).toBeNull();
  });
});
