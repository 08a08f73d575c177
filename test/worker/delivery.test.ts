import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventData } from '../../src/core/webhooks/events.js';
import { RETRY_DELAYS_MS } from '../../src/core/webhooks/retry-policy.js';
import { signPayload } from '../../src/core/webhooks/signing.js';
import { appendEvent } from '../../src/store/pg/outbox.js';
import { PgWebhookStore } from '../../src/store/pg/webhook-store.js';
import { DELIVERY_TIMEOUT_MS, HttpTransport } from '../../src/worker/transport.js';
import { call, createTestApp, expectStatus, ManualClock, type TestApp } from '../helpers/app.js';
import { createTestWorker, Receiver, type TestWorker } from '../helpers/webhooks.js';

// Starts at the real time: standardwebhooks' verify checks the timestamp against Date.now().
const clock = new ManualClock(Date.now());
let t: TestApp;
const receivers: Receiver[] = [];
const workers: TestWorker[] = [];

beforeAll(async () => {
  t = await createTestApp({ clock, webhooks: { allowPrivate: true } });
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.close()));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(async () => t.close());

async function receiver(respond?: Parameters<typeof Receiver.start>[0]): Promise<Receiver> {
  const r = await Receiver.start(respond);
  receivers.push(r);
  return r;
}

function worker(options: Partial<Parameters<typeof createTestWorker>[1]> = {}): TestWorker {
  const w = createTestWorker(t.db, { clock, allowPrivate: true, ...options });
  workers.push(w);
  return w;
}

/** A fresh account (so other tests' endpoints stay out) with one webhook; returns its key, id and secret. */
async function subscribe(url: string, events: string[] = ['click']): Promise<{ accountId: string; key: string; id: string; secret: string }> {
  const acct = await t.core.accounts.create(`acct ${Math.random()}`);
  const res = await call(t.app, acct.firstKey.key, 'POST', '/v1/webhooks', { url, events });
  expectStatus(res, 201);
  return { accountId: acct.account.id, key: acct.firstKey.key, id: res.json().id, secret: res.json().secret };
}

const uuid = () => crypto.randomUUID();
const clickData = () => eventData.click({ clickId: uuid(), impressionId: uuid(), productId: uuid(), requestId: uuid() });

async function emit(accountId: string, n = 1, type: 'click' | 'search' = 'click'): Promise<string[]> {
  const ids: string[] = [];
  await t.db.transaction(async (tx) => {
    for (let i = 0; i < n; i++) {
      const data = type === 'click' ? clickData() : eventData.search({ requestId: uuid(), sessionId: uuid(), query: 'q', productIds: [uuid()] });
      ids.push((await appendEvent(tx, { accountId, type, data, createdAt: clock.now() })).eventId);
    }
  });
  return ids;
}

interface DeliveryRow {
  id: string;
  status: string;
  attempt_count: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  last_response_body: string | null;
}
const deliveriesOf = (endpointId: string) =>
  t.db.query<DeliveryRow>(
    'SELECT id, status, attempt_count, next_attempt_at, last_status_code, last_error, last_response_body FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at, id',
    [endpointId],
  );

