import { describe, expect, it } from 'vitest';
import {
  type CsvMapping,
  formatMappingSpec,
  loadMapping,
  loadMappingFile,
  parseMappingSpec,
  readCsv,
  UnmappedTitleError,
} from '../../../src/catalog/files/csv.js';
import { FeedFormatError } from '../../../src/catalog/files/types.js';
import { normalizeProduct } from '../../../src/core/catalog/normalize.js';
import { collect, delimitedLine, errorsOf, expectRoundTrip, rowsOf, type SampleProduct, sampleProducts, writeTemp } from './fixtures.js';

const HEADER = ['Item Number', 'Product Name', 'Details', 'Selling Price', 'Link', 'Picture', 'Maker', 'Dept', 'Stock Status'];
const MAPPING: CsvMapping = {
  product_id: 'Item Number',
  title: 'Product Name',
  description: 'Details',
  price: 'Selling Price',
  url: 'Link',
  image_url: 'Picture',
  brand: 'Maker',
  category: 'Dept',
  availability: 'Stock Status',
};
const cellsOf = (p: SampleProduct, i: number) => [
  p.id,
  p.title,
  p.description,
  `${p.price.toFixed(2)} ${p.currency}`,
  p.url,
  // Several images in one cell, as scraped exports do; the first is the product image.
  i % 2 === 0 ? p.image : `${p.image}|https://cdn.example.com/alt/${i}.jpg`,
  p.brand,
  p.category.join(i % 2 === 0 ? ' > ' : ' | '),
  p.availability.replace('_', ' '),
];
const csvOf = (products: SampleProduct[], delimiter = ',', eol = '\n') =>
  [HEADER, ...products.map(cellsOf)].map((cells) => delimitedLine(cells, delimiter)).join(eol) + eol;

