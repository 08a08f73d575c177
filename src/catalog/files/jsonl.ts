import { createReadStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { acpVariantRows, isSearchable } from '../../core/acp-feeds/acp-products.js';
import { AcpProductSchema } from '../../core/schemas/feeds.js';
import { readHead } from './file-head.js';
import { FeedFormatError, type FeedRecord, jsonErrorDetail, jsonErrorPlace, type ProductRow, withMerchant } from './types.js';

export interface JsonlOptions {
  /** Default merchant for rows that carry none. */
  merchant?: string;
  /** Field renames applied to every row before anything else: `{ name: 'title' }`. */
  rename?: Readonly<Record<string, string>>;
}

const MAX_DETAIL = 200;
const DOCUMENT_PROBE_BYTES = 64 * 1024;

/**
 * Reads Aisle's JSONL (one product object per line, blank lines skipped) or a file holding one
 * JSON array of product objects. Yields a record per line or element; a line that is not JSON
 * or not an object becomes an error record. Throws on I/O errors and on an array file that is
 * not valid JSON as a whole (no element can be trusted then).
 *
 * ACP feed products are recognised by their `variants` array, in JSONL, in an array, or as ACP's
 * `{"products": [...]}` document; each variant becomes one product (docs/ingest.md).
 */
export async function* readJsonl(path: string, options: JsonlOptions = {}): AsyncGenerator<FeedRecord> {
  const toRecords = (line: number, value: unknown): FeedRecord[] => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return [
        {
          line,
          error: 'not_an_object',
          detail: `expected a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`,
        },
      ];
    }
    if (Array.isArray((value as { variants?: unknown }).variants)) return acpRecords(line, value, options.merchant);
    return [{ line, row: withMerchant(renameFields(value as ProductRow, options.rename), options.merchant) }];
  };

  const first = await firstNonSpaceChar(path);
  if (first === '[') {
    for (const [index, value] of (await readJsonArray(path)).entries()) yield* toRecords(index + 1, value);
    return;
  }
  const document = first === '{' ? await readProductsDocument(path) : null;
  if (document !== null) {
    for (const [index, value] of document.entries()) yield* toRecords(index + 1, value);
    return;
  }
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let lineNo = 0;
  for await (const raw of lines) {
    lineNo += 1;
    const text = lineNo === 1 ? raw.replace(/^\uFEFF/, '') : raw;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      yield { line: lineNo, error: 'invalid_json', detail: (err as Error).message.slice(0, MAX_DETAIL) };
      continue;
    }
    yield* toRecords(lineNo, value);
  }
}

/** The ACP product's variants as rows (ids namespaced `file`, so re-importing a file upserts), or why not. */
function acpRecords(line: number, value: unknown, merchant: string | undefined): FeedRecord[] {
  const parsed = AcpProductSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return [{ line, error: 'invalid_acp_product', detail: `${issue?.path.join('.') || 'product'}: ${issue?.message ?? 'invalid'}`.slice(0, MAX_DETAIL) }];
  }
  return acpVariantRows(parsed.data, 'file', new Date()).map(({ variant, row }) =>
    isSearchable(variant) ? { line, row: withMerchant(row, merchant) } : { line, error: 'discontinued', detail: `variant ${variant.id} is discontinued` },
  );
}

/**
 * ACP's `{"products": [...]}` (a feed's products as its API answers them), read whole: the
 * products, or null when the file is not one such document (then it is read as JSONL).
 */
async function readProductsDocument(path: string): Promise<unknown[] | null> {
  // The first line alone decides for JSONL, without reading the rest of a large file.
  const head = await readHead(path, DOCUMENT_PROBE_BYTES);
  const newline = head.indexOf('\n');
  if (newline === -1 && head.length === DOCUMENT_PROBE_BYTES) return null; // One line of 64 KB or more: JSONL.
  try {
    JSON.parse(newline === -1 ? head : head.slice(0, newline));
    return null; // The first line is a whole object: JSONL.
  } catch {
    // A document spread over lines: read it whole below.
  }
  const text = (await readFile(path, 'utf8')).replace(/^\uFEFF/, '');
  try {
    const value = JSON.parse(text) as { products?: unknown };
    return Array.isArray(value.products) ? value.products : null;
  } catch {
    return null;
  }
}

async function readJsonArray(path: string): Promise<unknown[]> {
  const text = (await readFile(path, 'utf8')).replace(/^\uFEFF/, '');
  try {
    return JSON.parse(text) as unknown[];
  } catch (err) {
    throw new FeedFormatError(`starts with "[" but is not a valid JSON array: ${jsonErrorDetail(err as Error)}`, jsonErrorPlace(path, text, err as Error));
  }
}

/** Copies `row` with keys renamed; an existing target key wins over the renamed source. */
export function renameFields(row: ProductRow, rename: Readonly<Record<string, string>> | undefined): ProductRow {
  if (rename === undefined) return row;
  const out: ProductRow = { ...row };
  for (const [from, to] of Object.entries(rename)) {
    if (!(from in out)) continue;
    const value = out[from];
    delete out[from];
    if (out[to] === undefined) out[to] = value;
  }
  return out;
}

/** The first character that is not whitespace or a BOM, or null for an empty file. */
async function firstNonSpaceChar(path: string): Promise<string | null> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) return null;
      // Whitespace and "[" / "{" are ASCII, so a chunk split inside a multi-byte character cannot hide them.
      const match = /[^\s\uFEFF]/.exec(buffer.toString('utf8', 0, bytesRead));
      if (match) return match[0];
    }
  } finally {
    await file.close();
  }
}
