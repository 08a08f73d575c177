/**
 * What does the default embedder (USE-lite on onnxruntime) cost? Reports, in one process:
 * start-up with an empty model cache (ONNX build) and with a warm one, milliseconds per single
 * short query (median and p99, query cache disabled so every call reaches the model), and
 * products per second for ingestion-style batches of title + description. Also prints the
 * EMBEDDINGS.md cosine figures as a sanity check that the model measured is the right one.
 *
 *   npm run bench:embed -- [--queries 500] [--products 2000] [--batch 64] [--warmup 50]
 */
// First, so that the command line is checked before anything else loads (embed.command.ts).

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbedder, type QueuedEmbedder } from '../../src/embed/embedder.js';
import { sharedPath } from '../shared-data.js';
import { cli } from './embed.command.js';
import { syntheticCatalog } from './gen-catalog.js';
import { formatTable, median, percentile, round } from './lib.js';

interface BenchOptions {
  queries: number;
  products: number;
  batch: number;
  warmup: number;
}

const QUERY_WORDS = [
  'running shoes',
  'wireless headphones',
  'espresso machine',
  'garden hose',
  'cordless drill',
  'laptop stand',
  'kids backpack',
  'dog bed',
  'sunscreen spf 50',
  'camping tent',
  'usb-c charger',
  'chef knife',
  'yoga mat',
  'office chair',
  'led desk lamp',
  'water bottle',
  'rain jacket',
  'phone case',
  'coffee grinder',
  'hiking boots',
];
const QUERY_MODIFIERS = ['', 'cheap', 'best', 'for kids', 'waterproof', 'under $50', 'black', 'gift idea', 'quiet', 'large'];

const options: BenchOptions = {
  queries: cli.number('queries', { integer: true, positive: true, default: 500 }),
  products: cli.number('products', { integer: true, positive: true, default: 2_000 }),
  batch: cli.number('batch', { integer: true, positive: true, default: 64 }),
  warmup: cli.number('warmup', { integer: true, positive: true, default: 50 }),
};

/** Best Buy title + description from ../shared when present, otherwise the synthetic catalog. */
async function productTexts(count: number): Promise<{ source: string; texts: string[] }> {
  const file = sharedPath('data/catalogs/bestbuy-algolia/ecommerce.json');
  const texts: string[] = [];
  if (file) {
    const rows = JSON.parse(await readFile(file, 'utf8')) as Array<{ name?: string; description?: string }>;
    for (const r of rows) if (r.name) texts.push(r.description ? `${r.name}. ${r.description}` : r.name);
  }
  const source = file ? 'bestbuy-algolia' : 'synthetic';
  for await (const p of syntheticCatalog(Math.max(0, count - texts.length), 7)) texts.push(`${String(p.title)}. ${String(p.description)}`);
  return { source, texts: texts.slice(0, count) };
}

async function timeStart(cacheDir: string, model = 'use-lite'): Promise<{ embedder: QueuedEmbedder; ms: number }> {
  const started = performance.now();
  const embedder = await createEmbedder({ provider: 'use-lite', model, cacheDir, queryCacheSize: 0 });
  return { embedder, ms: performance.now() - started };
}

async function queryLatencies(embedder: QueuedEmbedder, options: BenchOptions): Promise<number[]> {
  const modifier = (i: number) => QUERY_MODIFIERS[Math.floor(i / QUERY_WORDS.length) % QUERY_MODIFIERS.length];
  const query = (i: number) => `${QUERY_WORDS[i % QUERY_WORDS.length]} ${modifier(i)}`.trim();
  for (let i = 0; i < options.warmup; i++) await embedder.embed([query(i)]);
  const latencies: number[] = [];
  for (let i = 0; i < options.queries; i++) {
    const started = performance.now();
    await embedder.embed([query(i)]);
    latencies.push(performance.now() - started);
  }
  return latencies;
}

