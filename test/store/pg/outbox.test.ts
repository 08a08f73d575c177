import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/core/ids.js';
import type { RecordedSearch } from '../../../src/core/search/ports.js';
import { eventData } from '../../../src/core/webhooks/events.js';
import { appendEvent, appendEventClause, shiftParams } from '../../../src/store/pg/outbox.js';
import { PgSearchStore } from '../../../src/store/pg/search-store.js';
import { call, createTestApp, expectStatus, type TestApp } from '../../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ webhooks: { allowPrivate: true } });
});
afterAll(async () => t.close());

async function account(): Promise<{ id: string; key: string }> {
  const a = await t.core.accounts.create(`outbox ${Math.random()}`);
  return { id: a.account.id, key: a.firstKey.key };
}

async function hook(key: string, events: string[], status?: 'disabled'): Promise<string> {
  const res = await call(t.app, key, 'POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/h', events });
  expectStatus(res, 201);
  if (status) expectStatus(await call(t.app, key, 'PATCH', `/v1/webhooks/${res.json().id}`, { status }), 200);
  return res.json().id;
}

const count = async (sql: string, params: unknown[]) => (await t.db.query<{ n: number }>(sql, params))[0]!.n;
const eventsOf = (accountId: string) => count('SELECT count(*)::int AS n FROM webhook_events WHERE account_id = $1', [accountId]);
const deliveriesOf = (accountId: string) => count('SELECT count(*)::int AS n FROM webhook_deliveries WHERE account_id = $1', [accountId]);
const click = () => eventData.click({ clickId: newId(), impressionId: newId(), productId: newId(), requestId: newId() });

function search(accountId: string, requestId = newId()): RecordedSearch {
  const productIds = [newId(), newId()];
  return {
    requestId,
    accountId,
    keyId: newId(),
    sessionId: newId(),
    query: 'trail shoes for [EMAIL]',
    normalizedQuery: 'trail shoes for [email]',
    filters: {},
    totalMatches: 2,
    tookMs: 3,
    createdAt: new Date('2026-11-22T10:00:00.000Z'),
    impressions: productIds.map((productId, i) => ({ impressionId: newId(), productId, position: i + 1 })),
    session: { queries: [], shownProductIds: [], clickedProductIds: [] },
  };
}

describe('appendEvent (transactional outbox)', () => {
  it('queues one delivery per enabled endpoint of the account subscribed to the type', async () => {
    const a = await account();
    const b = await account();
    const clicksA = await hook(a.key, ['click']);
    await hook(a.key, ['click', 'search']);
    await hook(a.key, ['search']);
    await hook(a.key, ['click'], 'disabled');
    await hook(b.key, ['click']);
    const result = await t.db.transaction((tx) => appendEvent(tx, { accountId: a.id, type: 'click', data: click(), createdAt: new Date() }));
    expect(result.deliveries).toBe(2);
    expect(await deliveriesOf(a.id)).toBe(2);
    expect(await deliveriesOf(b.id)).toBe(0);
    const [row] = await t.db.query<{ payload: string }>('SELECT payload FROM webhook_events WHERE id = $1', [result.eventId]);
    expect(JSON.parse(row!.payload)).toMatchObject({ id: `evt_${result.eventId}`, type: 'click', data: { click_id: expect.stringMatching(/^clk_/) } });
    expect((await call(t.app, a.key, 'GET', `/v1/webhooks/${clicksA}/deliveries`)).json().data).toHaveLength(1);
  });

  it('writes nothing when no endpoint subscribes', async () => {
    const a = await account();
    await hook(a.key, ['feedback']);
    const result = await t.db.transaction((tx) => appendEvent(tx, { accountId: a.id, type: 'click', data: click(), createdAt: new Date() }));
    expect(result.deliveries).toBe(0);
    expect(await eventsOf(a.id)).toBe(0);
  });

  it('leaves zero events and zero deliveries when the transaction rolls back', async () => {
    const a = await account();
    await hook(a.key, ['click']);
    await hook(a.key, ['click']);
    for (let i = 0; i < 20; i++) {
      await expect(
        t.db.transaction(async (tx) => {
          await appendEvent(tx, { accountId: a.id, type: 'click', data: click(), createdAt: new Date() });
          throw new Error('the click insert failed');
        }),
      ).rejects.toThrow('the click insert failed');
    }
    expect(await eventsOf(a.id)).toBe(0);
    expect(await deliveriesOf(a.id)).toBe(0);
  });
});

describe('appendEventClause', () => {
  it('renumbers placeholders of any number of digits', () => {
    expect(shiftParams('SELECT $1, $10, $2, $123', 20)).toBe('SELECT $21, $30, $22, $143');
  });

  it('runs as the tail of a statement with a dozen parameters of its own', async () => {
    const a = await account();
    await hook(a.key, ['click']);
    const own = Array.from({ length: 12 }, (_, i) => i + 1);
    const clause = appendEventClause(13, { accountId: a.id, type: 'click', data: click(), createdAt: new Date('2026-11-22T10:00:00.000Z') });
    const mine = `SELECT ${own.map((n) => `$${n}::int`).join(' + ')} AS total`;
    const rows = await t.db.query<{ total: number }>(`WITH mine AS (${mine}), ${clause.ctes} ${clause.final} RETURNING (SELECT total FROM mine)`, [
      ...own,
      ...clause.params,
    ]);
    expect(rows.map((r) => r.total)).toEqual([78]);
    expect(await eventsOf(a.id)).toBe(1);
  });
});

describe('PgSearchStore.recordSearch', () => {
  it('writes the search event in the same transaction, with the contract payload and prefixed ids', async () => {
    const a = await account();
    const id = await hook(a.key, ['search']);
    const store = new PgSearchStore(t.db);
    const s = search(a.id);
    await store.recordSearch(s);
    const deliveries = (await call(t.app, a.key, 'GET', `/v1/webhooks/${id}/deliveries`)).json().data;
    expect(deliveries).toHaveLength(1);
    const [row] = await t.db.query<{ payload: string }>('SELECT payload FROM webhook_events WHERE id = $1', [deliveries[0].event_id.slice(4)]);
    expect(JSON.parse(row!.payload)).toEqual({
      livemode: true,
      id: deliveries[0].event_id,
      type: 'search',
      created_at: '2026-11-22T10:00:00.000Z',
      data: {
        request_id: `req_${s.requestId}`,
        session_id: s.sessionId,
        query: 'trail shoes for [EMAIL]',
        result_count: 2,
        product_ids: s.impressions.map((i) => `prd_${i.productId}`),
      },
    });

    // A search whose transaction fails (same request id again) leaves no event behind.
    await expect(store.recordSearch({ ...s, impressions: [] })).rejects.toThrow();
    expect(await eventsOf(a.id)).toBe(1);
    expect(await deliveriesOf(a.id)).toBe(1);
  });
});
