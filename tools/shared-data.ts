/** Where ../shared lies: evaluation data and reference models beside the repository, on machines that have them. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { REPO_ROOT } from './repo-root.js';

/** ../shared, read by the benches and the relevance tools. */
export const SHARED_DIR = resolve(REPO_ROOT, '../shared');

/** A path under ../shared, or null when it is absent. */
export function sharedPath(...parts: string[]): string | null {
  const path = resolve(SHARED_DIR, ...parts);
  return existsSync(path) ? path : null;
}
