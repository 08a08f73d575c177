import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { FeedRecord, ProductRow } from '../../../src/catalog/files/types.js';
import { normalizeProduct } from '../../../src/core/catalog/normalize.js';
import type { Availability } from '../../../src/core/catalog/product.js';
import { tempDir } from '../../helpers/process.js';

export interface SampleProduct {
  id: string;
  title: string;
  description: string;
  price: number;
  currency: string;
  url: string;
  image: string;
  brand: string;
  category: string[];
  availability: Exclude<Availability, 'unknown'>;
}

// Titles carry what breaks naive writers and readers: delimiters, quotes, markup, non-ASCII.
const TITLES = ['Trail Runner 2, "Storm" edition', 'Café Crème & Co <Deluxe>', 'Salt; Pepper | Grinder', "Kids' Rain Boots 🌧", 'Desk Lamp > LED'];
const BRANDS = ['Acme', 'Ünïcode Works', 'Smith & Sons'];
const CATEGORIES = [['Footwear', 'Running Shoes', 'Trail'], ['Home', 'Kitchen'], ['Toys & Games']];
const CURRENCIES = ['USD', 'EUR', 'GBP'];
const AVAILABILITY = ['in_stock', 'out_of_stock', 'preorder'] as const;

/** `n` distinct products; every description spans two lines. */
export function sampleProducts(n: number): SampleProduct[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `SKU-${1000 + i}`,
    title: `${TITLES[i % TITLES.length]!} #${i}`,
    description: `Line one of item ${i}, with "quotes".\nLine two & more.`,
    price: Math.round((5 + i * 3.17) * 100) / 100,
    currency: CURRENCIES[i % CURRENCIES.length]!,
    url: `https://shop.example.com/p/${1000 + i}?ref=feed&x=1`,
    image: `https://cdn.example.com/img/${1000 + i}.jpg`,
    brand: BRANDS[i % BRANDS.length]!,
    category: CATEGORIES[i % CATEGORIES.length]!,
    availability: AVAILABILITY[i % AVAILABILITY.length]!,
  }));
}

/** Writes `content` to a fresh temp dir (removed after the file's tests, tempDir()) and returns the path. */
export async function writeTemp(name: string, content: string | Buffer): Promise<string> {
  const path = join(tempDir('formats'), name);
  await writeFile(path, content);
  return path;
}

export async function collect(records: AsyncIterable<FeedRecord>): Promise<FeedRecord[]> {
  const out: FeedRecord[] = [];
  for await (const record of records) out.push(record);
  return out;
}

export const rowsOf = (records: FeedRecord[]): ProductRow[] => records.flatMap((r) => ('row' in r ? [r.row] : []));
export const errorsOf = (records: FeedRecord[]) => records.flatMap((r) => ('error' in r ? [r] : []));

/** Normalises every row and checks it against the product it was written from. */
export function expectRoundTrip(records: FeedRecord[], originals: SampleProduct[], merchant: string | null): void {
  expect(errorsOf(records), JSON.stringify(errorsOf(records))).toEqual([]);
  const rows = rowsOf(records);
  expect(rows).toHaveLength(originals.length);
  rows.forEach((row, i) => {
    const original = originals[i]!;
    const result = normalizeProduct(row);
    if (!result.ok) throw new Error(`row ${i} did not normalise: ${result.reason} ${result.detail} ${JSON.stringify(row)}`);
    const p = result.product;
    expect(
      {
        title: p.title,
        description: p.description,
        price: p.priceAmount,
        currency: p.currency,
        url: p.url,
        image: p.imageUrl,
        brand: p.brand,
        category: p.category,
        availability: p.availability,
        externalId: p.externalId,
        merchant: p.merchant,
      },
      JSON.stringify(row),
    ).toEqual({
      title: original.title,
      description: original.description.replace(/\s+/g, ' '),
      price: original.price,
      currency: original.currency,
      url: original.url,
      image: original.image,
      brand: original.brand,
      category: original.category,
      availability: original.availability,
      externalId: original.id,
      merchant,
    });
  });
}

/** RFC 4180 quoting for a CSV/TSV cell. */
const quoteCell = (value: string, delimiter = ','): string => (value.includes(delimiter) || /["\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

export const delimitedLine = (cells: string[], delimiter = ','): string => cells.map((c) => quoteCell(c, delimiter)).join(delimiter);

export const xmlEscape = (value: string): string => value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
