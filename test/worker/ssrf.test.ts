import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import { eventData } from '../../src/core/webhooks/events.js';
import { generateWebhookSecret } from '../../src/core/webhooks/signing.js';
import { type LookupAll, lookupResolver, systemLookupAll } from '../../src/outbound/dns.js';
import { appendEvent } from '../../src/store/pg/outbox.js';
import { PgWebhookStore } from '../../src/store/pg/webhook-store.js';
import { call, createTestApp, expectProblem, ManualClock, type TestApp } from '../helpers/app.js';
import { createTestWorker, Receiver } from '../helpers/webhooks.js';

/**
 * Every URL here must be refused with AISLE_WEBHOOK_ALLOW_PRIVATE off: at creation, and again at
 * delivery time for endpoints that got into the table anyway (DNS changed after creation). Canary
 * listeners on the loopback addresses count TCP connections: there must be none.
 */
const canary = await Receiver.start();
const P = canary.port;
let canary6: Server | null = null;
let canary6Connections = 0;

// A resolver standing in for DNS: public answers at creation, loopback later (rebinding), mixed answers.
let rebound = false;
const fakeDns: Record<string, () => string[]> = {
  'rebind.test': () => (rebound ? ['127.0.0.1'] : ['93.184.215.14']),
  'mixed.test': () => ['93.184.215.14', '127.0.0.1'],
  'private.test': () => ['10.0.0.5'],
  'metadata.test': () => ['169.254.169.254'],
  'v6loop.test': () => ['::1'],
  'mapped.test': () => ['::ffff:127.0.0.1'],
};
const lookupAll: LookupAll = (hostname, callback) => {
  const answer = fakeDns[hostname.toLowerCase()];
  if (!answer) return systemLookupAll(hostname, callback);
  callback(
    null,
    answer().map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
  );
};

const REFUSED = [
  `https://127.0.0.1:${P}/`,
  `https://127.1:${P}/`,
  `https://2130706433:${P}/`,
  `https://0x7f.1:${P}/`,
  `https://0x7f000001:${P}/`,
  `https://0177.0.0.1:${P}/`,
  `https://017700000001:${P}/`,
  `https://[::1]:${P}/`,
  `https://[::ffff:127.0.0.1]:${P}/`,
  `https://[::ffff:7f00:1]:${P}/`,
  `https://[0:0:0:0:0:ffff:127.0.0.1]:${P}/`,
  `https://[64:ff9b::7f00:1]:${P}/`,
  `https://[::127.0.0.1]:${P}/`,
  `https://localhost:${P}/`,
  `https://localhost.:${P}/`,
  `https://LOCALHOST:${P}/`,
  `https://api.localhost:${P}/`,
  `https://intranet:${P}/`,
  `https://0.0.0.0:${P}/`,
  `https://0:${P}/`,
  `https://[::]:${P}/`,
  'https://169.254.169.254/latest/meta-data/',
  'https://[fe80::1]/',
  'https://10.0.0.1/',
  'https://10.255.255.254/',
  'https://172.16.0.1/',
  'https://172.31.255.254/',
  'https://192.168.1.1/',
  'https://100.64.0.1/',
  'https://198.18.0.1/',
  'https://192.0.2.1/',
  'https://224.0.0.1/',
  'https://255.255.255.255/',
  'https://[fd00::1]/',
  'https://[fc00::1]/',
  `http://93.184.215.14:${P}/`,
  `https://user:secret@93.184.215.14/`,
  `https://mixed.test:${P}/`,
  `https://private.test:${P}/`,
  `https://metadata.test/`,
  `https://v6loop.test:${P}/`,
  `https://mapped.test:${P}/`,
];
const REBINDING = `https://rebind.test:${P}/`;

let t: TestApp;
beforeAll(async () => {
  canary6 = await new Promise<Server | null>((resolve) => {
    const s = createServer((sock) => sock.destroy());
    s.on('connection', () => (canary6Connections += 1));
    s.once('error', () => resolve(null));
    s.listen(P, '::1', () => resolve(s));
  });
  t = await createTestApp({ clock: new ManualClock(Date.now()), webhooks: { allowPrivate: false, resolver: lookupResolver(lookupAll) } });
});
afterAll(async () => {
  await t.close();
  await canary.close();
  await new Promise((resolve) => (canary6 ? canary6.close(resolve) : resolve(undefined)));
});

