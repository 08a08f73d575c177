import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { suggestMapping } from './column-match.js';
import { readTable } from './delimited.js';
import {
  FeedFormatError,
  type FeedRecord,
  type FilePlace,
  jsonErrorDetail,
  jsonErrorPlace,
  PRODUCT_FIELDS,
  type ProductField,
  type ProductRow,
  withMerchant,
} from './types.js';

const columnList = z.union([z.string().trim().min(1), z.array(z.string().trim().min(1)).min(1)]);
const fieldColumns = Object.fromEntries(PRODUCT_FIELDS.map((field) => [field, columnList.optional()])) as Record<
  ProductField,
  z.ZodOptional<typeof columnList>
>;

/**
 * Aisle field → CSV column header. A list means "first non-empty of these columns". Columns
 * listed under `attributes` are copied into `attributes` under their header name.
 */
export const CsvMappingSchema = z.strictObject({
  ...fieldColumns,
  attributes: z.array(z.string().trim().min(1)).optional().describe('Extra columns kept as product attributes'),
});
export type CsvMapping = z.infer<typeof CsvMappingSchema>;

export interface CsvOptions {
  /** Explicit mapping; fields it leaves out still map by header name (see defaultColumnFor). */
  mapping?: CsvMapping;
  /** One character; default ",". */
  delimiter?: string;
  /** Default merchant for rows that carry none. */
  merchant?: string;
}

