import { describe, expect, it } from 'vitest';
import { gmcAttributeName } from '../../../src/catalog/files/gmc-fields.js';
import { readGmcTsv } from '../../../src/catalog/files/gmc-tsv.js';
import { FeedFormatError } from '../../../src/catalog/files/types.js';
import { collect, delimitedLine, errorsOf, expectRoundTrip, rowsOf, type SampleProduct, sampleProducts, writeTemp } from './fixtures.js';

const HEADER = ['g:id', 'g:title', 'g:description', 'g:link', 'g:image_link', 'g:price', 'g:availability', 'g:brand', 'g:product_type', 'g:gtin'];
const cellsOf = (p: SampleProduct) => [
  p.id,
  p.title,
  p.description,
  p.url,
  p.image,
  `${p.price.toFixed(2)} ${p.currency}`,
  p.availability.replace('_', ' '),
  p.brand,
  p.category.join(' > '),
  '0012345678905',
];
const tsvOf = (rows: string[][]) => rows.map((cells) => delimitedLine(cells, '\t')).join('\n');

describe('readGmcTsv', () => {
  it('round-trips products through a tab-separated Merchant Center feed with g: headers', async () => {
    const products = sampleProducts(12);
    const path = await writeTemp('feed.tsv', tsvOf([HEADER, ...products.map(cellsOf)]));
    const records = await collect(readGmcTsv(path, { merchant: 'Shop' }));
    expectRoundTrip(records, products, 'Shop');
    expect(rowsOf(records)[0]!.attributes).toEqual({ gtin: '0012345678905' });
  });

  it('maps identifiers and variant traits to attributes and splits additional images', async () => {
    const header = [
      'id',
      'title',
      'price',
      'sale_price',
      'google_product_category',
      'mpn',
      'condition',
      'color',
      'size',
      'material',
      'gender',
      'age_group',
      'additional_image_link',
      'shipping',
    ];
    const cells = [
      'A1',
      'Tee',
      '20.00 USD',
      '15.00 USD',
      '1604',
      'M-1',
      'new',
      'Red',
      'L',
      'Cotton',
      'unisex',
      'adult',
      'https://x.test/1.jpg,https://x.test/2.jpg',
      'US:::0.00 USD',
    ];
    const path = await writeTemp('attrs.txt', tsvOf([header, cells]));
    expect(rowsOf(await collect(readGmcTsv(path)))).toEqual([
      {
        product_id: 'A1',
        title: 'Tee',
        price: '20.00 USD',
        sale_price: '15.00 USD',
        attributes: {
          mpn: 'M-1',
          condition: 'new',
          color: 'Red',
          size: 'L',
          material: 'Cotton',
          gender: 'unisex',
          age_group: 'adult',
          additional_image_link: ['https://x.test/1.jpg', 'https://x.test/2.jpg'],
          google_product_category: '1604',
        },
      },
    ]);
  });

  it('uses a text google_product_category as the category when product_type is empty', async () => {
    const path = await writeTemp(
      'cat.tsv',
      tsvOf([
        ['id', 'title', 'product_type', 'google_product_category'],
        ['1', 'A', 'Shoes > Trail', 'Apparel & Accessories > Shoes'],
        ['2', 'B', '', 'Apparel & Accessories > Shoes'],
        ['3', 'C', '', '187'],
      ]),
    );
    expect(rowsOf(await collect(readGmcTsv(path))).map((r) => r.category)).toEqual(['Shoes > Trail', 'Apparel & Accessories > Shoes', undefined]);
    // Kept as given among the attributes, an id or a path: the product's place in the taxonomy.
    expect(rowsOf(await collect(readGmcTsv(path))).map((r) => (r.attributes as Record<string, unknown>).google_product_category)).toEqual([
      'Apparel & Accessories > Shoes',
      'Apparel & Accessories > Shoes',
      '187',
    ]);
  });

  it('reads the rest of a feed with 10% ragged rows and reports each one', async () => {
    const products = sampleProducts(20);
    const lines = [HEADER, ...products.map(cellsOf)]
      .map((cells) => delimitedLine(cells, '\t'))
      .join('\n')
      .split('\n');
    lines.splice(7, 0, 'X1\tonly two');
    lines.splice(30, 0, `${delimitedLine(cellsOf(products[3]!), '\t')}\tstray`);
    const path = await writeTemp('ragged.tsv', lines.join('\n'));
    const records = await collect(readGmcTsv(path));
    expect(errorsOf(records)).toEqual([
      { line: 8, error: 'malformed_row', detail: 'row has 2 cells, the header has 10' },
      { line: 31, error: 'malformed_row', detail: 'row has 11 cells, the header has 10' },
    ]);
    expectRoundTrip(
      records.filter((r) => 'row' in r),
      products,
      null,
    );
  });

  it('throws FeedFormatError when the header has neither id nor title', async () => {
    const path = await writeTemp('notgmc.tsv', 'name\tcost\nA\t1\n');
    await expect(collect(readGmcTsv(path))).rejects.toBeInstanceOf(FeedFormatError);
  });
});

describe('gmcAttributeName', () => {
  it.each([
    ['g:image_link', 'image_link'],
    ['Image Link', 'image_link'],
    [' G:Sale_Price ', 'sale_price'],
    ['age-group', 'age_group'],
  ])('turns %j into %j', (input, expected) => {
    expect(gmcAttributeName(input)).toBe(expected);
  });
});
