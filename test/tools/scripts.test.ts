import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
/**
 * [script, file] for every file an npm script runs with tsx or node, and every entry point it hands
 * to src/launcher/run.mjs (`npm run bench` runs several).
 */
const entries = Object.entries(scripts).flatMap(([name, script]) =>
  [...script.matchAll(/(?<=\b(?:tsx|node|run\.mjs)\s+)(?:src|tools)\/\S+\.(?:[jt]s|mjs)\b/g)].map((m) => [name, m[0]] as const),
);

describe('package.json scripts', () => {
  it('run entry points that exist (a moved tool keeps its script name, only the path changes)', () => {
    expect(entries.map(([name]) => name)).toEqual(
      expect.arrayContaining(['start', 'aisle', 'ingest', 'learn', 'eval', 'calibrate', 'simulate', 'gen-catalog', 'bench', 'bench:load']),
    );
    expect(entries.filter(([, file]) => !existsSync(file))).toEqual([]);
  });
});
