/**
 * Relevance evaluation: `npm run eval -- --set ../shared/data/eval/crowdflower`.
 *
 * Imports the set's products.jsonl into a temporary catalog through the real ingest path, runs
 * every dev query through the real search core (limit 10, min_relevance_score 0) once per
 * component, writes run files, and prints NDCG@10, MRR@10 and Recall@10 from
 * ../shared/eval/ndcg.mjs beside the BM25 baseline (../shared/eval/bm25-baseline.mjs) measured
 * in the same run. The components, so the gain of each shows:
 * - lexical: full text alone (canonical measures, spelling correction), ranked by BM25;
 * - dense: the embedding alone, ranked by cosine;
 * - fusion: both, ranked by the hand-set fallback model (what a server without `npm run
 *   calibrate` serves);
 * - cold-start: both, ranked by the model fitted from the catalog's own products at import
 *   (src/core/learning/cold-start.ts): what a fresh deployment serves after `npm run ingest`;
 * - rerank: both, ranked by the learned model, 5-fold cross-validated: each query is searched
 *   with a model fitted on the other four folds' queries only.
 *
 * A set's own catalog is smaller than a real one. `--with DIR` (repeatable) adds another set's
 * products as unjudged distractors, `--size N` stops adding them at N products, and
 * `--ann-threshold N` / `--exact-vectors` choose whether the vector search goes through an ANN
 * index, so a figure can be taken the way a real catalog sees it (docs/relevance.md).
 *
 * When the set lies in ../shared and ../shared is not on this machine, it says so and exits 0;
 * any other missing file exits 66, a malformed queries file 65 (docs/development.md).
 */
// First, so that the command line is checked before anything else loads (eval.command.ts).

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { UsageError } from '../../src/cli/errors.js';
import { readJsonLines } from '../../src/cli/files.js';
import { loadConfig } from '../../src/config.js';
import { systemClock } from '../../src/core/clock.js';
import { type Core, createCore } from '../../src/core/index.js';
import { fitColdStartModel } from '../../src/core/learning/cold-start.js';
import { FALLBACK_MODEL, type RankingModel } from '../../src/core/ranking/ranking.js';
import { expectedCalibrationError, fitRankingModel } from '../../src/core/ranking/ranking-fit.js';
import type { RetrievalMode } from '../../src/core/ranking/retrieval.js';
import { DEFAULT_MIN_RELEVANCE, SearchRequestSchema } from '../../src/core/schemas/search.js';
import { KnowledgeService } from '../../src/knowledge/service.js';
import { createLogger } from '../../src/logger.js';
import { OpenAiChatReader } from '../../src/reader/openai-chat.js';
import { createPgStores, migrate, openDb } from '../../src/store/pg/index.js';
import { type ConversationFigures, evaluateConversations, readConversationSet } from './conversations.js';
import { cli } from './eval.command.js';
// The labelled-set helpers simulate.ts imports too: an import list, the shared logic being labelled-set.ts.
import {
  describeCatalog,
  foldOf,
  labelledSetFiles,
  missingInput,
  offTopicRows,
  openLabelledSet,
  predictions,
  type RunMetrics,
  scoreRun,
  trainingQueries,
  writeQrelsSubset,
} from './labelled-set.js';

const { values } = cli;
const limit = cli.number('limit', { integer: true, positive: true });
const size = cli.number('size', { integer: true, positive: true });
const annThreshold = cli.number('ann-threshold', { integer: true, min: 0 });
const onlyConversations = values['only-conversations'];
const conversationFiles = (values.conversations ?? []).map((f) => resolve(f));
const heldOutEvery = cli.number('held-out-every', { integer: true, min: 2 });

