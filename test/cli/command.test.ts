import { describe, expect, it } from 'vitest';
import { childEnv, type Finished, runToEnd, STACK_LINE, tempDir } from '../helpers/process.js';

const USAGE = 'Usage: demo [--count N] [--dry-run] [--fail bug|missing-file|late-usage] [FILE]';

/** test/cli/fixtures/demo-tool.ts: a tool on src/cli/command.ts alone, in a process of its own. */
const demo = (...args: string[]): Promise<Finished> => runToEnd('test/cli/fixtures/demo-tool.ts', args, childEnv(tempDir('cli-demo')));
const show = (r: Finished) => `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;

describe('command (src/cli/command.ts)', () => {
  it('parses flags and arguments, runs the tool and exits with its code; --help prints the usage and exits 0', async () => {
    const [ok, dryRun, dashes, help] = await Promise.all([
      demo('--count', '3', 'a.csv', 'b.csv'),
      demo('--dry-run'),
      demo('--', '--count', '2'),
      demo('--help'),
    ]);
    expect(ok.code, show(ok)).toBe(0);
    expect(ok.stdout).toBe('count 3, files a.csv b.csv\n');
    expect(dryRun.code, show(dryRun)).toBe(3);
    // A leading "--" (npx tsx tool.ts -- --flag) is dropped.
    expect(dashes.stdout, show(dashes)).toBe('count 2, files -\n');
    expect(help.code, show(help)).toBe(0);
    expect(help.stdout).toBe(`${USAGE}\n`);
    expect(help.stderr).toBe('');
  });

  it('answers an unknown flag, a bad number and a late usage mistake with one line and the usage, exit 64', async () => {
    const [unknown, badNumber, late] = await Promise.all([demo('--cont', '2'), demo('--count', '11'), demo('--fail', 'late-usage')]);
    for (const [r, line] of [
      [unknown, 'demo: unknown option --cont (did you mean --count?)'],
      [badNumber, 'demo: --count must be an integer from 1 to 10, not "11"'],
      [late, 'demo: late mistake'],
    ] as const) {
      expect(r.code, show(r)).toBe(64);
      expect(r.stderr).toBe(`${line}\n\n${USAGE}\n`);
      expect(r.stdout).toBe('');
    }
  });

  it('reports a bug in one line that says to rerun with --verbose, and --verbose prints its stack trace', async () => {
    const [quiet, verbose, missing] = await Promise.all([demo('--fail', 'bug'), demo('--fail', 'bug', '--verbose'), demo('--fail', 'missing-file')]);
    expect(quiet.code, show(quiet)).toBe(1);
    expect(quiet.stderr).toBe(
      "demo: unexpected error: TypeError: Cannot read properties of null (reading 'retries'); rerun with --verbose for the stack trace\n",
    );
    expect(verbose.code, show(verbose)).toBe(1);
    expect(verbose.stderr).toMatch(STACK_LINE);
    expect(verbose.stderr).toContain('demo-tool.ts:');
    expect(verbose.stderr.trim().split('\n').at(-1)).toBe("demo: unexpected error: TypeError: Cannot read properties of null (reading 'retries')");
    // A foreseen failure stays one line without --verbose.
    expect(missing.code, show(missing)).toBe(66);
    expect(missing.stderr).toBe('demo: /nonexistent/settings.json: no such file or directory\n');
  });
});
