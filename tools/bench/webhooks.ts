/**
 * Webhook delivery from one worker to a healthy local receiver:
 *   1. throughput: a backlog of N events drained by one DeliveryWorker → deliveries/s;
 *   2. latency: events committed one per transaction at a steady rate while the worker runs →
 *      p50/p99 from commit to receipt (dominated by the poll interval when the queue is idle).
 * Both ends run in this process, so the two timestamps share one clock.
 *
 *   npm run bench:webhooks -- [--events 5000] [--concurrency 32] [--rate 200] [--seconds 5] [--poll 100]
 *   DATABASE_URL=postgres://... npm run bench:webhooks      # Postgres instead of PGlite
 */
// First, so that the command line is checked before anything else loads (webhooks.command.ts).

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../src/config.js';
import { systemClock } from '../../src/core/clock.js';
import { newId } from '../../src/core/ids.js';
import { createCore } from '../../src/core/index.js';
import { eventData } from '../../src/core/webhooks/events.js';
import { createLogger } from '../../src/logger.js';
import { systemResolver } from '../../src/outbound/dns.js';
import { appendEvent, createPgStores, type Db, migrate, openDb, PgWebhookStore } from '../../src/store/pg/index.js';
import { DeliveryWorker } from '../../src/worker/delivery-worker.js';
import { HttpTransport } from '../../src/worker/transport.js';
import { formatTable, round } from './lib.js';
import { cli } from './webhooks.command.js';

const EVENTS = cli.number('events', { integer: true, positive: true, default: 5000 });
const CONCURRENCY = cli.number('concurrency', { integer: true, positive: true, default: 32 });
const RATE = cli.number('rate', { positive: true, default: 200 });
const SECONDS = cli.number('seconds', { positive: true, default: 5 });
const POLL_MS = cli.number('poll', { integer: true, positive: true, default: 100 });

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const { databaseUrl } = loadConfig();
  const dataDir = databaseUrl ? null : await mkdtemp(join(tmpdir(), 'aisle-bench-wh-'));
  const db: Db = await openDb(databaseUrl ? { kind: 'postgres', url: databaseUrl, poolSize: 20 } : { kind: 'pglite', dataDir: dataDir! });
  await migrate(db);
  const logger = createLogger('warn');
  const core = createCore({
    stores: createPgStores(db),
    clock: systemClock,
    logger,
    defaultRateLimitPerMinute: 600,
    webhooks: { allowPrivate: true, resolver: systemResolver },
  });

  const receivedAt = new Map<string, number>();
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = req.headers['webhook-id'];
      if (typeof id === 'string' && !receivedAt.has(id)) receivedAt.set(id, performance.now());
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const { account, firstKey } = await core.accounts.create('webhook bench');
  await core.webhooks.create(
    { accountId: account.id, keyId: firstKey.metadata.id, scopes: ['webhooks:manage'], rateLimitPerMinute: 600 },
    { url, events: ['click'] },
  );
  const emit = (tx: Parameters<typeof appendEvent>[0]) =>
    appendEvent(tx, {
      accountId: account.id,
      type: 'click',
      createdAt: new Date(),
      data: eventData.click({ clickId: newId(), impressionId: newId(), productId: newId(), requestId: newId() }),
    });

  const transport = new HttpTransport({ allowPrivate: true });
  const worker = new DeliveryWorker({
    queue: new PgWebhookStore(db),
    transport,
    clock: systemClock,
    logger,
    concurrency: CONCURRENCY,
    leaseMs: 60_000,
    pollMs: POLL_MS,
  });

  // 1. Throughput: drain a backlog.
  for (let done = 0; done < EVENTS; done += 100) {
    await db.transaction(async (tx) => {
      for (let i = 0; i < Math.min(100, EVENTS - done); i++) await emit(tx);
    });
  }
  const t0 = performance.now();
  worker.start();
  while (receivedAt.size < EVENTS) await sleep(5);
  const drainSeconds = (performance.now() - t0) / 1000;

  // 2. Latency: one event per transaction at a steady rate.
  const committedAt = new Map<string, number>();
  const total = Math.round(RATE * SECONDS);
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const { eventId } = await db.transaction(emit);
    committedAt.set(`evt_${eventId}`, performance.now());
    const due = started + ((i + 1) * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
  }
  const deadline = performance.now() + 30_000;
  while ([...committedAt.keys()].some((id) => !receivedAt.has(id)) && performance.now() < deadline) await sleep(10);
  const latencies = [...committedAt]
    .map(([id, at]) => (receivedAt.get(id) ?? NaN) - at)
    .filter(Number.isFinite)
    .sort((a, b) => a - b);

  await worker.stop();
  await transport.close();
  receiver.close();
  await db.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });

  process.stdout.write(`Webhook delivery, one worker (concurrency ${CONCURRENCY}, poll ${POLL_MS} ms), ${db.kind}\n`);
  process.stdout.write(
    `${formatTable(
      ['measure', 'value'],
      [
        ['backlog drained', `${EVENTS} deliveries in ${round(drainSeconds, 2)} s`],
        ['deliveries/s', String(round(EVENTS / drainSeconds, 0))],
        ['steady stream', `${total} events at ${RATE}/s, ${latencies.length} received`],
        ['commit→receipt p50 ms', String(round(percentile(latencies, 50), 1))],
        ['commit→receipt p99 ms', String(round(percentile(latencies, 99), 1))],
        ['commit→receipt max ms', String(round(latencies.at(-1) ?? NaN, 1))],
      ],
    )}\n`,
  );
}

await cli.run(main);
