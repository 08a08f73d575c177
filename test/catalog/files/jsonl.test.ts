import { describe, expect, it } from 'vitest';
import { readJsonl, renameFields } from '../../../src/catalog/files/jsonl.js';
import { FeedFormatError } from '../../../src/catalog/files/types.js';
import { collect, errorsOf, expectRoundTrip, rowsOf, type SampleProduct, sampleProducts, writeTemp } from './fixtures.js';

const toAisleJson = (p: SampleProduct, i: number) =>
  JSON.stringify({
    product_id: p.id,
    title: p.title,
    description: p.description,
    // Both price forms Aisle accepts: a number with a currency field, and "12.99 EUR" text.
    ...(i % 2 === 0 ? { price: p.price, currency: p.currency } : { price: `${p.price.toFixed(2)} ${p.currency}` }),
    url: p.url,
    image_url: p.image,
    brand: p.brand,
    category: i % 2 === 0 ? p.category : p.category.join(' > '),
    availability: p.availability,
  });

describe('readJsonl', () => {
  it('round-trips products written one per line', async () => {
    const products = sampleProducts(12);
    const path = await writeTemp('feed.jsonl', `${products.map(toAisleJson).join('\n')}\n`);
    expectRoundTrip(await collect(readJsonl(path, { merchant: 'Shop' })), products, 'Shop');
  });

  it('reads a single JSON array, numbering elements from 1', async () => {
    const products = sampleProducts(5);
    const path = await writeTemp('feed.json', `  \n[\n${products.map(toAisleJson).join(',\n')}\n]\n`);
    const records = await collect(readJsonl(path));
    expectRoundTrip(records, products, null);
    expect(records.map((r) => r.line)).toEqual([1, 2, 3, 4, 5]);
  });

  it('skips blank lines and reports each broken line with its file line number', async () => {
    const products = sampleProducts(20);
    const lines = products.map(toAisleJson);
    lines.splice(5, 0, '{"title": "cut off", "price": 1');
    lines.splice(12, 0, '', '   ');
    lines.splice(17, 0, '["an", "array"]');
    const path = await writeTemp('broken.jsonl', lines.join('\n'));
    const records = await collect(readJsonl(path));
    expect(rowsOf(records)).toHaveLength(20);
    expect(errorsOf(records)).toEqual([
      { line: 6, error: 'invalid_json', detail: expect.stringMatching(/JSON/) },
      { line: 18, error: 'not_an_object', detail: 'expected a JSON object, got an array' },
    ]);
    expectRoundTrip(
      records.filter((r) => 'row' in r),
      products,
      null,
    );
  });

  it('accepts a BOM and CRLF line ends', async () => {
    const products = sampleProducts(3);
    const path = await writeTemp('bom.jsonl', `\uFEFF${products.map(toAisleJson).join('\r\n')}\r\n`);
    const records = await collect(readJsonl(path));
    expectRoundTrip(records, products, null);
    expect(records.map((r) => r.line)).toEqual([1, 2, 3]);
  });

  it("keeps a row's own merchant over the default", async () => {
    const path = await writeTemp('m.jsonl', '{"title":"A","merchant":"Own"}\n{"title":"B"}\n');
    expect(rowsOf(await collect(readJsonl(path, { merchant: 'Default' }))).map((r) => r.merchant)).toEqual(['Own', 'Default']);
  });

  it('renames fields without clobbering a field the row already has', async () => {
    const path = await writeTemp('r.json', '[{"name":"Phone","image":"https://x.test/a.jpg"},{"name":"Old","title":"New"}]');
    const rows = rowsOf(await collect(readJsonl(path, { rename: { name: 'title', image: 'image_url' } })));
    expect(rows).toEqual([{ title: 'Phone', image_url: 'https://x.test/a.jpg' }, { title: 'New' }]);
    expect(renameFields({ a: 1 }, undefined)).toEqual({ a: 1 });
  });

  it('throws FeedFormatError for an array file that is not valid JSON', async () => {
    const path = await writeTemp('bad.json', '[{"title": "A"},\n{"title": ');
    await expect(collect(readJsonl(path))).rejects.toBeInstanceOf(FeedFormatError);
  });

  it('names the line and column where the array stops being JSON', async () => {
    const path = await writeTemp('cut.json', '[{"title": "A"},\n {"title": "B"}');
    await expect(collect(readJsonl(path))).rejects.toMatchObject({
      message: `${path}:2:16: starts with "[" but is not a valid JSON array: Expected ',' or ']' after array element`,
      place: { file: path, line: 2, column: 16 },
    });
  });

  it('throws on a missing file', async () => {
    await expect(collect(readJsonl('/nonexistent/aisle/feed.jsonl'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('readJsonl with ACP feed products', () => {
  const acpProduct = (id: string, variants: Record<string, unknown>[]) => ({
    id,
    title: 'Trail Lantern',
    description: { plain: 'A rechargeable lantern.' },
    variants,
  });
  const variant = (id: string, over: Record<string, unknown> = {}) => ({
    id,
    title: `Trail Lantern ${id}`,
    price: { amount: 1999, currency: 'USD' },
    availability: { available: true, status: 'in_stock' },
    categories: [{ value: 'Outdoor > Lighting' }],
    seller: { name: 'Lumen' },
    variant_options: [{ name: 'Color', value: 'Red' }],
    ...over,
  });

  it('turns each variant of an ACP product (one per line) into a product, priced from minor units', async () => {
    const lines = [acpProduct('p1', [variant('red'), variant('jp', { price: { amount: 1999, currency: 'JPY' } })]), acpProduct('p2', [variant('blue')])];
    const path = await writeTemp('acp.jsonl', `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const records = await collect(readJsonl(path));
    expect(errorsOf(records)).toEqual([]);
    expect(records.map((r) => r.line)).toEqual([1, 1, 2]);
    const rows = rowsOf(records);
    expect(rows[0]).toMatchObject({ sku: 'red', title: 'Trail Lantern red', price: 19.99, currency: 'USD', merchant: 'Lumen', category: 'Outdoor > Lighting' });
    expect(rows[0]!.attributes).toMatchObject({ acp_product_id: 'p1', Color: 'Red' });
    expect(rows[1]).toMatchObject({ price: 1999, currency: 'JPY' });
    // Re-importing the same file upserts: the ids are derived from the variant ids.
    expect(rowsOf(await collect(readJsonl(path))).map((r) => r.product_id)).toEqual(rows.map((r) => r.product_id));
  });

  it('reads ACP\'s {"products": [...]} document, skips discontinued variants and names an invalid product', async () => {
    const doc = {
      products: [acpProduct('p1', [variant('a'), variant('b', { availability: { status: 'discontinued' } })]), { id: 'p2', variants: [{ id: 'x' }] }],
    };
    const path = await writeTemp('acp.json', JSON.stringify(doc, null, 2));
    const records = await collect(readJsonl(path));
    expect(rowsOf(records).map((r) => r.sku)).toEqual(['a']);
    expect(errorsOf(records)).toEqual([
      { line: 1, error: 'discontinued', detail: 'variant b is discontinued' },
      { line: 2, error: 'invalid_acp_product', detail: expect.stringContaining('variants.0.title') },
    ]);
  });
});
