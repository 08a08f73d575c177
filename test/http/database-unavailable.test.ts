import { createServer, type Socket } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { createCore } from '../../src/core/index.js';
import { generateKeySecret } from '../../src/core/keys/key-secret.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { systemResolver } from '../../src/outbound/dns.js';
import { createPgStores, openDb } from '../../src/store/pg/index.js';
import { createTestApp, LogCapture, type TestApp } from '../helpers/app.js';
import { usingRealPostgres } from '../helpers/db.js';
import { callTool, problem } from '../helpers/mcp.js';

/** Far above every bound below: a request still unanswered then has hung. */
const HANG_GUARD_MS = 15_000;

/** A real request to the listening app; the guard aborts (and so fails) one that hangs. */
function get(base: string, path: string, key: string): Promise<Response> {
  return fetch(`${base}${path}`, { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(HANG_GUARD_MS) });
}

/** Asserts a 503 `unavailable` problem+json with Retry-After, printing the body otherwise. */
async function expectUnavailable(res: Response): Promise<void> {
  const body = await res.text();
  expect(res.status, body).toBe(503);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.headers.get('retry-after')).toBe('5');
  expect(JSON.parse(body)).toMatchObject({ status: 503, code: 'unavailable', type: '/docs/errors#unavailable', request_id: res.headers.get('x-request-id') });
}

describe.skipIf(!usingRealPostgres())('a request while PostgreSQL holds a lock it needs (real PostgreSQL only: skipped on PGlite, set DATABASE_URL)', () => {
  let t: TestApp;
  let base: string;
  const holders: pg.Client[] = [];

  beforeAll(async () => {
    t = await createTestApp({ dbTimeouts: { statementMs: 500 } });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterEach(async () => {
    for (const c of holders.splice(0)) await c.end().catch(() => undefined);
  });
  afterAll(async () => {
    await t.close();
  });

  /** Another session takes `table` exclusively in an open transaction, as a stuck migration or job would. */
  async function holdLock(table: string): Promise<{ commit(): Promise<void> }> {
    const c = new pg.Client({ connectionString: t.testDb.url });
    holders.push(c);
    await c.connect();
    await c.query('BEGIN');
    await c.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    return { commit: async () => void (await c.query('COMMIT')) };
  }

  it('answers 503 unavailable (problem+json, Retry-After) once the statement bound has passed, and 200 once the lock is gone', async () => {
    const lock = await holdLock('api_keys');
    await expectUnavailable(await get(base, '/v1/keys', t.adminKey));
    expect(t.logs.text).toContain('canceling statement due to statement timeout');
    await lock.commit();
    const res = await get(base, '/v1/keys', t.adminKey);
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it('answers the same problem over REST and as an MCP tool result when a tool’s table is locked', async () => {
    const lock = await holdLock('analytics_rollup_state');
    await expectUnavailable(await get(base, '/v1/analytics', t.adminKey));
    const client = new Client({ name: 'timeouts test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': t.adminKey } } }));
    try {
      const result = await callTool(client, 'get_analytics', {});
      expect(problem(result)).toMatchObject({ status: 503, code: 'unavailable', type: '/docs/errors#unavailable' });
      await lock.commit();
      expect((await callTool(client, 'get_analytics', {})).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});

describe('a request while the database host accepts connections and never answers', () => {
  it('answers 503 unavailable once the connect bound has passed, on REST and on /readyz', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((s) => {
      sockets.add(s);
      s.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const db = await openDb({ kind: 'postgres', url: `postgres://aisle@127.0.0.1:${port}/aisle`, timeouts: { connectMs: 500 } });
    const logs = new LogCapture();
    const logger = createLogger('debug', logs);
    const core = createCore({
      stores: createPgStores(db),
      clock: systemClock,
      logger,
      defaultRateLimitPerMinute: 600,
      webhooks: { allowPrivate: false, resolver: systemResolver },
    });
    const { app } = await buildApp({ core, logger });
    try {
      const base = await app.listen({ host: '127.0.0.1', port: 0 });
      // A well-formed key: the lookup reaches the database, which is what hangs.
      await expectUnavailable(await get(base, '/v1/keys', generateKeySecret()));
      expect(logs.text).toContain('Connection terminated due to connection timeout');
      const ready = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(HANG_GUARD_MS) });
      expect(ready.status, await ready.clone().text()).toBe(503);
    } finally {
      await app.close();
      await db.close();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