/** Wall time and CPU time (all threads of this process): the second survives a busy host better. */
async function ingestRate(embedder: QueuedEmbedder, texts: string[], batch: number): Promise<{ ms: number; perSecond: number; cpuMsPerProduct: number }> {
  await embedder.embed(texts.slice(0, batch));
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < texts.length; i += batch) await embedder.embed(texts.slice(i, i + batch));
  const cpu = process.cpuUsage(cpuBefore);
  const ms = performance.now() - started;
  return { ms, perSecond: (texts.length / ms) * 1000, cpuMsPerProduct: (cpu.user + cpu.system) / 1000 / texts.length };
}

async function cosineFigures(embedder: QueuedEmbedder): Promise<Record<string, number>> {
  const pairs: Array<[string, string]> = [
    ['running shoes', 'sneakers for jogging'],
    ['running shoes', 'espresso machine'],
    ['laptop', 'notebook computer'],
    ['laptop', 'garden hose'],
  ];
  const figures: Record<string, number> = {};
  for (const [a, b] of pairs) {
    const [va, vb] = (await embedder.embed([a, b])) as [Float32Array, Float32Array];
    figures[`${a} / ${b}`] = round(
      va.reduce((s, x, i) => s + x * (vb[i] as number), 0),
      3,
    );
  }
  return figures;
}

/**
 * --compare: the float32 and int8 builds, each started once, measured in alternating rounds (the
 * host's other work falls on both alike), with the cosine of each product's two vectors.
 */
async function compare(cacheDir: string, rounds: number): Promise<void> {
  const loadBefore = loadavg()[0] ?? 0;
  const builds = [
    { name: 'float32', ...(await timeStart(cacheDir, 'use-lite')) },
    { name: 'int8', ...(await timeStart(cacheDir, 'use-lite-int8')) },
  ];
  const { source, texts } = await productTexts(options.products);
  const figures = builds.map(() => ({ query: [] as number[], perSecond: [] as number[], cpu: [] as number[] }));
  for (let r = 0; r < rounds; r++) {
    for (const [i, b] of builds.entries()) {
      figures[i]!.query.push(median(await queryLatencies(b.embedder, options)));
      const ingest = await ingestRate(b.embedder, texts, options.batch);
      figures[i]!.perSecond.push(ingest.perSecond);
      figures[i]!.cpu.push(ingest.cpuMsPerProduct);
    }
  }
  const [f, q] = await Promise.all(builds.map((b) => b.embedder.embed(texts)));
  const cosines = f!.map((v, i) => v.reduce((s, x, k) => s + x * q![i]![k]!, 0)).sort((a, b) => a - b);
  await Promise.all(builds.map((b) => b.embedder.close()));
  const m = figures.map((x) => ({ query: median(x.query), perSecond: median(x.perSecond), cpu: median(x.cpu) }));
  const json = {
    bench: 'embed-compare',
    cpus: cpus().length,
    loadavg_1m: round(loadBefore, 2),
    rounds,
    products: texts.length,
    product_source: source,
    float32: { query_ms_median: round(m[0]!.query, 3), products_per_s: round(m[0]!.perSecond, 1), cpu_ms_per_product: round(m[0]!.cpu, 2) },
    int8: { query_ms_median: round(m[1]!.query, 3), products_per_s: round(m[1]!.perSecond, 1), cpu_ms_per_product: round(m[1]!.cpu, 2) },
    query_speedup: round(m[0]!.query / m[1]!.query, 2),
    ingest_speedup: round(m[1]!.perSecond / m[0]!.perSecond, 2),
    ingest_cpu_ratio: round(m[0]!.cpu / m[1]!.cpu, 2),
    cosine_min: round(cosines[0] ?? 0, 4),
    cosine_p1: round(cosines[Math.floor(cosines.length / 100)] ?? 0, 4),
    cosine_median: round(cosines[Math.floor(cosines.length / 2)] ?? 0, 4),
  };
  const rows = [
    [`single query, median of ${rounds} rounds' medians`, `${json.float32.query_ms_median} ms`, `${json.int8.query_ms_median} ms`, `×${json.query_speedup}`],
    [
      `ingestion, ${texts.length} ${source} products, batches of ${options.batch}`,
      `${json.float32.products_per_s}/s`,
      `${json.int8.products_per_s}/s`,
      `×${json.ingest_speedup}`,
    ],
    ['ingestion CPU time (all threads)', `${json.float32.cpu_ms_per_product} ms`, `${json.int8.cpu_ms_per_product} ms`, `×${json.ingest_cpu_ratio}`],
    ['cosine of a product’s two vectors: min / 1st percentile / median', '', `${json.cosine_min} / ${json.cosine_p1} / ${json.cosine_median}`, ''],
  ];
  process.stdout.write(
    `Embedding bench: USE-lite float32 against int8, ${json.cpus} cores, load average ${json.loadavg_1m}\n\n${formatTable(['measure', 'float32', 'int8', 'speed-up'], rows)}\n\n`,
  );
  process.stdout.write(`BENCH_JSON ${JSON.stringify(json)}\n`);
}