async function main(): Promise<number> {
  if (!values.set) throw new UsageError('--set DIR is required');
  const setDir = resolve(values.set);
  // The evaluator and baseline live in shared/eval, three levels above shared/data/eval/<set>.
  const evalDir = resolve(values['eval-dir'] ?? resolve(setDir, '../../../eval'));
  const skip = (missing: string) => {
    process.stderr.write(`skipping evaluation: ${missing} is absent (the labelled sets live in ../shared, beside the repository)\n`);
    return 0;
  };
  const missingSet = missingInput([...labelledSetFiles(setDir), ...(values.with ?? []).map((d) => join(resolve(d), 'products.jsonl')), ...conversationFiles]);
  if (missingSet !== null) return skip(missingSet);
  // A malformed queries file fails here, naming its line, before the baseline and the import run.
  await readJsonLines(join(setDir, 'queries_dev.jsonl'), limit);
  const missingEvaluator = missingInput([join(evalDir, 'ndcg.mjs'), join(evalDir, 'bm25-baseline.mjs')]);
  if (missingEvaluator !== null) return skip(missingEvaluator);
  if (values.out) mkdirSync(resolve(values.out), { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'aisle-eval-'));
  const out = values.out ? resolve(values.out) : work;
  const name = basename(setDir);
  try {
    const started = Date.now();
    const baselineRun = join(out, `${name}.bm25.run.tsv`);
    if (!onlyConversations)
      execFileSync(
        process.execPath,
        [
          join(evalDir, 'bm25-baseline.mjs'),
          '--products',
          join(setDir, 'products.jsonl'),
          '--queries',
          join(setDir, 'queries_dev.jsonl'),
          '--out',
          baselineRun,
        ],
        { stdio: 'ignore' },
      );

    const set = await openLabelledSet(setDir, work, {
      ...(values['embedding-model'] === undefined ? {} : { embeddingModel: values['embedding-model'] }),
      modelCache: values['model-cache'] ?? join(work, 'models'),
      ...(limit === undefined ? {} : { limit }),
      ...(values.catalog ? { catalogUri: resolve(values.catalog) } : {}),
      with: (values.with ?? []).map((d) => resolve(d)),
      ...(size === undefined ? {} : { size }),
      ...(annThreshold === undefined ? {} : { annThreshold }),
      exactVectors: values['exact-vectors'],
    });
    const catalogDescription = await describeCatalog(set);
    // With --limit, every system is scored on the same queries: the qrels of the ones run.
    const qrels =
      limit !== undefined ? writeQrelsSubset(setDir, new Set(set.queries.map((q) => q.id)), join(out, `${name}.qrels.tsv`)) : join(setDir, 'qrels_dev.tsv');
    const db = await openDb({ kind: 'pglite-memory' });
    await migrate(db);
    const stores = createPgStores(db);
    const logger = createLogger('warn');
    // With --knowledge, the shopper's knowledge base (AISLE_KNOWLEDGE=true), its vectors ready before the first search.
    const knowledge = values.knowledge
      ? new KnowledgeService({ embedder: set.embedder, cacheDir: values['model-cache'] ?? join(work, 'models'), logger })
      : null;
    await knowledge?.start();
    // With --reader, conversations are read as the configured reader reads them (AISLE_READER…).
    const readerModel = values.reader ? modelReaderFromConfig() : null;
    const coreWith = (rankingModel: RankingModel | null): Core =>
      createCore({
        stores,
        clock: systemClock,
        logger,
        defaultRateLimitPerMinute: 600,
        catalog: set.catalog,
        embedder: set.embedder,
        rankingModel,
        ...(knowledge ? { knowledge } : {}),
        ...(readerModel ? { readerModel } : {}),
      });
    const core = coreWith(null);
    const { account, firstKey } = await core.accounts.create('eval');
    const principal = { accountId: account.id, keyId: firstKey.metadata.id, scopes: firstKey.metadata.scopes, rateLimitPerMinute: 600 };

    // Cross-validated models: fold k's queries are searched with a model that never saw them.
    const training = onlyConversations ? [] : await trainingQueries(set);
    const offTopic = onlyConversations ? [] : await offTopicRows(set);
    // Each off-topic request's 20 candidates stay together in one fold, as in calibrate.
    const foldCores = Array.from({ length: onlyConversations ? 0 : 5 }, (_, k) => {
      const rankingModel = fitRankingModel(
        training.filter((_, i) => foldOf(i) !== k),
        offTopic.filter((_, i) => foldOf(Math.floor(i / 20)) !== k),
        `cv fold ${k}`,
      );
      return { rankingModel, core: coreWith(rankingModel) };
    });
    const foldByQuery = new Map(training.map((t, i) => [t.group.slice(set.name.length + 1), foldOf(i)]));
    // The cold-start model sees only the catalog's products: no query, no grade.
    const coldStart = await fitColdStartModel(set);
    const coldModel = coldStart.model ?? FALLBACK_MODEL;
    const coldCore = coreWith(coldModel);
    const ece = onlyConversations
      ? null
      : {
          fallback: expectedCalibrationError(predictions(FALLBACK_MODEL, training, offTopic)),
          coldStart: expectedCalibrationError(predictions(coldModel, training, offTopic)),
          rerank: expectedCalibrationError(
            Array.from({ length: 5 }, (_, k) =>
              predictions(
                foldCores[k]!.rankingModel,
                training.filter((_, i) => foldOf(i) === k),
                offTopic.filter((_, i) => foldOf(Math.floor(i / 20)) === k),
              ),
            ).flat(),
          ),
        };

    const rows: [string, RunMetrics, number][] = onlyConversations ? [] : [['BM25 baseline (shared/eval)', scoreRun(evalDir, qrels, baselineRun), Number.NaN]];
    // The fifth column is the request's min_relevance_score: 0 ranks every candidate; the default
    // (0.5) is what a deployment answers, where a query answered with nothing scores 0.
    const components: [string, RetrievalMode, (queryId: string) => Core, number][] = onlyConversations
      ? []
      : [
          ['lexical', 'lexical', () => core, 0],
          ['dense', 'dense', () => core, 0],
          ['fusion', 'hybrid', () => core, 0],
          ['cold-start', 'hybrid', () => coldCore, 0],
          ['cold-start, as shipped', 'hybrid', () => coldCore, DEFAULT_MIN_RELEVANCE],
          ['rerank', 'hybrid', (id) => foldCores[foldByQuery.get(id) ?? 0]!.core, 0],
        ];
    for (const [label, mode, coreFor, minRelevance] of components) {
      const lines: string[] = [];
      const latencies: number[] = [];
      for (const q of set.queries) {
        const request = SearchRequestSchema.parse({ query: q.text.trim() === '' ? '?' : q.text, limit: 10, min_relevance_score: minRelevance });
        const t = performance.now();
        const response = await coreFor(q.id).search().search(principal, request, { retrieval: mode });
        latencies.push(performance.now() - t);
        for (const [i, r] of response.results.entries()) lines.push(`${q.id}\t${r.external_id ?? r.product_id}\t${i + 1}`);
      }
      const run = join(out, `${name}.${label.replace(', as shipped', '.shipped')}.run.tsv`);
      writeFileSync(run, `${lines.join('\n')}\n`);
      latencies.sort((a, b) => a - b);
      rows.push([`Aisle ${label}`, scoreRun(evalDir, qrels, run), latencies[Math.floor(latencies.length / 2)]!]);
    }
    // Conversations are searched as a deployment serves them: with the model an import fits.
    const conversations: ConversationFigures[] = [];
    for (const file of conversationFiles) {
      const conversationSet = await readConversationSet(file, join(setDir, 'qrels_dev.tsv'));
      // With --held-out-every N, every Nth conversation (the Nth, 2Nth … line) is scored apart
      // from the rest: the fold kept aside while the reading of conversations was tuned on the rest.
      const parts =
        heldOutEvery === undefined
          ? [conversationSet]
          : [false, true].map((held) => ({
              ...conversationSet,
              name: `${conversationSet.name}${held ? ' held-out' : ' tuned'}`,
              conversations: conversationSet.conversations.filter((_, i) => ((i + 1) % heldOutEvery === 0) === held),
            }));
      for (const part of parts)
        for (const mode of ['context', 'session'] as const)
          conversations.push(await evaluateConversations(coldCore, principal, part, mode, { evalDir, out, prefix: name }));
    }
    await readerModel?.model.close();
    await db.close();
    await set.close();
    const queries = set.queries;

    const f = (n: number) => (Number.isNaN(n) ? '-' : n.toFixed(4));
    process.stdout.write(
      `Relevance on ${name} dev (${queries.length} queries; relevant = grade ≥ 1 for MRR/Recall; rerank 5-fold cross-validated), ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
    );
    process.stdout.write(`catalog: ${catalogDescription}\n`);
    process.stdout.write(`${'system'.padEnd(30)} ${'NDCG@10'.padStart(8)} ${'MRR@10'.padStart(8)} ${'Recall@10'.padStart(10)} ${'p50 ms'.padStart(8)}\n`);
    for (const [label, m, p50] of rows) {
      process.stdout.write(
        `${label.padEnd(30)} ${f(m.ndcg).padStart(8)} ${f(m.mrr).padStart(8)} ${f(m.recall).padStart(10)} ${(Number.isNaN(p50) ? '-' : p50.toFixed(1)).padStart(8)}\n`,
      );
    }
    process.stdout.write(
      `cold-start model: ${coldModel.source}, ${coldStart.answered} found their product, shopping-need decision from ${coldStart.conversations ?? 0} synthetic conversations, fitted in ${(coldStart.ms / 1000).toFixed(1)} s\n`,
    );
    if (ece !== null)
      process.stdout.write(
        `ECE (10 bins; judged pairs, relevant = grade ≥ 2, + off-topic candidates): fallback ${ece.fallback.toFixed(4)}, cold-start ${ece.coldStart.toFixed(4)}, rerank (5-fold) ${ece.rerank.toFixed(4)}\n`,
      );
    if (conversations.length > 0) {
      const pct = (v: number | null) => (v === null ? '-' : `${(v * 100).toFixed(1)} %`);
      const n4 = (v: number | null) => (v === null ? '-' : v.toFixed(4));
      process.stdout.write(
        `\nConversations (cold-start model; as shipped = default min_relevance_score ${DEFAULT_MIN_RELEVANCE}, an empty answer scores 0):\n` +
          `${'set'.padEnd(34)} ${'sent as'.padEnd(8)} ${'shopping'.padStart(8)} ${'shipped'.padStart(8)} ${'thr. off'.padStart(8)} ${'no-fill'.padStart(8)} ${'no need'.padStart(8)} ${'false fill'.padStart(10)}\n`,
      );
      for (const c of conversations)
        process.stdout.write(
          `${c.set.padEnd(34)} ${c.mode.padEnd(8)} ${String(c.shopping).padStart(8)} ${n4(c.ndcgShipped).padStart(8)} ${n4(c.ndcgThresholdOff).padStart(8)} ${pct(c.noFill).padStart(8)} ${String(c.noNeed).padStart(8)} ${pct(c.falseFill).padStart(10)}${c.falseFills.length > 0 ? `  (${c.falseFills.slice(0, 8).join(', ')}${c.falseFills.length > 8 ? ', …' : ''})` : ''}\n`,
        );
    }
    process.stdout.write(
      `BENCH_JSON ${JSON.stringify({ bench: 'eval', set: name, catalog: catalogDescription, queries: queries.length, systems: Object.fromEntries(rows.map(([l, m, p]) => [l, { ...m, p50_ms: p }])), ...(ece === null ? {} : { ece }), cold_start: { source: coldModel.source, ms: coldStart.ms }, conversations })}\n`,
    );
    return 0;
  } finally {
    // The runs are in --out when given; the scratch folder (model cache, catalog) goes either way.
    await rm(work, { recursive: true, force: true });
  }
}

await cli.run(main);

/** The model reader the environment configures (AISLE_READER=openai and its settings), for --reader. */
function modelReaderFromConfig() {
  const reader = loadConfig().reader;
  if (reader.kind !== 'openai')
    throw new UsageError('--reader reads conversations with the configured model reader: set AISLE_READER=openai and AISLE_READER_MODEL');
  return { ...reader, model: new OpenAiChatReader(reader) };
}
