/**
 * `npm run calibrate`: fits the logistic calibration behind relevance_score on the labelled dev
 * sets (../shared/data/eval/*), writes it into the configured catalog, and reports the expected
 * calibration error (10 bins, 5-fold cross-validated by query) beside the fallback's.
 *
 * Examples: every judged (query, product) pair that the real retrieval returns, labelled
 * relevant when grade ≥ 2; plus off-topic negatives, because the labelled sets hold only
 * shopping queries and a calibration must also learn that "who won the 1998 world cup" fits
 * nothing: the candidates retrieved for a list of non-shopping requests, labelled 0.
 */
import { createReadStream, existsSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { ingestCatalog } from '../src/core/catalog/ingest.js';
import { expectedCalibrationError, fitLogistic, type Example } from '../src/core/search/calibration-fit.js';
import { calibrate, FALLBACK_CALIBRATION, type Calibration } from '../src/core/search/ranking.js';
import { retrieveCandidates } from '../src/core/search/search-service.js';
import { createEmbedder } from '../src/embed/embedder.js';
import { readFeed } from '../src/ingest/formats/detect.js';
import { openCatalog } from '../src/runtime.js';
import { LanceCatalogStore } from '../src/store/lance/catalog-store.js';
import { readJsonl } from './bench/shared-data.js';

const { values } = parseArgs({
  options: {
    sets: { type: 'string', default: '../shared/data/eval/crowdflower,../shared/data/eval/homedepot' },
    'queries-per-set': { type: 'string', default: '1500' },
    'dry-run': { type: 'boolean', default: false },
  },
});

const OFF_TOPIC = [
  'who won the 1998 world cup', 'what is the capital of australia', 'weather in paris tomorrow', 'how do i reverse a linked list',
  'translate good morning to german', 'what time is it in tokyo', 'explain quantum entanglement simply', 'when was the eiffel tower built',
  'write a haiku about autumn', 'how many moons does jupiter have', 'what is the square root of 144', 'who wrote pride and prejudice',
  'convert 10 miles to kilometers', 'symptoms of the common cold', 'best way to learn spanish', 'how does photosynthesis work',
  'what is the meaning of life', 'latest news about the election', 'how tall is mount everest', 'recipe for banana bread',
  'who is the president of france', 'how to file my taxes', 'what is machine learning', 'tell me a joke',
  'how far is the moon from earth', 'what does dna stand for', 'history of the roman empire', 'how to tie a bowline knot',
  'is it going to rain today', 'define the word serendipity', 'how do vaccines work', 'what year did world war two end',
  'summarize the plot of hamlet', 'how many people live in canada', 'fix python import error', 'what is the speed of light',
  'book a flight to london', 'reset my email password', 'how to meditate', 'who painted the mona lisa',
];


const features = (c: { cosine: number; bm25: number; coverage: number; titleCoverage: number }): Example['x'] => [c.cosine, c.bm25, c.coverage, c.titleCoverage];
const toCalibration = (w: number[], source: string): Calibration => ({ source, bias: w[0]!, cosine: w[1]!, bm25: w[2]!, coverage: w[3]!, titleCoverage: w[4]! });

async function examplesFor(setDir: string, work: string, cacheDir: string, perSet: number): Promise<{ examples: Example[]; model: string }> {
  const name = basename(setDir);
  const embedder = await createEmbedder({ provider: 'use-lite', cacheDir });
  const catalog = await LanceCatalogStore.open({ uri: join(work, `catalog-${name}`), annThreshold: 20_000, annIndex: 'ivf_hnsw_sq' });
  try {
    const summary = await ingestCatalog((await readFeed(join(setDir, 'products.jsonl'), {})).records, { catalog, embedder }, { replace: true, dryRun: false });
    process.stderr.write(`${name}: imported ${summary.imported} products\n`);
    const grades = new Map<string, number>();
    for await (const line of createInterface({ input: createReadStream(join(setDir, 'qrels_dev.tsv')) })) {
      const [q, p, g] = line.split('\t');
      if (q && p && g && /^\d+$/.test(g)) grades.set(`${q}\t${p}`, Number(g));
    }
    const queries = (await readJsonl<{ query_id: string; query: string }>(join(setDir, 'queries_dev.jsonl'))).slice(0, perSet);
    const examples: Example[] = [];
    const run = async (text: string) =>
      retrieveCandidates({ catalog, embedder }, { matchText: text, currentQuery: text, filter: {}, retrieval: 'hybrid', calibration: FALLBACK_CALIBRATION });
    for (const q of queries) {
      if (!q.query.trim()) continue;
      for (const c of await run(q.query)) {
        const grade = grades.get(`${q.query_id}\t${c.product.externalId ?? c.product.productId}`);
        if (grade !== undefined) examples.push({ x: features(c), y: grade >= 2 ? 1 : 0, group: `${name}:${q.query_id}` });
      }
    }
    for (const [i, text] of OFF_TOPIC.entries()) {
      const top = (await run(text)).sort((a, b) => b.rankScore - a.rankScore).slice(0, 20);
      for (const c of top) examples.push({ x: features(c), y: 0, group: `${name}:offtopic${i}` });
    }
    return { examples, model: embedder.model };
  } finally {
    await catalog.close();
    await embedder.close();
  }
}

async function main(): Promise<number> {
  const sets = values.sets.split(',').map((s) => resolve(s)).filter((s) => existsSync(join(s, 'qrels_dev.tsv')));
  if (sets.length === 0) {
    process.stderr.write('skipping calibration: no labelled set found (../shared/data/eval is absent); the fallback calibration stays in use\n');
    return 0;
  }
  const work = mkdtempSync(join(tmpdir(), 'aisle-calibrate-'));
  try {
    const all: Example[] = [];
    let model = '';
    for (const set of sets) {
      const r = await examplesFor(set, work, join(work, 'models'), Number(values['queries-per-set']));
      all.push(...r.examples);
      model = r.model;
    }
    // 5-fold cross-validation by query group: no query is in both the fit and the test fold.
    const groups = [...new Set(all.map((e) => e.group))];
    const foldOf = new Map(groups.map((g, i) => [g, i % 5]));
    const outOfFold: { p: number; y: number }[] = [];
    for (let fold = 0; fold < 5; fold++) {
      const w = fitLogistic(all.filter((e) => foldOf.get(e.group) !== fold));
      const k = toCalibration(w, 'cv');
      for (const e of all.filter((x) => foldOf.get(x.group) === fold)) outOfFold.push({ p: calibrate({ cosine: e.x[0], bm25: e.x[1], coverage: e.x[2], titleCoverage: e.x[3] }, k), y: e.y });
    }
    const fallback = all.map((e) => ({ p: calibrate({ cosine: e.x[0], bm25: e.x[1], coverage: e.x[2], titleCoverage: e.x[3] }, FALLBACK_CALIBRATION), y: e.y }));
    const fitted = toCalibration(fitLogistic(all), `fitted on ${sets.map((s) => basename(s)).join('+')} dev, ${new Date().toISOString().slice(0, 10)}`);
    const positives = all.filter((e) => e.y === 1).length;
    process.stdout.write(`examples: ${all.length} (${positives} relevant, grade ≥ 2) from ${groups.length} queries incl. ${OFF_TOPIC.length * sets.length} off-topic\n`);
    process.stdout.write(`ECE (10 bins): fitted, 5-fold cross-validated ${expectedCalibrationError(outOfFold).toFixed(4)}; fallback ${expectedCalibrationError(fallback).toFixed(4)}\n`);
    process.stdout.write(`calibration: ${JSON.stringify(fitted)}\n`);
    if (!values['dry-run']) {
      const catalog = await openCatalog(loadConfig());
      await catalog.writeCalibration(model, fitted);
      await catalog.close();
      process.stdout.write(`written to the catalog for model ${model}; restart the server to use it\n`);
    }
    return 0;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

process.exitCode = await main();