describe('readCsv', () => {
  it('maps a google_product_category column by its name, which normalising keeps among the attributes', async () => {
    const path = await writeTemp('gpc.csv', 'title,price,Google Product Category\nTrail Shoe,10,187\nPlain Shoe,12,\n');
    const rows = rowsOf(await collect(readCsv(path, {})));
    expect(rows.map((r) => r.google_product_category)).toEqual(['187', undefined]);
    const products = rows.map((r) => normalizeProduct(r));
    expect(products.map((n) => (n.ok ? n.product.attributes.google_product_category : 'skipped'))).toEqual(['187', undefined]);
  });

  it('round-trips products through a mapped CSV with quoted multi-line cells', async () => {
    const products = sampleProducts(12);
    const path = await writeTemp('feed.csv', csvOf(products));
    expectRoundTrip(await collect(readCsv(path, { mapping: MAPPING, merchant: 'Shop' })), products, 'Shop');
  });

  it('numbers records by the line they start on when cells span lines', async () => {
    const path = await writeTemp('lines.csv', csvOf(sampleProducts(3)));
    // Header on line 1; each description cell holds one line break.
    expect((await collect(readCsv(path, { mapping: MAPPING }))).map((r) => r.line)).toEqual([2, 4, 6]);
  });

  it('accepts a BOM and CRLF line ends (read as LF inside quoted cells)', async () => {
    const products = sampleProducts(4).map((p) => ({ ...p, description: p.description.replace('\n', '\r\n') }));
    const path = await writeTemp('bom.csv', `\uFEFF${csvOf(products, ',', '\r\n')}`);
    const records = await collect(readCsv(path, { mapping: MAPPING }));
    expectRoundTrip(records, products, null);
    expect(records.map((r) => r.line)).toEqual([2, 4, 6, 8]);
    expect(rowsOf(records)[0]!.description).toBe('Line one of item 0, with "quotes".\nLine two & more.');
  });

  it('reads the rest of a file with 10% ragged rows and reports each one', async () => {
    const products = sampleProducts(20);
    const lines = csvOf(products).trimEnd().split('\n');
    // Records are two lines each (header is line 1): insert after the 5th and 15th product.
    lines.splice(11, 0, 'only,three,cells');
    lines.splice(32, 0, delimitedLine([...cellsOf(products[0]!, 0), 'extra']));
    const path = await writeTemp('ragged.csv', lines.join('\n'));
    const records = await collect(readCsv(path, { mapping: MAPPING }));
    expect(errorsOf(records)).toEqual([
      { line: 12, error: 'malformed_row', detail: 'row has 3 cells, the header has 9' },
      { line: 33, error: 'malformed_row', detail: 'row has 10 cells, the header has 9' },
    ]);
    expectRoundTrip(
      records.filter((r) => 'row' in r),
      products,
      null,
    );
  });

  it('reports a quote left open at the end as one malformed row', async () => {
    const path = await writeTemp('open.csv', 'title,price\nA,1\nB,2\n"C,3\nD,4\n');
    const records = await collect(readCsv(path));
    expect(rowsOf(records)).toEqual([
      { title: 'A', price: '1' },
      { title: 'B', price: '2' },
    ]);
    expect(errorsOf(records)).toEqual([{ line: 4, error: 'malformed_row', detail: expect.stringMatching(/quote/i) }]);
  });

  it('keeps stray quotes inside unquoted cells', async () => {
    const path = await writeTemp('quotes.csv', 'title,price\n12" Pizza Stone,9.99\n');
    expect(rowsOf(await collect(readCsv(path)))).toEqual([{ title: '12" Pizza Stone', price: '9.99' }]);
  });

  it('maps headers named like Aisle fields when no mapping is given', async () => {
    const path = await writeTemp('default.csv', 'Product ID,TITLE,image-url,Sale_Price,Colour\n7,Mug,https://x.test/m.jpg,3.50,red\n');
    expect(rowsOf(await collect(readCsv(path)))).toEqual([{ product_id: '7', title: 'Mug', image_url: 'https://x.test/m.jpg', sale_price: '3.50' }]);
  });

  it('copies extra columns to attributes only when the mapping lists them', async () => {
    const path = await writeTemp('attrs.csv', 'Name,Color,Size,Weight\nShirt,Blue,M,\n');
    expect(rowsOf(await collect(readCsv(path, { mapping: { title: 'Name' } })))).toEqual([{ title: 'Shirt' }]);
    expect(rowsOf(await collect(readCsv(path, { mapping: { title: 'name', attributes: ['Color', 'Size', 'Weight'] } })))).toEqual([
      { title: 'Shirt', attributes: { Color: 'Blue', Size: 'M' } },
    ]);
  });

  it('takes the first non-empty of alternative columns', async () => {
    const path = await writeTemp('alt.csv', 'Name,About,Long Description\nA,,long a\nB,about b,long b\n');
    const mapping: CsvMapping = { title: 'Name', description: ['About', 'Long Description'] };
    expect(rowsOf(await collect(readCsv(path, { mapping }))).map((r) => r.description)).toEqual(['long a', 'about b']);
  });

  it('honours the delimiter option', async () => {
    const products = sampleProducts(6);
    const path = await writeTemp('semi.csv', csvOf(products, ';'));
    expectRoundTrip(await collect(readCsv(path, { mapping: MAPPING, delimiter: ';' })), products, null);
  });

  it.each([
    ['an empty file', ''],
    ['a file with no title column', '12.99,https://x.test/a\n13.99,https://x.test/b\n'],
  ])('throws FeedFormatError for %s', async (_, content) => {
    const path = await writeTemp('bad.csv', content);
    await expect(collect(readCsv(path))).rejects.toBeInstanceOf(FeedFormatError);
  });

  it('throws FeedFormatError when the mapping names a column the header lacks', async () => {
    const path = await writeTemp('missing.csv', 'Name,Price\nA,1\n');
    await expect(collect(readCsv(path, { mapping: { title: 'Product Name' } }))).rejects.toThrow(/"Product Name" for title/);
  });

  it('names the file and the header line in what it throws', async () => {
    const empty = await writeTemp('empty.csv', '\n\n');
    await expect(collect(readCsv(empty))).rejects.toMatchObject({ message: `${empty}: no header row: the file is empty`, place: { file: empty } });
    const missing = await writeTemp('missing.csv', '\nName,Price\nA,1\n');
    await expect(collect(readCsv(missing, { mapping: { title: 'Product Name' } }))).rejects.toMatchObject({ place: { file: missing, line: 2 } });
  });

  it('says which columns come closest to a title and suggests a mapping for the fields left unmapped', async () => {
    const path = await writeTemp(
      'export.csv',
      'Item Title,Selling Price,Product Link,Picture,sku,Brand Name\nLamp,9.99,https://x.test/l,https://x.test/l.jpg,L1,Acme\n',
    );
    const err = await collect(readCsv(path)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UnmappedTitleError);
    const unmapped = err as UnmappedTitleError;
    expect(unmapped.message).toBe(`${path}:1: no column maps to title; the closest are "Item Title", "Product Link", "Brand Name"`);
    // sku maps by its own name, so it is not suggested; every other column goes to the field it is most like.
    expect(unmapped.suggestion).toEqual({ title: 'Item Title', price: 'Selling Price', url: 'Product Link', image_url: 'Picture', brand: 'Brand Name' });
    // The suggestion, given back as the mapping, reads the file.
    const rows = rowsOf(await collect(readCsv(path, { mapping: parseMappingSpec(formatMappingSpec(unmapped.suggestion)!) })));
    expect(rows).toEqual([{ title: 'Lamp', price: '9.99', url: 'https://x.test/l', image_url: 'https://x.test/l.jpg', brand: 'Acme', sku: 'L1' }]);
  });

  it('says so when no column is named at all like a title', async () => {
    const path = await writeTemp('codes.csv', 'code,amount\nA1,3\n');
    await expect(collect(readCsv(path))).rejects.toMatchObject({
      message: `${path}:1: no column maps to title, and none is named like one (header: code, amount)`,
      closest: [],
      suggestion: {},
    });
  });
});

