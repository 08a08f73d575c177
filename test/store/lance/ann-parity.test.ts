import { createHash } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { readFeed } from '../../../src/catalog/files/detect.js';
import { readJsonLines } from '../../../src/cli/files.js';
import { productEmbeddingText, toEmbeddingInput } from '../../../src/core/catalog/embedding-text.js';
import { normalizeProduct } from '../../../src/core/catalog/normalize.js';
import type { CatalogRow } from '../../../src/core/catalog/ports.js';
import { CatalogLexicon } from '../../../src/core/ranking/lexical.js';
import { FALLBACK_MODEL } from '../../../src/core/ranking/ranking.js';
import { RETRIEVAL_DEPTH, retrieveCandidates } from '../../../src/core/ranking/retrieval.js';
import type { Embedder } from '../../../src/core/shared-ports.js';
import { LanceCatalogStore } from '../../../src/store/lance/catalog-store.js';
import { seededRandom } from '../../helpers/catalog.js';
import { tempDir } from '../../helpers/process.js';
import { openSharedEmbedder } from '../../helpers/search.js';
import { needsShared, sharedPath } from '../../helpers/shared.js';

/**
 * The ANN index path against exact search on one catalog, searched both ways: the catalog is
 * above the ANN threshold, so the import builds the index (IVF_HNSW_SQ, one partition below
 * 30,000 products, as at 20,000), and a second handle bypasses it. Bounds: recall@100 of the
 * vector candidates ≥ 0.97 on average (bench:ann measures ≥ 0.98 on 300 queries at larger sizes;
 * the margin absorbs the index build's randomness), the ranked top ten shares ≥ 95 % of its
 * products with exact search's, and every distance the index path returns is the exact one.
 * npm run bench:ann measures the same at 20,000 products and more.
 */
const CATALOG_SIZE = 3_000;
/** Below the catalog's size: the import builds the index. */
const ANN_THRESHOLD = 1_000;
const EVAL = sharedPath('data/eval');
const realData = needsShared([join(EVAL, 'crowdflower/products.jsonl'), join(EVAL, 'homedepot/products.jsonl')]);
if (realData.skip) console.warn(`ann-parity: ${EVAL} is absent; measuring on the sample catalog scaled with generated variants instead of real vectors`);

async function embedAll(embedder: Embedder, texts: string[]): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += 256) out.push(...(await embedder.embed(texts.slice(i, i + 256))));
  return out;
}

/**
 * The vectors of `texts`, embedded by the first run after a change to the code and kept beside
 * the suite's fixtures (whose folder is named by a digest of src/, so the same embedding code and
 * model): the property is the index's against exact search over the same vectors, and embedding
 * 3,000 titles took 7 CPU-seconds of every run. The file is named by the texts.
 */
async function cachedVectors(embedder: Embedder, texts: string[]): Promise<Float32Array[]> {
  const digest = createHash('sha256')
    .update(`${embedder.model}\n${texts.join('\n')}`)
    .digest('hex')
    .slice(0, 16);
  const file = join(inject('seedDataDir'), '..', `ann-parity-vectors-${digest}.f32`);
  const d = embedder.dimensions;
  const bytes = await readFile(file).catch(() => null);
  if (bytes !== null && bytes.length === texts.length * d * 4) {
    const all = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    return texts.map((_, i) => all.slice(i * d, (i + 1) * d));
  }
  const vectors = await embedAll(embedder, texts);
  // Written aside and renamed: a run that stops half-way leaves no short file behind.
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, Buffer.concat(vectors.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength))));
  await rename(temp, file);
  return vectors;
}

/** Titles of the two labelled sets' products (half the size from each) and their dev queries. */
async function realCatalog(embedder: Embedder): Promise<{ rows: CatalogRow[]; queries: string[] }> {
  const products = [];
  for (const [i, set] of ['crowdflower', 'homedepot'].entries()) {
    for await (const record of (await readFeed(join(EVAL, set, 'products.jsonl'), {})).records) {
      if (products.length >= (CATALOG_SIZE * (i + 1)) / 2) break;
      if (!('row' in record)) continue;
      // Titles only: CrowdFlower's long descriptions would take most of the test's time to embed.
      const n = normalizeProduct({ product_id: record.row.product_id, title: record.row.title });
      if (n.ok) products.push(n.product);
    }
  }
  const vectors = await cachedVectors(embedder, products.map(productEmbeddingText));
  const queries = [
    ...(await readJsonLines<{ query: string }>(join(EVAL, 'crowdflower/queries_dev.jsonl'))),
    ...(await readJsonLines<{ query: string }>(join(EVAL, 'homedepot/queries_dev.jsonl'), 143)),
  ].map((q) => q.query);
  return { rows: products.map((product, i) => ({ product, vector: vectors[i]! })), queries };
}

