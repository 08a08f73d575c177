/**
 * `npm run calibrate`: fits the ranking model and the calibration behind relevance_score on the
 * labelled dev sets (../shared/data/eval/*), writes them into the configured catalog, and
 * reports the expected calibration error (10 bins, 5-fold cross-validated by query) beside the
 * fallback model's.
 *
 * The ranker learns from every candidate the real retrieval returns for each dev query; the
 * calibration from the judged (query, product) pairs among them, relevant when grade ≥ 2, plus
 * the candidates of off-topic requests, labelled 0 (see src/core/ranking/ranking-fit.ts).
 * Without any labelled set (../shared absent) it says so and exits 0: the fallback model stays.
 * Other exit codes: docs/development.md.
 */
// First, so that the command line is checked before anything else loads (calibrate.command.ts).

import { existsSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { FALLBACK_MODEL } from '../../src/core/ranking/ranking.js';
import { expectedCalibrationError, fitRankingModel, type TrainingQuery } from '../../src/core/ranking/ranking-fit.js';
import { openCatalog } from '../../src/runtime.js';
import { cli } from './calibrate.command.js';
import {
  describeCatalog,
  foldOf,
  labelledSetFiles,
  missingInput,
  OFF_TOPIC,
  offTopicRows,
  openLabelledSet,
  predictions,
  trainingQueries,
} from './labelled-set.js';

const { values } = cli;
const queriesPerSet = cli.number('queries-per-set', { integer: true, positive: true });
const size = cli.number('size', { integer: true, positive: true });
const annThreshold = cli.number('ann-threshold', { integer: true, min: 0 });

const DEFAULT_SETS = ['../shared/data/eval/crowdflower', '../shared/data/eval/homedepot'];

async function main(): Promise<number> {
  // The default sets are skipped when absent; a set named with --sets must be there (missingInput).
  const named = values.sets?.split(',').map((s) => resolve(s));
  const sets =
    named?.filter((s) => missingInput(labelledSetFiles(s)) === null) ?? DEFAULT_SETS.map((s) => resolve(s)).filter((s) => existsSync(join(s, 'qrels_dev.tsv')));
  if (sets.length === 0) {
    process.stderr.write('skipping calibration: no labelled set found (../shared/data/eval is absent); the fallback model stays in use\n');
    return 0;
  }
  const work = mkdtempSync(join(tmpdir(), 'aisle-calibrate-'));
  try {
    const queries: TrainingQuery[] = [];
    const offTopic: { features: number[]; fold: number }[] = [];
    let model = '';
    for (const dir of sets) {
      const set = await openLabelledSet(dir, work, {
        modelCache: join(work, 'models'),
        ...(queriesPerSet === undefined ? {} : { limit: queriesPerSet }),
        ...(values['catalog-dir'] ? { catalogUri: join(resolve(values['catalog-dir']), basename(dir)) } : {}),
        with: (values.with ?? []).map((d) => resolve(d)).filter((d) => d !== dir),
        ...(size === undefined ? {} : { size }),
        ...(annThreshold === undefined ? {} : { annThreshold }),
      });
      process.stdout.write(`${set.name}: ${await describeCatalog(set)}\n`);
      try {
        queries.push(...(await trainingQueries(set)));
        // Each off-topic request's 20 candidates stay together in one fold.
        for (const [i, x] of (await offTopicRows(set)).entries()) offTopic.push({ features: x, fold: foldOf(Math.floor(i / 20)) });
        model = set.embedder.model;
      } finally {
        await set.close();
      }
    }
    // 5-fold cross-validation by query: no query is in both the fit and the test fold.
    const outOfFold: { p: number; y: number }[] = [];
    for (let fold = 0; fold < 5; fold++) {
      const fitted = fitRankingModel(
        queries.filter((_, i) => foldOf(i) !== fold),
        offTopic.filter((o) => o.fold !== fold).map((o) => o.features),
        'cv',
      );
      outOfFold.push(
        ...predictions(
          fitted,
          queries.filter((_, i) => foldOf(i) === fold),
          offTopic.filter((o) => o.fold === fold).map((o) => o.features),
        ),
      );
    }
    const fallback = predictions(
      FALLBACK_MODEL,
      queries,
      offTopic.map((o) => o.features),
    );
    const fitted = fitRankingModel(
      queries,
      offTopic.map((o) => o.features),
      `fitted on ${sets.map((s) => basename(s)).join('+')} dev, ${new Date().toISOString().slice(0, 10)}`,
    );
    const judged = outOfFold.length - offTopic.length;
    process.stdout.write(
      `queries: ${queries.length} (+${OFF_TOPIC.length * sets.length} off-topic); judged candidates: ${judged} (${outOfFold.filter((o) => o.y === 1).length} relevant, grade ≥ 2)\n`,
    );
    process.stdout.write(
      `ECE (10 bins): fitted, 5-fold cross-validated ${expectedCalibrationError(outOfFold).toFixed(4)}; fallback ${expectedCalibrationError(fallback).toFixed(4)}\n`,
    );
    process.stdout.write(`model: ${JSON.stringify(fitted)}\n`);
    if (!values['dry-run']) {
      const catalog = await openCatalog(loadConfig());
      await catalog.storeRankingModel(model, fitted);
      await catalog.close();
      process.stdout.write(`written to the catalog for model ${model}; running servers rank with it from their next catalog check\n`);
    }
    return 0;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await cli.run(main);