describe('formatMappingSpec', () => {
  it('writes the inline form, or null when a column name needs a mapping file', () => {
    expect(formatMappingSpec({ title: 'Product Name', price: 'Selling Price' })).toBe('title=Product Name,price=Selling Price');
    expect(formatMappingSpec({ title: 'Name, long' })).toBeNull();
  });
});

describe('parseMappingSpec', () => {
  it('parses field=Column pairs, "|" alternatives and repeated attributes', () => {
    expect(parseMappingSpec('title=Product Name, price = Selling Price,description=About|Details,attributes=Color,attributes=Size|Fit')).toEqual({
      title: ['Product Name'],
      price: ['Selling Price'],
      description: ['About', 'Details'],
      attributes: ['Color', 'Size', 'Fit'],
    });
  });

  it.each(['titel=Name', 'title', 'title=', 'attributes=,'])('rejects %j', (spec) => {
    expect(() => parseMappingSpec(spec)).toThrow(FeedFormatError);
  });
});

describe('loadMapping', () => {
  it('loads a JSON mapping file and validates it', async () => {
    const good = await writeTemp('map.json', JSON.stringify({ title: 'Name', description: ['A', 'B'], attributes: ['Color'] }));
    expect(loadMappingFile(good)).toEqual({ title: 'Name', description: ['A', 'B'], attributes: ['Color'] });
    expect(loadMapping(good)).toEqual(loadMappingFile(good));
    const unknownField = await writeTemp('map.json', JSON.stringify({ title: 'Name', colour: 'C' }));
    expect(() => loadMapping(unknownField)).toThrow(FeedFormatError);
    const notJson = await writeTemp('map.json', '{title: Name}');
    expect(() => loadMapping(notJson)).toThrow(/not valid JSON/);
    // Where V8 reports the position (Node 20 does for this error), the place has line and column.
    const noComma = await writeTemp('map.json', '{\n  "title": "Name"\n  "price": "Price"}');
    expect(() => loadMapping(noComma)).toThrow(expect.objectContaining({ place: { file: noComma, line: 3, column: 3 } }));
  });

  it('treats a flag that is not a file as an inline spec', () => {
    expect(loadMapping('title=Name')).toEqual({ title: ['Name'] });
  });
});
