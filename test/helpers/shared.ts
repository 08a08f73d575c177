import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** ../shared beside the checkout: third-party evaluation data, real catalogs and the reference model. */
const SHARED_DIR = resolve(repoRoot, '../shared');

/** A path under ../shared (whether or not it exists). */
export const sharedPath = (...parts: string[]): string => resolve(SHARED_DIR, ...parts);

/**
 * What a test needs from ../shared. Where it is absent the test skips, saying so in its title;
 * with AISLE_REQUIRE_SHARED=1 (set by .ci/run) it runs and fails instead, naming what is missing,
 * so a CI machine without ../shared cannot pass by skipping.
 */
export interface SharedNeed {
  /** Every path exists. */
  present: boolean;
  /** Skip the test: something is absent and AISLE_REQUIRE_SHARED is not set. */
  skip: boolean;
  /** For the describe or test title: empty when present, else why it skips or fails. */
  note: string;
  /**
   * Throws, naming what is missing, when something is absent and AISLE_REQUIRE_SHARED=1: the
   * first thing such a test (or its describe's beforeEach) does, so each of its tests fails.
   */
  check(): void;
}

export function needsShared(paths: readonly string[], env: NodeJS.ProcessEnv = process.env): SharedNeed {
  const missing = paths.filter((path) => !existsSync(path));
  const present = missing.length === 0;
  const required = env.AISLE_REQUIRE_SHARED === '1';
  const what = missing.join(', ');
  return {
    present,
    skip: !present && !required,
    note: present ? '' : required ? ` (fails: ${what} absent, AISLE_REQUIRE_SHARED=1)` : ` (skipped: ${what} is absent)`,
    check: () => {
      if (!present && required)
        throw new Error(
          `${what} ${missing.length === 1 ? 'is' : 'are'} absent, and AISLE_REQUIRE_SHARED=1 turns a skip for a missing ../shared into a failure`,
        );
    },
  };
}
