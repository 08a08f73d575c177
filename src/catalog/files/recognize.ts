import { readTable } from './delimited.js';
import { readJsonl } from './jsonl.js';
import { AMAZON_2020_MAPPING, type PresetName } from './presets.js';
import type { FeedFormat } from './types.js';

interface Fingerprint {
  format: FeedFormat;
  /** What the export is, for the message that says it was recognised. */
  label: string;
  /** Columns (CSV) or keys of the first record (JSON) the export always has; case-insensitive. */
  names: readonly string[];
}

const mappedColumns = (mapping: Readonly<Record<string, string | readonly string[] | undefined>>): string[] =>
  Object.values(mapping).flatMap((c) => (c === undefined ? [] : typeof c === 'string' ? [c] : [...c]));

/**
 * How each preset's export is recognised. Amazon's: every column its mapping reads (18 of the
 * 28), so the preset applies exactly when it can. Best Buy's records have no id or title, only
 * these seven keys, Algolia's `popularity` among them.
 */
const FINGERPRINTS: Readonly<Record<PresetName, Fingerprint>> = {
  'amazon-2020': { format: 'csv', label: "PromptCloud's Amazon US sample export (2020)", names: mappedColumns(AMAZON_2020_MAPPING) },
  'bestbuy-algolia': {
    format: 'jsonl',
    label: "Algolia's Best Buy demo export",
    names: ['name', 'description', 'brand', 'categories', 'price', 'image', 'popularity'],
  },
};

/** The CSV header, or the keys of the first JSON record; null for other formats or an empty file. */
async function headerNames(path: string, format: FeedFormat, delimiter: string | undefined): Promise<string[] | null> {
  if (format === 'csv') {
    // Only the first event is read; leaving the loop closes the file.
    for await (const event of readTable(path, delimiter ?? ',')) return event.kind === 'header' ? event.cells : null;
  } else if (format === 'jsonl') {
    for await (const record of readJsonl(path)) return 'row' in record ? Object.keys(record.row) : null;
  }
  return null;
}

export interface RecognizedExport {
  preset: PresetName;
  label: string;
}

/**
 * The known export (a preset in PRESETS) a feed file is, by its CSV header or its first JSON
 * record's keys; null when it is none of them. Reads only the start of the file (all of a JSON
 * array file). Throws what the reader throws for a file that cannot be read at all (an empty
 * CSV: FeedFormatError).
 */
export async function recognizeExport(path: string, format: FeedFormat, delimiter?: string): Promise<RecognizedExport | null> {
  const names = await headerNames(path, format, delimiter);
  if (names === null) return null;
  const present = new Set(names.map((n) => n.trim().toLowerCase()));
  for (const [preset, print] of Object.entries(FINGERPRINTS) as [PresetName, Fingerprint][]) {
    if (print.format === format && print.names.every((n) => present.has(n.toLowerCase()))) {
      return { preset, label: print.label };
    }
  }
  return null;
}