describe('signing', () => {
  it("produces deliveries that standardwebhooks' own verifier accepts, and rejects when a byte or the timestamp changes", async () => {
    const r = await receiver();
    const sub = await subscribe(r.url(), ['click', 'search']);
    const ids = [...(await emit(sub.accountId, 10, 'click')), ...(await emit(sub.accountId, 10, 'search'))];
    expect(await worker().worker.drain()).toBe(20);
    expect(r.received).toHaveLength(20);
    const wh = new Webhook(sub.secret);
    for (const got of r.received) {
      const envelope = wh.verify(got.body, got.headers) as { id: string; type: string; created_at: string; data: Record<string, string> };
      expect(got.headers['webhook-id']).toBe(envelope.id);
      expect(got.headers['content-type']).toBe('application/json');
      expect(Object.keys(envelope)).toEqual(['livemode', 'id', 'type', 'created_at', 'data']);
      expect(envelope).toMatchObject({ livemode: true });
      if (envelope.type === 'click') expect(envelope.data.click_id).toMatch(/^clk_/);
      else expect(envelope.data.request_id).toMatch(/^req_/);

      const flipped = got.body.replace(/"type":"(\w)/, (_m, c: string) => `"type":"${c === 'x' ? 'y' : 'x'}`);
      expect(() => wh.verify(flipped, got.headers)).toThrow();
      for (const offset of [-360, 360]) {
        const ts = Number(got.headers['webhook-timestamp']) + offset;
        expect(() => wh.verify(got.body, { ...got.headers, 'webhook-timestamp': String(ts) })).toThrow();
        // Even correctly signed, a timestamp 6 minutes off is refused.
        const resigned = signPayload(got.headers['webhook-id']!, new Date(ts * 1000), got.body, [sub.secret]);
        expect(() => wh.verify(got.body, resigned)).toThrow(/timestamp too (old|new)/);
      }
    }
    expect(new Set(r.received.map((x) => x.headers['webhook-id']))).toEqual(new Set(ids.map((id) => `evt_${id}`)));
    expect((await deliveriesOf(sub.id)).map((d) => [d.status, d.attempt_count])).toEqual(ids.map(() => ['succeeded', 1]));
  });

  it('signs with both secrets for 24 h after a rotation, then with the new one only', async () => {
    const r = await receiver();
    const sub = await subscribe(r.url());
    const rotated = (await call(t.app, sub.key, 'POST', `/v1/webhooks/${sub.id}/rotate-secret`)).json();
    await emit(sub.accountId);
    await worker().worker.drain();
    const during = r.received[0]!;
    expect(during.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(sub.secret).verify(during.body, during.headers)).toBeTruthy();
    expect(new Webhook(rotated.secret).verify(during.body, during.headers)).toBeTruthy();

    clock.advance(24 * 3600_000 + 1000);
    try {
      await emit(sub.accountId);
      await worker().worker.drain();
      const after = r.received[1]!;
      // The clock is now a day ahead of Date.now(), so compare with the library's signature directly.
      const at = new Date(Number(after.headers['webhook-timestamp']) * 1000);
      const id = after.headers['webhook-id']!;
      expect(after.headers['webhook-signature']).toBe(new Webhook(rotated.secret).sign(id, at, after.body));
      expect(after.headers['webhook-signature']).not.toContain(new Webhook(sub.secret).sign(id, at, after.body).slice(3));
    } finally {
      clock.advance(-(24 * 3600_000 + 1000));
    }
  });
});

describe('retry schedule', () => {
  it('retries a 500 receiver at 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (±20 %), then fails; same webhook-id throughout', async () => {
    const r = await receiver((_req, res) => void res.writeHead(500).end('x'.repeat(5000)));
    const sub = await subscribe(r.url());
    const start = clock.now().getTime();
    await emit(sub.accountId);
    // Jitter draws from a fixed sequence covering both ends of the ±20 % band.
    const draws = [0, 0.999, 0.5, 0.1, 0.9, 0.3, 0.7];
    let i = 0;
    const w = worker({ random: () => draws[i++ % draws.length]! });
    try {
      expect(await w.worker.drain()).toBe(1);
      for (const [n, base] of RETRY_DELAYS_MS.entries()) {
        const [d] = await deliveriesOf(sub.id);
        expect(d).toMatchObject({ status: 'pending', attempt_count: n + 1, last_status_code: 500 });
        expect(d!.last_response_body).toHaveLength(2048);
        const gap = d!.next_attempt_at!.getTime() - clock.now().getTime();
        expect(gap).toBeGreaterThanOrEqual(base * 0.8);
        expect(gap).toBeLessThanOrEqual(base * 1.2);
        expect(gap).toBeCloseTo(base * (0.8 + 0.4 * draws[n]!), -1);
        clock.advance(gap - 1);
        expect(await w.worker.drain()).toBe(0);
        clock.advance(1);
        expect(await w.worker.drain()).toBe(1);
      }
      const [done] = await deliveriesOf(sub.id);
      expect(done).toMatchObject({ status: 'failed', attempt_count: 8, next_attempt_at: null });
      expect(r.received).toHaveLength(8);
      expect(new Set(r.received.map((x) => x.headers['webhook-id'])).size).toBe(1);
      const attempts = await t.db.query<{ attempt: number; status_code: number }>(
        'SELECT attempt, status_code FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt',
        [done!.id],
      );
      expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);

      // A manual retry of a failed delivery sends it once more, same event, same webhook-id.
      expectStatus(await call(t.app, sub.key, 'POST', `/v1/webhooks/${sub.id}/deliveries/${done!.id}/retry`), 202);
      r.respond = (_req, res) => void res.end('ok');
      expect(await w.worker.drain()).toBe(1);
      expect((await deliveriesOf(sub.id))[0]).toMatchObject({ status: 'succeeded', attempt_count: 9 });
      expect(r.received[8]!.headers['webhook-id']).toBe(r.received[0]!.headers['webhook-id']);
    } finally {
      clock.advance(start - clock.now().getTime());
    }
  });

  it.each([
    ['1', 5_000],
    ['7', 7_000],
    ['3600', 10_000],
  ])('honours Retry-After %s within [base, 2×base]', async (retryAfter, expected) => {
    const r = await receiver((_req, res) => void res.writeHead(429, { 'retry-after': retryAfter }).end());
    const sub = await subscribe(r.url());
    await emit(sub.accountId);
    await worker().worker.drain();
    const [d] = await deliveriesOf(sub.id);
    expect(d!.next_attempt_at!.getTime() - clock.now().getTime()).toBe(expected);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const r = await receiver((_req, res) => void res.writeHead(503, { 'retry-after': new Date(clock.now().getTime() + 8_000).toUTCString() }).end());
    const sub = await subscribe(r.url());
    await emit(sub.accountId);
    await worker().worker.drain();
    const gap = (await deliveriesOf(sub.id))[0]!.next_attempt_at!.getTime() - clock.now().getTime();
    expect(gap).toBeGreaterThan(7_000);
    expect(gap).toBeLessThanOrEqual(8_000);
  });
});

describe('transport', () => {
  it('does not follow a 308: the Location target is never contacted', async () => {
    const target = await receiver();
    const r = await receiver((_req, res) => void res.writeHead(308, { location: target.url('/stolen') }).end());
    const sub = await subscribe(r.url());
    await emit(sub.accountId);
    await worker().worker.drain();
    expect(r.received).toHaveLength(1);
    expect(target.connections).toBe(0);
    expect((await deliveriesOf(sub.id))[0]).toMatchObject({ status: 'pending', last_status_code: 308 });
  });

  it('times out a receiver that never answers while other endpoints keep flowing; 10 s is the default', async () => {
    expect(DELIVERY_TIMEOUT_MS).toBe(10_000);
    const defaults = new HttpTransport({ allowPrivate: false });
    expect(defaults.timeoutMs).toBe(10_000);
    await defaults.close();

    // Never answers. When the worker gives up on it (the connection closes), it notes how many of
    // the other endpoint's deliveries had arrived by then: the order of events, not a time budget.
    let fastArrivedBeforeGivingUp: number | null = null;
    const sleepy = await receiver((_req, res) => void res.on('close', () => (fastArrivedBeforeGivingUp ??= fast.received.length)));
    const fast = await receiver();
    const slow = await subscribe(sleepy.url());
    const quick = await subscribe(fast.url());
    await emit(slow.accountId);
    await emit(quick.accountId, 3);
    const timeoutMs = 1_000;
    const w = worker({ timeoutMs });
    const started = Date.now();
    await w.worker.drain();
    expect(sleepy.received).toHaveLength(1);
    expect(fast.received).toHaveLength(3);
    // The receiver hears of the closed connection a moment after the worker moved on.
    await vi.waitUntil(() => fastArrivedBeforeGivingUp !== null, { timeout: 10_000, interval: 10 });
    expect(fastArrivedBeforeGivingUp).toBe(3);
    // Never before the timeout (a slow machine only makes this longer).
    expect(Date.now() - started).toBeGreaterThanOrEqual(timeoutMs - 20);
    const [d] = await deliveriesOf(slow.id);
    expect(d).toMatchObject({ status: 'pending', attempt_count: 1, last_status_code: null });
    expect(d!.last_error).toMatch(/^timeout/);
  });

  it('records a refused connection as a failed attempt', async () => {
    const r = await receiver();
    const port = r.port;
    await r.close();
    receivers.splice(receivers.indexOf(r), 1);
    const sub = await subscribe(`http://127.0.0.1:${port}/gone`);
    await emit(sub.accountId);
    await worker().worker.drain();
    expect((await deliveriesOf(sub.id))[0]!.last_error).toMatch(/ECONNREFUSED/);
  });
});

describe('endpoint health', () => {
  it('disables an endpoint after 5 days of continuous failure; one success resets the run', async () => {
    const r = await receiver((_req, res) => void res.writeHead(500).end());
    const sub = await subscribe(r.url());
    const start = clock.now().getTime();
    const day = 24 * 3600_000;
    const w = worker();
    const status = async () => (await call(t.app, sub.key, 'GET', `/v1/webhooks/${sub.id}`)).json();
    try {
      for (let d = 0; d < 4; d++) {
        await emit(sub.accountId);
        await w.worker.drain();
        clock.advance(day);
      }
      expect(await status()).toMatchObject({ status: 'enabled', failing_since: new Date(start).toISOString() });
      r.respond = (_req, res) => void res.end('ok');
      await emit(sub.accountId);
      await w.worker.drain();
      expect((await status()).failing_since).toBeNull();

      r.respond = (_req, res) => void res.writeHead(500).end();
      const runStart = clock.now().getTime() + 1000;
      for (let d = 0; d <= 5; d++) {
        clock.advance(d === 0 ? 1000 : day);
        await emit(sub.accountId);
        await w.worker.drain();
        const s = await status();
        expect(s.status, `day ${d}`).toBe(clock.now().getTime() - runStart >= 5 * day ? 'disabled' : 'enabled');
      }
      expect(await status()).toMatchObject({ status: 'disabled', disabled_reason: 'failing' });
      // A disabled endpoint gets no new deliveries, and its queued ones are parked until it is re-enabled.
      const before = r.received.length;
      expect((await emit(sub.accountId)).length).toBe(1);
      const waiting = (await deliveriesOf(sub.id)).filter((d) => d.status === 'pending');
      expect(waiting.length).toBeGreaterThan(0);
      expect(waiting.every((d) => d.next_attempt_at === null)).toBe(true);
      clock.advance(day);
      expect(await w.worker.drain()).toBe(0);
      expect(r.received.length).toBe(before);

      r.respond = (_req, res) => void res.end('ok');
      expect((await call(t.app, sub.key, 'PATCH', `/v1/webhooks/${sub.id}`, { status: 'enabled' })).json()).toMatchObject({
        status: 'enabled',
        failing_since: null,
      });
      expect(await w.worker.drain()).toBe(waiting.length);
      expect((await deliveriesOf(sub.id)).filter((d) => d.status === 'pending')).toEqual([]);
    } finally {
      clock.advance(start - clock.now().getTime());
    }
  });
});

describe('leases', () => {
  it('lets another worker take over an expired lease; the first worker can no longer record', async () => {
    const r = await receiver();
    const sub = await subscribe(r.url());
    await emit(sub.accountId);
    const queue = new PgWebhookStore(t.db);
    const now = clock.now();
    const [stuck] = await queue.claim(now, 10, new Date(now.getTime() + 30_000));
    expect(stuck).toBeDefined();
    expect(await worker({ leaseMs: 30_000 }).worker.drain()).toBe(0);
    clock.advance(30_000);
    try {
      expect(await worker({ leaseMs: 30_000 }).worker.drain()).toBe(1);
      const late = await queue.complete(
        stuck!,
        { startedAt: now, ok: true, next: { status: 'succeeded' }, statusCode: 200, durationMs: 1, error: null, responseBody: '' },
        new Date(0),
      );
      expect(late).toBe(false);
      expect(r.received).toHaveLength(1);
      const attempts = await t.db.query('SELECT 1 FROM webhook_attempts WHERE delivery_id = $1', [stuck!.id]);
      expect(attempts).toHaveLength(1);
    } finally {
      clock.advance(-30_000);
    }
  });

  it('stops gracefully: deliveries in flight finish, none is left leased', async () => {
    // The receiver answers only once stop() has been called, so deliveries are in flight then.
    let stopCalled!: () => void;
    const stopping = new Promise<void>((resolve) => (stopCalled = resolve));
    const r = await receiver((_req, res) => void stopping.then(() => setTimeout(() => res.end('ok'), 50)));
    const sub = await subscribe(r.url());
    await emit(sub.accountId, 30);
    const w = worker({ concurrency: 4 });
    w.worker.start();
    await vi.waitUntil(() => r.received.length > 0, { timeout: 30_000, interval: 5 });
    const stopped = w.worker.stop();
    stopCalled();
    await stopped;
    const rows = await deliveriesOf(sub.id);
    expect(rows.filter((d) => d.status === 'delivering')).toEqual([]);
    expect(rows.filter((d) => d.status === 'succeeded').length).toBe(r.received.length);
    expect(rows.filter((d) => d.status === 'pending').length).toBe(30 - r.received.length);
  });
});