/** The sample catalog's products, each repeated with a varied title and its vector mixed with another's plus noise. */
async function generatedCatalog(embedder: Embedder): Promise<{ rows: CatalogRow[]; queries: string[] }> {
  const base = [];
  for await (const record of (await readFeed('data/sample-catalog.jsonl', {})).records) {
    if (!('row' in record)) continue;
    const n = normalizeProduct(record.row);
    if (n.ok) base.push(n.product);
  }
  const vectors = await embedAll(embedder, base.map(productEmbeddingText));
  const random = seededRandom(7);
  const rows: CatalogRow[] = [];
  for (let i = 0; i < CATALOG_SIZE; i++) {
    const a = i % base.length;
    const b = Math.floor(random() * base.length);
    const w = i < base.length ? 1 : 0.7 + 0.3 * random();
    const v = vectors[a]!.map((x, d) => w * x + (1 - w) * vectors[b]![d]! + (i < base.length ? 0 : (random() - 0.5) * 0.02));
    const norm = Math.hypot(...v);
    const product =
      i < base.length
        ? base[a]!
        : {
            ...base[a]!,
            productId: `${base[a]!.productId.slice(0, 24)}${i.toString(16).padStart(12, '0')}`,
            externalId: `variant-${i}`,
            title: `${base[a]!.title} variant ${i}`,
          };
    rows.push({ product, vector: v.map((x) => x / norm) });
  }
  return { rows, queries: base.slice(0, 300).map((p) => p.title.split(' ').slice(0, 3).join(' ')) };
}

describe('ANN index path against exact search (3,000 products, index built)', () => {
  const dir = tempDir('ann-parity');
  let embedder: Embedder;
  let indexed: LanceCatalogStore;
  let exact: LanceCatalogStore;
  let queries: string[];

  // Without ../shared the generated catalog stands in, unless AISLE_REQUIRE_SHARED=1: then each test fails.
  beforeEach(realData.check);

  beforeAll(async () => {
    if (!realData.present && !realData.skip) return;
    embedder = await openSharedEmbedder();
    const built = realData.present ? await realCatalog(embedder) : await generatedCatalog(embedder);
    queries = built.queries;
    const uri = join(dir, 'catalog');
    indexed = await LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri, annThreshold: ANN_THRESHOLD, annIndex: 'ivf_hnsw_sq' });
    const writer = await indexed.openWriter({ model: embedder.model, dimensions: embedder.dimensions, replace: true });
    for (let i = 0; i < built.rows.length; i += 2_000) await writer.write(built.rows.slice(i, i + 2_000));
    await writer.commit();
    exact = await LanceCatalogStore.open({ recallDepth: RETRIEVAL_DEPTH, uri, annThreshold: ANN_THRESHOLD, annIndex: 'ivf_hnsw_sq', bypassVectorIndex: true });
  }, 300_000);

  afterAll(async () => {
    await indexed?.close();
    await exact?.close();
    await embedder?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('builds the index and records the recall it measured on probe queries', async () => {
    const info = await indexed.info();
    expect(info).toMatchObject({ productCount: CATALOG_SIZE, annIndex: 'ivf_hnsw_sq' });
    expect(info!.annRecall).toBeGreaterThanOrEqual(0.97);
  });

  it('finds exact search’s top 100 vector candidates, with exact distances', async () => {
    let found = 0;
    let mismatched = 0;
    for (const text of queries) {
      const [vector] = await embedder.embed([toEmbeddingInput(text)]);
      const [viaIndex, truth] = await Promise.all([
        indexed.vectorSearch(vector!, { limit: RETRIEVAL_DEPTH }),
        exact.vectorSearch(vector!, { limit: RETRIEVAL_DEPTH }),
      ]);
      const exactDistance = new Map(truth.map((r) => [r.product.productId, r.score]));
      for (const r of viaIndex) {
        const d = exactDistance.get(r.product.productId);
        if (d === undefined) continue;
        found += 1;
        if (Math.abs(d - r.score) > 1e-6) mismatched += 1;
      }
    }
    expect(mismatched).toBe(0);
    expect(found / (queries.length * RETRIEVAL_DEPTH)).toBeGreaterThanOrEqual(0.97);
  });

  it('ranks the same top ten as exact search', async () => {
    const lexicons = [new CatalogLexicon(indexed), new CatalogLexicon(exact)];
    const topTen = async (catalog: LanceCatalogStore, lexicon: CatalogLexicon, text: string) => {
      const candidates = await retrieveCandidates(
        { catalog, embedder, lexicon },
        { queryText: text, currentQuery: text, filter: {}, retrieval: 'hybrid', model: FALLBACK_MODEL },
      );
      return candidates
        .sort((a, b) => b.rankScore - a.rankScore)
        .slice(0, 10)
        .map((c) => c.product.productId);
    };
    let shared = 0;
    let total = 0;
    for (const text of queries) {
      const [a, b] = [await topTen(indexed, lexicons[0]!, text), await topTen(exact, lexicons[1]!, text)];
      const inExact = new Set(b);
      shared += a.filter((id) => inExact.has(id)).length;
      total += b.length;
    }
    expect(shared / total).toBeGreaterThanOrEqual(0.95);
  });
});