async function main(): Promise<void> {
  if (cli.values.compare) {
    const cacheDir = await mkdtemp(join(tmpdir(), 'aisle-bench-embed-'));
    try {
      await compare(cacheDir, cli.number('rounds', { integer: true, positive: true, default: 3 }));
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
    }
    return;
  }
  // Taken before our own work starts, so it shows what else competes for the cores.
  const loadBefore = loadavg()[0] ?? 0;
  const cacheDir = await mkdtemp(join(tmpdir(), 'aisle-bench-embed-'));
  try {
    const cold = await timeStart(cacheDir);
    await cold.embedder.close();
    const warm = await timeStart(cacheDir);
    const embedder = warm.embedder;
    const latencies = await queryLatencies(embedder, options);
    const { source, texts } = await productTexts(options.products);
    const ingest = await ingestRate(embedder, texts, options.batch);
    const figures = await cosineFigures(embedder);
    await embedder.close();

    const json = {
      bench: 'embed',
      model: embedder.model,
      cpus: cpus().length,
      // Figures scale with contention: on a shared 2-core host they moved 3x with other work.
      loadavg_1m: round(loadBefore, 2),
      start_cold_ms: round(cold.ms, 0),
      start_cached_ms: round(warm.ms, 0),
      query_ms_median: round(median(latencies), 3),
      query_ms_p99: round(percentile(latencies, 99), 3),
      queries: options.queries,
      products_per_s: round(ingest.perSecond, 1),
      products: texts.length,
      product_source: source,
      batch: options.batch,
      ingest_s: round(ingest.ms / 1000, 2),
      ingest_cpu_ms_per_product: round(ingest.cpuMsPerProduct, 2),
      cosine: figures,
    };
    const rows: string[][] = [
      ['start, empty cache (build ONNX)', `${json.start_cold_ms} ms`],
      ['start, cached ONNX', `${json.start_cached_ms} ms`],
      [`single query, median of ${options.queries}`, `${json.query_ms_median} ms`],
      ['single query, p99', `${json.query_ms_p99} ms`],
      [`ingestion, ${texts.length} ${source} products in batches of ${options.batch}`, `${json.products_per_s} products/s`],
      ['ingestion CPU time (all threads)', `${json.ingest_cpu_ms_per_product} ms/product`],
      ...Object.entries(figures).map(([pair, c]) => [`cosine ${pair}`, String(c)]),
    ];
    const host = `${json.cpus} cores, load average ${json.loadavg_1m}`;
    process.stdout.write(`Embedding bench: ${embedder.model} on onnxruntime CPU, ${host}\n\n${formatTable(['measure', 'value'], rows)}\n\n`);
    process.stdout.write(`BENCH_JSON ${JSON.stringify(json)}\n`);
  } finally {
    await rm(cacheDir, { recursive: true, force: true });
  }
}

await cli.run(main);
