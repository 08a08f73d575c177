import { afterEach, describe, expect, it } from 'vitest';
import { call, createKey, createTestApp, expectProblem, expectStatus, ManualClock, type TestApp } from '../helpers/app.js';

let t: TestApp;
afterEach(async () => t?.close());

describe('key lifecycle', () => {
  it('creates, uses, disables, re-enables, rotates with grace, and deletes a key', async () => {
    const clock = new ManualClock();
    t = await createTestApp({ clock });
    const { app, adminKey } = t;

    const created = await call(app, adminKey, 'POST', '/v1/keys', { name: 'staging agent', scopes: ['search', 'keys:manage'] });
    expectStatus(created, 201);
    const { key, metadata } = created.json();
    expect(key).toMatch(/^aisle_sk_[0-9A-Za-z]{36}$/);
    expect(metadata).toMatchObject({
      name: 'staging agent',
      prefix: 'aisle_sk_',
      hint: key.slice(-4),
      status: 'active',
      scopes: ['search', 'keys:manage'],
      last_used_at: null,
    });

    expectStatus(await call(app, key, 'GET', '/v1/keys'), 200);
    const afterUse = await call(app, adminKey, 'GET', `/v1/keys/${metadata.id}`);
    expect(afterUse.json().last_used_at).toBe(clock.now().toISOString());

    const disabled = await call(app, adminKey, 'POST', `/v1/keys/${metadata.id}`);
    expectStatus(disabled, 200);
    expect(disabled.json().status).toBe('disabled');
    expectProblem(await call(app, key, 'GET', '/v1/keys'), 401, 'api_key_disabled');

    const enabled = await call(app, adminKey, 'POST', `/v1/keys/key_${metadata.id}`, { status: 'active' });
    expectStatus(enabled, 200);
    expect(enabled.json().status).toBe('active');
    expectStatus(await call(app, key, 'GET', '/v1/keys'), 200);

    const rotated = await call(app, adminKey, 'POST', `/v1/keys/${metadata.id}/rotate`, { grace_period_seconds: 60 });
    expectStatus(rotated, 201);
    const r = rotated.json();
    expect(r.rotated_from).toBe(metadata.id);
    expect(r.old_key_expires_at).toBe(new Date(clock.now().getTime() + 60_000).toISOString());
    expect(r.metadata).toMatchObject({ name: 'staging agent', scopes: ['search', 'keys:manage'], status: 'active' });
    expect(r.key).not.toBe(key);

    clock.advance(59_000);
    expectStatus(await call(app, key, 'GET', '/v1/keys'), 200);
    expectStatus(await call(app, r.key, 'GET', '/v1/keys'), 200);
    clock.advance(2_000);
    expectProblem(await call(app, key, 'GET', '/v1/keys'), 401, 'api_key_revoked');
    expectStatus(await call(app, r.key, 'GET', '/v1/keys'), 200);
    const old = await call(app, adminKey, 'GET', `/v1/keys/${metadata.id}`);
    expect(old.json().status).toBe('revoked');
    expectProblem(await call(app, adminKey, 'POST', `/v1/keys/${metadata.id}`, { status: 'active' }), 409, 'conflict');

    expectStatus(await call(app, adminKey, 'DELETE', `/v1/keys/${r.metadata.id}`), 204);
    expectProblem(await call(app, r.key, 'GET', '/v1/keys'), 401, 'invalid_api_key');
    expectProblem(await call(app, adminKey, 'GET', `/v1/keys/${r.metadata.id}`), 404, 'not_found');
  });

  it('revokes the old key at once when rotated without a grace period', async () => {
    t = await createTestApp();
    const { key, id } = await createKey(t.app, t.adminKey, { name: 'ci' });
    const rotated = await call(t.app, t.adminKey, 'POST', `/v1/keys/${id}/rotate`);
    expectStatus(rotated, 201);
    expectProblem(await call(t.app, key, 'GET', '/v1/keys'), 401, 'api_key_revoked');
    expectStatus(await call(t.app, rotated.json().key, 'GET', '/v1/keys'), 200);
    expectProblem(await call(t.app, t.adminKey, 'POST', `/v1/keys/${id}/rotate`), 409, 'conflict');
  });

  it('expires a key at expires_at', async () => {
    const clock = new ManualClock();
    t = await createTestApp({ clock });
    const expiresAt = new Date(clock.now().getTime() + 3_600_000).toISOString();
    const { key, id } = await createKey(t.app, t.adminKey, { name: 'temp', expires_at: expiresAt });
    expectStatus(await call(t.app, key, 'GET', '/v1/keys'), 200);
    clock.advance(3_600_000);
    expectProblem(await call(t.app, key, 'GET', '/v1/keys'), 401, 'api_key_expired');
    expect((await call(t.app, t.adminKey, 'GET', `/v1/keys/${id}`)).json().status).toBe('expired');
    const past = await call(t.app, t.adminKey, 'POST', '/v1/keys', { name: 'x', expires_at: '2020-01-01T00:00:00Z' });
    expect(expectProblem(past, 400, 'validation_failed').errors).toEqual([{ path: 'body.expires_at', message: 'must be in the future' }]);
  });

  it('refuses to disable, rotate away or delete the last admin key', async () => {
    t = await createTestApp();
    const list = (await call(t.app, t.adminKey, 'GET', '/v1/keys')).json();
    const adminId = list.data[0].id;
    expectProblem(await call(t.app, t.adminKey, 'DELETE', `/v1/keys/${adminId}`), 409, 'last_admin_key');
    expectProblem(await call(t.app, t.adminKey, 'POST', `/v1/keys/${adminId}`, {}), 409, 'last_admin_key');
    // A key without keys:manage does not count as a second admin.
    await createKey(t.app, t.adminKey, { name: 'reader', scopes: ['analytics:read'] });
    expectProblem(await call(t.app, t.adminKey, 'DELETE', `/v1/keys/${adminId}`), 409, 'last_admin_key');
    // With a second admin key the first may go.
    const second = await createKey(t.app, t.adminKey, { name: 'admin 2', scopes: ['keys:manage'] });
    expectStatus(await call(t.app, t.adminKey, 'DELETE', `/v1/keys/${adminId}`), 204);
    expectProblem(await call(t.app, second.key, 'DELETE', `/v1/keys/${second.id}`), 409, 'last_admin_key');
  });

  it('keeps exactly one admin when two admins delete each other concurrently', async () => {
    t = await createTestApp();
    const adminId = (await call(t.app, t.adminKey, 'GET', '/v1/keys')).json().data[0].id;
    const second = await createKey(t.app, t.adminKey, { name: 'admin 2', scopes: ['keys:manage'] });
    const [a, b] = await Promise.all([call(t.app, t.adminKey, 'DELETE', `/v1/keys/${second.id}`), call(t.app, second.key, 'DELETE', `/v1/keys/${adminId}`)]);
    // The loser either saw the other delete (409 last_admin_key) or had its own key deleted
    // before it authenticated (401): never both deleted.
    expect([a, b].filter((r) => r.statusCode === 204)).toHaveLength(1);
    const loser = a.statusCode === 204 ? b : a;
    expect(['last_admin_key', 'invalid_api_key']).toContain(loser.json().code);
    const survivors = await t.db.query(`SELECT id FROM api_keys WHERE account_id = $1 AND status = 'active'`, [t.accountId]);
    expect(survivors).toHaveLength(1);
  });
});

