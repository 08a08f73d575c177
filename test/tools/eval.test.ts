import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { childEnv, type Finished, runToEnd, runTs, STACK_LINE, seededDataDir, tempDir } from '../helpers/process.js';
import { needsShared, sharedPath } from '../helpers/shared.js';

const evalDir = sharedPath('eval');
const scorer = needsShared([join(evalDir, 'ndcg.mjs')]);

/** A labelled set in the layout of ../shared/data/eval: six products per kind, each judged relevant to its kind's query. */
function labelledSet(dir: string, name: string, kinds: readonly string[]): string {
  const set = join(dir, name);
  mkdirSync(set);
  const products = kinds.flatMap((k, i) =>
    Array.from({ length: 6 }, (_, j) => ({
      product_id: `p${i}-${j}`,
      title: `${['Acme', 'Brio', 'Cato'][j % 3]} ${k} model ${j}`,
      description: `A ${k}.`,
      category: '',
    })),
  );
  writeFileSync(join(set, 'products.jsonl'), products.map((p) => JSON.stringify(p)).join('\n'));
  writeFileSync(join(set, 'queries_dev.jsonl'), kinds.map((k, i) => JSON.stringify({ query_id: `q${i}`, query: k })).join('\n'));
  const qrels = ['query_id\tproduct_id\tgrade', ...kinds.flatMap((_, i) => Array.from({ length: 6 }, (__, j) => `q${i}\tp${i}-${j}\t3`))];
  writeFileSync(join(set, 'qrels_dev.tsv'), `${qrels.join('\n')}\n`);
  return set;
}

interface EvalJson {
  catalog: string;
  queries: number;
  systems: Record<string, { ndcg: number }>;
  ece?: Record<string, number>;
  cold_start: { source: string };
  /** The JSON the tool prints for each conversation set and mode, as a reader of its output sees it. */
  conversations: ({ set: string; mode: string; shopping: number; noNeed: number; readers: Record<string, number> } & Record<
    'ndcgShipped' | 'ndcgThresholdOff' | 'noFill' | 'falseFill',
    number | null
  >)[];
}

async function runEval(args: string[], env: Record<string, string> = {}): Promise<EvalJson> {
  const child = runTs('tools/relevance/eval.ts', [...args, '--eval-dir', evalDir], childEnv(await seededDataDir('eval-data', { catalog: false }), env));
  expect(await child.exited, child.stderr()).toBe(0);
  return JSON.parse(
    child
      .stdout()
      .split('\n')
      .find((l) => l.startsWith('BENCH_JSON '))!
      .slice('BENCH_JSON '.length),
  ) as EvalJson;
}

