/**
 * Per-query learning through the real service: searches over HTTP handling (inject) on a real
 * database and the sample catalog; clicks as people make them (the signed link in a browser) and
 * as bots do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryLearning } from '../../../src/core/learning/query-learning.js';
import { createLogger } from '../../../src/logger.js';
import { call, createTestApp, expectStatus, LogCapture, type TestApp } from '../../helpers/app.js';
import { openSampleCatalog, type SampleCatalog } from '../../helpers/search.js';

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const BOT = 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)';
const QUERY = 'espresso machine';

let sample: SampleCatalog;
let t: TestApp;

beforeAll(async () => {
  sample = await openSampleCatalog();
  t = await createTestApp({ search: sample });
});
afterAll(async () => {
  await t?.close();
  await sample?.close();
});

interface Result {
  product_id: string;
  click_url: string;
}

const search = async (key: string): Promise<{ results: Result[]; ranking: string[] }> => {
  const res = await call(t.app, key, 'POST', '/v1/search', { query: QUERY, limit: 5, min_relevance_score: 0 });
  expectStatus(res, 200);
  const results = res.json().results as Result[];
  return { results, ranking: results.map((r) => r.product_id) };
};

const follow = async (r: Result, userAgent: string) => {
  const url = new URL(r.click_url);
  expectStatus(await t.app.inject({ method: 'GET', url: url.pathname + url.search, headers: { 'user-agent': userAgent } }), 302);
};

/** 12 searchers (each a new session) who all pass over the top result and click the one at rank 4. */
async function traffic(key: string, userAgent: string, target: string): Promise<void> {
  for (let i = 0; i < 12; i++) {
    const { results } = await search(key);
    const chosen = results.find((r) => r.product_id === target);
    if (chosen) await follow(chosen, userAgent);
  }
}

describe('per-query learning', () => {
  it('moves up a product people click more than its position predicts; bot clicks on the same links move nothing', async () => {
    const people = await t.core.accounts.create('people');
    const bots = await t.core.accounts.create('bots');
    const first = await search(people.firstKey.key);
    expect(first.ranking).toEqual((await search(bots.firstKey.key)).ranking);
    const target = first.ranking[3]!;

    await traffic(bots.firstKey.key, BOT, target);
    expect((await search(bots.firstKey.key)).ranking.indexOf(target)).toBe(3);

    await traffic(people.firstKey.key, BROWSER, target);
    const after = (await search(people.firstKey.key)).ranking;
    expect(after.indexOf(target)).toBeLessThan(3);
    // Learning is per account: the other account's users taught this one nothing.
    expect((await search(bots.firstKey.key)).ranking.indexOf(target)).toBe(3);
  });
});

describe('QueryLearning under a database fault', () => {
  it('ranks without learning instead of failing the search, and says so in the log', async () => {
    const logs = new LogCapture();
    const broken = { queryEvents: () => Promise.reject(new Error('statement timeout')), shownResults: () => Promise.reject(new Error('statement timeout')) };
    const learning = new QueryLearning({ store: broken, clock: { now: () => new Date() }, logger: createLogger('warn', logs) });
    expect(await learning.boosts('11111111-1111-4111-8111-111111111111', 'espresso machine')).toEqual(new Map());
    expect(logs.text).toContain('ranking without it');
  });
});