describe('GET /v1/keys', () => {
  it('pages newest first with an opaque cursor', async () => {
    const clock = new ManualClock();
    t = await createTestApp({ clock });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      ids.push((await createKey(t.app, t.adminKey, { name: `k${i}` })).id);
      if (i % 2 === 0) clock.advance(1000); // some keys share a created_at: the id breaks the tie
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await call(t.app, t.adminKey, 'GET', `/v1/keys?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expectStatus(res, 200);
      const page = res.json();
      seen.push(...page.data.map((k: { id: string }) => k.id));
      expect(page.has_more).toBe(page.next_cursor !== null);
      cursor = page.next_cursor;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(8);
    expect(new Set(seen).size).toBe(8);
    const all = (await call(t.app, t.adminKey, 'GET', '/v1/keys?limit=100')).json().data;
    expect(seen).toEqual(all.map((k: { id: string }) => k.id));
    const times = all.map((k: { created_at: string }) => Date.parse(k.created_at));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    expect(seen.indexOf(ids[6]!)).toBeLessThan(seen.indexOf(ids[0]!));
    expectProblem(await call(t.app, t.adminKey, 'GET', '/v1/keys?cursor=bm9wZQ'), 400, 'validation_failed');
    expectProblem(await call(t.app, t.adminKey, 'GET', '/v1/keys?limit=101'), 400, 'validation_failed');
  });

  it('never shows keys of another account', async () => {
    t = await createTestApp();
    const other = await t.core.accounts.create('other');
    const otherKeyId = other.firstKey.metadata.id;
    expectProblem(await call(t.app, t.adminKey, 'GET', `/v1/keys/${otherKeyId}`), 404, 'not_found');
    expectProblem(await call(t.app, t.adminKey, 'POST', `/v1/keys/${otherKeyId}`), 404, 'not_found');
    expectProblem(await call(t.app, t.adminKey, 'POST', `/v1/keys/${otherKeyId}/rotate`), 404, 'not_found');
    expectProblem(await call(t.app, t.adminKey, 'DELETE', `/v1/keys/${otherKeyId}`), 404, 'not_found');
    const list = (await call(t.app, t.adminKey, 'GET', '/v1/keys')).json();
    expect(list.data.map((k: { id: string }) => k.id)).not.toContain(otherKeyId);
    expectStatus(await call(t.app, other.firstKey.key, 'GET', `/v1/keys/${otherKeyId}`), 200);
  });
});

describe('POST /v1/keys', () => {
  it('defaults scopes to the caller and refuses to grant scopes the caller lacks', async () => {
    t = await createTestApp();
    const limited = await createKey(t.app, t.adminKey, { name: 'limited', scopes: ['keys:manage', 'search'] });
    const child = await call(t.app, limited.key, 'POST', '/v1/keys', { name: 'child' });
    expectStatus(child, 201);
    expect(child.json().metadata.scopes).toEqual(['keys:manage', 'search']);
    const escalate = await call(t.app, limited.key, 'POST', '/v1/keys', { name: 'x', scopes: ['search', 'webhooks:manage'] });
    expect(expectProblem(escalate, 403, 'insufficient_scope')).toMatchObject({ required_scope: 'webhooks:manage' });
  });

  it('enforces 100 live keys per account', async () => {
    t = await createTestApp();
    for (let i = 0; i < 99; i++)
      await t.core.keys.create({ accountId: t.accountId, keyId: 'x', scopes: ['search'], rateLimitPerMinute: 600 }, { name: `k${i}`, scopes: ['search'] });
    expectProblem(await call(t.app, t.adminKey, 'POST', '/v1/keys', { name: 'one too many' }), 409, 'key_limit_reached');
  });

  it('validates names, scopes and limits', async () => {
    t = await createTestApp();
    for (const body of [
      {},
      { name: '' },
      { name: 'x'.repeat(101) },
      { name: 'x', scopes: [] },
      { name: 'x', scopes: ['admin'] },
      { name: 'x', rate_limit_per_minute: 0 },
      { name: 'x', limt: 1 },
    ]) {
      expectProblem(await call(t.app, t.adminKey, 'POST', '/v1/keys', body), 400, 'validation_failed');
    }
  });
});
