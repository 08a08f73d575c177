import { ProductInputSchema } from '../../core/catalog/product.js';

export const FEED_FORMATS = ['jsonl', 'csv', 'gmc-tsv', 'gmc-xml'] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];

/** A ProductInput-shaped object with raw values, to hand to normalizeProduct(). */
export type ProductRow = Record<string, unknown>;

/** Why a record could not even be parsed; stable strings, counted per reason in import summaries. */
export type RecordError = 'invalid_json' | 'not_an_object' | 'malformed_row' | 'malformed_xml';

/**
 * One record of a feed. `line` is the 1-based file line where the record starts (for a JSON
 * array, the element index + 1). A record that cannot be parsed is a value, not an exception.
 */
export type FeedRecord = { line: number; row: ProductRow } | { line: number; error: RecordError; detail: string };

/** ProductInput fields a reader can map a column onto (attributes are mapped separately). */
export type ProductField = Exclude<keyof typeof ProductInputSchema.shape, 'attributes'>;
export const PRODUCT_FIELDS = Object.keys(ProductInputSchema.shape).filter((k) => k !== 'attributes') as ProductField[];

/**
 * The file as a whole cannot be read as the requested format (XML that is not RSS/Atom, a CSV
 * without a usable header, a mapping naming a missing column). Bad records never throw this.
 */
export class FeedFormatError extends Error {
  override readonly name = 'FeedFormatError';
}

/** Feeds rarely name their merchant per row; the caller's default fills the gap. */
export function withMerchant(row: ProductRow, merchant: string | undefined): ProductRow {
  if (merchant === undefined || (typeof row.merchant === 'string' && row.merchant.trim() !== '')) return row;
  return { ...row, merchant };
}

/** Line breaks inside a string, counting \r\n once. */
export const countLineBreaks = (text: string): number => text.match(/\r\n|\r|\n/g)?.length ?? 0;
