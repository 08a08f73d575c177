// Our JavaScript: src/ and tools/ transpiled by esbuild (the transform tsx applies on the fly) into
// .cache/build/<digest of the sources>/, so `npm start` and the other npm scripts (run.mjs) run
// plain node without a TypeScript loader: about 80 MB less per process and half the start-up CPU
// (docs/development.md, "How npm scripts run our code"). Plain JavaScript, so that using it costs
// no loader either.
//
// A build is named by the digest of what goes into it (and of this file) and written under a
// temporary name, then renamed into place: processes that start together agree on one build and
// never see half of one; an unchanged tree starts from the build it already has.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BUILDS = join(ROOT, '.cache', 'build');
/** Builds kept beside the current one, newest first, whatever their age: a server still running from an older one may load a module late. */
const KEEP = 3;
const INPUTS = ['src', 'tools', 'data/sample-catalog.jsonl', 'data/taxonomy', 'data/knowledge'];
// What tsconfig.json says that changes emitted code (tsx, which the tests and `npm run conformance` use, reads the same).
const TSCONFIG = { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } };

// Installed packages are not sources (examples/ has its own node_modules).
const files = (path) =>
  statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((name) => name !== 'node_modules')
        .sort()
        .flatMap((name) => files(join(path, name)))
    : [path];

/**
 * A digest of the files under `paths` (relative to the repository, folders walked in name order)
 * with their names, the lock file and this file: what a build made from them depends on. The
 * test suite names its cached fixtures with it too (`--digest`, below).
 */
export function treeDigest(paths) {
  const digest = createHash('sha256');
  // This file too: a change to how the build is made makes a new build.
  digest.update(readFileSync(join(ROOT, 'package-lock.json'))).update(readFileSync(fileURLToPath(import.meta.url)));
  for (const file of paths.flatMap((p) => files(join(ROOT, p)))) digest.update(`${relative(ROOT, file)}\0`).update(readFileSync(file));
  return digest.digest('hex').slice(0, 16);
}

/** The compiled tree for the sources as they are now, built if missing; returns its folder (the repository's layout: src/, tools/, data/). */
export async function compile() {
  const inputs = INPUTS.flatMap((p) => files(join(ROOT, p)));
  const out = join(BUILDS, treeDigest(INPUTS));
  if (existsSync(out)) {
    // Marks it as used, so pruning keeps it.
    const now = new Date();
    utimesSync(out, now, now);
    return out;
  }
  const temp = `${out}.${process.pid}.tmp`;
  rmSync(temp, { recursive: true, force: true });
  for (const file of inputs) {
    const target = join(temp, relative(ROOT, file));
    mkdirSync(dirname(target), { recursive: true });
    // Every file is copied as it is (the console, the MCP view and the learning thread are
    // bundled from their TypeScript at run time); server modules get their .js beside it.
    cpSync(file, target);
    if (file.endsWith('.ts') && !file.endsWith('.d.ts')) {
      const { code } = await transform(readFileSync(file, 'utf8'), { loader: 'ts', format: 'esm', target: 'node20', sourcefile: file, tsconfigRaw: TSCONFIG });
      writeFileSync(target.replace(/\.ts$/, '.js'), code);
    }
  }
  try {
    renameSync(temp, out);
  } catch (err) {
    // Another process renamed the same build into place first: use that one.
    rmSync(temp, { recursive: true, force: true });
    if (!existsSync(out)) throw err;
  }
  prune(out);
  return out;
}

/**
 * Removes builds past the KEEP newest that no process started from in the last day (a cluster
 * restarts its API processes from the build its primary started from), and temporary folders of
 * builds whose process is gone.
 */
function prune(current) {
  const now = Date.now();
  const builds = readdirSync(BUILDS)
    .filter((name) => /^[0-9a-f]{16}$/.test(name) && join(BUILDS, name) !== current)
    .map((name) => ({ path: join(BUILDS, name), used: statSync(join(BUILDS, name)).mtimeMs }))
    .sort((a, b) => b.used - a.used);
  for (const old of builds.slice(KEEP)) if (now - old.used > DAY_MS) rmSync(old.path, { recursive: true, force: true });
  for (const name of readdirSync(BUILDS)) {
    const pid = /^[0-9a-f]{16}\.(\d+)\.tmp$/.exec(name)?.[1];
    if (pid !== undefined && !alive(Number(pid))) rmSync(join(BUILDS, name), { recursive: true, force: true });
  }
}

const DAY_MS = 86_400_000;

/** Whether a process with this id runs (signal 0 checks without sending anything; src/store/pid-lock.ts has the same for the server). */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

// Run as a command (`node src/launcher/compile.mjs`), it builds and prints the build's folder;
// with `--digest PATH…` it prints treeDigest(PATHs) instead (the test suite's fixture cache).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [flag, ...paths] = process.argv.slice(2);
  process.stdout.write(`${flag === '--digest' ? treeDigest(paths) : await compile()}\n`);
}
