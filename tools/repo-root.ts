/**
 * The repository's folder, for tools that read or write beside their own code (data/, ../shared,
 * .bench/): the nearest folder above this file that holds a package.json. Tools run from their
 * TypeScript or from the compiled copy under .cache/build/<digest>/ (src/launcher/compile.mjs),
 * which holds none, so both find the same folder.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
}

export const REPO_ROOT = findRoot();
