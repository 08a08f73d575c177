import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PgFeedbackStore } from '../../../src/store/pg/feedback-store.js';
import { createTestDb } from '../../helpers/db.js';

describe('PgFeedbackStore.votes', () => {
  it('answers every vote with a vector of the model, newest first (ties by id), up to the limit, from `since` on', async () => {
    const { db, cleanup } = await createTestDb();
    try {
      const store = new PgFeedbackStore(db);
      const accountId = randomUUID();
      const otherAccount = randomUUID();
      for (const id of [accountId, otherAccount]) await db.query(`INSERT INTO accounts (id, name, created_at) VALUES ($1, $2, now())`, [id, `account ${id}`]);
      const requestId = randomUUID();
      await db.query(
        `INSERT INTO search_requests (id, account_id, key_id, session_id, query, normalized_query, result_count, total_matches, took_ms, created_at)
         VALUES ($1, $2, $2, $1, 'q', 'q', 1, 1, 1, now())`,
        [requestId, accountId],
      );
      const base = Date.parse('2026-04-01T00:00:00Z');
      const product = randomUUID();
      const inserted: { id: string; at: number; relevant: boolean; vector: Float32Array }[] = [];
      const add = async (seconds: number, opts: { model?: string | null; account?: string; relevant?: boolean } = {}) => {
        const id = randomUUID();
        const vector = Float32Array.from({ length: 4 }, (_, i) => seconds + i / 10);
        const model = opts.model === undefined ? 'm' : opts.model;
        await store.insert({
          id,
          accountId: opts.account ?? accountId,
          keyId: accountId,
          requestId,
          productId: product,
          relevant: opts.relevant ?? false,
          reason: null,
          userClicked: null,
          query: 'q',
          model,
          queryVector: model === null ? null : vector,
          createdAt: new Date(base + seconds * 1000),
        });
        if (model === 'm' && (opts.account ?? accountId) === accountId)
          inserted.push({ id, at: base + seconds * 1000, relevant: opts.relevant ?? false, vector });
      };
      // The same search and product voted four times (two at the same instant), plus rows that must not come back.
      await add(1);
      await add(2, { relevant: true });
      await add(2);
      await add(3);
      await add(4, { model: 'another model' });
      await add(5, { model: null });
      await add(6, { account: otherAccount });

      const expected = inserted.sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1));
      const all = await store.votes(accountId, 'm', 10);
      expect(all.map((v) => v.id)).toEqual(expected.map((v) => v.id));
      expect(all[0]).toEqual({
        id: expected[0]!.id,
        requestId,
        productId: product,
        relevant: false,
        queryVector: expected[0]!.vector,
        createdAt: new Date(expected[0]!.at),
      });
      expect(all.map((v) => v.relevant)).toEqual(expected.map((v) => v.relevant));
      expect((await store.votes(accountId, 'm', 2)).map((v) => v.id)).toEqual(expected.slice(0, 2).map((v) => v.id));
      expect((await store.votes(accountId, 'm', 10, new Date(base + 2000))).map((v) => v.id)).toEqual(expected.slice(0, 3).map((v) => v.id));
      expect(await store.votes(accountId, 'm', 10, new Date(base + 3001))).toEqual([]);
    } finally {
      await cleanup();
    }
  });
});
