import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.tsx?$/.test(entry.name)) yield path;
  }
}

const importsOf = (source: string): string[] =>
  [...source.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? m[2] ?? '');

describe('architecture', () => {
  it('keeps the core free of transports and storage drivers', async () => {
    const forbidden = /^(fastify|@fastify\/|fastify-|@modelcontextprotocol\/|pg$|pg\/|@electric-sql\/|@lancedb\/|pino)/;
    const offenders: string[] = [];
    for await (const file of sourceFiles('src/core')) {
      for (const spec of importsOf(await readFile(file, 'utf8'))) {
        if (forbidden.test(spec) || /\/(http|store|mcp|embed|worker)\//.test(spec)) offenders.push(`${file}: ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('reads process.env only in src/config.ts', async () => {
    const offenders: string[] = [];
    for await (const file of sourceFiles('src')) {
      if (file === join('src', 'config.ts')) continue;
      if ((await readFile(file, 'utf8')).includes('process.env')) offenders.push(file);
    }
    expect(offenders).toEqual([]);
  });

  it('lets a tool read the environment only through src/config.ts (handing all of it on to a child process is no read)', async () => {
    const offenders: string[] = [];
    let tools = 0;
    for await (const file of sourceFiles('tools')) {
      tools++;
      // `...process.env` passes the environment on whole (to a server it starts, or to loadConfig with overrides): the reader parses it.
      if ((await readFile(file, 'utf8')).replaceAll('...process.env', '').includes('process.env')) offenders.push(file);
    }
    expect(tools).toBeGreaterThan(40);
    expect(offenders).toEqual([]);
  });

  it('keeps SQL in src/store', async () => {
    const offenders: string[] = [];
    for await (const file of sourceFiles('src')) {
      if (file.startsWith(join('src', 'store'))) continue;
      if (/\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b/.test(await readFile(file, 'utf8'))) offenders.push(file);
    }
    expect(offenders).toEqual([]);
  });
});

/**
 * Every relative import of every file under `root`, type-only imports, re-exports and dynamic
 * imports included, as TypeScript itself reads them, resolved to files (`./x.js` is `./x.ts`).
 */
async function importGraph(root: string): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  for await (const file of sourceFiles(root)) {
    const info = ts.preProcessFile(await readFile(file, 'utf8'), true, true);
    const targets = info.importedFiles
      .map((f) => f.fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => normalize(join(dirname(file), spec)))
      .map((path) => [path, path.replace(/\.js$/, '.ts'), path.replace(/\.js$/, '.tsx')].find((p) => /\.tsx?$/.test(p) && existsSync(p)) ?? path);
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected components of more than one file (Tarjan): each one holds a cycle. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('import structure', () => {
  it('finds a cycle where there is one (the check itself)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
    ]);
    expect(cycles(graph)).toEqual([['a', 'b', 'c'], ['e']]);
  });

  it('has no import cycle between files under src/, type-only imports included', async () => {
    const graph = await importGraph('src');
    const edges = [...graph.values()].reduce((n, targets) => n + targets.length, 0);
    expect(graph.size).toBeGreaterThan(150);
    expect(edges).toBeGreaterThan(500);
    expect(cycles(graph)).toEqual([]);
  });

  it('layers the core: ranking imports neither learning nor search, learning does not import search', async () => {
    const graph = await importGraph('src/core');
    const offenders: string[] = [];
    const rules: [string, RegExp][] = [
      [join('src', 'core', 'ranking'), /core\/(learning|search)\//],
      [join('src', 'core', 'learning'), /core\/search\//],
    ];
    for (const [file, targets] of graph) {
      for (const [dir, forbidden] of rules) {
        if (file.startsWith(dir)) for (const t of targets) if (forbidden.test(t.replaceAll('\\', '/'))) offenders.push(`${file} → ${t}`);
      }
    }
    expect([...graph.keys()].filter((f) => f.startsWith(join('src', 'core', 'ranking'))).length).toBeGreaterThan(5);
    expect(offenders).toEqual([]);
  });

  it('keeps ports free of logic: a ports file imports types only', async () => {
    const offenders: string[] = [];
    let ports = 0;
    for await (const file of sourceFiles('src/core')) {
      if (!/(^|[\\/])(ports|shared-ports|stores)\.ts$/.test(file)) continue;
      ports++;
      for (const line of (await readFile(file, 'utf8')).split('\n'))
        if (/^(import|export) /.test(line) && / from '/.test(line) && !/^(import|export) type /.test(line)) offenders.push(`${file}: ${line}`);
    }
    expect(ports).toBeGreaterThan(10);
    expect(offenders).toEqual([]);
  });
});

describe('file size', () => {
  it('keeps every file in src/ and tools/ at 600 lines or fewer: a longer one holds more than one thing', async () => {
    const MAX_LINES = 600;
    const offenders: string[] = [];
    let files = 0;
    for (const dir of ['src', 'tools']) {
      for await (const file of sourceFiles(dir)) {
        files++;
        const lines = (await readFile(file, 'utf8')).split('\n').length - 1;
        if (lines > MAX_LINES) offenders.push(`${file}: ${lines} lines`);
      }
    }
    expect(files).toBeGreaterThan(300);
    expect(offenders).toEqual([]);
  });
});

describe('tools and tests', () => {
  const under = (dir: string) => (file: string) => !relative(dir, file).startsWith('..');

  it('imports nothing from tools/ in test/: what a test needs lives in src/ or test/helpers/', async () => {
    const graph = await importGraph('test');
    const targets = [...graph.values()].flat();
    // The resolution works: test files reach src/ through hundreds of relative imports.
    expect(targets.filter(under('src')).length).toBeGreaterThan(250);
    const offenders = [...graph].flatMap(([file, to]) => to.filter(under('tools')).map((t) => `${file} → ${t}`));
    expect(offenders).toEqual([]);
  });

  it('registers no test hooks in modules test files share: only test files and the setup file do', async () => {
    // The test workers run their files in one module graph (test/vitest.config.ts): a helper
    // evaluates once per worker, so a hook at its top level would run in the first file that
    // loads it only. Per-file work belongs in the setup file (test/setup-temp-dirs.ts).
    const offenders: string[] = [];
    let helpers = 0;
    for await (const file of sourceFiles('test')) {
      if (!file.endsWith('.ts') || file.endsWith('.test.ts') || file === join('test', 'setup-temp-dirs.ts')) continue;
      helpers++;
      if (/^\s*(?:\w+\.)?(?:after|before)(?:All|Each)\(/m.test(await readFile(file, 'utf8'))) offenders.push(file);
    }
    expect(helpers).toBeGreaterThan(10);
    expect(offenders).toEqual([]);
  });

  it('imports only from src/ and tools/ in tools/, never from test/', async () => {
    const graph = await importGraph('tools');
    const targets = [...graph.values()].flat();
    expect(targets.filter(under('src')).length).toBeGreaterThan(200);
    const offenders = [...graph].flatMap(([file, to]) => to.filter((t) => !under('src')(t) && !under('tools')(t)).map((t) => `${file} → ${t}`));
    expect(offenders).toEqual([]);
  });
});
