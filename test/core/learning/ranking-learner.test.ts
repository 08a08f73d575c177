/**
 * Global learning through the real service: the sample catalog, a real database, searches and
 * clicks over HTTP handling (inject), the learner's runs. The guard is tested with candidates
 * put up directly (so their quality is known); fitting from logs is global-fit.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredRankingModel } from '../../../src/core/learning/ports.js';
import { FEATURE_NAMES } from '../../../src/core/ranking/features.js';
import { FALLBACK_MODEL, type RankingModel } from '../../../src/core/ranking/ranking.js';
import { createPgStores } from '../../../src/store/pg/index.js';
import { call, createTestApp, expectStatus, type TestApp } from '../../helpers/app.js';
import { usingRealPostgres } from '../../helpers/db.js';
import { openSampleCatalog, type SampleCatalog } from '../../helpers/search.js';

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const BOT = 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)';
const QUERIES = ['espresso machine', 'running shoes', 'wireless headphones', 'yoga mat', 'coffee grinder', 'desk lamp'];
const GUARD = { minDecisive: 30, alpha: 0.05, maxDecisive: 400 };

let sample: SampleCatalog;
let t: TestApp;

beforeAll(async () => {
  sample = await openSampleCatalog();
  t = await createTestApp({ search: sample, rankingLearning: { refreshMs: 0, interleaveShare: 1, options: { guard: GUARD, cooldownMs: 0 } } });
});
afterAll(async () => {
  await t?.close();
  await sample?.close();
});

interface Result {
  product_id: string;
  impression_id: string;
  click_url: string;
}

const search = async (query: string): Promise<{ results: Result[]; rankingModel: string; requestId: string }> => {
  const res = await call(t.app, t.adminKey, 'POST', '/v1/search', { query, limit: 6, min_relevance_score: 0 });
  expectStatus(res, 200);
  const body = res.json();
  return { results: body.results as Result[], rankingModel: body.metadata.ranking_model as string, requestId: body.request_id as string };
};

const follow = async (r: Result, userAgent = BROWSER) => {
  const url = new URL(r.click_url);
  expectStatus(await t.app.inject({ method: 'GET', url: url.pathname + url.search, headers: { 'user-agent': userAgent } }), 302);
};

/** The serving model's own top three for a query, without recording anything (the playground path). */
const servingTop = async (query: string): Promise<Set<string>> => {
  const principal = { accountId: t.accountId, keyId: '00000000-0000-4000-8000-000000000000', scopes: [], rateLimitPerMinute: 600 };
  const r = await t.core.search().preview(principal as never, { query, limit: 3, min_relevance_score: 0, sort: 'relevance' } as never);
  return new Set(r.results.map((x) => x.product_id));
};

const teamOf = async (impressionId: string): Promise<number | null> =>
  (await t.db.query<{ team: number | null }>('SELECT team FROM impressions WHERE id = $1', [impressionId]))[0]!.team;

const propose = async (model: RankingModel, id: string): Promise<void> => {
  const m: Omit<StoredRankingModel, 'status' | 'evidence' | 'decidedAt'> = {
    id,
    scope: sample.embedder.model,
    source: `learned ${id}`,
    model: { ...model, source: `learned ${id}` },
    trained: { test: true },
    createdAt: new Date(),
  };
  expect(await createPgStores(t.db).rankingModels.propose(m, 'test')).toBe(true);
};

/** A model that ranks everything upside down: deliberately worse. */
const inverted: RankingModel = { ...FALLBACK_MODEL, weights: Object.fromEntries(Object.entries(FALLBACK_MODEL.weights).map(([k, w]) => [k, -w!])) };

