/**
 * Synthetic catalogs for the benchmarks and scale tests: `npm run gen-catalog -- --count 100000 [--seed 42] [--out FILE]`.
 * Deterministic for a seed. Text is assembled from small vocabularies so products cluster the
 * way real catalogs do (many near-duplicates within a kind, distinct kinds far apart); it is
 * load for the machinery, not a relevance test set.
 */
import { once } from 'node:events';
import { command } from '../../src/cli/command.js';
import { createOutputFile } from '../../src/cli/files.js';
import { mulberry32 } from '../../src/core/random.js';

const KINDS: Record<string, { category: string; nouns: string[]; price: [number, number] }> = {
  shoes: { category: 'Footwear > Running Shoes', nouns: ['running shoe', 'trail runner', 'road shoe', 'racing flat', 'walking shoe'], price: [40, 220] },
  boots: { category: 'Footwear > Boots', nouns: ['hiking boot', 'work boot', 'rain boot', 'winter boot'], price: [50, 300] },
  coffee: {
    category: 'Kitchen > Coffee',
    nouns: ['espresso machine', 'drip coffee maker', 'burr grinder', 'milk frother', 'pour-over kettle'],
    price: [20, 1500],
  },
  knives: { category: 'Kitchen > Cutlery', nouns: ['chef knife', 'paring knife', 'bread knife', 'knife block set', 'sharpening stone'], price: [10, 400] },
  audio: { category: 'Electronics > Audio', nouns: ['wireless headphones', 'earbuds', 'bluetooth speaker', 'soundbar', 'turntable'], price: [15, 900] },
  computers: { category: 'Electronics > Computers', nouns: ['laptop', 'monitor', 'mechanical keyboard', 'wireless mouse', 'usb-c dock'], price: [20, 2500] },
  outdoor: { category: 'Outdoor > Camping', nouns: ['tent', 'sleeping bag', 'headlamp', 'camp stove', 'backpack'], price: [15, 700] },
  garden: { category: 'Garden > Watering', nouns: ['garden hose', 'sprinkler', 'hose reel', 'watering can', 'drip kit'], price: [5, 250] },
  tools: { category: 'Tools > Power Tools', nouns: ['cordless drill', 'impact driver', 'circular saw', 'orbital sander', 'jigsaw'], price: [30, 600] },
  pets: { category: 'Pet Supplies > Dogs', nouns: ['dog bed', 'leash', 'chew toy', 'food bowl', 'dog harness'], price: [5, 200] },
  beauty: { category: 'Beauty > Skin Care', nouns: ['face serum', 'moisturizer', 'sunscreen', 'cleanser', 'eye cream'], price: [6, 150] },
  toys: { category: 'Toys > Building', nouns: ['building set', 'puzzle', 'model kit', 'marble run', 'robot kit'], price: [8, 250] },
};
const ADJECTIVES = [
  'lightweight',
  'waterproof',
  'compact',
  'premium',
  'durable',
  'quiet',
  'ergonomic',
  'cordless',
  'stainless',
  'insulated',
  'breathable',
  'heavy-duty',
  'portable',
  'adjustable',
  'eco-friendly',
];
const COLORS = ['black', 'white', 'navy', 'red', 'olive', 'grey', 'blue', 'orange', 'teal', 'sand'];
const MATERIALS = ['aluminum', 'steel', 'nylon', 'leather', 'mesh', 'bamboo', 'silicone', 'cotton', 'carbon fiber', 'ceramic'];
const BRAND_PARTS = [
  ['Nor', 'Kes', 'Bri', 'Val', 'Tor', 'Alp', 'Sol', 'Mar', 'Ede', 'Cor'],
  ['land', 'trel', 'wick', 'mont', 'haus', 'ridge', 'field', 'crest', 'line', 'works'],
];
const MERCHANTS = Array.from({ length: 40 }, (_, i) => `Synthetic Shop ${i + 1}`);

/** The i-th synthetic product for a seed: a plain Aisle product row. */
export function syntheticProduct(i: number, random: () => number): Record<string, unknown> {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const kindName = pick(Object.keys(KINDS));
  const kind = KINDS[kindName]!;
  const noun = pick(kind.nouns);
  const brand = pick(BRAND_PARTS[0]!) + pick(BRAND_PARTS[1]!);
  const adjective = pick(ADJECTIVES);
  const color = pick(COLORS);
  const material = pick(MATERIALS);
  const model = `${String.fromCharCode(65 + Math.floor(random() * 26))}${Math.floor(random() * 900 + 100)}`;
  const merchant = pick(MERCHANTS);
  const [lo, hi] = kind.price;
  return {
    sku: `SYN-${i}`,
    title: `${brand} ${adjective} ${noun} ${model} in ${color}`,
    description: `A ${adjective} ${noun} made of ${material}, in ${color}. Model ${model} from ${brand}, built for everyday use.`,
    url: `https://shop${merchant.split(' ').at(-1)}.example.com/p/syn-${i}`,
    price: Math.round((lo + random() * (hi - lo)) * 100) / 100,
    currency: 'USD',
    merchant,
    brand,
    category: `${kind.category} > ${noun.replace(/\b\w/g, (c) => c.toUpperCase())}`,
    availability: random() < 0.92 ? 'in_stock' : 'out_of_stock',
    disclosure_text: 'Synthetic data for scale tests.',
    attributes: { color, material },
    last_updated_at: new Date(Date.UTC(2026, 10, 1) + Math.floor(random() * 19 * 86_400_000)).toISOString(),
  };
}

export async function* syntheticCatalog(count: number, seed: number): AsyncGenerator<Record<string, unknown>> {
  const random = mulberry32(seed);
  for (let i = 0; i < count; i++) yield syntheticProduct(i, random);
}

const USAGE = `Usage:
  npm run gen-catalog -- [--count 100000] [--seed 42] [--out FILE] [--verbose]
Writes COUNT synthetic products as JSON lines to FILE (default: stdout); the same seed gives the same catalog.`;

async function writeCatalog(count: number, seed: number, path: string | undefined): Promise<void> {
  const out = path === undefined ? process.stdout : createOutputFile(path);
  for await (const row of syntheticCatalog(count, seed)) {
    if (!out.write(`${JSON.stringify(row)}\n`)) await once(out, 'drain');
  }
  if (path !== undefined) await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  process.stderr.write(`wrote ${count} synthetic products (seed ${seed})${path ? ` to ${path}` : ''}\n`);
}

if (/gen-catalog\.[jt]s$/.test(process.argv[1] ?? '')) {
  const cli = command({ name: 'gen-catalog', usage: USAGE, options: { count: { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' } } });
  const count = cli.number('count', { integer: true, positive: true, default: 100_000 });
  const seed = cli.number('seed', { integer: true, default: 42 });
  await cli.run(() => writeCatalog(count, seed, cli.values.out));
}
