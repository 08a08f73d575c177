// Types for compile.mjs, which TypeScript code (the test suite's fixtures) imports.
/** A digest of the files under `paths` (relative to the repository), the lock file and the build tool. */
export function treeDigest(paths: string[]): string;
/** The compiled tree for the sources as they are now, built if missing; returns its folder. */
export function compile(): Promise<string>;
