import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import { eventData } from '../../src/core/webhooks/events.js';
import { appendEvent } from '../../src/store/pg/outbox.js';
import { call, createTestApp, expectStatus, type TestApp } from '../helpers/app.js';
import { usingRealPostgres } from '../helpers/db.js';
import { type Child, runTs } from '../helpers/process.js';
import { Receiver } from '../helpers/webhooks.js';

/**
 * At least once under faults: 10,000 events flow while a separate `npm run worker` process is
 * killed with SIGKILL 50+ times mid-delivery. Every event must reach the receiver (its set of
 * webhook-ids equals the database's set of event ids), and every copy, duplicates included,
 * must carry the same webhook-id and a valid signature. Several processes need a real server.
 */
const EVENTS = 10_000;
const KILLS = 50;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!usingRealPostgres())('webhook delivery under SIGKILL (real PostgreSQL)', () => {
  let t: TestApp;
  let receiver: Receiver;
  let child: Child | null = null;

  beforeAll(async () => {
    t = await createTestApp({ webhooks: { allowPrivate: true } });
    // A little latency keeps deliveries in flight when the kill lands.
    receiver = await Receiver.start((_req, res) => void setTimeout(() => res.end('ok'), Math.random() * 15));
  });
  afterAll(async () => {
    child?.proc.kill('SIGKILL');
    await receiver?.close();
    await t?.close();
  });

  function startWorker(): Child {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: t.testDb.url!,
      DATABASE_POOL_SIZE: '4',
      AISLE_WEBHOOK_ALLOW_PRIVATE: 'true',
      AISLE_WEBHOOK_LEASE_MS: '2000',
      AISLE_WEBHOOK_POLL_MS: '25',
      AISLE_WEBHOOK_CONCURRENCY: '32',
      LOG_LEVEL: 'warn',
    };
    return runTs('src/worker/main.ts', [], env);
  }

  it(`delivers all ${EVENTS} events at least once with valid signatures across ${KILLS}+ kills`, { timeout: 600_000 }, async () => {
    const created = await call(t.app, t.adminKey, 'POST', '/v1/webhooks', { url: receiver.url(), events: ['click'] });
    expectStatus(created, 201);
    const secret: string = created.json().secret;

    let produced = 0;
    const producer = (async () => {
      while (produced < EVENTS) {
        const n = Math.min(50, EVENTS - produced);
        await t.db.transaction(async (tx) => {
          for (let i = 0; i < n; i++) {
            const data = eventData.click({ clickId: newId(), impressionId: newId(), productId: newId(), requestId: newId() });
            await appendEvent(tx, { accountId: t.accountId, type: 'click', data, createdAt: new Date() });
          }
        });
        produced += n;
        await sleep(10);
      }
    })();

    let kills = 0;
    while (kills < KILLS || produced < EVENTS) {
      child = startWorker();
      await child.waitForStderr(/webhook worker started/);
      await sleep(50 + Math.random() * 400);
      child.proc.kill('SIGKILL');
      await child.exited;
      kills += 1;
    }
    await producer;

    // A last worker finishes the queue (leases of the killed ones expire after 2 s).
    child = startWorker();
    await child.waitForStderr(/webhook worker started/);
    const deadline = Date.now() + 180_000;
    for (;;) {
      const [row] = await t.db.query<{ open: number }>(`SELECT count(*)::int AS open FROM webhook_deliveries WHERE status <> 'succeeded'`);
      if (row!.open === 0) break;
      if (Date.now() > deadline) throw new Error(`${row!.open} deliveries still open`);
      await sleep(250);
    }
    child.proc.kill('SIGTERM');
    expect(await child.exited).toBe(0);

    const dbIds = new Set((await t.db.query<{ id: string }>('SELECT id FROM webhook_events')).map((r) => `evt_${r.id}`));
    expect(dbIds.size).toBe(EVENTS);
    const wh = new Webhook(secret);
    const bodies = new Map<string, string>();
    for (const got of receiver.received) {
      const envelope = wh.verify(got.body, got.headers) as { id: string };
      expect(envelope.id).toBe(got.headers['webhook-id']);
      const first = bodies.get(envelope.id);
      if (first !== undefined) expect(got.body).toBe(first);
      bodies.set(envelope.id, got.body);
    }
    expect(new Set(bodies.keys())).toEqual(dbIds);
    expect(kills).toBeGreaterThanOrEqual(KILLS);
    const duplicates = receiver.received.length - bodies.size;
    console.info(`chaos: ${EVENTS} events, ${kills} SIGKILLs, ${receiver.received.length} requests received, ${duplicates} duplicates`);
  });
});
