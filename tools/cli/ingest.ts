/**
 * Catalog import: `npm run ingest -- FILE [options]`, or `npm run ingest -- --reindex`.
 * A CSV or JSON file whose header is a known export's (recognize.ts) is read with that preset.
 * Exit codes (docs/ingest.md): 0 imported (or validated, with --dry-run) at least one product;
 * 1 nothing valid was imported (the previous catalog keeps serving) or an unexpected error;
 * 64 usage; 65 a file that cannot be read as a feed; 66 a missing or unreadable file; 75 the
 * data directory is held by a running server; 78 the configuration.
 */
// First, so that the command line is checked before anything else loads (ingest.command.ts).

import { createReadStream } from 'node:fs';
import { type CsvMapping, formatMappingSpec, isMappingFile, loadMappingFile, parseMappingSpec, UnmappedTitleError } from '../../src/catalog/files/csv.js';
import { detectFormat, type FeedOptions, readFeed } from '../../src/catalog/files/detect.js';
import { PRESETS, type PresetName } from '../../src/catalog/files/presets.js';
import { recognizeExport } from '../../src/catalog/files/recognize.js';
import { FEED_FORMATS, type FeedFormat, FeedFormatError } from '../../src/catalog/files/types.js';
import { CliError, EXIT, UsageError } from '../../src/cli/errors.js';
import { requireReadableFile } from '../../src/cli/files.js';
import { createProgressReporter } from '../../src/cli/progress.js';
import { loadConfig } from '../../src/config.js';
import { type FeedRecord, type ImportSummary, importCatalog } from '../../src/core/catalog/import.js';
import { catalogAsFeed } from '../../src/core/catalog/reindex.js';
import { openPlacer } from '../../src/knowledge/placer.js';
import { openCatalog, openEmbedder } from '../../src/runtime.js';
import { cli } from './ingest.command.js';

const { values, positionals } = cli;
const batchSize = cli.number('batch-size', { integer: true, positive: true });

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

/** The --mapping flag: a mapping file (its errors are the file's, 65/66), else an inline spec (a usage mistake). */
function mappingFlag(flag: string): CsvMapping {
  if (isMappingFile(flag)) return loadMappingFile(flag);
  try {
    return parseMappingSpec(flag);
  } catch (err) {
    throw err instanceof FeedFormatError ? new UsageError(`--mapping: ${err.message}`) : err;
  }
}

/** What the flags ask for, without a preset. */
function flagOptions(): FeedOptions {
  if (values.format !== undefined && !FEED_FORMATS.includes(values.format as FeedFormat))
    throw new UsageError(`unknown format ${values.format} (formats: ${FEED_FORMATS.join(', ')})`);
  return {
    ...(values.format ? { format: values.format as FeedFormat } : {}),
    ...(values.merchant ? { merchant: values.merchant } : {}),
    ...(values.delimiter ? { delimiter: values.delimiter } : {}),
    ...(values.mapping ? { mapping: mappingFlag(values.mapping) } : {}),
  };
}

/** The preset's options under the flags' (flags win); without --preset or --mapping, the preset of a recognised export. */
async function feedOptions(file: string): Promise<FeedOptions> {
  const flags = flagOptions();
  let preset = values.preset as PresetName | undefined;
  if (preset !== undefined && !(preset in PRESETS)) throw new UsageError(`unknown preset ${preset} (presets: ${Object.keys(PRESETS).join(', ')})`);
  if (preset === undefined && values.mapping === undefined) {
    const format = await detectFormat(file, flags.format);
    const known = await recognizeExport(file, format, flags.delimiter);
    if (known !== null) {
      preset = known.preset;
      process.stderr.write(`ingest: ${file} has the ${format === 'csv' ? 'header' : 'fields'} of ${known.label}; reading it with --preset ${preset}\n`);
    }
  }
  return { ...(preset ? PRESETS[preset] : {}), ...flags };
}

/** The UnmappedTitleError with the --mapping that would read the file, quoted for a POSIX shell. */
function withMappingHint(file: string, err: UnmappedTitleError): CliError {
  const quote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;
  const spec = formatMappingSpec(err.suggestion.title === undefined ? { title: 'COLUMN', ...err.suggestion } : err.suggestion);
  const hint =
    spec === null
      ? `put ${JSON.stringify(err.suggestion)} in a .json file and pass it: npm run ingest -- ${quote(file)} --mapping FILE.json`
      : `${err.suggestion.title === undefined ? 'name the title column' : 'map the columns'}: npm run ingest -- ${quote(file)} --mapping ${quote(spec)}`;
  return new CliError(EXIT.dataError, `${err.message}\n  ${hint}`);
}

/**
 * Opens the feed and reads its first record now, so a file that cannot be read as a feed at all
 * (no header, no title column, not XML) fails before the catalog and the embedding model open.
 */
