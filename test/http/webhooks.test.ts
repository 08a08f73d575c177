import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, createTestApp, expectProblem, expectStatus, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ webhooks: { allowPrivate: true } });
});
afterAll(async () => t.close());

const create = (body: Record<string, unknown>, key = t.adminKey) => call(t.app, key, 'POST', '/v1/webhooks', body);

describe('POST /v1/webhooks', () => {
  it('creates an enabled webhook and shows its whsec_ secret once', async () => {
    const res = await create({ url: 'http://127.0.0.1:9/hook', events: ['click', 'search'], description: 'orders service' });
    expectStatus(res, 201);
    const body = res.json();
    expect(body).toMatchObject({
      url: 'http://127.0.0.1:9/hook',
      events: ['click', 'search'],
      status: 'enabled',
      description: 'orders service',
      failing_since: null,
    });
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const got = await call(t.app, t.adminKey, 'GET', `/v1/webhooks/wh_${body.id}`);
    expectStatus(got, 200);
    expect(got.json()).not.toHaveProperty('secret');
    expect(got.body).not.toContain(body.secret.slice(6));
  });

  it.each([
    ['no events', { url: 'http://127.0.0.1:9/', events: [] }],
    ['an unknown event kind', { url: 'http://127.0.0.1:9/', events: ['refund'] }],
    ['a repeated event kind', { url: 'http://127.0.0.1:9/', events: ['click', 'click'] }],
    ['an unknown field', { url: 'http://127.0.0.1:9/', events: ['click'], secret: 'whsec_x' }],
    ['no url', { events: ['click'] }],
  ])('answers 400 validation_failed for %s', async (_name, body) => {
    expectProblem(await create(body), 400, 'validation_failed');
  });

  it.each([
    ['ftp://127.0.0.1/x', 'must use http or https'],
    ['http://user:pass@127.0.0.1:9/', 'user name or password'],
    ['not a url', 'not an absolute URL'],
  ])('answers 422 webhook_url_not_allowed for %s', async (url, reason) => {
    const body = expectProblem(await create({ url, events: ['click'] }), 422, 'webhook_url_not_allowed');
    expect(body.detail).toContain(reason);
    expect(body.errors).toEqual([{ path: 'body.url', message: expect.stringContaining(reason) }]);
  });

  it('refuses a 21st webhook with 409 webhook_limit_reached', async () => {
    const other = await t.core.accounts.create('limit account');
    const key = other.firstKey.key;
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => create({ url: `http://127.0.0.1:9/${i}`, events: ['click'] }, key)));
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(20);
    for (const r of results.filter((x) => x.statusCode !== 201)) expectProblem(r, 409, 'webhook_limit_reached');
  });
});

