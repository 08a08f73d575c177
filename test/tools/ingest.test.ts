import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RETRIEVAL_DEPTH } from '../../src/core/ranking/retrieval.js';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { childEnv, type Finished, runToEnd, runTs, STACK_LINE, seededDataDir, tempDir } from '../helpers/process.js';
import { needsShared, sharedPath } from '../helpers/shared.js';

async function ingest(dataDir: string, ...args: string[]) {
  const child = runTs('tools/cli/ingest.ts', [...args, '--json'], childEnv(dataDir));
  const code = await child.exited;
  const line = child.stdout().trim().split('\n').at(-1) ?? '';
  return { code, summary: line.startsWith('{') ? (JSON.parse(line) as Record<string, unknown>) : null, stderr: child.stderr() };
}

const product = (i: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    sku: `S-${i}`,
    title: `Trail lantern model ${i}`,
    description: 'A rechargeable camping lantern.',
    price: 10 + i,
    merchant: 'Camp Shop',
    category: 'Outdoor > Lighting',
    ...extra,
  });

describe('npm run ingest', () => {
  it('imports the valid rows of a messy file, reports each skip reason, and upserts on re-import', async () => {
    const dir = await seededDataDir('ingest', { catalog: false });
    const file = join(dir, 'feed.jsonl');
    const lines = Array.from({ length: 40 }, (_, i) => product(i));
    lines[3] = '{"title": "broken json",';
    lines[7] = JSON.stringify({ sku: 'no-title', price: 3 });
    lines[11] = JSON.stringify({ title: 'Bad price', price: 'call us' });
    lines[19] = '[1, 2]';
    writeFileSync(file, `${lines.join('\n')}\n`);

    const dry = await ingest(dir, file, '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.summary).toMatchObject({ read: 40, imported: 36, skipped: 4, dryRun: true, catalog: null });

    const first = await ingest(dir, file);
    expect(first.code, first.stderr).toBe(0);
    expect(first.summary).toMatchObject({ read: 40, imported: 36, updated: 0, skipped: 4 });
    expect(first.summary?.skippedByReason).toEqual({ invalid_json: 1, missing_title: 1, invalid_price: 1, not_an_object: 1 });
    expect((first.summary?.catalog as { productCount: number } | undefined)?.productCount).toBe(36);

    writeFileSync(file, `${[product(0, { price: 99 }), product(100)].join('\n')}\n`);
    const second = await ingest(dir, file);
    // A price change alone is a delta: written without embedding.
    expect(second.summary).toMatchObject({ imported: 1, updated: 0, delta: 1, embedded: 1 });
    const catalog = await LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri: join(dir, 'catalog'), annThreshold: 1_000_000, annIndex: 'ivf_hnsw_sq' });
    try {
      expect((await catalog.info())?.productCount).toBe(37);
      const [hit] = await catalog.textSearch('lantern model 0', { limit: 1, filter: { minPrice: 99, maxPrice: 99 } });
      expect(hit?.product.externalId).toBe('S-0');
    } finally {
      await catalog.close();
    }
  });

  it('says which vector index it built and the recall@100 it measured against exact search', async () => {
    const dir = await seededDataDir('ingest-ann', { catalog: false });
    const file = join(dir, 'feed.jsonl');
    const kinds = ['lantern', 'tent', 'stove', 'sleeping bag', 'backpack', 'water filter'];
    writeFileSync(file, `${Array.from({ length: 60 }, (_, i) => product(i, { title: `Trail ${kinds[i % kinds.length]} model ${i}` })).join('\n')}\n`);
    const child = runTs('tools/cli/ingest.ts', [file], childEnv(dir, { AISLE_ANN_THRESHOLD: '50' }));
    expect(await child.exited, child.stderr()).toBe(0);
    const [, recall] = /ANN index: ivf_hnsw_sq, recall@100 (\d\.\d{3}) against exact search on probe queries/.exec(child.stdout()) ?? [];
    expect(Number(recall), child.stdout()).toBeGreaterThanOrEqual(0.98);
    const catalog = await LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri: join(dir, 'catalog'), annThreshold: 50, annIndex: 'ivf_hnsw_sq' });
    try {
      const info = await catalog.info();
      expect(info).toMatchObject({ productCount: 60, annIndex: 'ivf_hnsw_sq' });
      expect(info?.annRecall).toBeCloseTo(Number(recall), 3);
    } finally {
      await catalog.close();
    }
  });

  it('exits 1 and leaves the catalog alone when nothing is valid', async () => {
    const dir = await seededDataDir('ingest-bad', { catalog: false });
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, 'not json\n{"price": 1}\n');
    const result = await ingest(dir, file);
    expect(result.code).toBe(1);
    expect(result.summary).toMatchObject({ imported: 0, skipped: 2, catalog: null });
    const usage = runTs('tools/cli/ingest.ts', [], childEnv(dir));
    expect(await usage.exited).toBe(64);
  });
});

