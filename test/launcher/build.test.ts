import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/process.js';

const run = promisify(execFile);

/**
 * A checkout with what the build reads (its sources and tools, the data it carries, the lock file)
 * and this one's node_modules. `small`: the build tool, one source file and one tool, for tests of how builds
 * are kept, which a whole tree would only make slower (each build of it takes about a second).
 */
/** The data a build carries (compile.mjs INPUTS): the sample catalog, the taxonomy and the knowledge base. */
const DATA = ['data/sample-catalog.jsonl', 'data/taxonomy', 'data/knowledge'];

function checkout(small = false): string {
  const root = tempDir('build');
  const paths = small
    ? ['src/config.ts', 'src/launcher', 'tools/repo-root.ts', ...DATA, 'package.json', 'package-lock.json']
    : ['src', 'tools', ...DATA, 'package.json', 'package-lock.json'];
  for (const path of paths) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    cpSync(path, join(root, path), { recursive: true });
  }
  symlinkSync(resolve('node_modules'), join(root, 'node_modules'));
  return root;
}

const compile = async (root: string) => (await run(process.execPath, [join(root, 'src/launcher/compile.mjs')])).stdout.trim();

describe('the compiled code (src/launcher/compile.mjs, run by npm start and the other npm scripts)', () => {
  it('builds once per tree: side-by-side builds agree on one folder, an unchanged tree reuses it, a change makes a new one', async () => {
    const root = checkout();
    const [a, b, c] = await Promise.all([compile(root), compile(root), compile(root)]);
    expect(a).toMatch(/\.cache\/build\/[0-9a-f]{16}$/);
    expect([b, c]).toEqual([a, a]);
    // Nothing half-built or temporary is left beside it.
    expect(readdirSync(join(root, '.cache/build'))).toEqual([a.split('/').pop()]);
    // Each server module has its JavaScript; the files bundled at run time are there as they are.
    expect(readFileSync(join(a, 'src/main.js'), 'utf8')).not.toMatch(/import type|: Config\b/);
    for (const file of [
      'src/main.ts',
      'src/threads/fit-thread-entry.ts',
      'src/mcp/view/product-cards.html',
      'src/embed/use-lite/onnx-thread-entry.mjs',
      'tools/cli/aisle.js',
      'data/sample-catalog.jsonl',
      'data/taxonomy/google-product-taxonomy-2021-09-21.txt',
      'data/knowledge/sporting-goods.jsonl',
    ]) {
      expect(existsSync(join(a, file)), file).toBe(true);
    }
    expect(await compile(root)).toBe(a);

    appendFileSync(join(root, 'src/main.ts'), '\nexport const buildTestMarker = 1;\n');
    const changed = await compile(root);
    expect(changed).not.toBe(a);
    expect(readFileSync(join(changed, 'src/main.js'), 'utf8')).toContain('buildTestMarker');
  });

  it('keeps the three newest older builds and any used within a day, and removes the rest and abandoned temporary folders', async () => {
    const root = checkout(true);
    const builds: string[] = [];
    const change = async (i: number) => {
      appendFileSync(join(root, 'src/config.ts'), `\n// ${i}\n`);
      builds.push(await compile(root));
    };
    for (let i = 0; i < 5; i++) await change(i);
    // The oldest was last used two days ago; the second oldest is past the three newest but recent.
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    utimesSync(builds[0]!, twoDaysAgo, twoDaysAgo);
    const abandoned = join(root, '.cache/build', `${'0'.repeat(16)}.99999999.tmp`);
    const inProgress = join(root, '.cache/build', `${'1'.repeat(16)}.${process.pid}.tmp`);
    mkdirSync(abandoned);
    mkdirSync(inProgress);
    await change(5);
    const left = readdirSync(join(root, '.cache/build')).sort();
    expect(left).toEqual([...builds.slice(1).map((b) => b.split('/').pop()), inProgress.split('/').pop()].sort());
  });

  it('runs a tool from its build with the command line node would give it, finding the checkout from there', async () => {
    const root = checkout();
    const runTool = (...args: string[]) => run(process.execPath, [join(root, 'src/launcher/run.mjs'), ...args], { cwd: root });
    // --help is answered by the tool itself (its usage, exit 0): the entry's name is not taken for an argument.
    const help = await runTool('tools/cli/aisle.ts', '--help');
    expect(help.stdout).toMatch(/^Usage:\n {2}npm run aisle -- accounts create/);
    const build = readdirSync(join(root, '.cache/build'));
    expect(build).toHaveLength(1);
    // The compiled tools find the checkout (data/, ../shared), not the build folder.
    const { REPO_ROOT } = (await import(pathToFileURL(join(root, '.cache/build', build[0]!, 'tools/repo-root.js')).href)) as { REPO_ROOT: string };
    expect(REPO_ROOT).toBe(root);
    await expect(runTool('test/main.test.ts')).rejects.toMatchObject({
      code: 64,
      stderr: expect.stringMatching(/not a TypeScript entry point under src\/ or tools\//),
    });
  });
});