describe('GET /v1/webhooks', () => {
  it('pages newest first with an opaque cursor and hides other accounts', async () => {
    const acct = await t.core.accounts.create('paging account');
    const key = acct.firstKey.key;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create({ url: `http://127.0.0.1:9/${i}`, events: ['search'] }, key)).json().id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await call(t.app, key, 'GET', `/v1/webhooks?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expectStatus(res, 200);
      const page = res.json() as { data: { id: string }[]; next_cursor: string | null; has_more: boolean };
      seen.push(...page.data.map((d) => d.id));
      expect(page.has_more).toBe(page.next_cursor !== null);
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    expectProblem(await call(t.app, key, 'GET', '/v1/webhooks?cursor=bogus'), 400, 'validation_failed');
    expect((await call(t.app, t.adminKey, 'GET', `/v1/webhooks/${ids[0]}`)).statusCode).toBe(404);
  });
});

describe('PATCH and DELETE /v1/webhooks/:id', () => {
  it('changes fields, disables and re-enables, then deletes', async () => {
    const id = (await create({ url: 'http://127.0.0.1:9/a', events: ['click'] })).json().id;
    const patched = await call(t.app, t.adminKey, 'PATCH', `/v1/webhooks/${id}`, {
      url: 'http://127.0.0.1:9/b',
      events: ['feedback', 'conversion'],
      description: 'x',
    });
    expectStatus(patched, 200);
    expect(patched.json()).toMatchObject({ url: 'http://127.0.0.1:9/b', events: ['feedback', 'conversion'], description: 'x' });
    expect((await call(t.app, t.adminKey, 'PATCH', `/v1/webhooks/${id}`, { status: 'disabled', description: null })).json()).toMatchObject({
      status: 'disabled',
      disabled_reason: 'manual',
      description: null,
    });
    expect((await call(t.app, t.adminKey, 'PATCH', `/v1/webhooks/${id}`, { status: 'enabled' })).json()).toMatchObject({
      status: 'enabled',
      disabled_reason: null,
    });
    expectProblem(await call(t.app, t.adminKey, 'PATCH', `/v1/webhooks/${id}`, { url: 'ftp://x/' }), 422, 'webhook_url_not_allowed');
    expectProblem(await call(t.app, t.adminKey, 'PATCH', `/v1/webhooks/${id}`, { status: 'paused' }), 400, 'validation_failed');
    expectStatus(await call(t.app, t.adminKey, 'DELETE', `/v1/webhooks/wh_${id}`), 204);
    expectProblem(await call(t.app, t.adminKey, 'DELETE', `/v1/webhooks/${id}`), 404, 'not_found');
    expectProblem(await call(t.app, t.adminKey, 'GET', `/v1/webhooks/${id}`), 404, 'not_found');
  });

  it('answers 404 for another account and for malformed ids', async () => {
    const id = (await create({ url: 'http://127.0.0.1:9/a', events: ['click'] })).json().id;
    const other = await t.core.accounts.create('stranger');
    for (const [method, path] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/rotate-secret'],
      ['GET', '/deliveries'],
      ['POST', '/test'],
    ] as const) {
      const res = await call(t.app, other.firstKey.key, method, `/v1/webhooks/${id}${path}`, method === 'GET' || method === 'DELETE' ? undefined : {});
      expectProblem(res, 404, 'not_found');
    }
    expectProblem(await call(t.app, t.adminKey, 'GET', '/v1/webhooks/not-a-uuid'), 404, 'not_found');
    expectProblem(await call(t.app, t.adminKey, 'GET', `/v1/webhooks/key_${id}`), 404, 'not_found');
  });
});

describe('rotate-secret, deliveries, retry and test', () => {
  it('rotates the secret with a 24 h overlap', async () => {
    const created = (await create({ url: 'http://127.0.0.1:9/r', events: ['click'] })).json();
    const res = await call(t.app, t.adminKey, 'POST', `/v1/webhooks/${created.id}/rotate-secret`);
    expectStatus(res, 201);
    const rotated = res.json();
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(Date.parse(rotated.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect((await call(t.app, t.adminKey, 'GET', `/v1/webhooks/${created.id}`)).json().previous_secret_expires_at).toBe(rotated.previous_secret_expires_at);
  });

  it('queues a test event, lists it, filters by status and retries it', async () => {
    const id = (await create({ url: 'http://127.0.0.1:9/t', events: ['conversion'] })).json().id;
    const test = await call(t.app, t.adminKey, 'POST', `/v1/webhooks/${id}/test`);
    expectStatus(test, 202);
    const { event_id, delivery } = test.json();
    expect(event_id).toMatch(/^evt_[0-9a-f-]{36}$/);
    expect(delivery).toMatchObject({ webhook_id: id, event_id, event_type: 'conversion', status: 'pending', attempts: 0 });
    expectStatus(await call(t.app, t.adminKey, 'POST', `/v1/webhooks/${id}/test`, { event_type: 'search' }), 202);

    const list = await call(t.app, t.adminKey, 'GET', `/v1/webhooks/${id}/deliveries?status=pending&limit=1`);
    expectStatus(list, 200);
    expect(list.json()).toMatchObject({ has_more: true, data: [{ event_type: 'search' }] });
    const next = await call(t.app, t.adminKey, 'GET', `/v1/webhooks/${id}/deliveries?status=pending&limit=1&cursor=${list.json().next_cursor}`);
    expect(next.json()).toMatchObject({ has_more: false, next_cursor: null, data: [{ id: delivery.id }] });
    expect((await call(t.app, t.adminKey, 'GET', `/v1/webhooks/${id}/deliveries?status=failed`)).json().data).toEqual([]);
    expectProblem(await call(t.app, t.adminKey, 'GET', `/v1/webhooks/${id}/deliveries?status=lost`), 400, 'validation_failed');

    const retry = await call(t.app, t.adminKey, 'POST', `/v1/webhooks/${id}/deliveries/whd_${delivery.id}/retry`);
    expectStatus(retry, 202);
    expect(retry.json()).toMatchObject({ id: delivery.id, status: 'pending' });
    expectProblem(await call(t.app, t.adminKey, 'POST', `/v1/webhooks/${id}/deliveries/00000000-0000-4000-8000-000000000000/retry`), 404, 'not_found');

    expectStatus(await call(t.app, t.adminKey, 'PATCH', `/v1/webhooks/${id}`, { status: 'disabled' }), 200);
    expectProblem(await call(t.app, t.adminKey, 'POST', `/v1/webhooks/${id}/test`), 409, 'conflict');
    expectProblem(await call(t.app, t.adminKey, 'POST', `/v1/webhooks/${id}/deliveries/${delivery.id}/retry`), 409, 'conflict');
  });

  it('needs webhooks:manage', async () => {
    const { key } = await createKey(t.app, t.adminKey, { name: 'no webhooks', scopes: ['search', 'keys:manage'] });
    const body = expectProblem(await call(t.app, key, 'GET', '/v1/webhooks'), 403, 'insufficient_scope');
    expect(body.required_scope).toBe('webhooks:manage');
  });
});

describe('webhooks with private destinations refused (the default)', () => {
  it('refuses http and loopback at creation', async () => {
    const strict = await createTestApp({ shared: { testDb: t.testDb, db: t.db, adminKey: t.adminKey, accountId: t.accountId } });
    try {
      for (const url of ['http://example.com/hook', 'https://127.0.0.1/hook', 'https://localhost/hook', 'https://nonexistent.invalid/hook']) {
        expectProblem(await call(strict.app, t.adminKey, 'POST', '/v1/webhooks', { url, events: ['click'] }), 422, 'webhook_url_not_allowed');
      }
      expectStatus(await call(strict.app, t.adminKey, 'POST', '/v1/webhooks', { url: 'https://93.184.215.14/hook', events: ['click'] }), 201);
    } finally {
      await strict.app.close();
    }
  });
});