const AMAZON = sharedPath('data/catalogs/amazon-sample-2020/sample.csv');
const amazon = needsShared([AMAZON]);
const show = (r: Finished) => `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;

describe('npm run ingest: mistakes and unreadable input', () => {
  /** Each case in a process of its own on one data directory (nothing here writes to it). */
  const run = (dir: string, args: string[], env: Record<string, string> = {}) => runToEnd('tools/cli/ingest.ts', args, childEnv(dir, env));

  it('answers usage mistakes with one line and the usage (64), --help with the usage (0)', async () => {
    const dir = tempDir('ingest-usage');
    const feed = join(dir, 'feed.jsonl');
    writeFileSync(feed, `${product(1)}\n`);
    const [typo, twoFiles, badMapping, help] = await Promise.all([
      run(dir, [feed, '--dry-rn']),
      run(dir, [feed, feed]),
      run(dir, [feed, '--mapping', 'titel=Name']),
      run(dir, ['--help']),
    ]);
    for (const [r, line] of [
      [typo, 'ingest: unknown option --dry-rn (did you mean --dry-run?)'],
      [twoFiles, 'ingest: give exactly one FILE, or --reindex'],
      [badMapping, 'ingest: --mapping: invalid column mapping in the mapping flag: (root): Unrecognized key: "titel"'],
    ] as const) {
      expect(r.code, show(r)).toBe(64);
      expect(r.stderr.split('\n')[0]).toBe(line);
      expect(r.stderr).toContain('\nUsage:\n  npm run ingest -- FILE');
    }
    expect(help.code, show(help)).toBe(0);
    expect(help.stdout).toMatch(/^Usage:\n {2}npm run ingest -- FILE/);
  });

  it('says what is wrong with a file and where: missing or not a file (66), not a feed (65), bad configuration (78), never a trace', async () => {
    const dir = tempDir('ingest-input');
    const cut = join(dir, 'cut.json');
    writeFileSync(cut, '[{"title": "A"},\n {"title": "B"}');
    const empty = join(dir, 'empty.csv');
    writeFileSync(empty, '');
    const feed = join(dir, 'feed.jsonl');
    writeFileSync(feed, `${product(1)}\n`);
    mkdirSync(join(dir, 'folder'));
    const [missing, folder, truncated, noHeader, config] = await Promise.all([
      run(dir, ['missing.csv']),
      run(dir, [join(dir, 'folder')]),
      run(dir, [cut, '--dry-run']),
      run(dir, [empty, '--dry-run']),
      run(dir, [feed, '--dry-run'], { AISLE_ANN_THRESHOLD: 'many' }),
    ]);
    expect([missing.code, missing.stderr], show(missing)).toEqual([66, 'ingest: missing.csv: no such file or directory\n']);
    expect([folder.code, folder.stderr], show(folder)).toEqual([66, `ingest: ${join(dir, 'folder')}: not a file\n`]);
    expect([truncated.code, truncated.stderr], show(truncated)).toEqual([
      65,
      `ingest: ${cut}:2:16: starts with "[" but is not a valid JSON array: Expected ',' or ']' after array element\n`,
    ]);
    expect([noHeader.code, noHeader.stderr], show(noHeader)).toEqual([65, `ingest: ${empty}: no header row: the file is empty\n`]);
    expect(config.code, show(config)).toBe(78);
    expect(config.stderr).toMatch(/^ingest: Invalid configuration:\n {2}AISLE_ANN_THRESHOLD: /);
    for (const r of [missing, folder, truncated, noHeader, config]) {
      expect(r.stderr, show(r)).not.toMatch(STACK_LINE);
      expect(r.stdout).toBe('');
    }
  });

  it('names the columns closest to a title and suggests a --mapping that then reads the file', async () => {
    const dir = await seededDataDir('ingest-mapping', { catalog: false });
    const file = join(dir, 'export.csv');
    writeFileSync(
      file,
      'Item Title,Selling Price,Product Link,Picture\nTrail lantern,19.99,https://shop.test/l,https://shop.test/l.jpg\nCamp stove,49.00,https://shop.test/s,https://shop.test/s.jpg\n',
    );
    const failed = await run(dir, [file, '--dry-run']);
    expect(failed.code, show(failed)).toBe(65);
    const [first, hint] = failed.stderr.trimEnd().split('\n');
    expect(first).toBe(`ingest: ${file}:1: no column maps to title; the closest are "Item Title", "Product Link"`);
    expect(hint).toBe(`  map the columns: npm run ingest -- '${file}' --mapping 'title=Item Title,url=Product Link,image_url=Picture,price=Selling Price'`);
    const mapping = /--mapping '([^']+)'$/.exec(hint!)![1]!;
    const fixed = await run(dir, [file, '--mapping', mapping, '--dry-run', '--json']);
    expect(fixed.code, show(fixed)).toBe(0);
    expect(JSON.parse(fixed.stdout)).toMatchObject({ read: 2, imported: 2, skipped: 0, dryRun: true });
  });

  it.skipIf(amazon.skip)(`recognises the Amazon 2020 sample export by its header and reads it with its preset${amazon.note}`, async () => {
    amazon.check();
    const dir = await seededDataDir('ingest-amazon', { catalog: false });
    const r = await run(dir, [AMAZON, '--dry-run', '--json']);
    expect(r.code, show(r)).toBe(0);
    expect(r.stderr).toContain(`ingest: ${AMAZON} has the header of PromptCloud's Amazon US sample export (2020); reading it with --preset amazon-2020\n`);
    // As test/feeds/real-catalogs.test.ts counts with the preset given explicitly.
    expect(JSON.parse(r.stdout)).toMatchObject({ read: 1999, imported: 1976, skipped: 23, skippedByReason: { invalid_price: 23 } });
  });
});