describe('the interleaving guard', () => {
  it('never serves a deliberately worse candidate: people prefer the serving ranking, the learner rejects it and logs why', async () => {
    await propose(inverted, 'rm_worse');
    const seen = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const query = QUERIES[i % QUERIES.length]!;
      const good = await servingTop(query);
      const { results, rankingModel } = await search(query);
      seen.add(rankingModel);
      // A person clicks the first result that is really good for the query.
      const chosen = results.find((r) => good.has(r.product_id));
      if (chosen) await follow(chosen);
    }
    // Every search was interleaved; none was served by the candidate alone.
    expect([...seen]).toEqual([`${FALLBACK_MODEL.source} | learned rm_worse (interleaved)`]);
    const run = await t.core.ranking!.runOnce();
    expect(run.action).toBe('reject');
    const status = await t.core.ranking!.status();
    expect(status.serving).toBeNull();
    expect(status.candidate).toBeNull();
    const [decision] = status.decisions;
    expect(decision).toMatchObject({ action: 'reject', modelId: 'rm_worse', actor: 'learner' });
    expect(decision!.evidence.servingWins as number).toBeGreaterThan(decision!.evidence.candidateWins as number);
    expect(decision!.evidence.pValue as number).toBeLessThan(0.05);
    expect(t.logs.text).toContain('ranking model rejected');
    expect((await search('espresso machine')).rankingModel).toBe(FALLBACK_MODEL.source);
  });

  it('promotes a candidate people prefer, serves it, and rolls back to the model before it', async () => {
    // Different enough from the serving model that most lists diverge below the first result or two.
    const better: RankingModel = { ...FALLBACK_MODEL, weights: { ...FALLBACK_MODEL.weights, cosine: (FALLBACK_MODEL.weights.cosine ?? 0) + 8 } };
    await propose(better, 'rm_better');
    expect((await t.core.ranking!.runOnce()).action).toBe('testing');
    for (let i = 0; i < 80; i++) {
      const { results } = await search(QUERIES[i % QUERIES.length]!);
      // These people like what the candidate adds: they click the first result its team placed.
      for (const r of results) {
        if ((await teamOf(r.impression_id)) === 1) {
          await follow(r);
          break;
        }
      }
    }
    const run = await t.core.ranking!.runOnce();
    expect(run).toMatchObject({ action: 'promote', candidate: 'rm_better' });
    expect(t.logs.text).toContain('ranking model promoted');
    expect((await search('yoga mat')).rankingModel).toBe('learned rm_better');
    expect((await t.core.ranking!.status()).serving?.id).toBe('rm_better');

    expect(await t.core.ranking!.rollback()).toEqual({ from: 'rm_better', to: null });
    expect((await search('yoga mat')).rankingModel).toBe(FALLBACK_MODEL.source);
    const actions = (await t.core.ranking!.status()).decisions.map((d) => `${d.action} ${d.modelId ?? d.previousId}`);
    expect(actions.slice(0, 4)).toEqual(['rollback rm_better', 'promote rm_better', 'propose rm_better', 'reject rm_worse']);
    expect(await t.core.ranking!.rollback()).toBeNull();
  });
});

describe('what the event log keeps for learning', () => {
  it('logs each shown result with the features it was ranked on; bot and duplicate clicks do not count as clicks', async () => {
    const { results, requestId } = await search('desk lamp');
    await follow(results[1]!);
    await follow(results[1]!); // the same person again: not a second click
    await follow(results[2]!, BOT);
    const log = (await createPgStores(t.db).rankingModels.trainingLog(new Date(Date.now() - 3600_000), 1)).filter((r) => r.requestId === requestId);
    expect(log.map((r) => r.position)).toEqual([1, 2, 3, 4, 5, 6]);
    for (const r of log) expect(r.features).toHaveLength(FEATURE_NAMES.length);
    expect(log.map((r) => r.clicked)).toEqual([false, true, false, false, false, false]);
  });

  it('fits nothing from too little traffic, and says why', async () => {
    const run = await t.core.ranking!.runOnce();
    expect(run.action).toBe('none');
    if (run.action === 'none') expect(run.reason).toMatch(/too little evidence/);
  });
});

describe.skipIf(!usingRealPostgres())('several processes on one PostgreSQL database', () => {
  it('serve the same model: a promotion or rollback by one reaches the other', async () => {
    const other = await createTestApp({
      search: sample,
      shared: { testDb: t.testDb, db: await t.testDb.openAnother(), adminKey: t.adminKey, accountId: t.accountId },
      rankingLearning: { refreshMs: 0, interleaveShare: 0 },
    });
    try {
      const ask = async (app: TestApp) =>
        (await call(app.app, t.adminKey, 'POST', '/v1/search', { query: 'yoga mat', limit: 3 })).json().metadata.ranking_model as string;
      const better: RankingModel = { ...FALLBACK_MODEL, weights: { ...FALLBACK_MODEL.weights, bm25: 3 } };
      await propose(better, 'rm_shared');
      expect(await t.db.query(`UPDATE ranking_models SET status = 'serving' WHERE id = 'rm_shared' RETURNING id`)).toHaveLength(1);
      expect(await ask(t)).toBe('learned rm_shared');
      expect(await ask(other)).toBe('learned rm_shared');
      await other.core.ranking!.rollback();
      expect(await ask(t)).toBe(FALLBACK_MODEL.source);
      expect(await ask(other)).toBe(FALLBACK_MODEL.source);
    } finally {
      await other.close();
    }
  });
});
