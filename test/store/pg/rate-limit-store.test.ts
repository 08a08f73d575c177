import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/store/pg/index.js';
import { PgRateLimitStore } from '../../../src/store/pg/rate-limit-store.js';
import { createTestDb, type TestDb, usingRealPostgres } from '../../helpers/db.js';

interface Call {
  bucket: string;
  nowMs: number;
  incrementMs: number;
  windowMs: number;
}

/** The contract, one consume at a time: what the store answered before consumes were grouped. */
function sequentialGcra(calls: readonly Call[]): { allowed: boolean; tatMs: number }[] {
  const tat = new Map<string, number>();
  return calls.map(({ bucket, nowMs, incrementMs, windowMs }) => {
    const current = tat.get(bucket);
    if (current === undefined) {
      tat.set(bucket, nowMs + incrementMs);
      return { allowed: true, tatMs: nowMs + incrementMs };
    }
    const next = Math.max(current, nowMs) + incrementMs;
    if (next - nowMs > windowMs) return { allowed: false, tatMs: current };
    tat.set(bucket, next);
    return { allowed: true, tatMs: next };
  });
}

const WINDOW = 60_000;
const NOW = Date.parse('2026-11-25T10:00:00.000Z');
let unique = 0;
const bucket = (name: string) => `test:${name}:${++unique}`;
const consume = (store: PgRateLimitStore, c: Call) => store.consume(c.bucket, c.nowMs, c.incrementMs, c.windowMs);

let t: TestDb;
let db: Db;
beforeAll(async () => {
  t = await createTestDb();
  db = t.db;
});
afterAll(async () => t.cleanup());

describe('PgRateLimitStore.consume', () => {
  it('allows exactly L of N concurrent consumes of a key limited to L, with the decisions of one-at-a-time consumes', async () => {
    const store = new PgRateLimitStore(db);
    const L = 30;
    const key = bucket('burst');
    const calls = Array.from({ length: 100 }, () => ({ bucket: key, nowMs: NOW, incrementMs: WINDOW / L, windowMs: WINDOW }));
    const concurrent = await Promise.all(calls.map((c) => consume(store, c)));
    expect(concurrent.filter((d) => d.allowed)).toHaveLength(L);
    expect(concurrent).toEqual(sequentialGcra(calls));

    const other = bucket('burst-sequential');
    const oneByOne = [];
    for (const c of calls) oneByOne.push(await consume(store, { ...c, bucket: other }));
    expect(oneByOne).toEqual(concurrent);
  });

  it('applies mixed buckets, times and costs in arrival order per bucket, like one at a time', async () => {
    const store = new PgRateLimitStore(db);
    const keys = ['b', 'a', 'C', 'a-1', 'é'].map(bucket);
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    // Limits that do not divide the window (7, 13 per minute) make increments with long binary fractions.
    const limits = [7, 13, 60, 1, 1000];
    const calls = Array.from({ length: 400 }, (_, i) => {
      const k = Math.floor(random() * keys.length);
      return {
        bucket: keys[k]!,
        nowMs: NOW + i * 97 + Math.floor(random() * 50),
        incrementMs: (WINDOW / limits[k]!) * (1 + Math.floor(random() * 3)),
        windowMs: WINDOW,
      };
    });
    const results = await Promise.all(calls.map((c) => consume(store, c)));
    expect(results).toEqual(sequentialGcra(calls));
    const expectedTat = new Map<string, number>();
    for (const [i, r] of sequentialGcra(calls).entries()) if (r.allowed) expectedTat.set(calls[i]!.bucket, r.tatMs);
    for (const k of keys) expect(await store.peek(k)).toBe(expectedTat.get(k));
  });

  it('answers consumes that arrive one at a time (one statement each) exactly as the contract', async () => {
    const store = new PgRateLimitStore(db);
    const keys = ['x', 'y', 'z'].map(bucket);
    const limits = [7, 13, 1];
    const calls = Array.from({ length: 150 }, (_, i) => ({
      bucket: keys[i % 3]!,
      nowMs: NOW + i * 211,
      incrementMs: (WINDOW / limits[i % 3]!) * (1 + (i % 2)),
      windowMs: WINDOW,
    }));
    const before = db.queryCount;
    const results = [];
    for (const c of calls) results.push(await consume(store, c));
    const expected = sequentialGcra(calls);
    expect(results).toEqual(expected);
    // Both answers occur, and a refusal costs a second statement (the bucket as it stands), nothing more.
    const refused = expected.filter((r) => !r.allowed).length;
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBeLessThan(calls.length);
    expect(db.queryCount - before).toBe(calls.length + refused);
  });

  it('allows a new bucket its first consume whatever it costs, then refuses until the window allows', async () => {
    const store = new PgRateLimitStore(db);
    const key = bucket('costly');
    const calls = [2 * WINDOW, 1, 1].map((incrementMs, i) => ({ bucket: key, nowMs: NOW + i, incrementMs, windowMs: WINDOW }));
    const results = await Promise.all(calls.map((c) => consume(store, c)));
    expect(results).toEqual([
      { allowed: true, tatMs: NOW + 2 * WINDOW },
      { allowed: false, tatMs: NOW + 2 * WINDOW },
      { allowed: false, tatMs: NOW + 2 * WINDOW },
    ]);
    // The same one at a time.
    const alone = bucket('costly-alone');
    const oneByOne = [];
    for (const c of calls) oneByOne.push(await consume(store, { ...c, bucket: alone }));
    expect(oneByOne).toEqual(results);
  });

  it('sends concurrent consumes in a few statements, not one each', async () => {
    const store = new PgRateLimitStore(db);
    const key = bucket('grouped');
    const before = db.queryCount;
    const results = await Promise.all(Array.from({ length: 200 }, () => store.consume(key, NOW, WINDOW / 50, WINDOW)));
    expect(results.filter((d) => d.allowed)).toHaveLength(50);
    expect(db.queryCount - before).toBeLessThanOrEqual(2);
  });

  it.skipIf(!usingRealPostgres())('keeps one budget across two processes consuming many buckets in opposite orders (real PostgreSQL)', async () => {
    const stores = [new PgRateLimitStore(db), new PgRateLimitStore(await t.openAnother())];
    const keys = Array.from({ length: 20 }, (_, i) => bucket(`shared-${i}`));
    const L = 10;
    const rounds = await Promise.all(
      Array.from({ length: 600 }, (_, i) => {
        const order = i % 2 === 0 ? keys : [...keys].reverse();
        return consume(stores[i % 2]!, { bucket: order[Math.floor(i / 2) % keys.length]!, nowMs: NOW, incrementMs: WINDOW / L, windowMs: WINDOW });
      }),
    );
    expect(rounds.filter((d) => d.allowed)).toHaveLength(L * keys.length);
    for (const k of keys) expect(await stores[0]!.peek(k)).toBe(NOW + WINDOW);
  });
});
