import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type CatalogRefresh, startCatalogRefresh } from '../../src/catalog/refresh.js';
import type { CatalogRow } from '../../src/core/catalog/ports.js';
import { catalogRankingModel } from '../../src/core/ranking/catalog-model.js';
import { FALLBACK_MODEL } from '../../src/core/ranking/ranking.js';
import { createLogger } from '../../src/logger.js';
import type { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { LogCapture } from '../helpers/app.js';
import { makeProduct, openTestCatalog, seededRandom, tempCatalogUri, unitVector } from '../helpers/catalog.js';
import { type Child, childEnv, runTs, seededDataDir } from '../helpers/process.js';

const DIMS = 16;
const embedder = { model: 'test-model', dimensions: DIMS };
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function open(uri: string): Promise<LanceCatalogStore> {
  const store = await openTestCatalog(uri);
  cleanups.push(() => store.close());
  return store;
}

async function importRows(store: LanceCatalogStore, from: number, to: number, model = embedder.model): Promise<void> {
  const random = seededRandom(from + 1);
  const rows: CatalogRow[] = Array.from({ length: to - from }, (_, k) => ({ product: makeProduct(from + k), vector: unitVector(random, DIMS) }));
  const writer = await store.openWriter({ model, dimensions: DIMS, replace: model !== embedder.model });
  await writer.write(rows);
  await writer.commit();
}

function refreshOf(
  reader: LanceCatalogStore,
  intervalMs: number,
  warm: () => Promise<void> = () => reader.warm(),
): { refresh: CatalogRefresh; logs: LogCapture } {
  const logs = new LogCapture();
  const refresh = startCatalogRefresh({ catalog: reader, embedder, warm, logger: createLogger('info', logs), intervalMs });
  cleanups.push(() => refresh.stop());
  return { refresh, logs };
}

describe('startCatalogRefresh', () => {
  it('follows a version another handle publishes, warms it, and serves its products', async () => {
    const uri = tempCatalogUri();
    const writer = await open(uri);
    await importRows(writer, 0, 20);
    const reader = await open(uri);
    let warmed = 0;
    const { refresh, logs } = refreshOf(reader, 0, async () => {
      warmed += 1;
      await reader.warm();
    });
    expect(await refresh.check()).toBe(false);

    await importRows(writer, 20, 30);
    expect((await reader.getByIds([makeProduct(25).productId])).length).toBe(0);
    expect(await refresh.check()).toBe(true);
    expect((await reader.info())?.productCount).toBe(30);
    expect((await reader.getByIds([makeProduct(25).productId]))[0]?.title).toBe('Product 25');
    expect(warmed).toBe(1);
    expect(logs.text).toContain('serving a new catalog version');
    expect(await refresh.check()).toBe(false);
  });

  it('serves the ranking model a version carries once it follows the version, and keeps it through a later import', async () => {
    const uri = tempCatalogUri();
    const writer = await open(uri);
    await importRows(writer, 0, 20);
    const reader = await open(uri);
    const model = catalogRankingModel(reader);
    expect(model().source).toBe(FALLBACK_MODEL.source);
    const { refresh } = refreshOf(reader, 0);

    await writer.storeRankingModel(embedder.model, { ...FALLBACK_MODEL, source: 'cold-start (a test fit)' });
    expect(model().source).toBe(FALLBACK_MODEL.source);
    expect(await refresh.check()).toBe(true);
    expect(model().source).toBe('cold-start (a test fit)');

    await importRows(writer, 20, 25);
    expect(await refresh.check()).toBe(true);
    expect((await reader.info())?.productCount).toBe(25);
    expect(model().source).toBe('cold-start (a test fit)');
    // A model stored for another embedding model is not this catalog's.
    await writer.storeRankingModel('another-model', { ...FALLBACK_MODEL, source: 'not ours' });
    expect(await refresh.check()).toBe(false);
    expect(model().source).toBe('cold-start (a test fit)');
  });

  it('checks on its own every interval', async () => {
    const uri = tempCatalogUri();
    const writer = await open(uri);
    await importRows(writer, 0, 5);
    const reader = await open(uri);
    refreshOf(reader, 50);
    await importRows(writer, 5, 8);
    const deadline = Date.now() + 10_000;
    while ((await reader.info())?.productCount !== 8) {
      if (Date.now() > deadline) throw new Error('the reader never followed the new version');
      await new Promise((r) => setTimeout(r, 20));
    }
  });

  it('keeps serving the previous version when an import used another model, and says so once', async () => {
    const uri = tempCatalogUri();
    const writer = await open(uri);
    await importRows(writer, 0, 5);
    const reader = await open(uri);
    const before = (await reader.info())!;
    let warmed = 0;
    const { refresh, logs } = refreshOf(reader, 0, async () => {
      warmed += 1;
    });
    await importRows(writer, 0, 5, 'other-model');
    expect(await refresh.check()).toBe(false);
    expect(await refresh.check()).toBe(false);
    expect(warmed).toBe(0);
    expect(await reader.info()).toEqual(before);
    expect((await reader.textSearch('product 3', { limit: 5 })).length).toBeGreaterThan(0);
    expect(logs.text.match(/"level":50.*rebuilt with another embedding model/g)).toHaveLength(1);
  });
});

describe('npm start follows imports by other processes (AISLE_CATALOG_REFRESH_MS)', () => {
  const children: Child[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) c.proc.kill('SIGKILL');
  });

  it('serves products that `npm run ingest` in another process adds to its catalog', { timeout: 180_000 }, async () => {
    const dataDir = await seededDataDir('refresh');
    const env = childEnv(dataDir, { AISLE_CATALOG_REFRESH_MS: '500', LOG_LEVEL: 'info' });
    const server = runTs('src/main.ts', [], env);
    children.push(server);
    const [, key] = await server.waitForStderr(/shown only now: (aisle_sk_[0-9A-Za-z]{36})\n/, 120_000);
    const [, base] = await server.waitForStderr(/listening on (http:\/\/127\.0\.0\.1:\d+)/, 120_000);
    const searchBody = async () => {
      const res = await fetch(`${base}/v1/search`, {
        method: 'POST',
        headers: { 'x-api-key': key!, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'quokka telescope', limit: 3, min_relevance_score: 0 }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { results: { title: string }[]; metadata: { ranking_model: string } };
    };
    const titles = async () => (await searchBody()).results.map((r) => r.title);
    // The cold-start model names the catalog it was fitted on.
    const fittedOn = async () => Number(/^cold-start \(catalog (\d+) products/.exec((await searchBody()).metadata.ranking_model)?.[1]);
    expect(await titles()).not.toContain('Quokka Stargazer Telescope');
    const before = await fittedOn();
    expect(before).toBeGreaterThan(100);

    const feed = join(dataDir, 'new-products.jsonl');
    writeFileSync(
      feed,
      `${JSON.stringify({ id: 'quokka-1', title: 'Quokka Stargazer Telescope', description: 'A refractor telescope for quokka-watching at night.', price: 199, currency: 'USD', url: 'https://shop.example.com/quokka' })}\n`,
    );
    // --refit: one product alone would keep the model; the model's move is what is followed here too.
    const ingest = runTs('tools/cli/ingest.ts', [feed, '--refit'], env);
    children.push(ingest);
    expect(await ingest.exited, ingest.stderr()).toBe(0);

    const deadline = Date.now() + 30_000;
    while (!(await titles()).includes('Quokka Stargazer Telescope')) {
      if (Date.now() > deadline) throw new Error(`the server never served the new version; stderr:\n${server.stderr()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(server.stderr()).toContain('serving a new catalog version');
    // The model the import fitted serves too, without a restart.
    await vi.waitFor(async () => expect(await fittedOn()).toBe(before + 1), { timeout: 30_000, interval: 200 });
  });
});