function validateMapping(input: unknown, source: string, place?: FilePlace): CsvMapping {
  const parsed = CsvMappingSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new FeedFormatError(
    `invalid column mapping${place ? '' : ` in ${source}`}: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
    place,
  );
}

/**
 * Parses the CLI form `title=Product Name,price=Selling Price,attributes=Color|Size`: entries
 * split on ",", alternative columns on "|"; a repeated field adds columns. Headers that contain
 * "," "|" or "=" need a mapping file. Throws FeedFormatError for an unknown field or an entry
 * without a column.
 */
export function parseMappingSpec(spec: string): CsvMapping {
  const draft: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const entry of spec.split(',')) {
    if (entry.trim() === '') continue;
    const eq = entry.indexOf('=');
    if (eq < 0) throw new FeedFormatError(`invalid column mapping entry "${entry.trim()}": expected field=Column Header`);
    const field = entry.slice(0, eq).trim();
    const columns = entry
      .slice(eq + 1)
      .split('|')
      .map((c) => c.trim())
      .filter((c) => c !== '');
    if (columns.length === 0) throw new FeedFormatError(`invalid column mapping entry "${entry.trim()}": no column header after "="`);
    draft[field] = [...(draft[field] ?? []), ...columns];
  }
  return validateMapping(draft, 'the mapping flag');
}

/**
 * Loads a small JSON mapping file (same shape as CsvMapping). Synchronous: it runs once, while
 * a CLI assembles its options. Throws on I/O errors and FeedFormatError on bad JSON or fields.
 */
export function loadMappingFile(path: string): CsvMapping {
  const text = readFileSync(path, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new FeedFormatError(`the mapping file is not valid JSON: ${jsonErrorDetail(err as Error)}`, jsonErrorPlace(path, text, err as Error));
  }
  return validateMapping(json, path, { file: path });
}

/** Whether the `--mapping` flag names a file: a `.json` path, or any existing file; else it is the inline spec. */
export const isMappingFile = (flag: string): boolean => flag.toLowerCase().endsWith('.json') || (!flag.includes('=') && existsSync(flag));

/** The `--mapping` flag: a mapping file (isMappingFile) or the inline spec. */
export function loadMapping(flag: string): CsvMapping {
  return isMappingFile(flag) ? loadMappingFile(flag) : parseMappingSpec(flag);
}

/**
 * The inline form of a mapping (parseMappingSpec's input), or null when a column name holds
 * "," "|" or "=", which only a mapping file can express.
 */
export function formatMappingSpec(mapping: Partial<Record<ProductField, string>>): string | null {
  const entries = Object.entries(mapping).filter((e): e is [string, string] => e[1] !== undefined);
  if (entries.some(([, column]) => /[,|=]/.test(column))) return null;
  return entries.map(([field, column]) => `${field}=${column}`).join(',');
}

/**
 * No column maps to title. `suggestion` maps title (when a column is like one) and the other
 * fields left unmapped to the columns most like them; `closest` names the columns most like a
 * title, best first.
 */
export class UnmappedTitleError extends FeedFormatError {
  override readonly name = 'UnmappedTitleError';
  constructor(
    readonly header: readonly string[],
    readonly closest: readonly string[],
    readonly suggestion: Partial<Record<ProductField, string>>,
    place: FilePlace,
  ) {
    const names = (columns: readonly string[]) => columns.map((c) => `"${c}"`).join(', ');
    super(
      closest.length > 0
        ? `no column maps to title; the closest are ${names(closest)}`
        : `no column maps to title, and none is named like one (header: ${header.slice(0, 30).join(', ')})`,
      place,
    );
  }
}

interface ColumnPlan {
  fields: Array<{ field: ProductField; columns: number[] }>;
  attributes: Array<{ name: string; column: number }>;
}

const headerKey = (name: string) => name.trim().toLowerCase();
const compactKey = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, '');

/**
 * Matches a header to a mapping: explicit entries first, then columns named like a field.
 * `place` is the header's line, for errors.
 */
function planColumns(header: string[], mapping: CsvMapping, place: FilePlace): ColumnPlan {
  const byName = new Map<string, number>();
  header.forEach((name, i) => {
    if (!byName.has(headerKey(name))) byName.set(headerKey(name), i);
  });
  const find = (column: string, usedFor: string): number => {
    const index = byName.get(headerKey(column));
    if (index === undefined)
      throw new FeedFormatError(`the mapping names column "${column}" for ${usedFor}, but the header has no such column (header: ${header.join(', ')})`, place);
    return index;
  };
  const plan: ColumnPlan = { fields: [], attributes: (mapping.attributes ?? []).map((name) => ({ name, column: find(name, 'attributes') })) };
  const used = new Set<number>();
  for (const field of PRODUCT_FIELDS) {
    const spec = mapping[field];
    if (spec === undefined) continue;
    const columns = (typeof spec === 'string' ? [spec] : spec).map((c) => find(c, field));
    for (const c of columns) used.add(c);
    plan.fields.push({ field, columns });
  }
  for (const field of PRODUCT_FIELDS) {
    if (mapping[field] !== undefined) continue;
    const index = header.findIndex((name, i) => !used.has(i) && compactKey(name) === compactKey(field));
    if (index >= 0) plan.fields.push({ field, columns: [index] });
  }
  if (!plan.fields.some((f) => f.field === 'title')) {
    const { closestToTitle, mapping: suggestion } = suggestMapping(
      header,
      new Set(plan.fields.map((f) => f.field)),
      new Set(plan.fields.flatMap((f) => f.columns)),
    );
    throw new UnmappedTitleError(header, closestToTitle, suggestion, place);
  }
  return plan;
}

function buildRow(cells: string[], plan: ColumnPlan): ProductRow {
  const row: ProductRow = {};
  for (const { field, columns } of plan.fields) {
    const value = columns.map((c) => cells[c] ?? '').find((v) => v.trim() !== '');
    if (value !== undefined) row[field] = value;
  }
  const attributes: Record<string, string> = {};
  for (const { name, column } of plan.attributes) {
    const value = cells[column] ?? '';
    if (value.trim() !== '') attributes[name] = value;
  }
  if (Object.keys(attributes).length > 0) row.attributes = attributes;
  return row;
}

/**
 * Reads a CSV file with a header row, mapping columns onto ProductInput fields as raw strings
 * (empty cells are left out). A ragged or unparseable row becomes a `malformed_row` record.
 * Throws FeedFormatError when there is no header, UnmappedTitleError when no column maps to
 * `title` (with a suggested mapping).
 */
export async function* readCsv(path: string, options: CsvOptions = {}): AsyncGenerator<FeedRecord> {
  let plan: ColumnPlan | null = null;
  for await (const event of readTable(path, options.delimiter ?? ',')) {
    if (event.kind === 'header') plan = planColumns(event.cells, options.mapping ?? {}, { file: path, line: event.line });
    else if (event.kind === 'error') yield { line: event.line, error: 'malformed_row', detail: event.detail };
    else if (plan !== null) yield { line: event.line, row: withMerchant(buildRow(event.cells, plan), options.merchant) };
  }
}
