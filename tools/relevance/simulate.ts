/**
 * Traffic simulator: `npm run simulate -- --set ../shared/data/eval/crowdflower`.
 *
 * Simulated shoppers drawn from a labelled set drive the real service over REST on 127.0.0.1:
 * each searches one of the set's dev queries, looks down the results with position bias, clicks
 * by the human grade (plus noise) through the signed click link (or, for a product without a
 * page to link to, as the agent reporting it: POST /v1/clicks), sometimes buys the best product
 * (POST /v1/conversions) and sometimes votes (POST /v1/feedback). `--bots F` adds bot clicks on
 * the same signed links, F of all clicks. Global learning runs as the server runs it, once after
 * each round of traffic (one search of every query) instead of every hour: it proposes a
 * candidate model, interleaves it with the serving one on the following searches, and promotes
 * or rejects it.
 *
 * NDCG@10 (../shared/eval/ndcg.mjs) is measured before the traffic and every `--measure-every`
 * rounds, for the queries the traffic used and for a fold held out of it, so what the service
 * learned from its own events shows, and whether it generalises. Beside it: the model fitted on
 * the labels (5-fold cross-validated, as `npm run eval`'s rerank), the skyline.
 *
 * The user model is src/core/learning/simulated-shopper.ts. Everything goes through the HTTP API,
 * as an integrator's traffic would. The measuring searches go through the console's playground,
 * which ranks exactly as search does (never interleaved: the serving model alone) and records
 * nothing, so measuring teaches the service nothing.
 */
// First, so that the command line is checked before anything else loads (simulate.command.ts).

import { mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { UsageError } from '../../src/cli/errors.js';
import { readJsonLines } from '../../src/cli/files.js';
import { systemClock } from '../../src/core/clock.js';
import { type Core, createCore } from '../../src/core/index.js';
import type { LearningRun } from '../../src/core/learning/ranking-learner.js';
import { react, type UserModel } from '../../src/core/learning/simulated-shopper.js';
import { mulberry32 } from '../../src/core/random.js';
import type { RankingModel } from '../../src/core/ranking/ranking.js';
import { readRankingModel } from '../../src/core/ranking/ranking.js';
import { fitRankingModel } from '../../src/core/ranking/ranking-fit.js';
import type { SearchResponse } from '../../src/core/schemas/search.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { createPgStores, migrate, openDb } from '../../src/store/pg/index.js';
import { fitInThread } from '../../src/threads/fit-thread.js';
// The labelled-set helpers eval.ts imports too: an import list, the shared logic being labelled-set.ts.
import {
  describeCatalog,
  foldOf,
  labelledSetFiles,
  missingInput,
  offTopicRows,
  openLabelledSet,
  scoreRun,
  trainingQueries,
  writeQrelsSubset,
} from './labelled-set.js';
import { cli } from './simulate.command.js';

const { values } = cli;
const limit = cli.number('limit', { integer: true, positive: true });
const searchesPerQuery = Math.round(cli.number('searches', { min: 1, max: 1000, default: 20 }));
const botShare = cli.number('bots', { min: 0, max: 0.9, default: 0 });
const heldOutFold = Math.round(cli.number('held-out-fold', { min: 0, max: 4, default: 0 }));
const eta = cli.number('eta', { min: 0, max: 10, default: 1 });
const noise = cli.number('noise', { min: 0, max: 1, default: 0.1 });
const conversionRate = cli.number('conversion-rate', { min: 0, max: 1, default: 0.1 });
const voteRate = cli.number('vote-rate', { min: 0, max: 1, default: 0.05 });
const seed = cli.number('seed', { min: 0, max: 2 ** 32 - 1, default: 1 });
const measureEvery = Math.round(cli.number('measure-every', { min: 1, max: 1000, default: 5 }));

const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const BOT_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

interface Query {
  id: string;
  text: string;
}

async function main(): Promise<number> {
  if (!values.set) throw new UsageError('--set DIR is required');
  const setDir = resolve(values.set);
  const evalDir = resolve(values['eval-dir'] ?? resolve(setDir, '../../../eval'));
  const skip = (missing: string) => {
    process.stderr.write(`skipping the simulation: ${missing} is absent (the labelled sets live in ../shared, beside the repository)\n`);
    return 0;
  };
  const missingSet = missingInput(labelledSetFiles(setDir));
  if (missingSet !== null) return skip(missingSet);
  // A malformed queries file fails here, naming its line, before anything is imported.
  await readJsonLines(join(setDir, 'queries_dev.jsonl'), limit);
  const missingEvaluator = missingInput([join(evalDir, 'ndcg.mjs')]);
  if (missingEvaluator !== null) return skip(missingEvaluator);
  const work = mkdtempSync(join(tmpdir(), 'aisle-simulate-'));
  const random = mulberry32(seed);
  const started = Date.now();
  const set = await openLabelledSet(setDir, work, {
    ...(values['embedding-model'] === undefined ? {} : { embeddingModel: values['embedding-model'] }),
    modelCache: values['model-cache'] ?? join(work, 'models'),
    ...(limit === undefined ? {} : { limit }),
    ...(values.catalog ? { catalogUri: resolve(values.catalog) } : {}),
  });
  const maxGrade = Math.max(...set.grades.values());
  const model: UserModel = { eta, noise, maxGrade, conversionRate, voteRate };
  const db = await openDb({ kind: 'pglite-memory' });
  await migrate(db);
  const logger = createLogger('warn');
  const catalogModel = await readRankingModel(set.catalog, set.embedder.model);
  // What the serving core and the offline ones (coreWith, below) share: the same stores and catalog.
  const coreOptions = (rankingModel: RankingModel | null) => ({
    stores: createPgStores(db),
    clock: systemClock,
    logger,
    defaultRateLimitPerMinute: 1_000_000,
    catalog: set.catalog,
    embedder: set.embedder,
    rankingModel,
  });
  const core = createCore({
    ...coreOptions(catalogModel),
    // Every search reads which model serves (a server re-reads every 10 s); learning runs between
    // rounds. Time is compressed (a round stands for the learning interval), so a rejection's
    // day-long cool-down is left out.
    rankingLearning: { refreshMs: 0, options: { cooldownMs: 0 }, fit: fitInThread },
  });
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
    // The measuring searches: the console's playground, signed in with the same key.
    const signIn = await fetch(`${base}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: firstKey.key }),
    });
    if (signIn.status !== 201) throw new Error(`console sign-in answered ${signIn.status}`);
    const consoleHeaders = {
      cookie: signIn.headers.get('set-cookie')!.split(';')[0]!,
      'x-csrf-token': ((await signIn.json()) as { csrf_token: string }).csrf_token,
      'content-type': 'application/json',
    };
    const playground = async (q: Query): Promise<{ results: { product_id: string; external_id: string | null }[]; metadata: { ranking_model: string } }> => {
      const res = await fetch(`${base}/console/playground`, {
        method: 'POST',
        headers: consoleHeaders,
        body: JSON.stringify({ query: q.text.trim() === '' ? '?' : q.text, limit: 10, min_relevance_score: 0 }),
      });
      if (!res.ok) throw new Error(`POST /console/playground answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as never;
    };
    // A link to a product without a page records the click, then answers 404: nowhere to send the visitor.
    const follow = async (result: { click_url: string; url: string }, userAgent: string) => {
      const url = new URL(result.click_url);
      const res = await fetch(`${base}${url.pathname}${url.search}`, { headers: { 'user-agent': userAgent }, redirect: 'manual' });
      if (res.status !== (result.url ? 302 : 404)) throw new Error(`click link answered ${res.status}`);
    };

    const queries = set.queries.filter((q) => [...set.grades.keys()].some((k) => k.startsWith(`${q.id}\t`)));
    const seen = queries.filter((_, i) => foldOf(i) !== heldOutFold);
    const heldOut = queries.filter((_, i) => foldOf(i) === heldOutFold);
    const gradeOf = (q: Query, r: SearchResponse['results'][number]) => set.grades.get(`${q.id}\t${r.external_id ?? r.product_id}`) ?? null;

    const score = (subset: Query[], label: string, lines: string[]): number => {
      const run = join(work, `run.${label}.tsv`);
      writeFileSync(run, `${lines.join('\n')}\n`);
      return scoreRun(evalDir, writeQrelsSubset(setDir, new Set(subset.map((q) => q.id)), join(work, `qrels.${label}.tsv`)), run).ndcg;
    };
    const served = new Set<string>();
    const measure = async (subset: Query[], label: string): Promise<number> => {
      const lines: string[] = [];
      for (const q of subset) {
        const r = await playground(q);
        served.add(r.metadata.ranking_model);
        for (const [i, x] of r.results.entries()) lines.push(`${q.id}\t${x.external_id ?? x.product_id}\t${i + 1}`);
      }
      return score(subset, label, lines);
    };

    // A query set ranked in-process by a core of its own (no learning, nothing recorded).
    const offline = {
      accountId: (await core.accounts.create('offline')).account.id,
      keyId: '00000000-0000-4000-8000-000000000000',
      scopes: [],
      rateLimitPerMinute: 1_000_000,
    };
    const rankedBy = async (coreFor: (q: Query) => Core, subset: Query[], label: string): Promise<number> => {
      const lines: string[] = [];
      for (const q of subset) {
        const r = await coreFor(q)
          .search()
          .preview(offline as never, { query: q.text.trim() === '' ? '?' : q.text, limit: 10, min_relevance_score: 0, sort: 'relevance' });
        for (const [i, x] of r.results.entries()) lines.push(`${q.id}\t${x.external_id ?? x.product_id}\t${i + 1}`);
      }
      return score(subset, label, lines);
    };
    const coreWith = (rankingModel: RankingModel) => createCore({ ...coreOptions(rankingModel), learning: false });

    // The skyline: the model fitted on the labels, each query ranked by a model that never saw it.
    let skyline: { seen: number; heldOut: number } | null = null;
    if (!values['no-skyline']) {
      const training = await trainingQueries(set);
      const offTopic = await offTopicRows(set);
      const foldCores: Core[] = Array.from({ length: 5 }, (_, k) =>
        coreWith(
          fitRankingModel(
            training.filter((_, i) => foldOf(i) !== k),
            offTopic,
            `cv fold ${k}`,
          ),
        ),
      );
      const foldByQuery = new Map(training.map((t, i) => [t.group.slice(set.name.length + 1), foldOf(i)]));
      const skylineOf = (subset: Query[], label: string) => rankedBy((q) => foldCores[foldByQuery.get(q.id) ?? 0]!, subset, label);
      skyline = { seen: await skylineOf(seen, 'seen.skyline'), heldOut: await skylineOf(heldOut, 'held.skyline') };
    }

    const before = { seen: await measure(seen, 'seen.before'), heldOut: await measure(heldOut, 'held.before') };
    const timeline: { round: number; searches: number; seen: number; heldOut: number; serving: string }[] = [];
    const decisions: { round: number; run: LearningRun }[] = [];
    const counts = { searches: 0, clicks: 0, botClicks: 0, conversions: 0, votes: 0 };
    for (let round = 0; round < searchesPerQuery; round++) {
      for (const q of seen) {
        const response = await search(q);
        counts.searches++;
        const shown = response.results.map((r) => ({ productId: r.product_id, grade: gradeOf(q, r) }));
        const reaction = react(shown, model, random);
        for (const i of reaction.clicked) {
          const r = response.results[i]!;
          // The signed link where the product has a page to go to; else the agent reports the click.
          if (r.url) await follow(r, BROWSER_UA);
          else await post(`/v1/clicks/${r.impression_id}`, {});
          counts.clicks++;
          // Bots follow links too: `botShare` of all clicks, on any shown result that has a link.
          if (botShare > 0 && random() < botShare / (1 - botShare)) {
            await follow(response.results[Math.floor(random() * response.results.length)]!, BOT_UA);
            counts.botClicks++;
          }
        }
        for (const i of reaction.converted) {
          const r = response.results[i]!;
          await post('/v1/conversions', {
            impression_id: r.impression_id,
            order_id: `sim-${counts.searches}-${i}`,
            sale_amount: 100,
            commission_amount: 5,
            currency: 'USD',
          });
          counts.conversions++;
        }
        for (const v of reaction.votes) {
          await post('/v1/feedback', { request_id: response.request_id, product_id: response.results[v.index]!.product_id, relevant: v.relevant });
          counts.votes++;
        }
      }
      const run = await core.ranking!.runOnce();
      if (run.action !== 'none' && run.action !== 'testing') decisions.push({ round: round + 1, run });
      if ((round + 1) % measureEvery === 0 || round + 1 === searchesPerQuery) {
        served.clear();
        const point = {
          round: round + 1,
          searches: counts.searches,
          seen: await measure(seen, `seen.${round}`),
          heldOut: await measure(heldOut, `held.${round}`),
          serving: '',
        };
        point.serving = [...served].join(', ');
        timeline.push(point);
      }
    }
    const after = timeline.at(-1)!;
    if (values['dump-log']) {
      const log = await createPgStores(db).rankingModels.trainingLog(new Date(0), 1_000_000);
      writeFileSync(values['dump-log'], `${log.map((r) => JSON.stringify(r)).join('\n')}\n`);
    }
    // Where learning stands at the end, and how the learned models rank the held-out queries on their own.
    const status = await core.ranking!.status();
    const learnedHeldOut: string[] = [];
    for (const m of [status.serving, status.candidate]) {
      if (m) learnedHeldOut.push(`${m.id} (${m.status}): held out ${(await rankedBy(() => coreWith(m.model), heldOut, `held.${m.id}`)).toFixed(4)}`);
    }

    const f = (n: number) => n.toFixed(4);
    process.stdout.write(`Simulated traffic on ${set.name} dev, ${((Date.now() - started) / 1000).toFixed(0)} s; catalog: ${await describeCatalog(set)}\n`);
    process.stdout.write(
      `users: η ${model.eta}, noise ${model.noise}, grades 0–${maxGrade}, conversion ${model.conversionRate} of top-grade clicks, votes ${model.voteRate} per examined result, bots ${botShare} of clicks\n`,
    );
    process.stdout.write(
      `traffic: ${seen.length} queries × ${searchesPerQuery} searches = ${counts.searches} searches, ${counts.clicks} clicks (+ ${counts.botClicks} bot clicks), ${counts.conversions} conversions, ${counts.votes} votes; fold ${heldOutFold} (${heldOut.length} queries) held out\n`,
    );
    process.stdout.write(`catalog's model (before any learning): ${catalogModel?.source ?? 'fallback'}\n`);
    const signed = (d: number) => (d >= 0 ? '+' : '') + f(d);
    process.stdout.write(`${'NDCG@10'.padEnd(34)} ${'before'.padStart(8)} ${'after'.padStart(8)} ${'change'.padStart(8)} ${'skyline'.padStart(8)}\n`);
    process.stdout.write(
      `${'queries seen in the traffic'.padEnd(34)} ${f(before.seen).padStart(8)} ${f(after.seen).padStart(8)} ${signed(after.seen - before.seen).padStart(8)} ${(skyline ? f(skyline.seen) : '-').padStart(8)}\n`,
    );
    process.stdout.write(
      `${'queries held out'.padEnd(34)} ${f(before.heldOut).padStart(8)} ${f(after.heldOut).padStart(8)} ${signed(after.heldOut - before.heldOut).padStart(8)} ${(skyline ? f(skyline.heldOut) : '-').padStart(8)}\n`,
    );
    if (skyline) {
      const closed = (b: number, a: number, s: number) => (s - b > 0 ? `${(((a - b) / (s - b)) * 100).toFixed(0)} %` : 'no gap');
      process.stdout.write(
        `gap to the skyline closed: seen ${closed(before.seen, after.seen, skyline.seen)}, held out ${closed(before.heldOut, after.heldOut, skyline.heldOut)}\n`,
      );
    }
    process.stdout.write('after round (searches): seen / held out NDCG@10, serving model\n');
    for (const p of timeline) process.stdout.write(`  ${String(p.round).padStart(3)} (${p.searches}): ${f(p.seen)} / ${f(p.heldOut)}, ${p.serving}\n`);
    process.stdout.write('learning decisions:\n');
    for (const { round, run } of decisions) {
      const detail =
        run.action === 'propose'
          ? `held-out log NDCG ${f(run.fit.heldOutNdcg!.serving)} → ${f(run.fit.heldOutNdcg!.candidate)} (${run.fit.trainQueries} + ${run.fit.heldOutQueries} queries, ${run.fit.searches} searches)`
          : run.action === 'none'
            ? run.reason
            : `wins ${run.evidence.candidateWins}:${run.evidence.servingWins}, ties ${run.evidence.ties}, p = ${run.evidence.pValue.toPrecision(3)}`;
      process.stdout.write(`  after round ${round}: ${run.action} ${'candidate' in run ? run.candidate : ''} ${detail}\n`);
    }
    if (decisions.length === 0) process.stdout.write('  none\n');
    if (status.candidate) {
      const e = status.candidate.interleaving;
      process.stdout.write(
        `still under test: ${status.candidate.id}, wins ${e.candidateWins}:${e.servingWins}, ties ${e.ties}, p = ${e.pValue.toPrecision(3)}\n`,
      );
    }
    if (learnedHeldOut.length > 0) process.stdout.write(`learned models alone (no per-query learning): ${learnedHeldOut.join('; ')}\n`);
    process.stdout.write(
      `BENCH_JSON ${JSON.stringify({ bench: 'simulate', set: set.name, model, bots: botShare, searches_per_query: searchesPerQuery, counts, base: catalogModel?.source ?? 'fallback', seen: { queries: seen.length, before: before.seen, after: after.seen, skyline: skyline?.seen }, held_out: { queries: heldOut.length, before: before.heldOut, after: after.heldOut, skyline: skyline?.heldOut }, timeline, decisions, learned_held_out: learnedHeldOut })}\n`,
    );
    return 0;
  } finally {
    await app.close();
    await db.close();
    await set.close();
    await rm(work, { recursive: true, force: true });
  }
}

await cli.run(main);
