/**
 * Regenerates BENCHMARKS.md: `npm run bench:report -- [--benches load,load-profile,soak,memory,search,clicks,worst,object-store,eval-crowdflower]
 * [--catalog-uri DIR] [--azurite DIR] [--duration 20] [--soak 10] [--eval-limit 1500] [--reuse soak=FILE] [--out BENCHMARKS.md]`.
 *
 * Runs each chosen bench as its own process (the npm script's command), keeps its output, reads
 * its BENCH_JSON lines and writes one file: the machine, every command, the figures, the targets
 * (docs/benchmarks.md) with the margin, and relevance beside the BM25 baseline. `--reuse NAME=FILE` takes a
 * bench's figures from the saved output of an earlier run instead (a 10-minute soak, say); the
 * file says so. Benches that need PostgreSQL get DATABASE_URL from the environment.
 */
// First, so that the command line is checked before anything else loads (report.command.ts).

import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, type as osType, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../src/cli/errors.js';
import { requireReadableFile } from '../../src/cli/files.js';
import { loadConfig } from '../../src/config.js';
import { REPO_ROOT } from '../repo-root.js';
import { sharedPath } from '../shared-data.js';
import { cli } from './report.command.js';
import { type BenchRun, renderReport } from './report-render.js';

const { values } = cli;
cli.number('duration', { positive: true });
cli.number('soak', { positive: true });
cli.number('eval-limit', { integer: true, positive: true });
const { databaseUrl } = cli.check(() => loadConfig());

const catalog = values['catalog-uri'];
const catalogArgs = catalog ? ['--catalog-uri', catalog] : [];

/** npm script, extra arguments: the command a reader runs to reproduce each figure. */
const BENCHES: Record<string, { script: string; args: string[]; needsPostgres?: boolean; needsAzurite?: boolean }> = {
  // Without --profile: the sampling profiler in every API process costs CPU of its own, and the
  // figures here are the ones the targets are read against.
  load: { script: 'bench:load', args: [...catalogArgs, '--duration', values.duration], needsPostgres: true },
  // The same load again, profiled: where the server's CPU goes when the targets above are missed.
  'load-profile': { script: 'bench:load', args: [...catalogArgs, '--duration', values.duration, '--profile'], needsPostgres: true },
  soak: { script: 'bench:soak', args: [...catalogArgs, '--soak', values.soak], needsPostgres: true },
  search: { script: 'bench:search', args: [...catalogArgs, '--duration', '10'] },
  clicks: { script: 'bench:clicks', args: ['--duration', '10'] },
  webhooks: { script: 'bench:webhooks', args: [] },
  auth: { script: 'bench:auth', args: [] },
  embed: { script: 'bench:embed', args: [] },
  // 20,000 products twice without placement and twice with it: the cost of placement, in minutes.
  ingest: { script: 'bench:ingest', args: ['--limit', '20000', '--pairs', '2'] },
  policy: { script: 'bench:policy', args: [...catalogArgs, '--queries', '200', '--rounds', '6'] },
  'placement-dev': { script: 'placement', args: ['--split', 'dev'] },
  'placement-heldout': { script: 'placement', args: ['--split', 'heldout'] },
  freshness: { script: 'bench:freshness', args: [] },
  // A million products end to end (about an hour and a half): usually reused from a saved run.
  scale: { script: 'bench:scale', args: ['--products', '1000000'], needsPostgres: true },
  'scale-100k': { script: 'bench:scale', args: ['--products', '100000'], needsPostgres: true },
  refresh: { script: 'bench:refresh', args: [], needsPostgres: true },
  ann: { script: 'bench:ann', args: [] },
  memory: { script: 'bench:memory', args: [...catalogArgs] },
  worst: { script: 'bench:worst', args: [...catalogArgs] },
  // Several machines' catalog on object storage: az:// in Azurite behind 20 ms a request, beside a local catalog.
  'object-store': { script: 'bench:object-store', args: ['--azurite', values.azurite ?? 'DIR'], needsAzurite: true },
  'eval-crowdflower': { script: 'eval', args: ['--set', '../shared/data/eval/crowdflower'] },
  'eval-homedepot': {
    script: 'eval',
    args: ['--set', '../shared/data/eval/homedepot', '--limit', values['eval-limit'], ...(catalog ? ['--catalog', catalog] : [])],
  },
};

const scriptsOf = JSON.parse(readFileSync('package.json', 'utf8')).scripts as Record<string, string>;

function commandLine(name: string, json: readonly Record<string, unknown>[] = []): string {
  const b = BENCHES[name]!;
  // search, clicks, webhooks and worst run on PGlite unless DATABASE_URL is set; their output says which.
  const onPostgres =
    b.needsPostgres ||
    json.some((j) => j.db === 'postgres') ||
    (json.length === 0 && ['search', 'clicks', 'webhooks', 'worst'].includes(name) && databaseUrl !== undefined);
  const db = onPostgres ? 'DATABASE_URL=postgres://… ' : '';
  return `${db}npm run ${b.script}${b.args.length ? ` -- ${b.args.join(' ')}` : ''}`;
}

