import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFeed } from '../../../src/catalog/files/detect.js';
import { importCatalog } from '../../../src/core/catalog/import.js';
import { systemClock } from '../../../src/core/clock.js';
import { createCore } from '../../../src/core/index.js';
import { fitColdStartModel, isColdStartModel } from '../../../src/core/learning/cold-start.js';
import { FALLBACK_MODEL, readRankingModel } from '../../../src/core/ranking/ranking.js';
import { SearchRequestSchema } from '../../../src/core/schemas/search.js';
import type { Embedder } from '../../../src/core/shared-ports.js';
import { createLogger } from '../../../src/logger.js';
import type { LanceCatalogStore } from '../../../src/store/lance/catalog-store.js';
import { createPgStores } from '../../../src/store/pg/index.js';
import { openTestCatalog } from '../../helpers/catalog.js';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { tempDir } from '../../helpers/process.js';
import { openSharedEmbedder } from '../../helpers/search.js';

const SAMPLE = 'data/sample-catalog.jsonl';
// Fewer requests than the default keep the test quick: 300 products drawn, 295 of them give a
// title fragment no earlier product gave.
const FIT = { requests: 300 };

const importFeed = async (file: string, catalog: LanceCatalogStore, embedder: Embedder, fitRanking: typeof FIT | boolean) =>
  importCatalog((await readFeed(file, {})).records, { catalog, embedder }, { replace: true, dryRun: false, fitRanking });
const importSample = (catalog: LanceCatalogStore, embedder: Embedder, fitRanking: typeof FIT | false) => importFeed(SAMPLE, catalog, embedder, fitRanking);

/** A feed of `n` camping lanterns: where the catalog's size does not matter, it embeds in a fraction of the sample's time. */
function lanternFeed(n: number): string {
  const file = join(tempDir('feed'), `lanterns-${n}.jsonl`);
  writeFileSync(file, Array.from({ length: n }, (_, i) => JSON.stringify({ sku: `s-${i}`, title: `Camp lantern model ${i} with hook` })).join('\n'));
  return file;
}

