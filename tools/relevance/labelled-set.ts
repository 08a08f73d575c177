/**
 * What eval.ts, simulate.ts and calibrate.ts share: importing a labelled set
 * into a temporary catalog through the real ingest path, its grades, the candidates the real
 * retrieval returns for its queries with their ranking features, and scoring run files.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { readFeed } from '../../src/catalog/files/detect.js';
import { CliError, EXIT } from '../../src/cli/errors.js';
import { readJsonLines } from '../../src/cli/files.js';
import { type FeedRecord, importCatalog } from '../../src/core/catalog/import.js';
import { CatalogLexicon } from '../../src/core/ranking/lexical.js';
import { FALLBACK_MODEL, type RankingModel, scoreRow, toProbability, weightVector } from '../../src/core/ranking/ranking.js';
import type { TrainingQuery } from '../../src/core/ranking/ranking-fit.js';
import { RETRIEVAL_DEPTH, retrieveCandidates } from '../../src/core/ranking/retrieval.js';
import type { Embedder } from '../../src/core/shared-ports.js';
import { createEmbedder } from '../../src/embed/embedder.js';
import { openPlacer } from '../../src/knowledge/placer.js';
import { DEFAULT_ANN_THRESHOLD, LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { SHARED_DIR } from '../shared-data.js';

/**
 * Requests no shopping catalog fits. The labelled sets hold only shopping queries; a calibration
 * must also learn that "who won the 1998 world cup" fits nothing, so the candidates retrieved
 * for these are negatives.
 */
export const OFF_TOPIC = [
  'who won the 1998 world cup',
  'what is the capital of australia',
  'weather in paris tomorrow',
  'how do i reverse a linked list',
  'translate good morning to german',
  'what time is it in tokyo',
  'explain quantum entanglement simply',
  'when was the eiffel tower built',
  'write a haiku about autumn',
  'how many moons does jupiter have',
  'what is the square root of 144',
  'who wrote pride and prejudice',
  'convert 10 miles to kilometers',
  'symptoms of the common cold',
  'best way to learn spanish',
  'how does photosynthesis work',
  'what is the meaning of life',
  'latest news about the election',
  'how tall is mount everest',
  'recipe for banana bread',
  'who is the president of france',
  'how to file my taxes',
  'what is machine learning',
  'tell me a joke',
  'how far is the moon from earth',
  'what does dna stand for',
  'history of the roman empire',
  'how to tie a bowline knot',
  'is it going to rain today',
  'define the word serendipity',
  'how do vaccines work',
  'what year did world war two end',
  'summarize the plot of hamlet',
  'how many people live in canada',
  'fix python import error',
  'what is the speed of light',
  'book a flight to london',
  'reset my email password',
  'how to meditate',
  'who painted the mona lisa',
];

export interface LabelledSet {
  name: string;
  catalog: LanceCatalogStore;
  embedder: Embedder;
  lexicon: CatalogLexicon;
  queries: { id: string; text: string }[];
  /** `${query_id}\t${product_id}` → grade. */
  grades: Map<string, number>;
  /** The sets whose products the catalog holds: "crowdflower + homedepot". */
  composition: string;
  exactVectors: boolean;
  close(): Promise<void>;
}

export interface LabelledSetOptions {
  modelCache: string;
  /** A use-lite build: `use-lite` (default) or `use-lite-int8` (AISLE_EMBEDDING_MODEL's values). */
  embeddingModel?: string;
  limit?: number;
  /** Keep the imported catalog here and reuse it next time (importing 54k products takes minutes). */
  catalogUri?: string;
  /**
   * Distractor sets whose products join the set's own catalog, unjudged (so they count as not
   * relevant), the way a real catalog holds far more than any one request's products.
   */
  with?: readonly string[];
  /** Stop adding distractor products once the catalog holds this many. */
  size?: number;
  /** Catalog size from which an ANN index is built (the server's default: 20,000). */
  annThreshold?: number;
  /** Search the vectors exactly even where the catalog has an ANN index. */
  exactVectors?: boolean;
}

