/**
 * How well the text placement (src/core/catalog/placement.ts) matches products placed by hand
 * (data/eval/placement/README.md): `npm run placement -- [--split dev|heldout]`.
 */
// First, so that the command line is checked before anything else loads.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError, EXIT, UsageError } from '../../src/cli/errors.js';
import { loadConfig } from '../../src/config.js';
import { productEmbeddingText } from '../../src/core/catalog/embedding-text.js';
import { normalizeProduct } from '../../src/core/catalog/normalize.js';
import { CatalogPlacer } from '../../src/core/catalog/placement.js';
import type { CatalogProduct } from '../../src/core/catalog/product.js';
import { mulberry32 } from '../../src/core/random.js';
import { loadKnowledge, loadTaxonomy } from '../../src/knowledge/files.js';
import { openEmbedder } from '../../src/runtime.js';
import { formatTable, round } from '../bench/lib.js';
import { REPO_ROOT } from '../repo-root.js';
import { sharedPath } from '../shared-data.js';
import { cli } from './placement.command.js';

interface Label {
  source: string;
  product_id: string;
  category_id: number;
  also_right: number[];
}

const readJsonl = <T>(file: string): T[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);

/** Each source's products by id, as an import normalises them: the labels name products, the rest of the file is their feed. */
function sourceProducts(source: string): Map<string, CatalogProduct> {
  const file = source === 'sample-catalog' ? join(REPO_ROOT, 'data', 'sample-catalog.jsonl') : sharedPath('data', 'eval', source, 'products.jsonl');
  if (file === null) throw new CliError(EXIT.noInput, `../shared/data/eval/${source}/products.jsonl is absent: the ${source} labels cannot be read`);
  const out = new Map<string, CatalogProduct>();
  for (const r of readJsonl<Record<string, unknown>>(file)) {
    const normalised = normalizeProduct(r);
    if (normalised.ok) out.set(String(source === 'sample-catalog' ? r.sku : r.product_id), normalised.product);
  }
  return out;
}

/** Products of the same feed placed beside the labelled ones, as an import places a batch of them. */
const BATCH = 2_048;

async function main(): Promise<void> {
  const split = cli.values.split;
  if (split !== 'dev' && split !== 'heldout') throw new UsageError(`--split is dev or heldout, not ${split}`);
  const taxonomy = await loadTaxonomy();
  const { entries } = await loadKnowledge(taxonomy);
  const types = entries.map((e) => ({ categoryId: e.category_id, names: [e.type, ...e.names] }));
  // As an import places: the configured model embeds the products and, as they name them, the
  // categories' names; each labelled product is placed in a batch of its own feed's products.
  const embedder = cli.values.lexical ? null : await openEmbedder(cli.check(() => loadConfig()));
  const placer = new CatalogPlacer(taxonomy, types, embedder);
  const rows: string[][] = [];
  const totals = { n: 0, top: 0, three: 0, exact: 0, none: 0 };
  let placeMs = 0;
  for (const source of ['crowdflower', 'homedepot', 'sample-catalog']) {
    const labels = readJsonl<Label>(join(REPO_ROOT, 'data', 'eval', 'placement', `${source}_${split}.jsonl`));
    const products = sourceProducts(source);
    for (const label of labels) if (!products.has(label.product_id)) throw new CliError(EXIT.dataError, `${source} has no product ${label.product_id}`);
    const labelled = new Set(labels.map((l) => l.product_id));
    const random = mulberry32(5_204);
    const others = [...products.keys()].filter((id) => !labelled.has(id));
    for (let i = others.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [others[i], others[j]] = [others[j]!, others[i]!];
    }
    const batch = [...labels.map((l) => l.product_id), ...others.slice(0, Math.max(0, BATCH - labels.length))].map((id) => products.get(id)!);
    const vectors: (Float32Array | null)[] = [];
    for (let i = 0; i < batch.length; i += 256) {
      const slice = batch.slice(i, i + 256);
      vectors.push(...(embedder ? await embedder.embed(slice.map(productEmbeddingText)) : slice.map(() => null)));
    }
    // The feed's own categories are what is measured: placement from text alone.
    const texts = batch.map((p) => ({ ...p, attributes: {} }));
    const t = performance.now();
    const places = await placer.place(texts.map((product, i) => ({ product, vector: vectors[i]! })));
    placeMs += performance.now() - t;
    const c = { n: 0, top: 0, three: 0, exact: 0, none: 0 };
    for (const [k, label] of labels.entries()) {
      const placed = places[k] ?? null;
      const want = taxonomy.get(label.category_id)!.path;
      const right = [label.category_id, ...label.also_right].map((id) => taxonomy.get(id)!.path);
      c.n++;
      if (placed === null) {
        c.none++;
        continue;
      }
      const got = placed.path;
      if (got[0] === want[0]) c.top++;
      if (want.slice(0, 3).every((p, i) => got[i] === p) && got.length >= Math.min(3, want.length)) c.three++;
      if (right.some((path) => path.join(' > ') === got.join(' > '))) c.exact++;
      if (cli.verbose) process.stderr.write(`${source} ${label.product_id}: ${batch[k]!.title.slice(0, 60)} → ${got.join(' > ')} (want ${want.join(' > ')})\n`);
    }
    for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += c[k];
    rows.push(row(source, c));
    process.stderr.write(`${source}: placed ${batch.length} products in ${Math.round(performance.now() - t)} ms\n`);
  }
  rows.push(row('all', totals));
  await embedder?.close();
  process.stdout.write(
    `Placement from text${embedder ? ' with the embedding vote' : ', lexical only'}, on the ${split} split (data/eval/placement), each source's labelled products in a batch of ${BATCH} of its products, ${entries.length} knowledge-base types and ${taxonomy.size} categories\n`,
  );
  process.stdout.write(`${formatTable(['source', 'products', 'top level', 'three levels', 'exact', 'none placed'], rows)}\n`);
  process.stdout.write(`placing took ${Math.round(placeMs)} ms, category names embedded included\n`);
  process.stdout.write(
    `BENCH_JSON ${JSON.stringify({ bench: 'placement', split, vote: embedder !== null, products: totals.n, top_level: share(totals.top, totals.n), three_levels: share(totals.three, totals.n), exact: share(totals.exact, totals.n) })}\n`,
  );
}

const share = (k: number, n: number) => round(k / n, 3);
const pct = (k: number, n: number) => `${((100 * k) / n).toFixed(1)} %`;
const row = (name: string, c: { n: number; top: number; three: number; exact: number; none: number }) => [
  name,
  String(c.n),
  pct(c.top, c.n),
  pct(c.three, c.n),
  pct(c.exact, c.n),
  String(c.none),
];

await cli.run(main);
