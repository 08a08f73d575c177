import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** A path under ../shared (evaluation data beside the repository), or null when it is absent. */
export function sharedPath(...parts: string[]): string | null {
  const path = resolve(repoRoot, '../shared', ...parts);
  return existsSync(path) ? path : null;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

/** The objects of a JSON-lines file (blank lines skipped), at most `limit` of them. */
export async function readJsonl<T>(path: string, limit = Number.POSITIVE_INFINITY): Promise<T[]> {
  const out: T[] = [];
  for await (const line of createInterface({ input: createReadStream(path) })) {
    if (out.length >= limit) break;
    if (line.trim()) out.push(JSON.parse(line) as T);
  }
  return out;
}
