import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, runTs, tempDir } from '../helpers/process.js';

const evalDir = resolve('../shared/eval');
const present = existsSync(join(evalDir, 'ndcg.mjs'));

describe.skipIf(!present)(`npm run eval (needs ${evalDir}; skipped when ../shared is absent)`, () => {
  it('scores each component (lexical, dense, fusion, cross-validated rerank) beside the BM25 baseline on a labelled set', async () => {
    const set = join(tempDir('eval'), 'tiny');
    mkdirSync(set);
    const kinds = ['espresso machine', 'garden hose', 'trail running shoe', 'wool socks', 'desk lamp'];
    const products = kinds.flatMap((k, i) => Array.from({ length: 6 }, (_, j) => ({ product_id: `p${i}-${j}`, title: `${['Acme', 'Brio', 'Cato'][j % 3]} ${k} model ${j}`, description: `A ${k}.`, category: '' })));
    writeFileSync(join(set, 'products.jsonl'), products.map((p) => JSON.stringify(p)).join('\n'));
    writeFileSync(join(set, 'queries_dev.jsonl'), kinds.map((k, i) => JSON.stringify({ query_id: `q${i}`, query: k })).join('\n'));
    const qrels = ['query_id\tproduct_id\tgrade', ...kinds.flatMap((_, i) => Array.from({ length: 6 }, (__, j) => `q${i}\tp${i}-${j}\t3`))];
    writeFileSync(join(set, 'qrels_dev.tsv'), `${qrels.join('\n')}\n`);

    const child = runTs('tools/eval.ts', ['--set', set, '--eval-dir', evalDir], childEnv(tempDir('eval-data')));
    expect(await child.exited, child.stderr()).toBe(0);
    const json = JSON.parse(child.stdout().split('\n').find((l) => l.startsWith('BENCH_JSON '))!.slice('BENCH_JSON '.length)) as {
      queries: number;
      systems: Record<string, { ndcg: number }>;
    };
    expect(json.queries).toBe(5);
    expect(Object.keys(json.systems)).toEqual(['BM25 baseline (shared/eval)', 'Aisle lexical', 'Aisle dense', 'Aisle fusion', 'Aisle rerank']);
    // Each query's six products are its only relevant ones and are easy to find; the rerank
    // model of each fold learned from the other four queries only.
    for (const system of ['Aisle lexical', 'Aisle fusion', 'Aisle rerank']) expect(json.systems[system]!.ndcg, system).toBeGreaterThan(0.9);
  });
});
