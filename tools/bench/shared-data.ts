import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, EXIT } from '../../src/cli/errors.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** ../shared: evaluation data and reference models beside the repository, on machines that have them. */
export const SHARED_DIR = resolve(repoRoot, '../shared');

/** A path under ../shared, or null when it is absent. */
export function sharedPath(...parts: string[]): string | null {
  const path = resolve(SHARED_DIR, ...parts);
  return existsSync(path) ? path : null;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

/**
 * The objects of a JSON-lines file (blank lines skipped), at most `limit` of them. A line that is
 * not JSON throws CliError (exit 65) naming the file and line.
 */
export async function readJsonl<T>(path: string, limit = Number.POSITIVE_INFINITY): Promise<T[]> {
  const out: T[] = [];
  let lineNo = 0;
  for await (const line of createInterface({ input: createReadStream(path) })) {
    lineNo += 1;
    if (out.length >= limit) break;
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch (err) {
      throw new CliError(EXIT.dataError, `${path}:${lineNo}: not valid JSON: ${(err as Error).message.slice(0, 200)}`);
    }
  }
  return out;
}