describe('cold-start ranking model at import', () => {
  let embedder: Embedder;
  let catalog: LanceCatalogStore;
  let testDb: TestDb;

  beforeAll(async () => {
    embedder = await openSharedEmbedder();
    catalog = await openTestCatalog();
    testDb = await createTestDb();
  });

  afterAll(async () => {
    await catalog?.close();
    await embedder?.close();
    await testDb?.cleanup();
  });

  it('leaves the ranking model alone unless the import asks for a fit', async () => {
    const summary = await importFeed(lanternFeed(30), catalog, embedder, false);
    expect(summary.rankingModel).toBeNull();
    expect(await readRankingModel(catalog, embedder.model)).toBeNull();
  });

  it('fits a model from the catalog, stores it, and search names it as the ranking model', async () => {
    const summary = await importSample(catalog, embedder, FIT);
    expect(summary.rankingModel, JSON.stringify(summary.rankingModel)).toMatchObject({ action: 'fitted', products: 501, requests: 295 });
    // The shopping-need decision is fitted with it, on synthetic conversations against chat.
    expect(summary.rankingModel?.action === 'fitted' && summary.rankingModel.conversations).toBeGreaterThanOrEqual(200);
    const stored = await readRankingModel(catalog, embedder.model);
    expect(stored?.source).toBe('cold-start (catalog 501 products, 295 synthetic requests)');
    expect(isColdStartModel(stored!)).toBe(true);
    expect(stored?.weights).not.toEqual(FALLBACK_MODEL.weights);

    const core = createCore({
      stores: createPgStores(testDb.db),
      clock: systemClock,
      logger: createLogger('warn'),
      defaultRateLimitPerMinute: 600,
      catalog,
      embedder,
      rankingModel: stored,
    });
    const { account, firstKey } = await core.accounts.create('cold start');
    const principal = { accountId: account.id, keyId: firstKey.metadata.id, scopes: firstKey.metadata.scopes, rateLimitPerMinute: 600 };
    const response = await core.search().search(principal, SearchRequestSchema.parse({ query: 'merino hiking socks', limit: 5 }));
    expect(response.metadata.ranking_model).toBe(stored?.source);
    expect(response.results.length, JSON.stringify(response.results.map((r) => [r.title, r.relevance_score]))).toBeGreaterThan(0);
    expect(response.results[0]?.title).toMatch(/sock/i);
    // Off-topic requests still find nothing above the default threshold, as with the fallback.
    const offTopic = await core.search().search(principal, SearchRequestSchema.parse({ query: 'who won the 1998 world cup' }));
    expect(offTopic.results.map((r) => [r.title, r.relevance_score])).toEqual([]);

    // The stored model carries the catalog's own shopping-need decision: a shopping conversation
    // is answered, chat is not.
    expect(stored?.conversation?.need.weights.chatter).toBeLessThan(0);
    const shopping = await core.search().search(
      principal,
      SearchRequestSchema.parse({
        query: 'my feet get soaked on the trail',
        conversation_context: [{ role: 'user', content: 'I run in the hills every weekend.' }],
      }),
    );
    expect(shopping.results.length, shopping.metadata.interpreted_query).toBeGreaterThan(0);
    for (const query of ['can you help me write an email to my landlord?', 'what year did the berlin wall fall?']) {
      const chat = await core.search().search(principal, SearchRequestSchema.parse({ query }));
      expect(chat.results, query).toEqual([]);
      expect(chat.metadata.no_fill_reason, query).toBe('no_shopping_need');
    }
  });

  it('fits the same model from the same catalog', async () => {
    const again = await fitColdStartModel({ catalog, embedder }, FIT);
    expect(again.model).toEqual(await readRankingModel(catalog, embedder.model));
  });

  it('keeps the model through an import that changes little, and fits it again when asked to', async () => {
    const fitted = await readRankingModel(catalog, embedder.model);
    expect(fitted?.source).toMatch(/^cold-start \(catalog 501 products/);
    const add = async (n: number, refit: boolean) =>
      importCatalog((await readFeed(lanternFeed(n), {})).records, { catalog, embedder }, { replace: false, dryRun: false, fitRanking: FIT, refit });
    const one = await add(1, false);
    expect(one.imported).toBe(1);
    expect(one.rankingModel).toMatchObject({ action: 'kept', source: fitted?.source });
    expect(one.rankingModel?.action === 'kept' && one.rankingModel.reason).toBe(
      '1 of 502 products changed, and the model was fitted on 501: an import that changes a tenth of the catalog, or a catalog a tenth larger or smaller, fits it again (--refit fits it now)',
    );
    expect(await readRankingModel(catalog, embedder.model)).toEqual(fitted);
    // The first lantern again and one more: asked to, the import fits the catalog as it now is.
    const forced = await add(2, true);
    expect(forced.imported).toBe(1);
    expect(forced.rankingModel).toMatchObject({ action: 'fitted', products: 503 });
    expect((await readRankingModel(catalog, embedder.model))?.source).toMatch(/^cold-start \(catalog 503 products/);
    // Asked to, even an import that changes nothing fits it.
    const same = await add(2, true);
    expect(same.imported + same.updated).toBe(0);
    expect(same.rankingModel).toMatchObject({ action: 'fitted', products: 503 });
  });

  it('leaves a catalog too small to learn from with the fallback, and says why', async () => {
    const small = await openTestCatalog();
    try {
      const summary = await importFeed(lanternFeed(8), small, embedder, true);
      expect(summary.rankingModel).toMatchObject({ action: 'kept', source: 'fallback' });
      expect(summary.rankingModel?.action === 'kept' && summary.rankingModel.reason).toMatch(/of 8 synthetic requests found their product \(20 needed\)/);
      expect(await readRankingModel(small, embedder.model)).toBeNull();
    } finally {
      await small.close();
    }
  });

  it('keeps a model fitted on labelled data when the catalog is imported again', async () => {
    const labelled = { ...FALLBACK_MODEL, source: 'fitted on crowdflower+homedepot dev, 2026-11-24', bias: -5.9 };
    await catalog.storeRankingModel(embedder.model, labelled);
    // Another catalog, large enough to fit from: the labelled model stays all the same.
    const summary = await importFeed(lanternFeed(60), catalog, embedder, FIT);
    expect(summary.rankingModel).toMatchObject({ action: 'kept', source: labelled.source });
    expect(await readRankingModel(catalog, embedder.model)).toEqual(labelled);
  });
});
