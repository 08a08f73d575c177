import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { type CsvMapping, readCsv } from './csv.js';
import { readHead } from './file-head.js';
import { readGmcTsv } from './gmc-tsv.js';
import { readGmcXml } from './gmc-xml.js';
import { readJsonl } from './jsonl.js';
import { FEED_FORMATS, type FeedFormat, FeedFormatError, type FeedRecord, type ProductRow } from './types.js';

export interface FeedOptions {
  /** Skips detection. */
  format?: FeedFormat;
  /** Default merchant; for GMC XML it overrides the channel title. */
  merchant?: string;
  /** CSV column mapping. */
  mapping?: CsvMapping;
  /** CSV / TSV delimiter (defaults "," and tab). */
  delimiter?: string;
  /** JSONL field renames, e.g. `{ name: 'title' }`. */
  rename?: Readonly<Record<string, string>>;
  /** A preset's last touch on each parsed row (derive an id, decode entities). */
  adaptRow?: (row: ProductRow) => ProductRow;
}

const BY_EXTENSION: Readonly<Record<string, FeedFormat>> = {
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
  '.json': 'jsonl',
  '.csv': 'csv',
  '.tsv': 'gmc-tsv',
  '.txt': 'gmc-tsv',
  '.xml': 'gmc-xml',
  '.rss': 'gmc-xml',
  '.atom': 'gmc-xml',
};

const SNIFF_BYTES = 1024;

/**
 * The feed format: `explicit` when given, else by extension, else by sniffing the first KB
 * (`<` → XML, `{`/`[` → JSON, a tab in the first line → GMC TSV, otherwise CSV). Reads the
 * file only when sniffing; throws on I/O errors.
 */
export async function detectFormat(path: string, explicit?: FeedFormat): Promise<FeedFormat> {
  if (explicit !== undefined) {
    if (!FEED_FORMATS.includes(explicit)) throw new RangeError(`unknown feed format "${String(explicit)}"`);
    return explicit;
  }
  const byExtension = BY_EXTENSION[extname(path).toLowerCase()];
  if (byExtension !== undefined) return byExtension;
  const head = await readHead(path, SNIFF_BYTES);
  if (head.startsWith('<')) return 'gmc-xml';
  if (head.startsWith('{') || head.startsWith('[')) return 'jsonl';
  return (head.split('\n', 1)[0] ?? '').includes('\t') ? 'gmc-tsv' : 'csv';
}

function openReader(path: string, format: FeedFormat, options: FeedOptions): AsyncGenerator<FeedRecord> {
  const { merchant, delimiter } = options;
  switch (format) {
    case 'jsonl':
      return readJsonl(path, { merchant, rename: options.rename });
    case 'csv':
      return readCsv(path, { merchant, delimiter, mapping: options.mapping });
    case 'gmc-tsv':
      return readGmcTsv(path, { merchant, delimiter });
    case 'gmc-xml':
      return readGmcXml(path, { merchant });
  }
}

async function* adapted(records: AsyncIterable<FeedRecord>, adaptRow: (row: ProductRow) => ProductRow): AsyncGenerator<FeedRecord> {
  for await (const record of records) yield 'row' in record ? { line: record.line, row: adaptRow(record.row) } : record;
}

/**
 * Opens a product feed: detects its format (see detectFormat) and returns the matching reader's
 * records, each a ProductInput-shaped row for normalizeProduct() or a parse error. Detection
 * happens now (so a missing file rejects here); reading happens as the records are iterated,
 * and throws only for I/O errors or a file that is not the format at all (FeedFormatError).
 */
export async function readFeed(path: string, options: FeedOptions = {}): Promise<{ format: FeedFormat; records: AsyncGenerator<FeedRecord> }> {
  if (!(await stat(path)).isFile()) throw new FeedFormatError('not a file', { file: path });
  const format = await detectFormat(path, options.format);
  const records = openReader(path, format, options);
  return { format, records: options.adaptRow ? adapted(records, options.adaptRow) : records };
}