/** Runs `npm run SCRIPT -- ARGS` as the shell would, echoing stderr, and returns stdout. */
function run(name: string, logDir: string): Promise<{ stdout: string; code: number | null; seconds: number }> {
  const b = BENCHES[name]!;
  const started = Date.now();
  return new Promise((resolve) => {
    // The script's own command (node src/launcher/run.mjs …) with the arguments appended, so npm's
    // banner stays out.
    const [bin, ...rest] = scriptsOf[b.script]!.split(' ');
    const child = spawn(bin === 'node' ? process.execPath : join('node_modules/.bin', bin!), [...rest, ...b.args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => process.stderr.write(`[${name}] ${d.toString()}`));
    child.on('exit', (code) => {
      writeFileSync(join(logDir, `${name}.out`), stdout);
      resolve({ stdout, code, seconds: Math.round((Date.now() - started) / 1000) });
    });
  });
}

function benchJson(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('BENCH_JSON '))
    .map((l) => JSON.parse(l.slice('BENCH_JSON '.length)) as Record<string, unknown>);
}

async function main(): Promise<void> {
  const chosen = values.benches
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = chosen.filter((b) => !(b in BENCHES));
  if (unknown.length) throw new UsageError(`unknown bench ${unknown.join(', ')}; known: ${Object.keys(BENCHES).join(', ')}`);
  const reused = new Map(
    values.reuse.map((r) => {
      const [name, file] = r.split('=');
      if (!name || !file || !(name in BENCHES)) throw new UsageError(`--reuse takes NAME=FILE with a known bench name, got ${r}`);
      requireReadableFile(file);
      return [name, file] as const;
    }),
  );
  // The commit the benches start on, read before they run: a commit made while they run (the
  // report takes half an hour) is not the code they measured.
  const git = (() => {
    try {
      return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  })();
  // Made when the first bench runs: a report of saved outputs only (--reuse) leaves nothing behind.
  let logDir: string | undefined;
  const loadStart = loadavg().map((x) => Math.round(x * 100) / 100);
  const runs: BenchRun[] = [];
  for (const name of [...chosen, ...[...reused.keys()].filter((n) => !chosen.includes(n))]) {
    const file = reused.get(name);
    if (file) {
      const stdout = readFileSync(file, 'utf8');
      const json = benchJson(stdout);
      runs.push({ name, command: commandLine(name, json), stdout, json, status: `figures from an earlier run of the same command (${file})` });
      continue;
    }
    if (BENCHES[name]!.needsPostgres && databaseUrl === undefined) {
      runs.push({ name, command: commandLine(name), stdout: '', json: [], status: 'not run: DATABASE_URL is not set' });
      continue;
    }
    if (BENCHES[name]!.needsAzurite && !values.azurite) {
      runs.push({ name, command: commandLine(name), stdout: '', json: [], status: 'not run: --azurite DIR is not given' });
      continue;
    }
    if (name.startsWith('eval-') && !sharedPath('data/eval', name.slice(5))) {
      runs.push({ name, command: commandLine(name), stdout: '', json: [], status: `not run: ../shared/data/eval/${name.slice(5)} is absent` });
      continue;
    }
    process.stderr.write(`bench:report: running ${commandLine(name)}\n`);
    // Kept for --reuse, in the checkout's .bench/ (git ignores it) rather than the system's temp folder.
    logDir ??= join(REPO_ROOT, '.bench', `report-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    mkdirSync(logDir, { recursive: true });
    const r = await run(name, logDir);
    const json = benchJson(r.stdout);
    runs.push({
      name,
      command: commandLine(name, json),
      stdout: r.stdout,
      json,
      status: r.code === 0 ? `ran in ${r.seconds} s` : `FAILED (exit ${r.code}) after ${r.seconds} s`,
    });
  }
  const cpuList = cpus();
  const markdown = renderReport({
    generatedAt: new Date().toISOString(),
    command: `npm run bench:report -- ${process.argv
      .slice(2)
      .filter((a) => a !== '--verbose')
      .join(' ')}`.trim(),
    git,
    machine: {
      cpus: cpuList.length,
      cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
      memoryGb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
      node: process.version,
      os: `${osType()} ${release()}`,
      loadStart,
      loadEnd: loadavg().map((x) => Math.round(x * 100) / 100),
    },
    runs,
    notRun: Object.keys(BENCHES)
      .filter((n) => !runs.some((r) => r.name === n))
      .map((n) => ({ name: n, command: commandLine(n) })),
    known: Object.keys(BENCHES),
  });
  writeFileSync(values.out, markdown);
  process.stderr.write(`bench:report: wrote ${values.out}${logDir ? ` (bench output kept in ${logDir})` : ''}\n`);
}

await cli.run(main);
