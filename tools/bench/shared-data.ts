import { existsSync } from 'node:fs';
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
