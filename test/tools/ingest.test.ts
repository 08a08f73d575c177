import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LanceCatalogStore } from '../../src/store/lance/catalog-store.js';
import { childEnv, runTs, tempDir } from '../helpers/process.js';

async function ingest(dataDir: string, ...args: string[]) {
  const child = runTs('tools/ingest.ts', [...args, '--json'], childEnv(dataDir));
  const code = await child.exited;
  const line = child.stdout().trim().split('\n').at(-1) ?? '';
  return { code, summary: line.startsWith('{') ? (JSON.parse(line) as Record<string, unknown>) : null, stderr: child.stderr() };
}

const product = (i: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ sku: `S-${i}`, title: `Trail lantern model ${i}`, description: 'A rechargeable camping lantern.', price: 10 + i, merchant: 'Camp Shop', category: 'Outdoor > Lighting', ...extra });

describe('npm run ingest', () => {
  it('imports the valid rows of a messy file, reports each skip reason, and upserts on re-import', async () => {
    const dir = tempDir('ingest');
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
    expect((first.summary?.catalog as { productCount: number }).productCount).toBe(36);

    writeFileSync(file, `${[product(0, { price: 99 }), product(100)].join('\n')}\n`);
    const second = await ingest(dir, file);
    expect(second.summary).toMatchObject({ imported: 1, updated: 1 });
    const catalog = await LanceCatalogStore.open({ uri: join(dir, 'catalog'), annThreshold: 1_000_000, annIndex: 'ivf_hnsw_sq' });
    try {
      expect((await catalog.info())?.productCount).toBe(37);
      const [hit] = await catalog.textSearch('lantern model 0', { limit: 1, filter: { minPrice: 99, maxPrice: 99 } });
      expect(hit?.product.externalId).toBe('S-0');
    } finally {
      await catalog.close();
    }
  });

  it('says which vector index it built and the recall@100 it measured against exact search', async () => {
    const dir = tempDir('ingest-ann');
    const file = join(dir, 'feed.jsonl');
    const kinds = ['lantern', 'tent', 'stove', 'sleeping bag', 'backpack', 'water filter'];
    writeFileSync(file, `${Array.from({ length: 60 }, (_, i) => product(i, { title: `Trail ${kinds[i % kinds.length]} model ${i}` })).join('\n')}\n`);
    const child = runTs('tools/ingest.ts', [file], childEnv(dir, { AISLE_ANN_THRESHOLD: '50' }));
    expect(await child.exited, child.stderr()).toBe(0);
    const [, recall] = /ANN index: ivf_hnsw_sq, recall@100 (\d\.\d{3}) against exact search on probe queries/.exec(child.stdout()) ?? [];
    expect(Number(recall), child.stdout()).toBeGreaterThanOrEqual(0.98);
    const catalog = await LanceCatalogStore.open({ uri: join(dir, 'catalog'), annThreshold: 50, annIndex: 'ivf_hnsw_sq' });
    try {
      const info = await catalog.info();
      expect(info).toMatchObject({ productCount: 60, annIndex: 'ivf_hnsw_sq' });
      expect(info?.annRecall).toBeCloseTo(Number(recall), 3);
    } finally {
      await catalog.close();
    }
  });

  it('exits 1 and leaves the catalog alone when nothing is valid', async () => {
    const dir = tempDir('ingest-bad');
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, 'not json\n{"price": 1}\n');
    const result = await ingest(dir, file);
    expect(result.code).toBe(1);
    expect(result.summary).toMatchObject({ imported: 0, skipped: 2, catalog: null });
    const usage = runTs('tools/ingest.ts', [], childEnv(dir));
    expect(await usage.exited).toBe(64);
  });
});
