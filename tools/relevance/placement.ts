/**
 * How well the text placement (src/core/catalog/placement.ts) matches products placed by hand
 * (data/eval/placement/README.md): `npm run placement -- [--split dev|heldout]`.
 */
// First, so that the command line is checked before anything else loads.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError, EXIT, UsageError } from '../../src/cli/errors.js';
import { loadConfig } from '../../src/config.js';
import { toEmbeddingInput } from '../../src/core/catalog/embedding-text.js';
import { placementNames, TaxonomyPlacer } from '../../src/core/catalog/placement.js';
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

/** Each source's product texts by id: the labels name products, the texts come from their files. */
function productTexts(source: string): Map<string, { title: string; description?: string; category?: string; brand?: string }> {
  const file = source === 'sample-catalog' ? join(REPO_ROOT, 'data', 'sample-catalog.jsonl') : sharedPath('data', 'eval', source, 'products.jsonl');
  if (file === null) throw new CliError(EXIT.noInput, `../shared/data/eval/${source}/products.jsonl is absent: the ${source} labels cannot be read`);
  const rows = readJsonl<Record<string, unknown>>(file);
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return new Map(
    rows.map((r) => [
      String(source === 'sample-catalog' ? r.sku : r.product_id),
      { title: String(r.title), description: text(r.description), category: text(r.category), brand: text(r.brand) },
    ]),
  );
}

async function main(): Promise<void> {
  const split = cli.values.split;
  if (split !== 'dev' && split !== 'heldout') throw new UsageError(`--split is dev or heldout, not ${split}`);
  const taxonomy = await loadTaxonomy();
  const { entries } = await loadKnowledge(taxonomy);
  const types = entries.map((e) => ({ categoryId: e.category_id, names: [e.type, ...e.names] }));
  // The embedding vote, as an import casts it: the configured model embeds every category's names
  // once (about a minute on two cores) and each product's text as the import embeds it.
  const embedder = cli.values.lexical ? null : await openEmbedder(cli.check(() => loadConfig()));
  let nameVectors: Map<number, Float32Array[]> | null = null;
  if (embedder) {
    nameVectors = new Map();
    const names = placementNames(taxonomy, types);
    for (let i = 0; i < names.length; i += 256) {
      const batch = names.slice(i, i + 256);
      const vectors = await embedder.embed(batch.map((n) => toEmbeddingInput(n.text)));
      for (const [k, n] of batch.entries()) {
        const list = nameVectors.get(n.categoryId) ?? [];
        list.push(vectors[k]!);
        nameVectors.set(n.categoryId, list);
      }
    }
  }
  const started = performance.now();
  const placer = new TaxonomyPlacer(taxonomy, types, nameVectors);
  const builtMs = performance.now() - started;
  const rows: string[][] = [];
  const totals = { n: 0, top: 0, three: 0, exact: 0, none: 0 };
  let placeMs = 0;
  for (const source of ['crowdflower', 'homedepot', 'sample-catalog']) {
    const labels = readJsonl<Label>(join(REPO_ROOT, 'data', 'eval', 'placement', `${source}_${split}.jsonl`));
    const texts = productTexts(source);
    const c = { n: 0, top: 0, three: 0, exact: 0, none: 0 };
    for (const label of labels) {
      const product = texts.get(label.product_id);
      if (!product) throw new CliError(EXIT.dataError, `${source} has no product ${label.product_id}`);
      // The text an import embeds for the product (title, brand, category, description).
      const [vector] = embedder
        ? await embedder.embed([
            toEmbeddingInput([product.title, product.brand, product.category?.split(/\s*[>|]\s*/).join(' '), product.description].filter((x) => x).join('. ')),
          ])
        : [undefined];
      const t = performance.now();
      const placed = placer.fromText(product, vector);
      placeMs += performance.now() - t;
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
      if (cli.verbose) process.stderr.write(`${source} ${label.product_id}: ${product.title.slice(0, 60)} → ${got.join(' > ')} (want ${want.join(' > ')})\n`);
    }
    for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += c[k];
    rows.push(row(source, c));
  }
  rows.push(row('all', totals));
  await embedder?.close();
  process.stdout.write(
    `Placement from text${embedder ? ' with the embedding vote' : ', lexical only'}, on the ${split} split (data/eval/placement), ${entries.length} knowledge-base types and ${taxonomy.size} categories\n`,
  );
  process.stdout.write(`${formatTable(['source', 'products', 'top level', 'three levels', 'exact', 'none placed'], rows)}\n`);
  process.stdout.write(`index built in ${Math.round(builtMs)} ms; ${round(placeMs / totals.n, 3)} ms a product\n`);
  process.stdout.write(
    `BENCH_JSON ${JSON.stringify({ bench: 'placement', split, vote: embedder !== null, products: totals.n, top_level: share(totals.top, totals.n), three_levels: share(totals.three, totals.n), exact: share(totals.exact, totals.n), ms_per_product: round(placeMs / totals.n, 3) })}\n`,
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
