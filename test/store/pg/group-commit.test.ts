import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.js';
import { GroupCommit } from '../../../src/store/pg/group-commit.js';

/** A batch runner that records its batches and finishes each one when the test says so. */
function gatedRunner<I, R>(answer: (item: I) => R) {
  const batches: I[][] = [];
  const gates: Array<() => void> = [];
  let inFlight = 0;
  let maxSeen = 0;
  const run = async (items: readonly I[]): Promise<R[]> => {
    batches.push([...items]);
    inFlight += 1;
    maxSeen = Math.max(maxSeen, inFlight);
    await new Promise<void>((resolve) => gates.push(resolve));
    inFlight -= 1;
    return items.map(answer);
  };
  const openAll = async () => {
    await new Promise((r) => setImmediate(r));
    while (gates.length > 0 || inFlight > 0) {
      for (const open of gates.splice(0)) open();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { run, batches, gates, openAll, maxInFlight: () => maxSeen };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('GroupCommit', () => {
  it('sends the items submitted in one tick as one batch and gives each caller its own result', async () => {
    const runner = gatedRunner((n: number) => n * 10);
    const group = new GroupCommit({ run: runner.run });
    const results = Promise.all([1, 2, 3].map((n) => group.submit(n)));
    await runner.openAll();
    expect(await results).toEqual([10, 20, 30]);
    expect(runner.batches).toEqual([[1, 2, 3]]);
  });

  it('holds items that arrive while a batch is in flight and sends them together, in arrival order', async () => {
    const runner = gatedRunner((n: number) => -n);
    const group = new GroupCommit({ run: runner.run, maxInFlight: 1 });
    const first = group.submit(1);
    await tick();
    const later = [2, 3, 4, 5].map((n) => group.submit(n));
    await tick();
    expect(runner.batches).toEqual([[1]]);
    await runner.openAll();
    expect(await Promise.all([first, ...later])).toEqual([-1, -2, -3, -4, -5]);
    expect(runner.batches).toEqual([[1], [2, 3, 4, 5]]);
  });

  it('settles a caller only after its batch has finished', async () => {
    const runner = gatedRunner((n: number) => n);
    const group = new GroupCommit({ run: runner.run });
    let settled = false;
    const p = group.submit(1).then(() => (settled = true));
    await tick();
    await tick();
    expect(settled).toBe(false);
    await runner.openAll();
    await p;
    expect(settled).toBe(true);
  });

  it('keeps at most maxInFlight batches running, each of at most maxBatch items', async () => {
    const runner = gatedRunner((n: number) => n);
    const group = new GroupCommit({ run: runner.run, maxInFlight: 3, maxBatch: 4 });
    const all = Promise.all(Array.from({ length: 30 }, (_, i) => group.submit(i)));
    await tick();
    expect(runner.batches.map((b) => b.length)).toEqual([4, 4, 4]);
    await runner.openAll();
    expect(await all).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(runner.maxInFlight()).toBe(3);
    expect(runner.batches.every((b) => b.length <= 4)).toBe(true);
    expect(runner.batches.flat()).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it('runs the items of a failed batch one at a time, so only the bad item fails', async () => {
    const batches: number[][] = [];
    const group = new GroupCommit<number, number>({
      run: async (items) => {
        batches.push([...items]);
        if (items.includes(13)) throw new Error('item 13 violates a constraint');
        return items.map((n) => n + 1);
      },
    });
    const results = await Promise.allSettled([11, 12, 13, 14].map((n) => group.submit(n)));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([12, 13, 'item 13 violates a constraint', 15]);
    expect(batches).toEqual([[11, 12, 13, 14], [11], [12], [13], [14]]);
  });

  it('treats a batch answered with the wrong number of results as failed and runs its items one at a time', async () => {
    const group = new GroupCommit<number, number>({ run: async (items) => [items[0]!] });
    expect(await Promise.all([group.submit(1), group.submit(2)])).toEqual([1, 2]);
    const broken = new GroupCommit<number, number>({ run: async () => [] });
    await expect(broken.submit(1)).rejects.toThrow('group commit: 0 results for 1 items');
  });

  it('fails every caller of a batch with the same error, without running it again, when the database is unavailable', async () => {
    const batches: number[][] = [];
    const unavailable = new AppError('unavailable', 'The database is unavailable: statement timeout.');
    const group = new GroupCommit<number, number>({
      run: async (items) => {
        batches.push([...items]);
        throw unavailable;
      },
    });
    const results = await Promise.allSettled([1, 2, 3].map((n) => group.submit(n)));
    expect(results.map((r) => (r.status === 'rejected' ? r.reason : r.value))).toEqual([unavailable, unavailable, unavailable]);
    expect(batches).toEqual([[1, 2, 3]]);
  });
});
