import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (entry.name.endsWith('.ts')) yield path;
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

  it('keeps SQL in src/store', async () => {
    const offenders: string[] = [];
    for await (const file of sourceFiles('src')) {
      if (file.startsWith(join('src', 'store'))) continue;
      if (/\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b/.test(await readFile(file, 'utf8'))) offenders.push(file);
    }
    expect(offenders).toEqual([]);
  });
});
