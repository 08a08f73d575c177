/**
 * Code bundled by esbuild from our TypeScript when a process first needs it: the console's page,
 * the MCP product-card view and the learning thread's code. Built in memory once per process, so a
 * fresh clone needs only `npm install`, no build output is committed and the same TypeScript runs
 * under plain node, tsx or vitest; a build that failed is tried again at the next use.
 */
import { type BuildOptions, build, type OutputFile } from 'esbuild';

/** `make`, run on the first call only; every call gets its promise until it fails. */
export function onFirstUse<T>(make: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () => {
    pending ??= make().catch((err: unknown) => {
      pending = null;
      throw err;
    });
    return pending;
  };
}

/** `entry` and what it imports as one bundle in memory (`options` adds to bundle, no writing, no logging). */
export async function bundle(entry: string, options: Omit<BuildOptions, 'entryPoints' | 'bundle' | 'write'>): Promise<OutputFile[]> {
  const result = await build({ ...options, entryPoints: [entry], bundle: true, write: false, logLevel: 'silent' });
  return result.outputFiles;
}
