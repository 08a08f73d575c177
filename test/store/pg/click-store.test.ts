import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewClick } from '../../../src/core/clicks/ports.js';
import { newId } from '../../../src/core/ids.js';
import { PgClickStore } from '../../../src/store/pg/click-store.js';
import { createPgStores } from '../../../src/store/pg/index.js';
import { call, createTestApp, expectStatus, type TestApp } from '../../helpers/app.js';
import { usingRealPostgres } from '../../helpers/db.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ webhooks: { allowPrivate: true } });
});
afterAll(async () => t.close());

interface Impression {
  impressionId: string;
  accountId: string;
  requestId: string;
  productId: string;
}

/** A new account with `n` impressions from one search, and optionally a click webhook. */
async function impressions(n: number, options: { webhook?: boolean } = {}): Promise<{ accountId: string; list: Impression[] }> {
  const a = await t.core.accounts.create(`clicks ${Math.random()}`);
  const accountId = a.account.id;
  if (options.webhook) expectStatus(await call(t.app, a.firstKey.key, 'POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/h', events: ['click'] }), 201);
  const requestId = newId();
  const shown = Array.from({ length: n }, (_, i) => ({ impressionId: newId(), productId: newId(), position: i + 1 }));
  await createPgStores(t.db).searches.recordSearch({
    requestId,
    accountId,
    keyId: newId(),
    sessionId: newId(),
    query: 'q',
    normalizedQuery: 'q',
    filters: {},
    totalMatches: n,
    tookMs: 1,
    createdAt: new Date(),
    impressions: shown,
    session: { queries: [], shownProductIds: [], clickedProductIds: [] },
  });
  return { accountId, list: shown.map((s) => ({ impressionId: s.impressionId, accountId, requestId, productId: s.productId })) };
}

const click = (i: Impression, billable = true): NewClick => ({
  id: newId(),
  ...i,
  keyId: null,
  source: 'link',
  billable,
  userAgentClass: billable ? 'browser' : 'bot',
  destinationUrl: `https://shop.example.com/p/${i.productId}`,
  clickedAt: new Date(),
});

const count = async (sql: string, params: unknown[]) => (await t.db.query<{ n: number }>(sql, params))[0]!.n;
const billableClicks = (accountId: string) => count('SELECT count(*)::int AS n FROM clicks WHERE account_id = $1 AND billable', [accountId]);
const deliveries = (accountId: string) => count('SELECT count(*)::int AS n FROM webhook_deliveries WHERE account_id = $1', [accountId]);

describe('PgClickStore.recordClick', () => {
  it('inserts exactly one of 1,000 concurrent duplicate clicks and hands every other caller that click', async () => {
    const store = new PgClickStore(t.db);
    const {
      accountId,
      list: [imp],
    } = await impressions(1, { webhook: true });
    const results = await Promise.all(Array.from({ length: 1000 }, () => store.recordClick(click(imp!))));
    const winners = results.filter((r) => r.inserted);
    expect(winners).toHaveLength(1);
    for (const r of results) expect(r.click).toEqual(winners[0]!.click);
    expect(await billableClicks(accountId)).toBe(1);
    expect(await deliveries(accountId)).toBe(1);
  });

  it('commits a group of concurrent clicks in a few statements, each with its event', async () => {
    const store = new PgClickStore(t.db);
    const { accountId, list } = await impressions(200, { webhook: true });
    const before = t.db.queryCount;
    const results = await Promise.all(list.map((i) => store.recordClick(click(i))));
    const statements = t.db.queryCount - before;
    expect(results.every((r) => r.inserted)).toBe(true);
    expect(results.map((r) => r.click.impressionId)).toEqual(list.map((i) => i.impressionId));
    expect(statements).toBeLessThanOrEqual(4);
    expect(await billableClicks(accountId)).toBe(200);
    expect(await deliveries(accountId)).toBe(200);
  });

  it('keeps one billable and one non-billable row per impression when both kinds race in one group', async () => {
    const store = new PgClickStore(t.db);
    const {
      accountId,
      list: [imp],
    } = await impressions(1, { webhook: true });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.recordClick(click(imp!, i % 2 === 0))));
    for (const billable of [true, false]) {
      const kind = results.filter((r) => r.click.billable === billable);
      expect(kind).toHaveLength(10);
      expect(kind.filter((r) => r.inserted)).toHaveLength(1);
      expect(new Set(kind.map((r) => r.click.id)).size).toBe(1);
    }
    expect(await count('SELECT count(*)::int AS n FROM clicks WHERE account_id = $1', [accountId])).toBe(2);
    expect(await deliveries(accountId)).toBe(1);
  });

  it('still commits the other clicks of a group when one of them fails', async () => {
    const store = new PgClickStore(t.db);
    const { accountId, list } = await impressions(5, { webhook: true });
    // No such impression: the row violates a constraint and fails the group's first attempt.
    const orphan = click({ ...list[0]!, impressionId: newId() });
    const results = await Promise.allSettled([...list.slice(0, 2), null, ...list.slice(2)].map((i) => store.recordClick(i ? click(i) : orphan)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/violates/);
    expect(await billableClicks(accountId)).toBe(5);
    expect(await deliveries(accountId)).toBe(5);
  });

  it.skipIf(!usingRealPostgres())('keeps one billable click per impression when two processes race on the same impressions (real PostgreSQL)', async () => {
    const stores = [new PgClickStore(t.db), new PgClickStore(await t.testDb.openAnother())];
    const { accountId, list } = await impressions(50, { webhook: true });
    // Each process walks the impressions in the other's reverse order, 10 clicks per impression.
    const results = await Promise.all(
      Array.from({ length: 1000 }, (_, n) => {
        const order = n % 2 === 0 ? list : [...list].reverse();
        return stores[n % 2]!.recordClick(click(order[Math.floor(n / 2) % list.length]!));
      }),
    );
    expect(results.filter((r) => r.inserted)).toHaveLength(50);
    const held = new Map(results.filter((r) => r.inserted).map((r) => [r.click.impressionId, r.click.id]));
    for (const r of results) expect(r.click.id).toBe(held.get(r.click.impressionId));
    expect(await billableClicks(accountId)).toBe(50);
    expect(await deliveries(accountId)).toBe(50);
  });
});

describe('PgClickStore.findImpression', () => {
  it('answers concurrent lookups in one statement, each with its own impression and existing click', async () => {
    const store = new PgClickStore(t.db);
    const { list } = await impressions(3);
    const clicked = await store.recordClick(click(list[0]!));
    const unknown = newId();
    const before = t.db.queryCount;
    const [billable, nonBillable, unclicked, missing] = await Promise.all([
      store.findImpression(list[0]!.impressionId, true),
      store.findImpression(list[0]!.impressionId, false),
      store.findImpression(list[1]!.impressionId, true),
      store.findImpression(unknown, true),
    ]);
    expect(t.db.queryCount - before).toBe(1);
    expect(billable).toMatchObject({ id: list[0]!.impressionId, accountId: list[0]!.accountId, requestId: list[0]!.requestId, productId: list[0]!.productId });
    expect(billable!.existingClick).toEqual(clicked.click);
    expect(nonBillable).toMatchObject({ id: list[0]!.impressionId, existingClick: null });
    expect(unclicked).toMatchObject({ id: list[1]!.impressionId, existingClick: null });
    expect(missing).toBeNull();
  });
});
