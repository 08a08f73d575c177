import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';

const created = new Set<string>();
const execFileAsync = promisify(execFile);

/**
 * A fresh directory under the system temp folder. Every one is removed after its test file,
 * passed or failed (test/setup-temp-dirs.ts), and the suite fails if any is left (global-setup).
 */
export function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `aisle-${label}-`));
  created.add(dir);
  return dir;
}

/** Removes every directory tempDir made in this test file. */
export async function removeTempDirs(): Promise<void> {
  for (const dir of created) await rm(dir, { recursive: true, force: true, maxRetries: 3 });
  created.clear();
}

/**
 * A data directory as `npm start`'s first start leaves it, for a child process to start on: a
 * copy of the suite's seed (helpers/suite-fixtures.ts), so the start skips initdb, the migrations,
 * the model build and the sample import. The database holds no account yet, so the child still
 * creates the default one. `catalog: false` leaves the catalog out, as for a process that never
 * imports the sample (AISLE_SAMPLE_CATALOG=false, the operator tools). Only test/main.test.ts
 * starts on an empty directory: it checks what a truly first start prints.
 */
export async function seededDataDir(label: string, options: { catalog?: boolean } = {}): Promise<string> {
  const dir = tempDir(label);
  const seed = inject('seedDataDir');
  const parts = options.catalog === false ? ['pg', 'models'] : ['pg', 'models', 'catalog'];
  await Promise.all(parts.map((part) => copyTree(join(seed, part), join(dir, part))));
  return dir;
}

/**
 * Copies a directory tree with cp(1) rather than Node's fs.cp: the seed's PGlite folder is over a
 * thousand small files, and a seed copy took fs.cp 0.55–0.73 CPU-seconds and 590–740 ms against
 * cp's 0.12 and 50 ms (five copies each, twice, 2026-11-26), some twenty copies a run.
 */
export async function copyTree(from: string, to: string): Promise<void> {
  await execFileAsync('cp', ['-R', from, to]);
}

/** Environment for a child process: the embedded default in `dataDir`, nothing inherited that changes it. */
export function childEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, AISLE_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', ...extra };
  delete env.DATABASE_URL;
  return env;
}

export interface Child {
  proc: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the first match of `pattern` in stderr; rejects when the process exits first. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

/** The entry points that npm scripts run compiled (`node src/launcher/run.mjs <entry>`; `npm start`'s is src/main.ts). */
const COMPILED_ENTRIES = new Set(
  Object.values((JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts).flatMap((script) =>
    [...script.matchAll(/\bnode src\/launcher\/run\.mjs(?: ((?:src|tools)\/\S+\.ts))?/g)].map((m) => m[1] ?? 'src/main.ts'),
  ),
);
// A launcher that moved would otherwise leave this empty, and every child would start through tsx.
if (!COMPILED_ENTRIES.has('src/main.ts')) throw new Error('package.json: no script runs src/main.ts through src/launcher/run.mjs');

/**
 * V8 flags for the processes tests start. They live seconds, and V8 spends about half a
 * CPU-second of each start re-compiling PGlite's 9 MB of WebAssembly with its optimising tier,
 * which so short a process never earns back: `--liftoff-only` keeps its baseline code. Only the
 * speed of WebAssembly changes, not what any code does (docs/development.md, "Tests").
 */
const CHILD_V8_FLAGS = ['--liftoff-only'];

/**
 * Runs a TypeScript entry point the way its npm script does, capturing both streams: the server,
 * the webhook worker and the operator tools from their compiled JavaScript (src/launcher/run.mjs,
 * built once per run by global-setup.ts), anything else (test fixtures) through tsx.
 */
export function runTs(entry: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const argv = [...CHILD_V8_FLAGS, ...(COMPILED_ENTRIES.has(entry) ? [RUN_ENTRY, entry, ...args] : ['--import', 'tsx', entry, ...args])];
  const proc = spawn(process.execPath, argv, { env, stdio: 'pipe' });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  // 'exit' can come before the last of the child's output has been read (a tool that prints its
  // usage and exits at once): settle once both streams have ended too, or a second after the
  // exit when a process the child started still holds them.
  const streamEnded = (stream: NodeJS.ReadableStream) => new Promise<void>((resolve) => stream.once('end', resolve).once('close', resolve));
  const ended = Promise.all([streamEnded(proc.stdout), streamEnded(proc.stderr)]);
  const exited = new Promise<number | null>((resolve) =>
    proc.on('exit', (code) => {
      const late = setTimeout(() => resolve(code), 1_000);
      void ended.then(() => {
        clearTimeout(late);
        resolve(code);
      });
    }),
  );
  return {
    proc,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForStderr: (pattern, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; stderr:\n${err}`)), timeoutMs);
        const check = () => {
          const m = err.match(pattern);
          if (m) {
            clearTimeout(timer);
            resolve(m);
          }
        };
        proc.stderr.on('data', check);
        void exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`exited with ${code} before ${pattern}; stderr:\n${err}`));
        });
        check();
      }),
  };
}

/** What `npm start` and the other npm scripts run (package.json). */
const RUN_ENTRY = 'src/launcher/run.mjs';

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a TypeScript entry point (runTs) to its end. */
export async function runToEnd(entry: string, args: string[], env: NodeJS.ProcessEnv): Promise<Finished> {
  const child = runTs(entry, args, env);
  const code = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

/** A stack trace line ("    at fn (file:1:2)"): a tool prints none unless run with --verbose. */
export const STACK_LINE = /^\s+at .+/m;
