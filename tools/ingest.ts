/**
 * Catalog import (CONTRACT §0): `npm run ingest -- FILE [options]`, or `npm run ingest -- --reindex`.
 * Exit codes: 0 imported (or validated, with --dry-run) at least one product; 1 nothing valid or
 * an error (the previous catalog keeps serving); 64 usage.
 */
import { createReadStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { CatalogModelMismatchError } from '../src/core/catalog/errors.js';
import { ingestCatalog, type FeedRecord, type IngestSummary } from '../src/core/catalog/ingest.js';
import { catalogAsFeed } from '../src/core/catalog/reindex.js';
import { readFeed, type FeedOptions } from '../src/ingest/formats/detect.js';
import { loadMapping } from '../src/ingest/formats/csv.js';
import { PRESETS, type PresetName } from '../src/ingest/formats/presets.js';
import { FEED_FORMATS, type FeedFormat } from '../src/ingest/formats/types.js';
import { createProgressReporter } from '../src/ingest/progress.js';
import { openCatalog, openEmbedder } from '../src/runtime.js';

const USAGE = `Usage:
  npm run ingest -- FILE [--format ${FEED_FORMATS.join('|')}] [--replace] [--dry-run]
                        [--merchant NAME] [--mapping 'title=Product Name,price=Price' | --mapping map.json]
                        [--preset ${Object.keys(PRESETS).join('|')}] [--delimiter ';'] [--json] [--no-fit-ranking]
  npm run ingest -- --reindex        re-embed the whole catalog with the configured model

After an import, the catalog's cold-start ranking model is fitted from its own products and
stored (a model fitted on labelled data by npm run calibrate is kept); --no-fit-ranking skips it.`;

class UsageError extends Error {}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    format: { type: 'string' },
    replace: { type: 'boolean', default: false },
    'dry-run': { type: 'boolean', default: false },
    reindex: { type: 'boolean', default: false },
    merchant: { type: 'string' },
    mapping: { type: 'string' },
    preset: { type: 'string' },
    delimiter: { type: 'string' },
    'batch-size': { type: 'string' },
    json: { type: 'boolean', default: false },
    'no-fit-ranking': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

/**
 * Newline count of a line-oriented file, for the progress bar's total (a CSV with multi-line
 * cells overcounts a little); null for XML and JSON arrays, where lines are not records.
 */
async function countRows(path: string, format: FeedFormat): Promise<number | null> {
  if (format === 'gmc-xml') return null;
  let lines = 0;
  let first: number | null = null;
  for await (const chunk of createReadStream(path)) {
    for (const byte of chunk as Buffer) {
      if (first === null && byte > 32) first = byte;
      if (byte === 10) lines++;
    }
  }
  if (format === 'jsonl') return first === 0x5b ? null : lines;
  return Math.max(0, lines - 1);
}

function feedOptions(): FeedOptions {
  const preset = values.preset as PresetName | undefined;
  if (preset !== undefined && !(preset in PRESETS)) throw new UsageError(`unknown preset ${preset}`);
  if (values.format !== undefined && !FEED_FORMATS.includes(values.format as FeedFormat)) throw new UsageError(`unknown format ${values.format}`);
  return {
    ...(preset ? PRESETS[preset] : {}),
    ...(values.format ? { format: values.format as FeedFormat } : {}),
    ...(values.merchant ? { merchant: values.merchant } : {}),
    ...(values.delimiter ? { delimiter: values.delimiter } : {}),
    ...(values.mapping ? { mapping: loadMapping(values.mapping) } : {}),
  };
}

function printSummary(source: string, s: IngestSummary): void {
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ source, ...s })}\n`);
    return;
  }
  const n = (x: number) => x.toLocaleString('en-US').padStart(9);
  const out = [
    `${s.dryRun ? 'Checked' : 'Imported'} ${source} in ${(s.durationMs / 1000).toFixed(1)} s: ${s.read.toLocaleString('en-US')} rows read`,
    `  ${s.dryRun ? 'valid  ' : 'new    '} ${n(s.imported)}`,
    ...(s.dryRun ? [] : [`  updated ${n(s.updated)}`]),
    `  skipped ${n(s.skipped)}`,
  ];
  for (const [reason, count] of Object.entries(s.skippedByReason).sort((a, b) => b[1] - a[1])) {
    const examples = s.examples.filter((e) => e.reason === reason).map((e) => `line ${e.line}: ${e.detail}`);
    out.push(`    ${reason.padEnd(20)} ${n(count)}   e.g. ${examples.join('; ')}`);
  }
  if (s.catalog) {
    const c = s.catalog;
    out.push(`Catalog now serves ${c.productCount.toLocaleString('en-US')} products (version ${c.version}, model ${c.model}, ${c.dimensions} d, ANN index: ${c.annIndex}${c.annRecall === null ? "" : `, recall@100 ${c.annRecall.toFixed(3)} against exact search on probe queries`}).`);
  } else if (!s.dryRun) {
    out.push('Nothing valid was imported; the previous catalog is unchanged.');
  }
  const r = s.rankingModel;
  if (r?.action === 'fitted') {
    out.push(`Ranking model: ${r.source}, fitted in ${(r.ms / 1000).toFixed(1)} s (${r.answered} requests found their product); restart the server to use it.`);
  } else if (r?.action === 'kept') {
    out.push(`Ranking model: kept ${r.source} (${r.reason}).`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

async function run(): Promise<number> {
  if (values.help) throw new UsageError('');
  const file = positionals[0];
  if (!values.reindex && (file === undefined || positionals.length > 1)) throw new UsageError('give exactly one FILE, or --reindex');
  const config = loadConfig();
  const catalog = await openCatalog(config);
  const embedder = await openEmbedder(config);
  try {
    let records: AsyncIterable<FeedRecord>;
    let total: number | null = null;
    if (values.reindex) {
      records = catalogAsFeed(catalog);
      total = (await catalog.info())?.productCount ?? 0;
    } else {
      const options = feedOptions();
      const feed = await readFeed(file!, options);
      records = feed.records;
      total = await countRows(file!, feed.format);
    }
    const progress = createProgressReporter(process.stderr, total);
    const batchSize = values['batch-size'] === undefined ? undefined : Number.parseInt(values['batch-size'], 10);
    const summary = await ingestCatalog(records, { catalog, embedder }, {
      replace: values.replace || values.reindex,
      dryRun: values['dry-run'],
      ...(batchSize && batchSize > 0 ? { batchSize } : {}),
      onProgress: (p) => progress.update(p),
      fitRanking: !values['no-fit-ranking'],
    }).finally(() => progress.stop());
    printSummary(values.reindex ? 'the catalog (re-index)' : file!, summary);
    return summary.imported + summary.updated > 0 ? 0 : 1;
  } finally {
    await embedder.close();
    await catalog.close();
  }
}

run().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message ? `${err.message}\n\n` : ''}${USAGE}\n`);
      process.exit(64);
    }
    process.stderr.write(`${err instanceof CatalogModelMismatchError ? err.message : (err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
