import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgStores } from '../../../src/store/pg/index.js';
import { call, createTestApp, expectStatus, ManualClock, type TestApp } from '../../helpers/app.js';
import { openSampleCatalog, type SampleCatalog } from '../../helpers/search.js';

/**
 * A search's two reads beside its retrieval (the account's feedback version, its query's earlier
 * events) through the stores as the core calls them, on rows written by real searches, clicks and
 * votes: one statement for both, each answer as the rows say.
 */
describe('the feedback version and the query events a search reads (src/store/pg/search-reads.ts)', () => {
  const clock = new ManualClock('2026-11-26T08:00:00.000Z');
  const since = new Date('2026-11-01T00:00:00.000Z');
  let sample: SampleCatalog;
  let t: TestApp;
  const searches: { requestId: string; impressions: { impression_id: string; product_id: string }[] }[] = [];

  beforeAll(async () => {
    sample = await openSampleCatalog();
    t = await createTestApp({ search: sample, clock });
    for (const query of ['camping tent', 'camping tent', 'wool socks']) {
      const res = await call(t.app, t.adminKey, 'POST', '/v1/search', { query, limit: 3, min_relevance_score: 0 });
      expectStatus(res, 200);
      searches.push({ requestId: res.json().request_id, impressions: res.json().results });
      clock.advance(1_000);
    }
  });
  afterAll(async () => {
    await t?.close();
    await sample?.close();
  });

  it('answers both in one statement when they are asked for together, each with its own rows', async () => {
    const [first, second] = searches as [(typeof searches)[0], (typeof searches)[0]];
    expect(first.impressions).toHaveLength(3);
    expect(second.impressions).toHaveLength(3);
    const clicked = second.impressions[1]!;
    expectStatus(await call(t.app, t.adminKey, 'POST', `/v1/clicks/${clicked.impression_id}`), 201);
    const stores = createPgStores(t.db);

    const before = t.db.queryCount;
    const [versionBefore, tents, newestTent, nothing] = await Promise.all([
      stores.feedback.version(t.accountId),
      stores.learning.queryEvents(t.accountId, 'camping tent', since, 500),
      stores.learning.queryEvents(t.accountId, 'camping tent', since, 1),
      stores.learning.queryEvents(t.accountId, 'no such query', since, 500),
    ]);
    expect(t.db.queryCount - before).toBe(1);
    expect(versionBefore).toBe('0:0');
    // Every impression of the query's two searches, the clicked one marked; the limit counts searches, newest first.
    const shown = (s: typeof first) => s.impressions.map((r, i) => ({ productId: r.product_id, position: i + 1, clicked: r === clicked }));
    // The same products at the same places in both searches: ordered by place, then click.
    const byPosition = (a: { position: number; clicked: boolean }, b: { position: number; clicked: boolean }) =>
      a.position - b.position || Number(a.clicked) - Number(b.clicked);
    const without = (events: { sessionId: string; productId: string; position: number; clicked: boolean; converted: boolean }[]) =>
      events.map(({ productId, position, clicked: c }) => ({ productId, position, clicked: c }));
    expect(without(tents).sort(byPosition)).toEqual([...shown(first), ...shown(second)].sort(byPosition));
    expect(tents.every((e) => e.converted === false)).toBe(true);
    expect(without(newestTent).sort(byPosition)).toEqual(shown(second));
    expect(nothing).toEqual([]);

    // A vote changes the version: the newest vote's time and how many share it.
    expectStatus(
      await call(t.app, t.adminKey, 'POST', '/v1/feedback', { request_id: first.requestId, product_id: first.impressions[0]!.product_id, relevant: false }),
      201,
    );
    expect(await stores.feedback.version(t.accountId)).toBe(`1:${clock.now().getTime()}`);
  });

  it('lets a search send four statements: its key, its rate limit, these reads and its record', async () => {
    // One search first: the vote above makes the next search read the account's votes once.
    expectStatus(await call(t.app, t.adminKey, 'POST', '/v1/search', { query: 'camping tent', limit: 3 }), 200);
    // The request log is written in batches on a timer: flushed first, so it cannot land inside.
    await t.core.requestLog.flush();
    const before = t.db.queryCount;
    expectStatus(await call(t.app, t.adminKey, 'POST', '/v1/search', { query: 'camping tent', limit: 3 }), 200);
    expect(t.db.queryCount - before).toBe(4);
  });
});