async function openFeed(file: string): Promise<{ format: FeedFormat; records: AsyncIterable<FeedRecord> }> {
  requireReadableFile(file);
  const feed = await readFeed(file, await feedOptions(file));
  let first: IteratorResult<FeedRecord>;
  try {
    first = await feed.records.next();
  } catch (err) {
    throw err instanceof UnmappedTitleError ? withMappingHint(file, err) : err;
  }
  async function* all(): AsyncGenerator<FeedRecord> {
    if (first.done) return;
    yield first.value;
    yield* feed.records;
  }
  return { format: feed.format, records: all() };
}

function printSummary(source: string, s: ImportSummary): void {
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ source, ...s })}\n`);
    return;
  }
  const n = (x: number) => x.toLocaleString('en-US').padStart(9);
  const out = [
    `${s.dryRun ? 'Checked' : 'Imported'} ${source} in ${(s.durationMs / 1000).toFixed(1)} s: ${s.read.toLocaleString('en-US')} rows read`,
    `  ${s.dryRun ? 'valid  ' : 'new    '} ${n(s.imported)}`,
    ...(s.dryRun
      ? []
      : [
          `  updated ${n(s.updated)}`,
          `  delta   ${n(s.delta)}   (price or availability only: written without embedding)`,
          `  same    ${n(s.unchanged)}   (as stored: nothing written)`,
          ...(s.removed > 0 ? [`  removed ${n(s.removed)}   (no longer in the feed)`] : []),
          `  embedded${n(s.embedded)}`,
        ]),
    `  skipped ${n(s.skipped)}`,
  ];
  for (const [reason, count] of Object.entries(s.skippedByReason).sort((a, b) => b[1] - a[1])) {
    const examples = s.examples.filter((e) => e.reason === reason).map((e) => `line ${e.line}: ${e.detail}`);
    out.push(`    ${reason.padEnd(20)} ${n(count)}   e.g. ${examples.join('; ')}`);
  }
  const wrote = s.imported + s.updated + s.delta + s.removed > 0;
  if (s.catalog && !wrote) {
    out.push(`Every product is as stored: the catalog is unchanged (version ${s.catalog.version}).`);
  } else if (s.catalog) {
    const c = s.catalog;
    out.push(
      `Catalog now serves ${c.productCount.toLocaleString('en-US')} products (version ${c.version}, model ${c.model}, ${c.dimensions} d, ANN index: ${c.annIndex}${c.annRecall === null ? '' : `, recall@100 ${c.annRecall.toFixed(3)} against exact search on probe queries`}).`,
    );
  } else if (!s.dryRun) {
    out.push('Nothing valid was imported; the previous catalog is unchanged.');
  }
  const r = s.rankingModel;
  if (r?.action === 'fitted') {
    const conversations =
      r.conversations > 0 ? `, shopping-need decision fitted on ${r.conversations} synthetic conversations` : ', default shopping-need decision';
    out.push(
      `Ranking model: ${r.source}, fitted in ${(r.ms / 1000).toFixed(1)} s (${r.answered} requests found their product${conversations}); servers follow it with the catalog version.`,
    );
  } else if (r?.action === 'kept') {
    out.push(`Ranking model: kept ${r.source} (${r.reason}).`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

async function run(): Promise<number> {
  const file = positionals[0];
  if (values.reindex ? positionals.length > 0 : positionals.length !== 1) throw new UsageError('give exactly one FILE, or --reindex');
  if (values.refit && values['no-fit-ranking']) throw new UsageError('--refit and --no-fit-ranking contradict each other: give one');
  const feed = values.reindex ? null : await openFeed(file!);
  const config = loadConfig();
  const catalog = await openCatalog(config);
  try {
    const embedder = await openEmbedder(config);
    try {
      let records: AsyncIterable<FeedRecord>;
      let total: number | null;
      if (feed === null) {
        records = catalogAsFeed(catalog);
        total = (await catalog.info())?.productCount ?? 0;
      } else {
        records = feed.records;
        total = await countRows(file!, feed.format);
      }
      const progress = createProgressReporter(process.stderr, total);
      const summary = await importCatalog(
        records,
        { catalog, embedder, placer: await openPlacer(embedder, config.knowledge.extraFiles) },
        {
          replace: values.replace || values.reindex,
          dryRun: values['dry-run'],
          ...(batchSize === undefined ? {} : { batchSize }),
          onProgress: (p) => progress.update(p),
          fitRanking: !values['no-fit-ranking'],
          refit: values.refit,
        },
      ).finally(() => progress.stop());
      printSummary(values.reindex ? 'the catalog (re-index)' : file!, summary);
      return summary.imported + summary.updated + summary.delta + summary.unchanged > 0 ? EXIT.ok : EXIT.failure;
    } finally {
      await embedder.close();
    }
  } finally {
    await catalog.close();
  }
}

await cli.run(run);
