import { afterEach, describe, expect, it } from 'vitest';
import { generateKeySecret } from '../../src/core/keys/key-secret.js';
import { call, createKey, createTestApp, expectProblem, expectStatus, type TestApp } from '../helpers/app.js';

let t: TestApp;
afterEach(async () => t?.close());

describe('authentication', () => {
  it('answers 401 missing_api_key without a key', async () => {
    t = await createTestApp();
    expectProblem(await call(t.app, null, 'GET', '/v1/keys'), 401, 'missing_api_key');
    expectProblem(await call(t.app, '', 'GET', '/v1/keys'), 401, 'missing_api_key');
  });

  it('refuses a malformed or bad-checksum key with zero database queries', async () => {
    t = await createTestApp();
    const good = generateKeySecret();
    const badChecksum = good.slice(0, -1) + (good.endsWith('a') ? 'b' : 'a');
    for (const bad of [badChecksum, 'aisle_sk_short', 'sk_live_123', `${good}x`]) {
      const before = t.db.queryCount;
      expectProblem(await call(t.app, bad, 'GET', '/v1/keys'), 401, 'invalid_api_key');
      expect(t.db.queryCount - before, bad).toBe(0);
    }
    // The counter does count: a well-formed unknown key is looked up.
    const before = t.db.queryCount;
    expectProblem(await call(t.app, good, 'GET', '/v1/keys'), 401, 'invalid_api_key');
    expect(t.db.queryCount - before).toBeGreaterThan(0);
  });

  it('accepts Authorization: Bearer as well as x-api-key', async () => {
    t = await createTestApp();
    expectStatus(await call(t.app, null, 'GET', '/v1/keys', undefined, { authorization: `Bearer ${t.adminKey}` }), 200);
    expectStatus(await call(t.app, null, 'GET', '/v1/keys', undefined, { authorization: `bearer ${t.adminKey}` }), 200);
    expectProblem(await call(t.app, null, 'GET', '/v1/keys', undefined, { authorization: `Basic ${t.adminKey}` }), 401, 'missing_api_key');
  });

  it('writes last_used_at at most once a minute', async () => {
    t = await createTestApp();
    const { key, id } = await createKey(t.app, t.adminKey, { name: 'k' });
    const read = async () => (await t.db.query<{ last_used_at: Date }>('SELECT last_used_at FROM api_keys WHERE id = $1', [id]))[0]?.last_used_at;
    expectStatus(await call(t.app, key, 'GET', '/v1/keys'), 200);
    const first = await read();
    expect(first).toBeInstanceOf(Date);
    for (let i = 0; i < 5; i++) expectStatus(await call(t.app, key, 'GET', '/v1/keys'), 200);
    expect((await read())?.getTime()).toBe(first?.getTime());
  });

  it('answers 503 when the key store fails, never letting the request through', async () => {
    t = await createTestApp();
    await t.db.exec('ALTER TABLE api_keys RENAME TO api_keys_gone');
    const res = await call(t.app, t.adminKey, 'GET', '/v1/keys');
    const body = expectProblem(res, 503, 'unavailable');
    expect(JSON.stringify(body)).not.toMatch(/api_keys|relation|SELECT/);
    await t.db.exec('ALTER TABLE api_keys_gone RENAME TO api_keys');
    expectStatus(await call(t.app, t.adminKey, 'GET', '/v1/keys'), 200);
  });

  it('lets requests pass, logged and counted, when the rate limiter store fails', async () => {
    t = await createTestApp();
    await t.db.exec('ALTER TABLE rate_limits RENAME TO rate_limits_gone');
    const res = await call(t.app, t.adminKey, 'GET', '/v1/keys');
    expectStatus(res, 200);
    expect(res.headers.ratelimit).toBeUndefined();
    expect(t.core.rateLimiter.failures).toBe(1);
    expect(t.logs.text).toContain('rate limiter store failed');
  });
});

describe('request ids', () => {
  it('echoes a valid x-request-id and generates one otherwise', async () => {
    t = await createTestApp();
    const echoed = await call(t.app, t.adminKey, 'GET', '/v1/keys', undefined, { 'x-request-id': 'agent-42.call-7' });
    expect(echoed.headers['x-request-id']).toBe('agent-42.call-7');
    const replaced = await call(t.app, null, 'GET', '/v1/keys', undefined, { 'x-request-id': 'bad id with spaces' });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(replaced.json().request_id).toBe(replaced.headers['x-request-id']);
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.headers['x-request-id']).toBeTruthy();
  });
});