/** The set's own products, then the distractor sets' (ids prefixed with their set's name) up to `size`. */
async function* catalogRecords(setDir: string, options: LabelledSetOptions): AsyncGenerator<FeedRecord> {
  let count = 0;
  for await (const record of (await readFeed(join(setDir, 'products.jsonl'), {})).records) {
    count += 1;
    yield record;
  }
  for (const dir of options.with ?? []) {
    const prefix = `${basename(dir)}:`;
    for await (const record of (await readFeed(join(dir, 'products.jsonl'), {})).records) {
      if (options.size !== undefined && count >= options.size) return;
      count += 1;
      yield 'row' in record ? { ...record, row: { ...record.row, product_id: `${prefix}${String(record.row.product_id ?? record.line)}` } } : record;
    }
  }
}

/** What a run's catalog holds, for the report: "crowdflower (9,912) + homedepot (10,088), ivf_hnsw_sq". */
export async function describeCatalog(set: LabelledSet): Promise<string> {
  const info = await set.catalog.info();
  const index = info?.annIndex === 'none' ? 'no ANN index (exact)' : `${info?.annIndex} index${set.exactVectors ? ' bypassed (exact)' : ''}`;
  return `${(info?.productCount ?? 0).toLocaleString('en-US')} products (${set.composition}), ${index}`;
}

/**
 * Imports `setDir`'s products.jsonl (and any distractor sets') into a catalog under `work` (or
 * into `catalogUri`, where a catalog already imported there is reused), and reads its dev queries
 * and grades.
 */
export async function openLabelledSet(setDir: string, work: string, options: LabelledSetOptions): Promise<LabelledSet> {
  const name = basename(setDir);
  const embedder = await createEmbedder({
    provider: 'use-lite',
    cacheDir: options.modelCache,
    ...(options.embeddingModel === undefined ? {} : { model: options.embeddingModel }),
  });
  const catalog = await LanceCatalogStore.open({
    recallDepth: RETRIEVAL_DEPTH,
    uri: options.catalogUri ?? join(work, `catalog-${name}`),
    annThreshold: options.annThreshold ?? DEFAULT_ANN_THRESHOLD,
    annIndex: 'ivf_hnsw_sq',
    bypassVectorIndex: options.exactVectors ?? false,
  });
  const existing = await catalog.info();
  let composition = [name, ...(options.with ?? []).map((d) => basename(d))].join(' + ');
  if (existing !== null && existing.productCount > 0 && options.catalogUri) {
    composition = `reused from ${options.catalogUri}`;
    process.stderr.write(`${name}: reusing the catalog at ${options.catalogUri} (${existing.productCount} products)\n`);
  } else {
    const summary = await importCatalog(
      catalogRecords(setDir, options),
      { catalog, embedder, placer: await openPlacer(embedder) },
      { replace: true, dryRun: false },
    );
    process.stderr.write(
      `${name}: imported ${summary.imported} products (${composition}) in ${(summary.durationMs / 1000).toFixed(1)} s, vector index: ${summary.catalog?.annIndex}\n`,
    );
  }
  const grades = new Map<string, number>();
  for await (const line of createInterface({ input: createReadStream(join(setDir, 'qrels_dev.tsv')) })) {
    const [q, p, g] = line.split('\t');
    if (q && p && g && /^\d+$/.test(g)) grades.set(`${q}\t${p}`, Number(g));
  }
  const queries = (await readJsonLines<{ query_id: string; query: string }>(join(setDir, 'queries_dev.jsonl'), options.limit)).map((q) => ({
    id: q.query_id,
    text: q.query,
  }));
  const lexicon = new CatalogLexicon(catalog);
  return {
    name,
    catalog,
    embedder,
    lexicon,
    queries,
    grades,
    composition,
    exactVectors: options.exactVectors ?? false,
    close: async () => {
      await catalog.close();
      await embedder.close();
    },
  };
}

/** Every candidate the real retrieval returns for each query, with its features and grade (null when unjudged). */
export async function trainingQueries(set: LabelledSet): Promise<TrainingQuery[]> {
  const out: TrainingQuery[] = [];
  for (const q of set.queries) {
    if (!q.text.trim()) continue;
    const candidates = await retrieveCandidates(set, { queryText: q.text, currentQuery: q.text, filter: {}, retrieval: 'hybrid', model: FALLBACK_MODEL });
    out.push({
      group: `${set.name}:${q.id}`,
      rows: candidates.map((c) => ({ features: c.features, grade: set.grades.get(`${q.id}\t${c.product.externalId ?? c.product.productId}`) ?? null })),
    });
  }
  return out;
}

