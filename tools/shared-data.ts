/** Where ../shared lies: evaluation data and reference models beside the repository, on machines that have them. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
/** ../shared, read by the benches and the relevance tools. */
export const SHARED_DIR = resolve(repoRoot, '../shared');

/** A path under ../shared, or null when it is absent. */
export function sharedPath(...parts: string[]): string | null {
  const path = resolve(SHARED_DIR, ...parts);
  return existsSync(path) ? path : null;
}
