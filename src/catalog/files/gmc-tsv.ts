import { readTable } from './delimited.js';
import { addGmcValue, type GmcFields, gmcAttributeName, LIST_ATTRIBUTES, mapGmcItem } from './gmc-fields.js';
import { FeedFormatError, type FeedRecord } from './types.js';

export interface GmcTsvOptions {
  /** GMC feeds do not name their merchant, so it comes from here. */
  merchant?: string;
  /** Default tab. */
  delimiter?: string;
}

/**
 * Reads a Google Merchant Center text feed: a header of GMC attribute names (optionally
 * `g:`-prefixed), one item per row. A ragged row becomes a `malformed_row` record. Throws
 * FeedFormatError when the header has neither `id` nor `title`.
 */
export async function* readGmcTsv(path: string, options: GmcTsvOptions = {}): AsyncGenerator<FeedRecord> {
  let names: string[] = [];
  for await (const event of readTable(path, options.delimiter ?? '\t')) {
    if (event.kind === 'header') {
      names = event.cells.map(gmcAttributeName);
      if (!names.includes('id') && !names.includes('title')) {
        throw new FeedFormatError(`not a Merchant Center feed: the header has no id or title column (header: ${event.cells.slice(0, 30).join(', ')})`, {
          file: path,
          line: event.line,
        });
      }
    } else if (event.kind === 'error') {
      yield { line: event.line, error: 'malformed_row', detail: event.detail };
    } else {
      const fields: GmcFields = new Map();
      event.cells.forEach((cell, i) => {
        const name = names[i] ?? '';
        const values = LIST_ATTRIBUTES.has(name) ? cell.split(',') : [cell];
        for (const value of values) addGmcValue(fields, name, value);
      });
      yield { line: event.line, row: mapGmcItem(fields, options.merchant) };
    }
  }
}
