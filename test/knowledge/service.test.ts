/**
 * The shopper's knowledge base as the server runs it (src/knowledge/service.ts): a small base
 * of its own (test/fixtures/knowledge/), embedded by the real local model, cached, and read by
 * search over REST on the sample catalog. The shipped base's own coverage is checked in
 * test/knowledge/shipped.test.ts.
 */
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KnowledgeService } from '../../src/knowledge/service.js';
import { createLogger } from '../../src/logger.js';
import { call, createTestApp, expectStatus, LogCapture, type TestApp } from '../helpers/app.js';
import { tempDir } from '../helpers/process.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/knowledge/', import.meta.url));
const cacheDir = tempDir('knowledge-cache');

let sample: SampleCatalog;
let knowledge: KnowledgeService;
let withBase: TestApp;
let without: TestApp;

beforeAll(async () => {
  sample = await openSampleCatalog();
  knowledge = new KnowledgeService({ embedder: sample.embedder, cacheDir, dir: FIXTURES, logger: createLogger('warn') });
  await knowledge.start();
  withBase = await createTestApp({ search: { catalog: sample.catalog, embedder: sample.embedder, knowledge } });
  without = await createTestApp({ search: { catalog: sample.catalog, embedder: sample.embedder } });
});
afterAll(async () => {
  await withBase?.close();
  await without?.close();
  await sample?.close();
});

type Result = { title: string; relevance_explanation: string };
type Answer = { results: Result[]; metadata: { interpreted_query: string; no_fill_reason: string | null } };

async function search(t: TestApp, body: Record<string, unknown>): Promise<Answer> {
  const res = await call(t.app, t.adminKey, 'POST', '/v1/search', body);
  expectStatus(res, 200);
  return res.json() as Answer;
}

const camping = {
  query: 'Last time it poured and we got soaked under a tarp. What can we put up at the campsite to stay dry?',
  conversation_context: [{ role: 'user', content: "We're going camping up in the hills next weekend." }],
};

describe('KnowledgeService', () => {
  it('embeds every need and name once, caches them beside the model, and reads the cache on the next start', async () => {
    const files = readdirSync(join(cacheDir, 'knowledge'));
    expect(files).toHaveLength(1);
    // 3 types: 24 needs and 8 names, 4 bytes a dimension.
    expect(statSync(join(cacheDir, 'knowledge', files[0]!)).size).toBe(32 * sample.embedder.dimensions * 4);
    const logs = new LogCapture();
    const again = new KnowledgeService({ embedder: sample.embedder, cacheDir, dir: FIXTURES, logger: createLogger('info', logs) });
    await again.start();
    expect(logs.text).toContain('"cached":true');
    expect(again.matcher()!.size).toBe(3);
  });

  it('refuses an operator file with a bad line, naming it', async () => {
    const file = join(tempDir('knowledge-bad'), 'mine.jsonl');
    writeFileSync(file, '{"type": "lantern", "category_id": 1013, "names": ["lantern"], "needs": [{"relation": "mood", "text": "cosy evenings"}]}\n');
    const bad = new KnowledgeService({ embedder: sample.embedder, cacheDir, dir: FIXTURES, extraFiles: [file], logger: createLogger('warn') });
    await expect(bad.load()).rejects.toThrow(`knowledge file ${file} has 1 bad lines:\n  ${file}:1: needs.0.relation: Invalid option`);
    expect(existsSync(file)).toBe(true);
  });
});

describe('search with the knowledge base', () => {
  it('reads a need that names no product as the kind of product the base knows for it, and says which need led there', async () => {
    const answer = await search(withBase, { ...camping, limit: 5, min_relevance_score: 0 });
    expect(answer.metadata.interpreted_query).toMatch(/^tent\b/);
    const tent = answer.results.find((r) => /\bTent\b/.test(r.title));
    expect(tent, JSON.stringify(answer.results.map((r) => r.title))).toBeDefined();
    expect(tent!.relevance_explanation).toMatch(/^For "[^"]+": tent;/);
    // Without the base the same conversation is read from the catalog's words alone.
    expect((await search(without, { ...camping, limit: 5, min_relevance_score: 0 })).metadata.interpreted_query).not.toMatch(/^tent\b/);
  });

  it('keeps a kind of product the person named', async () => {
    const named = await search(withBase, {
      query: 'I need a power bank for my phone, we got soaked and it died last time.',
      conversation_context: [{ role: 'user', content: "We're going camping up in the hills next weekend." }],
      limit: 5,
      min_relevance_score: 0,
    });
    expect(named.metadata.interpreted_query).not.toMatch(/^(tent|sleeping bag)\b/);
    expect(named.results[0]!.relevance_explanation).not.toMatch(/^For "/);
  });

  it('leaves product queries as they were', async () => {
    for (const query of ['power bank', 'waterproof tent', 'usb-c charger 65w']) {
      const a = await search(withBase, { query, limit: 10 });
      const b = await search(without, { query, limit: 10 });
      expect(
        a.results.map((r) => r.title),
        query,
      ).toEqual(b.results.map((r) => r.title));
      expect(a.metadata.interpreted_query).toBe(b.metadata.interpreted_query);
    }
  });
});
