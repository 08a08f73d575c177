import { createReadStream } from 'node:fs';
import { pipeline, Readable } from 'node:stream';
import { type CsvError, type Info, parse } from 'csv-parse';
import { countLineBreaks, FeedFormatError } from './types.js';

export type TableEvent =
  | { kind: 'header'; line: number; cells: string[] }
  | { kind: 'row'; line: number; cells: string[] }
  | { kind: 'error'; line: number; detail: string };

interface ParsedRecord {
  record: string[];
  info: Info;
}

/**
 * Streams a delimited text file as a header and rows. Quoted multi-line cells, a BOM, `\r\n`
 * and stray quotes inside cells are accepted; a row whose cell count differs from the header's,
 * or a quote left open, becomes an error event. Throws on I/O errors and on a file with no
 * header row.
 */
export async function* readTable(path: string, delimiter: string): AsyncGenerator<TableEvent> {
  const skipped: Array<{ line: number; detail: string }> = [];
  const parser = parse({
    delimiter,
    info: true,
    raw: true,
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_skip: (err: CsvError | undefined, raw: string | undefined) => {
      const end = typeof err?.lines === 'number' ? err.lines : 0;
      skipped.push({ line: Math.max(1, end - countLineBreaks((raw ?? '').replace(/\n$/, ''))), detail: err?.message ?? 'unparseable row' });
      return undefined;
    },
  });
  const records = pipeline(Readable.from(unifyLineBreaks(createReadStream(path, { encoding: 'utf8' }))), parser, () => undefined);

  let header: string[] | null = null;
  const flushSkipped = function* (before: number): Generator<TableEvent> {
    skipped.sort((a, b) => a.line - b.line);
    while (skipped.length > 0 && skipped[0]!.line < before) yield { kind: 'error', ...skipped.shift()! };
  };
  for await (const { record, info } of records as AsyncIterable<ParsedRecord>) {
    // csv-parse reports the line a record ends on; multi-line cells move its start up.
    const line = info.lines - record.reduce((n, cell) => n + countLineBreaks(cell), 0);
    yield* flushSkipped(line);
    if (header === null) {
      header = record;
      yield { kind: 'header', line, cells: record };
    } else if (record.length !== header.length) {
      yield { kind: 'error', line, detail: `row has ${record.length} cells, the header has ${header.length}` };
    } else {
      yield { kind: 'row', line, cells: record };
    }
  }
  if (header === null) throw new FeedFormatError('no header row: the file is empty', { file: path });
  yield* flushSkipped(Number.POSITIVE_INFINITY);
}

/**
 * csv-parse counts a `\r\n` inside a quoted cell as two lines, so line numbers drift; turning
 * every `\r\n` and lone `\r` into `\n` first keeps them exact. Also drops a leading BOM.
 */
async function* unifyLineBreaks(source: AsyncIterable<string | Buffer>): AsyncGenerator<string> {
  let carriedCR = false;
  let first = true;
  for await (const piece of source) {
    let chunk: string = (carriedCR ? '\r' : '') + String(piece);
    if (first) chunk = chunk.replace(/^\uFEFF/, '');
    first = false;
    carriedCR = chunk.endsWith('\r');
    if (carriedCR) chunk = chunk.slice(0, -1);
    yield chunk.replace(/\r\n?/g, '\n');
  }
  if (carriedCR) yield '\n';
}