describe('SSRF guard (AISLE_WEBHOOK_ALLOW_PRIVATE off)', () => {
  it('has a table of at least 30 refused URLs', () => {
    expect(REFUSED.length).toBeGreaterThanOrEqual(30);
  });

  it.each(REFUSED)('refuses %s at creation', async (url) => {
    expectProblem(await call(t.app, t.adminKey, 'POST', '/v1/webhooks', { url, events: ['click'] }), 422, 'webhook_url_not_allowed');
  });

  it('refuses every one again at delivery time, including a host that rebinds to loopback after creation; no connection reaches the canaries', async () => {
    // The rebinding host passes at creation: its first answer is public.
    const created = await call(t.app, t.adminKey, 'POST', '/v1/webhooks', { url: REBINDING, events: ['click'] });
    expect(created.statusCode, created.body).toBe(201);
    rebound = true;

    // The rest get in behind the guard's back, as if DNS had changed since they were created.
    const store = new PgWebhookStore(t.db);
    const acct = await t.core.accounts.create('ssrf delivery');
    for (const url of REFUSED) {
      const now = new Date();
      await store.insertEndpoint({
        id: newId(),
        accountId: acct.account.id,
        url,
        events: ['click'],
        description: null,
        status: 'enabled',
        disabledReason: null,
        secret: generateWebhookSecret(),
        previousSecret: null,
        previousSecretExpiresAt: null,
        failingSince: null,
        createdAt: now,
        updatedAt: now,
      });
    }
    for (const accountId of [t.accountId, acct.account.id]) {
      await t.db.transaction((tx) =>
        appendEvent(tx, {
          accountId,
          type: 'click',
          data: eventData.click({ clickId: newId(), impressionId: newId(), productId: newId(), requestId: newId() }),
          createdAt: t.clock.now(),
        }),
      );
    }
    const w = createTestWorker(t.db, { clock: t.clock, allowPrivate: false, lookupAll, concurrency: 16 });
    try {
      expect(await w.worker.drain()).toBe(REFUSED.length + 1);
    } finally {
      await w.close();
    }
    const rows = await t.db.query<{ url: string; last_error: string | null; status: string }>(
      `SELECT w.url, d.last_error, d.status FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id WHERE d.account_id = ANY ($1::uuid[])`,
      [[t.accountId, acct.account.id]],
    );
    expect(rows).toHaveLength(REFUSED.length + 1);
    for (const r of rows) expect(r.last_error, r.url).toMatch(/^refused: /);
    expect(canary.connections).toBe(0);
    expect(canary6Connections).toBe(0);
  });
});

describe('redirects (allow-private on, so a local receiver stands in for a public one)', () => {
  it('never follows a 302 to loopback', async () => {
    const trap = await Receiver.start();
    const redirector = await Receiver.start((_req, res) => void res.writeHead(302, { location: trap.url('/admin') }).end());
    const lax = await createTestApp({ clock: t.clock, webhooks: { allowPrivate: true } });
    const w = createTestWorker(lax.db, { clock: lax.clock, allowPrivate: true });
    try {
      expect((await call(lax.app, lax.adminKey, 'POST', '/v1/webhooks', { url: redirector.url(), events: ['click'] })).statusCode).toBe(201);
      await lax.db.transaction((tx) =>
        appendEvent(tx, {
          accountId: lax.accountId,
          type: 'click',
          data: eventData.click({ clickId: newId(), impressionId: newId(), productId: newId(), requestId: newId() }),
          createdAt: lax.clock.now(),
        }),
      );
      expect(await w.worker.drain()).toBe(1);
      expect(redirector.received).toHaveLength(1);
      expect(trap.connections).toBe(0);
    } finally {
      await w.close();
      await lax.close();
      await trap.close();
      await redirector.close();
    }
  });
});
