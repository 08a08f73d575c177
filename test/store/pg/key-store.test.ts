import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKeySecret } from '../../../src/core/keys/key-secret.js';
import { PgKeyStore } from '../../../src/store/pg/key-store.js';
import { createKey, createTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('PgKeyStore.findBySecretHash', () => {
  it('answers concurrent lookups, repeats and unknown hashes included, in one statement, each with its own key', async () => {
    const store = new PgKeyStore(t.db);
    const one = await createKey(t.app, t.adminKey, { name: 'one', rate_limit_per_minute: 7 });
    const two = await createKey(t.app, t.adminKey, { name: 'two', scopes: ['search'] });
    const hashes = [one.key, two.key, one.key, 'ak_unknown', one.key].map(hashKeySecret);
    const before = t.db.queryCount;
    const found = await Promise.all(hashes.map((h) => store.findBySecretHash(h)));
    expect(t.db.queryCount - before).toBe(1);
    expect(found.map((k) => k?.id ?? null)).toEqual([one.id, two.id, one.id, null, one.id]);
    expect(found[0]).toMatchObject({ accountId: t.accountId, name: 'one', rateLimitPerMinute: 7, status: 'active', piiPolicy: 'redact' });
    expect(found[1]).toMatchObject({ name: 'two', scopes: ['search'] });
    expect(found[0]).not.toHaveProperty('secretHash');
  });
});