/** The first 20 candidates (by the fallback model) of each off-topic request: negatives for the calibration. */
export async function offTopicRows(set: LabelledSet): Promise<number[][]> {
  const rows: number[][] = [];
  for (const text of OFF_TOPIC) {
    const candidates = await retrieveCandidates(set, { queryText: text, currentQuery: text, filter: {}, retrieval: 'hybrid', model: FALLBACK_MODEL });
    rows.push(
      ...candidates
        .sort((a, b) => b.score - a.score)
        .slice(0, 20)
        .map((c) => c.features),
    );
  }
  return rows;
}

/** Probability and label (grade ≥ 2) of every judged pair and off-topic candidate under `model`, for the calibration error. */
export function predictions(model: RankingModel, queries: readonly TrainingQuery[], offTopic: readonly (readonly number[])[]): { p: number; y: number }[] {
  const w = weightVector(model);
  const p = (x: readonly number[]) => toProbability(scoreRow(x, model.bias, w), model);
  return [
    ...queries.flatMap((q) => q.rows.filter((r) => r.grade !== null).map((r) => ({ p: p(r.features), y: r.grade! >= 2 ? 1 : 0 }))),
    ...offTopic.map((x) => ({ p: p(x), y: 0 })),
  ];
}

/** Fold of a query for k-fold cross-validation: by position, so folds are the same in every run. */
export const foldOf = (index: number, folds = 5): number => index % folds;

/** The files of a labelled set. */
export const labelledSetFiles = (setDir: string): string[] => [
  join(setDir, 'products.jsonl'),
  join(setDir, 'queries_dev.jsonl'),
  join(setDir, 'qrels_dev.tsv'),
];

/**
 * Checks the files a run needs. Returns null when all are there, or the first absent one when it
 * lies in ../shared and ../shared is not on this machine: the caller then skips (exit 0), as CI
 * without the evaluation data does. Any other absent file is a mistyped path: CliError, exit 66.
 */
export function missingInput(files: readonly string[]): string | null {
  const missing = files.find((f) => !existsSync(f));
  if (missing === undefined) return null;
  if (missing.startsWith(SHARED_DIR + sep) && !existsSync(SHARED_DIR)) return missing;
  const what = missing.endsWith('ndcg.mjs')
    ? 'the evaluator; --eval-dir names its directory'
    : 'a labelled set is a directory holding products.jsonl, queries_dev.jsonl and qrels_dev.tsv';
  throw new CliError(EXIT.noInput, `${missing}: no such file (${what})`);
}

export interface RunMetrics {
  ndcg: number;
  mrr: number;
  recall: number;
  queries: number;
}

/** NDCG@10, MRR@10 and Recall@10 of a run file, from ../shared/eval/ndcg.mjs. */
export function scoreRun(evalDir: string, qrels: string, run: string): RunMetrics {
  const out = execFileSync(process.execPath, [join(evalDir, 'ndcg.mjs'), '--qrels', qrels, '--run', run, '--json'], { encoding: 'utf8' });
  const j = JSON.parse(out) as Record<string, number>;
  const pick = (re: RegExp) => Number(Object.entries(j).find(([k]) => re.test(k))?.[1] ?? Number.NaN);
  return { ndcg: pick(/^ndcg/i), mrr: pick(/^mrr/i), recall: pick(/^recall/i), queries: pick(/quer/i) };
}

/** The set's qrels restricted to `queryIds`, written to `path`: scores then cover exactly the queries run. */
export function writeQrelsSubset(setDir: string, queryIds: ReadonlySet<string>, path: string): string {
  const kept = readFileSync(join(setDir, 'qrels_dev.tsv'), 'utf8')
    .split('\n')
    .filter((l, i) => i === 0 || queryIds.has(l.split('\t')[0]!));
  writeFileSync(path, `${kept.join('\n')}\n`);
  return path;
}
