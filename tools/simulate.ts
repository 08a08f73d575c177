/**
 * Traffic simulator (issue 21): `npm run simulate -- --set ../shared/data/eval/crowdflower`.
 *
 * Simulated shoppers drawn from a labelled set drive the real service over REST on 127.0.0.1:
 * each searches one of the set's dev queries, looks down the results with position bias, clicks
 * by the human grade (plus noise) through the signed click link (or, for a product without a
 * page to link to, as the agent reporting it: POST /v1/clicks), sometimes buys the best product
 * (POST /v1/conversions) and sometimes votes (POST /v1/feedback). `--bots F` adds bot clicks on
 * the same links, F of all clicks (links only exist for products with a page). NDCG@10 (../shared/eval/ndcg.mjs) is measured before and
 * after the traffic, for the queries the traffic used and for a fold held out of it, so what the
 * service learned from its own events shows, and whether it generalises.
 *
 * The user model is tools/simulation/user.ts. Everything goes through the HTTP API, as an
 * integrator's traffic would; the measuring searches are API searches too (no clicks on them).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { systemClock } from '../src/core/clock.js';
import { createCore } from '../src/core/index.js';
import type { SearchResponse } from '../src/core/schemas/search.js';
import { buildApp } from '../src/http/app.js';
import { createLogger } from '../src/logger.js';
import { createPgStores, migrate, openDb } from '../src/store/pg/index.js';
import { describeCatalog, foldOf, missingEvalFile, openLabelledSet, scoreRun, writeQrelsSubset } from './relevance-data.js';
import { mulberry32 } from './sample-catalog/random.js';
import { react, type UserModel } from './simulation/user.js';

const { values } = parseArgs({
  options: {
    set: { type: 'string' },
    'eval-dir': { type: 'string' },
    catalog: { type: 'string' },
    'model-cache': { type: 'string' },
    limit: { type: 'string' },
    searches: { type: 'string', default: '20' },
    eta: { type: 'string', default: '1' },
    noise: { type: 'string', default: '0.1' },
    bots: { type: 'string', default: '0' },
    'vote-rate': { type: 'string', default: '0.05' },
    'conversion-rate': { type: 'string', default: '0.1' },
    'held-out-fold': { type: 'string', default: '0' },
    seed: { type: 'string', default: '1' },
  },
});

const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const BOT_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

interface Query {
  id: string;
  text: string;
}

async function main(): Promise<number> {
  if (!values.set) {
    process.stderr.write('usage: npm run simulate -- --set DIR [--searches 20] [--eta 1] [--noise 0.1] [--bots 0.3] [--catalog DIR] [--limit N]\n');
    return 64;
  }
  const setDir = resolve(values.set);
  const evalDir = resolve(values['eval-dir'] ?? resolve(setDir, '../../../eval'));
  const missing = missingEvalFile(setDir, evalDir);
  if (missing !== null) {
    process.stderr.write(`skipping the simulation: ${missing} is absent (the labelled sets live in ../shared, beside the repository)\n`);
    return 0;
  }
  const number = (name: keyof typeof values, min: number, max: number): number => {
    const v = Number(values[name]);
    if (!Number.isFinite(v) || v < min || v > max) throw new UsageError(`--${name} must be a number from ${min} to ${max}, not ${String(values[name])}`);
    return v;
  };
  const searchesPerQuery = Math.round(number('searches', 1, 1000));
  const botShare = number('bots', 0, 0.9);
  const heldOutFold = Math.round(number('held-out-fold', 0, 4));
  const eta = number('eta', 0, 10);
  const noise = number('noise', 0, 1);
  const conversionRate = number('conversion-rate', 0, 1);
  const voteRate = number('vote-rate', 0, 1);
  const seed = number('seed', 0, 2 ** 32 - 1);
  const work = mkdtempSync(join(tmpdir(), 'aisle-simulate-'));
  const random = mulberry32(seed);
  const started = Date.now();
  const set = await openLabelledSet(setDir, work, {
    modelCache: values['model-cache'] ?? join(work, 'models'),
    ...(values.limit ? { limit: Number(values.limit) } : {}),
    ...(values.catalog ? { catalogUri: resolve(values.catalog) } : {}),
  });
  const maxGrade = Math.max(...set.grades.values());
  const model: UserModel = { eta, noise, maxGrade, conversionRate, voteRate };
  const db = await openDb({ kind: 'pglite-memory' });
  await migrate(db);
  const logger = createLogger('warn');
  const core = createCore({ stores: createPgStores(db), clock: systemClock, logger, defaultRateLimitPerMinute: 1_000_000, catalog: set.catalog, embedder: set.embedder });
  const { app } = await buildApp({ core, logger });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const { firstKey } = await core.accounts.create('simulation');
    const headers = { 'x-api-key': firstKey.key, 'content-type': 'application/json' };
    const post = async <T>(path: string, body: unknown): Promise<T> => {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`POST ${path} answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as T;
    };
    const search = (q: Query) => post<SearchResponse>('/v1/search', { query: q.text.trim() === '' ? '?' : q.text, limit: 10, min_relevance_score: 0 });
    const follow = async (clickUrl: string, userAgent: string) => {
      const url = new URL(clickUrl);
      const res = await fetch(`${base}${url.pathname}${url.search}`, { headers: { 'user-agent': userAgent }, redirect: 'manual' });
      if (res.status !== 302) throw new Error(`click link answered ${res.status}`);
    };

    const queries = set.queries.filter((q) => [...set.grades.keys()].some((k) => k.startsWith(`${q.id}\t`)));
    const seen = queries.filter((_, i) => foldOf(i) !== heldOutFold);
    const heldOut = queries.filter((_, i) => foldOf(i) === heldOutFold);
    const gradeOf = (q: Query, r: SearchResponse['results'][number]) => set.grades.get(`${q.id}\t${r.external_id ?? r.product_id}`) ?? null;

    const measure = async (subset: Query[], label: string): Promise<number> => {
      const lines: string[] = [];
      for (const q of subset) (await search(q)).results.forEach((r, i) => lines.push(`${q.id}\t${r.external_id ?? r.product_id}\t${i + 1}`));
      const run = join(work, `run.${label}.tsv`);
      writeFileSync(run, `${lines.join('\n')}\n`);
      return scoreRun(evalDir, writeQrelsSubset(setDir, new Set(subset.map((q) => q.id)), join(work, `qrels.${label}.tsv`)), run).ndcg;
    };

    const before = { seen: await measure(seen, 'seen.before'), heldOut: await measure(heldOut, 'held.before') };
    const counts = { searches: 0, clicks: 0, botClicks: 0, botClicksWithoutLink: 0, conversions: 0, votes: 0 };
    for (let round = 0; round < searchesPerQuery; round++) {
      for (const q of seen) {
        const response = await search(q);
        counts.searches++;
        const shown = response.results.map((r) => ({ productId: r.product_id, grade: gradeOf(q, r) }));
        const reaction = react(shown, model, random);
        for (const i of reaction.clicked) {
          const r = response.results[i]!;
          // The signed link where the product has a page to go to; else the agent reports the click.
          if (r.url) await follow(r.click_url, BROWSER_UA);
          else await post(`/v1/clicks/${r.impression_id}`, {});
          counts.clicks++;
          // Bots follow links too: `botShare` of all clicks, on any shown result that has a link.
          if (botShare > 0 && random() < botShare / (1 - botShare)) {
            const target = response.results[Math.floor(random() * response.results.length)]!;
            if (target.url) {
              await follow(target.click_url, BOT_UA);
              counts.botClicks++;
            } else counts.botClicksWithoutLink++;
          }
        }
        for (const i of reaction.converted) {
          const r = response.results[i]!;
          await post('/v1/conversions', { impression_id: r.impression_id, order_id: `sim-${counts.searches}-${i}`, sale_amount: 100, commission_amount: 5, currency: 'USD' });
          counts.conversions++;
        }
        for (const v of reaction.votes) {
          await post('/v1/feedback', { request_id: response.request_id, product_id: response.results[v.index]!.product_id, relevant: v.relevant });
          counts.votes++;
        }
      }
    }
    const after = { seen: await measure(seen, 'seen.after'), heldOut: await measure(heldOut, 'held.after') };

    const f = (n: number) => n.toFixed(4);
    process.stdout.write(`Simulated traffic on ${set.name} dev, ${((Date.now() - started) / 1000).toFixed(0)} s; catalog: ${await describeCatalog(set)}\n`);
    process.stdout.write(`users: η ${model.eta}, noise ${model.noise}, grades 0–${maxGrade}, conversion ${model.conversionRate} of top-grade clicks, votes ${model.voteRate} per examined result, bots ${botShare} of clicks\n`);
    process.stdout.write(`traffic: ${seen.length} queries × ${searchesPerQuery} searches = ${counts.searches} searches, ${counts.clicks} clicks (+ ${counts.botClicks} bot clicks; ${counts.botClicksWithoutLink} more drawn on products without a page, which have no link to follow), ${counts.conversions} conversions, ${counts.votes} votes; fold ${heldOutFold} (${heldOut.length} queries) held out\n`);
    process.stdout.write(`${'NDCG@10'.padEnd(34)} ${'before'.padStart(8)} ${'after'.padStart(8)} ${'change'.padStart(8)}\n`);
    process.stdout.write(`${'queries seen in the traffic'.padEnd(34)} ${f(before.seen).padStart(8)} ${f(after.seen).padStart(8)} ${(after.seen - before.seen >= 0 ? '+' : '') + f(after.seen - before.seen)}\n`);
    process.stdout.write(`${'queries held out'.padEnd(34)} ${f(before.heldOut).padStart(8)} ${f(after.heldOut).padStart(8)} ${(after.heldOut - before.heldOut >= 0 ? '+' : '') + f(after.heldOut - before.heldOut)}\n`);
    process.stdout.write(`BENCH_JSON ${JSON.stringify({ bench: 'simulate', set: set.name, model, bots: botShare, searches_per_query: searchesPerQuery, counts, seen: { queries: seen.length, before: before.seen, after: after.seen }, held_out: { queries: heldOut.length, before: before.heldOut, after: after.heldOut } })}\n`);
    return 0;
  } finally {
    await app.close();
    await db.close();
    await set.close();
    await rm(work, { recursive: true, force: true });
  }
}

class UsageError extends Error {}

try {
  process.exitCode = await main();
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exitCode = 64;
}
