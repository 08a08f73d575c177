import { describe, expect, it } from 'vitest';
import { createTestDb, idlePgliteCount, usingRealPostgres } from './db.js';

// The PGlite databases tests share one after another (helpers/db.ts): each must look fresh.
describe.skipIf(usingRealPostgres())('test databases on PGlite', () => {
  it('hands a database back empty, sequences restarted, for the next test to reuse', async () => {
    const first = await createTestDb();
    await first.db.query('SELECT 1');
    const used = first.db.queryCount;
    await first.db.query(
      `INSERT INTO ranking_decisions (scope, action, model_id, actor, evidence, created_at) VALUES ('s', 'promote', 'm', 'test', '{}', now())`,
    );
    await first.db.query("SET TIME ZONE 'Pacific/Auckland'");
    const idle = idlePgliteCount();
    await first.cleanup();
    expect(idlePgliteCount()).toBe(idle + 1);
    // What outlives its test fails, as on a closed database, rather than writing into the next test's.
    await expect(first.db.query('SELECT 1')).rejects.toThrow(/given back/);
    const second = await createTestDb();
    try {
      // The same PGlite underneath (a fresh one would have counted a handful of statements, not these).
      expect(second.db.queryCount).toBeGreaterThan(used);
      expect(await second.db.query('SELECT count(*)::int AS n FROM ranking_decisions')).toEqual([{ n: 0 }]);
      const [row] = await second.db.query<{ id: number }>(
        `INSERT INTO ranking_decisions (scope, action, model_id, actor, evidence, created_at) VALUES ('s', 'promote', 'm', 'test', '{}', now()) RETURNING id`,
      );
      expect(Number(row!.id)).toBe(1);
      expect(await second.db.query('SHOW TIME ZONE')).not.toEqual([{ TimeZone: 'Pacific/Auckland' }]);
    } finally {
      await second.cleanup();
    }
  });

  it('closes a database whose schema a test changed instead of handing it to the next test', async () => {
    const changed = await createTestDb();
    await changed.db.query('CREATE TABLE left_by_a_test (id int)');
    const idle = idlePgliteCount();
    await changed.cleanup();
    expect(idlePgliteCount()).toBe(idle);
    const next = await createTestDb();
    try {
      expect(await next.db.query("SELECT to_regclass('left_by_a_test') AS t")).toEqual([{ t: null }]);
    } finally {
      await next.cleanup();
    }
  });
});
