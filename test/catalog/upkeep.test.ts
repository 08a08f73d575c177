import { afterEach, describe, expect, it, vi } from 'vitest';
import { startCatalogUpkeep } from '../../src/catalog/upkeep.js';
import { createLogger } from '../../src/logger.js';
import type { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { LogCapture } from '../helpers/app.js';
import { makeProduct, openTestCatalog, seededRandom, tempCatalogUri, unitVector } from '../helpers/catalog.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function seeded(): Promise<LanceCatalogStore> {
  const store = await openTestCatalog(tempCatalogUri());
  cleanups.push(() => store.close());
  const writer = await store.openWriter({ model: 'test-model', dimensions: 8, replace: false });
  const random = seededRandom(5);
  await writer.write(Array.from({ length: 12 }, (_, i) => ({ product: makeProduct(i), vector: unitVector(random, 8) })));
  await writer.commit();
  return store;
}

let runs = 0;
/** The store's upkeep, counting runs. */
const counted = (store: LanceCatalogStore) => {
  runs += 1;
  return store.upkeep();
};

describe('startCatalogUpkeep', () => {
  it('runs upkeep every interval and logs what it did', async () => {
    const store = await seeded();
    const logs = new LogCapture();
    runs = 0;
    const upkeep = startCatalogUpkeep({
      catalog: { upkeep: () => counted(store) },
      logger: createLogger('info', logs),
      intervalMs: 30,
    });
    cleanups.push(() => upkeep.stop());
    await vi.waitFor(() => expect(runs).toBeGreaterThanOrEqual(2), { timeout: 10_000, interval: 20 });
    expect(logs.text).toContain('"msg":"catalog upkeep"');
  });

  it('logs a failed run and keeps the schedule', async () => {
    // A catalog whose connection is gone: every upkeep fails.
    const store = await openTestCatalog(tempCatalogUri());
    await store.close();
    const logs = new LogCapture();
    runs = 0;
    const upkeep = startCatalogUpkeep({ catalog: { upkeep: () => counted(store) }, logger: createLogger('info', logs), intervalMs: 30 });
    cleanups.push(() => upkeep.stop());
    expect(await upkeep.run()).toBeNull();
    await vi.waitFor(() => expect(runs).toBeGreaterThanOrEqual(3), { timeout: 10_000, interval: 20 });
    expect(logs.text).toContain('catalog upkeep failed; retried at the next interval');
  });

  it('starts no timer at interval 0', async () => {
    const store = await seeded();
    runs = 0;
    const upkeep = startCatalogUpkeep({
      catalog: { upkeep: () => counted(store) },
      logger: createLogger('info', new LogCapture()),
      intervalMs: 0,
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(runs).toBe(0);
    expect((await upkeep.run())?.action).toBe('done');
    await upkeep.stop();
  });
});
