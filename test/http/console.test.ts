/**
 * The console's server side over real HTTP handling (inject) on a real database: sign-in
 * sessions, cookies, CSRF, scopes, the overview's figures against the public API's, and the
 * playground's searches staying out of every record. The browser tests are in test/console/.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_SESSION_TTL_MS } from '../../src/core/sessions/console-sessions.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { call, createKey, createTestApp, expectProblem, expectStatus, LogCapture, ManualClock, type TestApp } from '../helpers/app.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

let sample: SampleCatalog;
let t: TestApp;
const clock = new ManualClock(new Date(Date.now()).toISOString());

beforeAll(async () => {
  sample = await openSampleCatalog();
  t = await createTestApp({ search: sample, clock });
});
afterAll(async () => {
  await t?.close();
  await sample?.close();
});

interface Session {
  cookie: string;
  csrf: string;
  res: LightMyRequestResponse;
}

async function signIn(apiKey: string): Promise<Session> {
  const res = await t.app.inject({ method: 'POST', url: '/console/session', payload: { api_key: apiKey } });
  expectStatus(res, 201);
  const set = String(res.headers['set-cookie']);
  const cookie = /aisle_session=([^;]+)/.exec(set)![1]!;
  return { cookie, csrf: res.json().csrf_token as string, res };
}

/** A request as the console makes it: the cookie, and the CSRF token when asked to send it. */
function viaSession(s: Session, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, csrf = true) {
  return t.app.inject({
    method,
    url,
    headers: { cookie: `aisle_session=${s.cookie}`, ...(csrf && method !== 'GET' ? { 'x-csrf-token': s.csrf } : {}) },
    ...(body === undefined ? {} : { payload: body as object }),
  });
}

describe('the console page', () => {
  it('serves the page and its bundled assets from this server, under a strict Content-Security-Policy', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/' });
    expectStatus(page, 200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:\/\/(?!.*example)/);
    const js = /src="(\/console\/assets\/app\.[0-9a-f]{12}\.js)"/.exec(page.body)![1]!;
    const css = /href="(\/console\/assets\/app\.[0-9a-f]{12}\.css)"/.exec(page.body)![1]!;
    const script = await t.app.inject({ method: 'GET', url: js });
    expectStatus(script, 200);
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    expect(script.headers['cache-control']).toContain('immutable');
    expect(script.body.length).toBeGreaterThan(10_000);
    expect(script.body).not.toMatch(/https?:\/\/(cdn|unpkg|jsdelivr)/);
    const style = await t.app.inject({ method: 'GET', url: css });
    expectStatus(style, 200);
    expect(style.body).toContain('.uplot');
    expectStatus(await t.app.inject({ method: 'GET', url: '/console/assets/app.000000000000.js' }), 404);
  });
});

