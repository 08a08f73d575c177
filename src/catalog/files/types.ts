import { ProductInputSchema } from '../../core/catalog/product.js';

export const FEED_FORMATS = ['jsonl', 'csv', 'gmc-tsv', 'gmc-xml'] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];

/** A ProductInput-shaped object with raw values, to hand to normalizeProduct(). */
export type ProductRow = Record<string, unknown>;

/** Why a record could not even be parsed; stable strings, counted per reason in import summaries. */
type RecordError = 'invalid_json' | 'not_an_object' | 'malformed_row' | 'malformed_xml' | 'invalid_acp_product' | 'discontinued';

/**
 * One record of a feed. `line` is the 1-based file line where the record starts (for a JSON
 * array, the element index + 1). A record that cannot be parsed is a value, not an exception.
 */
export type FeedRecord = { line: number; row: ProductRow } | { line: number; error: RecordError; detail: string };

/** ProductInput fields a reader can map a column onto (attributes are mapped separately). */
export type ProductField = Exclude<keyof typeof ProductInputSchema.shape, 'attributes'>;
export const PRODUCT_FIELDS = Object.keys(ProductInputSchema.shape).filter((k) => k !== 'attributes') as ProductField[];

/** Where in a file something went wrong; line and column are 1-based. */
export interface FilePlace {
  file: string;
  line?: number;
  column?: number;
}

/** `file:line:column`, as compilers print a place. */
const formatPlace = (place: FilePlace): string => [place.file, place.line, place.column].filter((p) => p !== undefined).join(':');

/**
 * The file as a whole cannot be read as the requested format (XML that is not RSS/Atom, a CSV
 * without a usable header, a mapping naming a missing column). Bad records never throw this.
 * The message starts with the place when it is known (`feed.csv:1: no column maps to title`).
 */
export class FeedFormatError extends Error {
  override readonly name: string = 'FeedFormatError';
  constructor(
    /** What is wrong, without the place. */
    readonly detail: string,
    readonly place?: FilePlace,
  ) {
    super(place ? `${formatPlace(place)}: ${detail}` : detail);
  }
}

/**
 * Line and column of a JSON.parse error in `text`, from the position V8 reports ("at position
 * 12"); only the file when the message has none (some of Node 20's do not).
 */
export function jsonErrorPlace(file: string, text: string, err: Error): FilePlace {
  const position = /at position (\d+)/.exec(err.message)?.[1];
  if (position === undefined) return { file };
  const before = text.slice(0, Number(position));
  const line = countLineBreaks(before) + 1;
  return { file, line, column: before.length - Math.max(before.lastIndexOf('\n'), before.lastIndexOf('\r')) };
}

/** A JSON.parse message without the quoted input some V8 versions repeat in it. */
export const jsonErrorDetail = (err: Error): string =>
  err.message
    .replace(/, (\.\.\.)?".*" is not valid JSON$/s, '')
    .replace(/ in JSON at position \d+.*$/s, '')
    .slice(0, 200);

/** Feeds rarely name their merchant per row; the caller's default fills the gap. */
export function withMerchant(row: ProductRow, merchant: string | undefined): ProductRow {
  if (merchant === undefined || (typeof row.merchant === 'string' && row.merchant.trim() !== '')) return row;
  return { ...row, merchant };
}

/** Line breaks inside a string, counting \r\n once. */
export const countLineBreaks = (text: string): number => text.match(/\r\n|\r|\n/g)?.length ?? 0;
