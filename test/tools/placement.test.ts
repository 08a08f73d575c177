import { describe, expect, it } from 'vitest';
import { childEnv, runToEnd, STACK_LINE, tempDir } from '../helpers/process.js';
import { needsShared, sharedPath } from '../helpers/shared.js';

// CrowdFlower's and Home Depot's product texts: the labels in data/eval/placement name their products.
const shared = needsShared([sharedPath('data', 'eval', 'crowdflower', 'products.jsonl'), sharedPath('data', 'eval', 'homedepot', 'products.jsonl')]);

describe('npm run placement', () => {
  it('answers a split it does not know with the usage (64), no stack', async () => {
    const run = await runToEnd('tools/relevance/placement.ts', ['--split', 'test'], childEnv(tempDir('placement')));
    expect(run.code).toBe(64);
    expect(run.stderr).toMatch(/--split is dev or heldout, not test/);
    expect(run.stderr).not.toMatch(STACK_LINE);
  });

  it.skipIf(shared.skip)(`places the dev split (lexical only) and reports each source and the whole${shared.note}`, { timeout: 60_000 }, async () => {
    shared.check();
    const run = await runToEnd('tools/relevance/placement.ts', ['--lexical'], childEnv(tempDir('placement')));
    expect(run.code, run.stderr).toBe(0);
    for (const source of ['crowdflower', 'homedepot', 'sample-catalog']) expect(run.stdout).toMatch(new RegExp(`^${source}\\s+100\\s`, 'm'));
    const json = JSON.parse(
      run.stdout
        .split('\n')
        .find((l) => l.startsWith('BENCH_JSON '))!
        .slice('BENCH_JSON '.length),
    ) as Record<string, number | string>;
    expect(json).toMatchObject({ bench: 'placement', split: 'dev', products: 300 });
    // Shares of 300 products, each between none and all; what they are is the design record's to say.
    for (const key of ['top_level', 'three_levels', 'exact']) {
      expect(json[key]).toBeGreaterThan(0);
      expect(json[key]).toBeLessThanOrEqual(1);
    }
  });
});