describe('console sessions', () => {
  it('exchanges a key once for an HttpOnly, SameSite=Strict session cookie, and stores only its hash', async () => {
    const s = await signIn(t.adminKey);
    const set = String(s.res.headers['set-cookie']);
    expect(set).toMatch(/HttpOnly/i);
    expect(set).toMatch(/SameSite=Strict/i);
    expect(set).toMatch(/Path=\//);
    expect(set).toMatch(/Expires=/);
    expect(set).not.toMatch(/Secure/i);
    expect(s.res.body).not.toContain(t.adminKey);
    expect(s.res.json()).toMatchObject({ account_id: t.accountId, scopes: expect.arrayContaining(['keys:manage', 'analytics:read']) });
    const rows = await t.db.query<{ token_hash: string }>('SELECT token_hash FROM console_sessions');
    expect(rows.map((r) => r.token_hash)).not.toContain(s.cookie);
    expect(JSON.stringify(rows)).not.toContain(t.adminKey);
    expect(t.logs.text).not.toContain(t.adminKey);
    expect(t.logs.text).not.toContain(s.cookie);
    const me = await viaSession(s, 'GET', '/console/session');
    expectStatus(me, 200);
    expect(me.json().csrf_token).toBe(s.csrf);
  });

  it('marks the cookie Secure when the console is served over https', async () => {
    const logs = new LogCapture();
    const { app } = await buildApp({ core: t.core, logger: createLogger('silent', logs), trustProxy: true });
    try {
      const res = await app.inject({ method: 'POST', url: '/console/session', payload: { api_key: t.adminKey }, headers: { 'x-forwarded-proto': 'https' } });
      expectStatus(res, 201);
      expect(String(res.headers['set-cookie'])).toMatch(/; Secure/i);
    } finally {
      await app.close();
    }
  });

  it("refuses a wrong, malformed or missing key with the API's own problem, and opens nothing", async () => {
    const before = (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM console_sessions'))[0]!.n;
    const wrong = `${t.adminKey.slice(0, -4)}zzzz`;
    const res = await t.app.inject({ method: 'POST', url: '/console/session', payload: { api_key: wrong } });
    expectProblem(res, 401, 'invalid_api_key');
    expect(res.headers['set-cookie']).toBeUndefined();
    expectProblem(await t.app.inject({ method: 'POST', url: '/console/session', payload: { api_key: 'hello' } }), 401, 'invalid_api_key');
    expectProblem(await t.app.inject({ method: 'POST', url: '/console/session', payload: {} }), 400, 'validation_failed');
    expectProblem(
      await t.app.inject({ method: 'POST', url: '/console/session', payload: 'api_key=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      415,
      'unsupported_media_type',
    );
    expect((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM console_sessions'))[0]!.n).toBe(before);
  });

  it('authenticates /v1 routes as the key that opened it; a state change needs the CSRF token', async () => {
    const s = await signIn(t.adminKey);
    expectStatus(await viaSession(s, 'GET', '/v1/keys'), 200);
    expectProblem(await viaSession(s, 'POST', '/v1/keys', { name: 'no csrf' }, false), 403, 'csrf_failed');
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/v1/keys',
        payload: { name: 'bad csrf' },
        headers: { cookie: `aisle_session=${s.cookie}`, 'x-csrf-token': `${s.csrf.slice(0, -1)}x` },
      }),
      403,
      'csrf_failed',
    );
    expect((await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM api_keys WHERE name IN ('no csrf', 'bad csrf')`))[0]!.n).toBe(0);
    expectStatus(await viaSession(s, 'POST', '/v1/keys', { name: 'with csrf', scopes: ['search'] }), 201);
    // The data plane takes keys only: a session does not search or record events.
    expectProblem(await viaSession(s, 'POST', '/v1/search', { query: 'espresso' }), 401, 'missing_api_key');
    expectProblem(
      await viaSession(s, 'POST', '/v1/conversions', {
        impression_id: '5eea7b73-176c-4a6c-9324-12bfe3884508',
        order_id: 'x',
        sale_amount: 1,
        commission_amount: 1,
        currency: 'USD',
      }),
      401,
      'missing_api_key',
    );
    // Catalog sources are the console's to manage; ACP feed upserts, another catalog:write route, take keys only.
    expectStatus(await viaSession(s, 'GET', '/v1/catalog/sources'), 200);
    expectProblem(await viaSession(s, 'POST', '/v1/feeds', { target_country: 'US' }), 401, 'missing_api_key');
    // Never /mcp: MCP clients authenticate with keys only.
    const mcp = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { cookie: `aisle_session=${s.cookie}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(mcp.statusCode).toBe(401);
  });

  it('lets an API key win over a cookie, and takes no API key on console-only routes', async () => {
    const s = await signIn(t.adminKey);
    const reader = await createKey(t.app, t.adminKey, { name: 'reader', scopes: ['analytics:read'] });
    const res = await t.app.inject({ method: 'GET', url: '/v1/keys', headers: { cookie: `aisle_session=${s.cookie}`, 'x-api-key': reader.key } });
    expectProblem(res, 403, 'insufficient_scope');
    expectProblem(await call(t.app, t.adminKey, 'GET', '/console/session'), 401, 'session_expired');
    expectProblem(await call(t.app, t.adminKey, 'GET', '/console/overview'), 401, 'session_expired');
  });

  it("follows the key's scopes: a read-only key sees figures but cannot manage keys", async () => {
    const reader = await createKey(t.app, t.adminKey, { name: 'read only', scopes: ['analytics:read'] });
    const s = await signIn(reader.key);
    expect(s.res.json().scopes).toEqual(['analytics:read']);
    expectStatus(await viaSession(s, 'GET', '/console/overview?range=24h'), 200);
    expectProblem(await viaSession(s, 'GET', '/v1/keys'), 403, 'insufficient_scope');
    expectProblem(await viaSession(s, 'POST', '/v1/keys', { name: 'escalate' }), 403, 'insufficient_scope');
    expectProblem(await viaSession(s, 'POST', '/console/playground', { query: 'coffee' }), 403, 'insufficient_scope');
  });

  it('ends on sign-out, at expiry, and when its key is disabled or deleted', async () => {
    const out = await signIn(t.adminKey);
    expectProblem(await viaSession(out, 'DELETE', '/console/session', undefined, false), 403, 'csrf_failed');
    const bye = await viaSession(out, 'DELETE', '/console/session');
    expectStatus(bye, 204);
    expect(String(bye.headers['set-cookie'])).toMatch(/aisle_session=;.*Expires=Thu, 01 Jan 1970/);
    expectProblem(await viaSession(out, 'GET', '/v1/keys'), 401, 'session_expired');

    const later = await signIn(t.adminKey);
    clock.advance(CONSOLE_SESSION_TTL_MS - 1000);
    expectStatus(await viaSession(later, 'GET', '/console/session'), 200);
    clock.advance(1000);
    expectProblem(await viaSession(later, 'GET', '/console/session'), 401, 'session_expired');

    const temp = await createKey(t.app, t.adminKey, { name: 'temp admin', scopes: ['keys:manage', 'analytics:read'] });
    const s = await signIn(temp.key);
    expectStatus(await call(t.app, t.adminKey, 'POST', `/v1/keys/${temp.id}`), 200);
    expectProblem(await viaSession(s, 'GET', '/console/session'), 401, 'session_expired');
    expectStatus(await call(t.app, t.adminKey, 'POST', `/v1/keys/${temp.id}`, { status: 'active' }), 200);
    expectStatus(await viaSession(s, 'GET', '/console/session'), 200);
    expectStatus(await call(t.app, t.adminKey, 'DELETE', `/v1/keys/${temp.id}`), 204);
    expectProblem(await viaSession(s, 'GET', '/console/session'), 401, 'session_expired');
    expect((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM console_sessions WHERE key_id = $1', [temp.id]))[0]!.n).toBe(0);
  });

  it('signs out even when the key has spent its rate limit, and a new sign-in ends the session the browser held', async () => {
    const limited = await createKey(t.app, t.adminKey, { name: 'limited', scopes: ['analytics:read'], rate_limit_per_minute: 1 });
    const s = await signIn(limited.key);
    expectStatus(await viaSession(s, 'GET', '/console/session'), 200);
    expectProblem(await viaSession(s, 'GET', '/console/session'), 429, 'rate_limited');
    expectStatus(await viaSession(s, 'DELETE', '/console/session'), 204);
    expect((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM console_sessions WHERE key_id = $1', [limited.id]))[0]!.n).toBe(0);

    const first = await signIn(t.adminKey);
    const again = await t.app.inject({
      method: 'POST',
      url: '/console/session',
      payload: { api_key: t.adminKey },
      headers: { cookie: `aisle_session=${first.cookie}` },
    });
    expectStatus(again, 201);
    expectProblem(await viaSession(first, 'GET', '/console/session'), 401, 'session_expired');
  });

  it('refuses a forged or garbage cookie without a database read', async () => {
    // Queued request-log entries would be written on the log's timer, inside the measurement.
    await t.core.requestLog.flush();
    const before = t.db.queryCount;
    expectProblem(await t.app.inject({ method: 'GET', url: '/console/session', headers: { cookie: 'aisle_session=../../etc' } }), 401, 'session_expired');
    expect(t.db.queryCount).toBe(before);
    expectProblem(
      await t.app.inject({ method: 'GET', url: '/console/session', headers: { cookie: `aisle_session=${'A'.repeat(43)}` } }),
      401,
      'session_expired',
    );
  });
});

describe('console figures and playground', () => {
  it('shows the figures the public API gives for the same range, and keeps its own requests out of the request log', async () => {
    const { firstKey } = await t.core.accounts.create('figures');
    const key = firstKey.key;
    for (const q of ['espresso machine', 'running shoes', 'espresso machine']) {
      const res = await call(t.app, key, 'POST', '/v1/search', { query: q, limit: 3 });
      expectStatus(res, 200);
      const first = (res.json().results as { impression_id: string }[])[0]!;
      const click = await call(t.app, key, 'POST', `/v1/clicks/${first.impression_id}`);
      expectStatus(click, 201);
      if (q === 'running shoes')
        expectStatus(
          await call(t.app, key, 'POST', '/v1/conversions', {
            click_id: click.json().click_id,
            order_id: 'o-1',
            sale_amount: 80,
            commission_amount: 4.25,
            currency: 'USD',
          }),
          201,
        );
    }
    // Ranges are half-open and end now: let the traffic be in the past.
    clock.advance(1000);
    const s = await signIn(key);
    const usageBefore = (await call(t.app, key, 'GET', '/v1/usage')).json().totals.requests as number;
    for (const range of ['24h', '7d', '30d'] as const) {
      const o = await viaSession(s, 'GET', `/console/overview?range=${range}`);
      expectStatus(o, 200);
      const overview = o.json();
      const q = `start_date=${encodeURIComponent(overview.start_date)}&end_date=${encodeURIComponent(overview.end_date)}&granularity=${overview.granularity}`;
      const analytics = (await call(t.app, key, 'GET', `/v1/analytics?${q}`)).json();
      const usage = (await call(t.app, key, 'GET', `/v1/usage?${q}`)).json();
      expect(overview.totals).toEqual({ ...analytics.metrics, searches: usage.totals.searches });
      expect(overview.totals).toMatchObject({ searches: 3, impressions: usage.totals.results_returned, clicks: 3, conversions: 1, revenue: 4.25 });
      expect(overview.top_products).toEqual(analytics.top_products);
      expect(overview.top_queries).toEqual(analytics.top_queries);
      const revenue = (await call(t.app, key, 'GET', `/v1/analytics?metric=revenue&${q}`)).json();
      expect(overview.series.map((b: { revenue: number }) => b.revenue)).toEqual(revenue.series.map((b: { value: number }) => b.value));
      expect(overview.series.map((b: { searches: number }) => b.searches)).toEqual(usage.series.map((b: { searches: number }) => b.searches));
    }
    // The console's reads above were not API requests; the first usage call and the 3 × 3 API
    // reads in the loop were.
    clock.advance(1000);
    const usageAfter = (await call(t.app, key, 'GET', '/v1/usage')).json().totals.requests as number;
    expect(usageAfter - usageBefore).toBe(1 + 3 * 3);
    expectProblem(await viaSession(s, 'GET', '/console/overview?range=1y'), 400, 'validation_failed');
  });

  it('ranks playground searches like the API but records nothing and hands out no tracking', async () => {
    const { firstKey, account } = await t.core.accounts.create('playground');
    // A webhook on searches: a recorded search would queue an event for it.
    expectStatus(await call(t.app, firstKey.key, 'POST', '/v1/webhooks', { url: 'https://93.184.216.34/aisle', events: ['search'] }), 201);
    const s = await signIn(firstKey.key);
    const count = async (table: string) =>
      (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE account_id = $1`, [account.id]))[0]!.n;
    const res = await viaSession(s, 'POST', '/console/playground', { query: 'espresso machine for a small kitchen', limit: 3 });
    expectStatus(res, 200);
    const body = res.json();
    expect(body.metadata.recorded).toBe(false);
    expect(body.results.length).toBeGreaterThan(0);
    for (const r of body.results) {
      expect(r).not.toHaveProperty('impression_id');
      expect(r).not.toHaveProperty('click_url');
      expect(r.disclosure_text).not.toBe('');
    }
    expect(await count('search_requests')).toBe(0);
    expect(await count('impressions')).toBe(0);
    expect(await count('search_sessions')).toBe(0);
    expect(await count('webhook_events')).toBe(0);
    const api = await call(t.app, firstKey.key, 'POST', '/v1/search', { query: 'espresso machine for a small kitchen', limit: 3 });
    expect(api.json().results.map((r: { product_id: string }) => r.product_id)).toEqual(body.results.map((r: { product_id: string }) => r.product_id));
    expect(await count('search_requests')).toBe(1);
    expect(await count('webhook_events')).toBe(1);
    expectProblem(await viaSession(s, 'POST', '/console/playground', { query: '' }), 400, 'validation_failed');
  });
});