describe.skipIf(scorer.skip)(`npm run eval (scored by ../shared/eval)${scorer.note}`, () => {
  beforeEach(scorer.check);

  it('scores each component (lexical, dense, fusion, cold-start, cross-validated rerank) beside the BM25 baseline on a labelled set', async () => {
    const set = labelledSet(tempDir('eval'), 'tiny', ['espresso machine', 'garden hose', 'trail running shoe', 'wool socks', 'desk lamp']);
    const json = await runEval(['--set', set]);
    expect(json.queries).toBe(5);
    expect(Object.keys(json.systems)).toEqual([
      'BM25 baseline (shared/eval)',
      'Aisle lexical',
      'Aisle dense',
      'Aisle fusion',
      'Aisle cold-start',
      'Aisle cold-start, as shipped',
      'Aisle rerank',
    ]);
    expect(json.cold_start.source).toMatch(/^cold-start \(catalog 30 products, \d+ synthetic requests\)$/);
    expect(Object.keys(json.ece ?? {})).toEqual(['fallback', 'coldStart', 'rerank']);
    // Each query's six products are its only relevant ones and are easy to find; the rerank
    // model of each fold learned from the other four queries only.
    for (const system of ['Aisle lexical', 'Aisle fusion', 'Aisle cold-start', 'Aisle rerank']) expect(json.systems[system]!.ndcg, system).toBeGreaterThan(0.9);
  });

  it('scores conversation sets as shipped and with the threshold off, sent as conversation_context and as a session, with no-fill and false fill', async () => {
    const dir = tempDir('eval');
    const set = labelledSet(dir, 'tiny', ['espresso machine', 'garden hose', 'trail running shoe', 'wool socks', 'desk lamp']);
    // Conversations over the set's own query ids (graded by its qrels_dev.tsv), and a file of
    // chat with its own empty qrels beside it: every one of those is a conversation with no need.
    const shopping = join(dir, 'tiny_conversations.jsonl');
    writeFileSync(
      shopping,
      [
        {
          query_id: 'q0',
          query: 'which espresso machine should I get?',
          conversation_context: [{ role: 'user', content: 'I drink a lot of coffee at home.' }],
        },
        { query_id: 'q1', query: 'I need a longer garden hose', conversation_context: [] },
      ]
        .map((c) => JSON.stringify(c))
        .join('\n'),
    );
    const chat = join(dir, 'queries_chat.jsonl');
    writeFileSync(
      chat,
      [
        { query_id: 'c1', query: 'who wrote pride and prejudice?' },
        { query_id: 'c2', query: 'can you make it shorter?', conversation_context: [{ role: 'user', content: 'Write a poem about autumn.' }] },
      ]
        .map((c) => JSON.stringify(c))
        .join('\n'),
    );
    writeFileSync(join(dir, 'qrels_chat.tsv'), 'query_id\tproduct_id\tgrade\n');
    // A fold kept aside is scored apart from the rest: every second line here.
    const json = await runEval(['--set', set, '--conversations', shopping, '--conversations', chat, '--held-out-every', '2', '--only-conversations']);
    expect(Object.keys(json.systems)).toEqual([]);
    expect(json.conversations.map((c) => [c.set, c.mode, c.shopping, c.noNeed])).toEqual([
      ['tiny_conversations tuned', 'context', 1, 0],
      ['tiny_conversations tuned', 'session', 1, 0],
      ['tiny_conversations held-out', 'context', 1, 0],
      ['tiny_conversations held-out', 'session', 1, 0],
      ['chat tuned', 'context', 0, 1],
      ['chat tuned', 'session', 0, 1],
      ['chat held-out', 'context', 0, 1],
      ['chat held-out', 'session', 0, 1],
    ]);
    for (const c of json.conversations.slice(0, 4)) {
      expect(c.ndcgThresholdOff, `${c.set} ${c.mode}`).toBeGreaterThan(0.5);
      expect(c.ndcgShipped!, `${c.set} ${c.mode}`).toBeLessThanOrEqual(c.ndcgThresholdOff! + 1e-9);
      expect(c.noFill, c.mode).toEqual(expect.any(Number));
      expect(c.falseFill).toBeNull();
    }
    for (const c of json.conversations.slice(4)) expect(c.falseFill, `${c.set} ${c.mode}`).toBe(0);
    for (const c of json.conversations) expect(c.readers, `${c.set} ${c.mode}`).toEqual({ offline: 1 });
  });

  it('reads the conversations with the configured model reader under --reader, and counts which reader read each', async () => {
    const dir = tempDir('eval');
    const set = labelledSet(dir, 'tiny', ['espresso machine', 'garden hose', 'trail running shoe', 'wool socks', 'desk lamp']);
    const file = join(dir, 'tiny_conversations.jsonl');
    writeFileSync(
      file,
      [
        {
          query_id: 'q0',
          query: 'what would make my morning coffee like the café?',
          conversation_context: [{ role: 'user', content: 'I drink a lot of coffee.' }],
        },
        { query_id: 'x1', query: 'who wrote pride and prejudice?', conversation_context: [{ role: 'user', content: 'I love old novels.' }] },
      ]
        .map((c) => JSON.stringify(c))
        .join('\n'),
    );
    // A scripted OpenAI-compatible chat endpoint: the coffee conversation asks for an espresso
    // machine, the novel one for nothing.
    const asked: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        asked.push(body);
        const coffee = body.includes('coffee');
        const content = JSON.stringify({
          shopping_need: coffee,
          sensitive: false,
          product_query: coffee ? 'espresso machine' : '',
          min_price: null,
          max_price: null,
          brand: null,
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: 'c',
            object: 'chat.completion',
            created: 1,
            model: 'm',
            choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
          }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const env = { AISLE_READER: 'openai', AISLE_READER_MODEL: 'scripted', AISLE_READER_BASE_URL: `http://127.0.0.1:${port}/v1` };
      const json = await runEval(['--set', set, '--conversations', file, '--only-conversations', '--reader'], env);
      const context = json.conversations.find((c) => c.mode === 'context')!;
      expect(context).toMatchObject({ shopping: 1, noNeed: 1, readers: { model: 2 }, falseFill: 0 });
      expect(context.ndcgShipped).toBeGreaterThan(0.5);
      // The endpoint read the conversation as the person said it.
      expect(asked.some((b) => b.includes('café'))).toBe(true);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('adds distractor sets to the catalog, unjudged and under their own ids, with or without the ANN index', async () => {
    const dir = tempDir('eval');
    const set = labelledSet(dir, 'tiny', ['espresso machine', 'garden hose', 'trail running shoe', 'wool socks', 'desk lamp']);
    // The same ids (p0-0…) as the labelled set: prefixed, they must add products, not overwrite judged ones.
    const other = labelledSet(dir, 'other', [
      'cast iron skillet',
      'yoga mat',
      'bicycle helmet',
      'phone charger',
      'rain jacket',
      'board game',
      'paint roller',
      'dog leash',
    ]);
    const catalog = join(dir, 'catalog');
    const indexed = await runEval(['--set', set, '--with', other, '--size', '60', '--ann-threshold', '50', '--catalog', catalog]);
    expect(indexed.catalog).toBe('60 products (tiny + other), ivf_hnsw_sq index');
    const exact = await runEval(['--set', set, '--catalog', catalog, '--exact-vectors']);
    expect(exact.catalog).toBe(`60 products (reused from ${catalog}), ivf_hnsw_sq index bypassed (exact)`);
    for (const json of [indexed, exact])
      for (const system of ['Aisle lexical', 'Aisle fusion']) expect(json.systems[system]!.ndcg, system).toBeGreaterThan(0.9);
    // Two eval runs, each fitting a cold-start model too: 38 s in a full test run, over 60 s while
    // other evaluations ran on the machine.
  }, 120_000);
});

describe('npm run eval, calibrate and simulate: mistakes and unreadable input', () => {
  const show = (r: Finished) => `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;

  it('answer a usage mistake with one line and the usage (64), a missing set with the file (66), a malformed queries file with its line (65)', async () => {
    const dir = tempDir('eval-cli');
    const set = labelledSet(dir, 'broken', ['espresso machine', 'garden hose']);
    writeFileSync(join(set, 'queries_dev.jsonl'), '{"query_id":"q0","query":"espresso machine"}\n{"query_id":"q1","query":"garden hose"\n');
    const missing = join(dir, 'no-such-set');
    const env = childEnv(await seededDataDir('eval-cli-data', { catalog: false }));
    const [noSet, evalMissing, evalBroken, calibrateMissing, calibrateSize, simulateNoise, simulateBroken] = await Promise.all([
      runToEnd('tools/relevance/eval.ts', [], env),
      runToEnd('tools/relevance/eval.ts', ['--set', missing], env),
      runToEnd('tools/relevance/eval.ts', ['--set', set], env),
      runToEnd('tools/relevance/calibrate.ts', ['--sets', missing, '--dry-run'], env),
      runToEnd('tools/relevance/calibrate.ts', ['--size', '0'], env),
      runToEnd('tools/relevance/simulate.ts', ['--set', set, '--noise', '2'], env),
      runToEnd('tools/relevance/simulate.ts', ['--set', set], env),
    ]);
    for (const [r, line, usage] of [
      [noSet, 'eval: --set DIR is required', 'npm run eval -- --set DIR'],
      [calibrateSize, 'calibrate: --size must be a positive integer, not "0"', 'npm run calibrate --'],
      [simulateNoise, 'simulate: --noise must be a number from 0 to 1, not "2"', 'npm run simulate -- --set DIR'],
    ] as const) {
      expect(r.code, show(r)).toBe(64);
      expect(r.stderr.split('\n')[0]).toBe(line);
      expect(r.stderr).toContain(`\nUsage:\n  ${usage}`);
    }
    const setFiles = 'a labelled set is a directory holding products.jsonl, queries_dev.jsonl and qrels_dev.tsv';
    expect([evalMissing.code, evalMissing.stderr], show(evalMissing)).toEqual([66, `eval: ${join(missing, 'products.jsonl')}: no such file (${setFiles})\n`]);
    expect([calibrateMissing.code, calibrateMissing.stderr], show(calibrateMissing)).toEqual([
      66,
      `calibrate: ${join(missing, 'products.jsonl')}: no such file (${setFiles})\n`,
    ]);
    for (const [r, tool] of [
      [evalBroken, 'eval'],
      [simulateBroken, 'simulate'],
    ] as const) {
      expect(r.code, show(r)).toBe(65);
      expect(r.stderr).toMatch(new RegExp(`^${tool}: ${join(set, 'queries_dev.jsonl')}:2: not valid JSON: .+\\n$`));
    }
    for (const r of [noSet, evalMissing, evalBroken, calibrateMissing, calibrateSize, simulateNoise, simulateBroken])
      expect(r.stderr, show(r)).not.toMatch(STACK_LINE);
  });
});
