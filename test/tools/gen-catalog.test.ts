import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, type Finished, runToEnd, STACK_LINE, tempDir } from '../helpers/process.js';

const show = (r: Finished) => `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;

describe('npm run gen-catalog', () => {
  it('writes the products asked for, and answers a bad count (64) or an output it cannot write (73) in one line', async () => {
    const dir = tempDir('gen-catalog');
    const out = join(dir, 'synthetic.jsonl');
    const env = childEnv(dir);
    const [written, badCount, unwritable] = await Promise.all([
      runToEnd('tools/bench/gen-catalog.ts', ['--count', '3', '--seed', '7', '--out', out], env),
      runToEnd('tools/bench/gen-catalog.ts', ['--count', 'lots'], env),
      runToEnd('tools/bench/gen-catalog.ts', ['--count', '3', '--out', join(dir, 'no-such-dir', 'x.jsonl')], env),
    ]);
    expect(written.code, show(written)).toBe(0);
    expect(
      readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { sku: string }).sku),
    ).toEqual(['SYN-0', 'SYN-1', 'SYN-2']);
    expect(badCount.code, show(badCount)).toBe(64);
    expect(badCount.stderr).toMatch(/^gen-catalog: --count must be a positive integer, not "lots"\n\nUsage:\n {2}npm run gen-catalog --/);
    expect([unwritable.code, unwritable.stderr], show(unwritable)).toEqual([
      73,
      `gen-catalog: ${join(dir, 'no-such-dir', 'x.jsonl')}: cannot write: no such file or directory\n`,
    ]);
    expect(unwritable.stderr).not.toMatch(STACK_LINE);
  });
});
