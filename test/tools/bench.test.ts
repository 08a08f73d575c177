import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, type Finished, runToEnd, STACK_LINE, tempDir } from '../helpers/process.js';

const show = (r: Finished) => `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
/** Every bench with an npm script of its own file (bench:soak is bench:load with --soak). */
const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
const BENCHES = Object.entries(scripts).flatMap(([name, script]) => {
  const entry = /^node src\/launcher\/run\.mjs tools\/bench\/([a-z-]+)\.ts$/.exec(script)?.[1];
  return name.startsWith('bench:') && entry === name.slice('bench:'.length) ? [entry] : [];
});
it('finds the benches in package.json', () => {
  expect(BENCHES).toEqual(expect.arrayContaining(['load', 'search', 'worst']));
});

/** Runs a bench's entry point; each of these fails before it starts any work. */
const bench = (name: string, args: string[], env: Record<string, string> = {}) =>
  runToEnd(`tools/bench/${name}.ts`, args, { ...childEnv(tempDir('bench-cli')), ...env });

describe('benches (tools/bench): mistakes', () => {
  it.concurrent.each(BENCHES)('bench:%s answers an unknown flag with one line and its usage, exit 64', async (name) => {
    const r = await bench(name, ['--bogus']);
    expect(r.code, show(r)).toBe(64);
    expect(r.stderr).toMatch(new RegExp(`^bench:${name}: unknown option --bogus\\n\\nUsage:\\n {2}npm run bench:${name}`));
    expect(r.stdout).toBe('');
  });

  it('answers a bad value (64), a missing reused file (66) and bench:load without DATABASE_URL (78) in one line', async () => {
    const [zero, sweep, reuse, load] = await Promise.all([
      bench('clicks', ['--duration', '0']),
      bench('ann', ['--sweep', 'depth=3']),
      bench('report', ['--reuse', 'soak=/nonexistent/soak.out']),
      bench('load', [], { DATABASE_URL: '' }),
    ]);
    expect(zero.code, show(zero)).toBe(64);
    expect(zero.stderr.split('\n')[0]).toBe('bench:clicks: --duration must be a positive number, not "0"');
    expect(sweep.code, show(sweep)).toBe(64);
    expect(sweep.stderr.split('\n')[0]).toBe('bench:ann: --sweep takes ef=N,N overfetch=N,N nprobes=N,N, not depth=3');
    expect([reuse.code, reuse.stderr], show(reuse)).toEqual([66, 'bench:report: /nonexistent/soak.out: no such file or directory\n']);
    expect(load.code, show(load)).toBe(78);
    expect(load.stderr).toMatch(/^bench:load: DATABASE_URL must name a PostgreSQL server/);
    for (const r of [zero, sweep, reuse, load]) expect(r.stderr, show(r)).not.toMatch(STACK_LINE);
  });
});

describe('bench:report', () => {
  it('writes a saved bench:object-store run into the report: its section and its target, met or missed', async () => {
    const dir = tempDir('bench-report');
    const saved = (ratio: number) => {
      const file = join(dir, `object-store-${ratio}.out`);
      const json = {
        bench: 'object-store',
        products: 'data/sample-catalog.jsonl',
        store_latency_ms: 20,
        searches_per_catalog: 450,
        catalogs: { local: { p50_ms: 10, p99_ms: 30 }, 'az:// +latency': { p50_ms: Math.round(1000 * ratio) / 100, p99_ms: 60 } },
        p50_ratio: ratio,
        store_requests_per_search: 0.02,
      };
      writeFileSync(file, `bench:object-store: the tables a person reads\nBENCH_JSON ${JSON.stringify(json)}\n`);
      return file;
    };
    const report = async (ratio: number) => {
      const out = join(dir, `BENCHMARKS-${ratio}.md`);
      const r = await bench('report', ['--benches', '', '--reuse', `object-store=${saved(ratio)}`, '--out', out]);
      expect(r.code, show(r)).toBe(0);
      return readFileSync(out, 'utf8');
    };
    const [met, missed] = await Promise.all([report(1.37), report(1.8)]);
    const row = 'search p50, catalog at az:// behind 20 ms a request / local catalog (bench:object-store)';
    expect(met).toContain(`| ${row} | ≤ 1.5× | 1.37× | met |`);
    expect(missed).toContain(`| ${row} | ≤ 1.5× | 1.8× | missed: 1.2× the limit |`);
    expect(met).toContain('## object-store\n\n`npm run bench:object-store -- --azurite DIR` — figures from an earlier run of the same command');
    expect(met).toContain('| az:// +latency | 13.7 | 60 |');
    expect(met).toContain('p50 az:// / local: **1.37×**; store requests per search: 0.02.');
    // Nothing else ran: the load targets say so rather than show a figure.
    expect(met).toMatch(/\| searches\/s, 16 connections \(bench:load, search alone\) \| ≥ 200 \| - \| not measured \|/);
  });
});
