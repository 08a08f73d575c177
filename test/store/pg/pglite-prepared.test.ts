import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDb } from '../../../src/store/pg/index.js';

// One database for the file (each open is an initdb): every test works on tables of its own.
let db: Db;
beforeAll(async () => {
  db = await openDb({ kind: 'pglite-memory' });
});
afterAll(async () => db.close());

// PGlite only: prepared statements are how PgliteDb runs every query, in a transaction or not.
describe('PGlite prepared statements', () => {
  it('types parameters and results as PGlite does, and sees tables change under a prepared statement', async () => {
    await db.exec('CREATE TABLE t (id int PRIMARY KEY, at timestamptz, tags text[], doc jsonb, n float8)');
    const insert = 'INSERT INTO t VALUES ($1, $2, $3, $4, $5) RETURNING *';
    const at = new Date('2026-01-02T03:04:05.678Z');
    for (let i = 0; i < 3; i++) {
      const [row] = await db.query<{ id: number; at: Date; tags: string[]; doc: unknown; n: number }>(insert, [
        i,
        at,
        ['a', `b${i}`],
        JSON.stringify({ i }),
        0.1 + i,
      ]);
      expect(row).toEqual({ id: i, at, tags: ['a', `b${i}`], doc: { i }, n: 0.1 + i });
    }
    expect(await db.query('SELECT id FROM t WHERE at IS NULL OR id = $1', [null])).toEqual([]);
    // A renamed table is looked up again: the statement fails rather than reading the old one.
    await db.exec('ALTER TABLE t RENAME TO t_gone');
    await expect(db.query('SELECT count(*)::int AS n FROM t')).rejects.toMatchObject({ code: '42P01' });
    await db.exec('ALTER TABLE t_gone RENAME TO t');
    expect(await db.query('SELECT count(*)::int AS n FROM t')).toEqual([{ n: 3 }]);
    // A column added under a prepared SELECT * is re-prepared, not an error.
    const all = 'SELECT * FROM t WHERE id = $1';
    expect(Object.keys((await db.query<Record<string, unknown>>(all, [1]))[0]!)).toHaveLength(5);
    await db.exec('ALTER TABLE t ADD COLUMN extra text');
    expect(Object.keys((await db.query<Record<string, unknown>>(all, [1]))[0]!)).toHaveLength(6);
  });

  it('fails a statement cleanly and keeps serving, including constraint errors with their codes', async () => {
    await db.exec('CREATE TABLE u (id int PRIMARY KEY)');
    await db.query('INSERT INTO u VALUES ($1)', [1]);
    await expect(db.query('INSERT INTO u VALUES ($1)', [1])).rejects.toMatchObject({ code: '23505' });
    await expect(db.query('SELECT $1::int', ['not a number'])).rejects.toMatchObject({ code: '22P02' });
    expect(await db.query('SELECT count(*)::int AS n FROM u')).toEqual([{ n: 1 }]);
  });

  it('never runs a statement inside another caller’s open transaction', async () => {
    await db.exec('CREATE TABLE v (id int)');
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const tx = db.transaction(async (t) => {
      await t.query('INSERT INTO v VALUES (1)');
      await held;
      throw new Error('roll back');
    });
    // Issued while the transaction is open: must wait for it, then see its rollback.
    const outside = db.query<{ n: number }>('SELECT count(*)::int AS n FROM v');
    await new Promise((r) => setTimeout(r, 20));
    release();
    await expect(tx).rejects.toThrow('roll back');
    expect(await outside).toEqual([{ n: 0 }]);
  });

  it('runs a transaction’s statements prepared: they see DDL run before them, and a failed one rolls the transaction back', async () => {
    await db.exec('CREATE TABLE w (id int PRIMARY KEY)');
    const insert = 'INSERT INTO w VALUES ($1) RETURNING *';
    const all = 'SELECT * FROM w ORDER BY id';
    expect(await db.transaction(async (tx) => [await tx.query(insert, [1]), await tx.query(all)])).toEqual([[{ id: 1 }], [{ id: 1 }]]);
    // Both texts are prepared now; a column added in a migration's transaction is seen by the next one.
    await db.transaction((tx) => tx.exec('ALTER TABLE w ADD COLUMN note text'));
    expect(await db.transaction(async (tx) => [await tx.query(insert, [2]), await tx.query(all)])).toEqual([
      [{ id: 2, note: null }],
      [
        { id: 1, note: null },
        { id: 2, note: null },
      ],
    ]);
    // A duplicate key fails the statement with its code, and the transaction's earlier insert is rolled back.
    await expect(
      db.transaction(async (tx) => {
        await tx.query(insert, [3]);
        await tx.query(insert, [1]);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await db.query(all)).toEqual([
      { id: 1, note: null },
      { id: 2, note: null },
    ]);
    const [row] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE 'INSERT INTO w %'");
    expect(row!.n).toBeGreaterThan(0);
  });

  it('closes evicted statements: hundreds of distinct texts keep working', async () => {
    for (let i = 0; i < 600; i++) expect(await db.query<{ v: number }>(`SELECT $1::int + ${i} AS v`, [1])).toEqual([{ v: i + 1 }]);
    const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements');
    expect(row!.n).toBeLessThanOrEqual(256);
  });
});
