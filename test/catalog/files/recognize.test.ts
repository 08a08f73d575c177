import { describe, expect, it } from 'vitest';
import { AMAZON_2020_MAPPING } from '../../../src/catalog/files/presets.js';
import { recognizeExport } from '../../../src/catalog/files/recognize.js';
import { needsShared, sharedPath } from '../../helpers/shared.js';
import { delimitedLine, writeTemp } from './fixtures.js';

const AMAZON = sharedPath('data/catalogs/amazon-sample-2020/sample.csv');
const BESTBUY = sharedPath('data/catalogs/bestbuy-algolia/ecommerce.json');
const realFiles = needsShared([AMAZON, BESTBUY]);

/** The Amazon 2020 export's 28 columns, in its order. */
const AMAZON_HEADER = [
  'Uniq Id',
  'Product Name',
  'Brand Name',
  'Asin',
  'Category',
  'Upc Ean Code',
  'List Price',
  'Selling Price',
  'Quantity',
  'Model Number',
  'About Product',
  'Product Specification',
  'Technical Details',
  'Shipping Weight',
  'Product Dimensions',
  'Image',
  'Variants',
  'Sku',
  'Product Url',
  'Stock',
  'Product Details',
  'Dimensions',
  'Color',
  'Ingredients',
  'Direction To Use',
  'Is Amazon Seller',
  'Size Quantity Variant',
  'Product Description',
];

describe('recognizeExport', () => {
  it('recognises the Amazon 2020 export by its header, in any case, and nothing that lacks a column its mapping reads', async () => {
    const csv = await writeTemp('amazon.csv', `${delimitedLine(AMAZON_HEADER.map((h) => h.toUpperCase()))}\nx,Lamp\n`);
    expect(await recognizeExport(csv, 'csv')).toEqual({ preset: 'amazon-2020', label: "PromptCloud's Amazon US sample export (2020)" });
    const withoutAsin = await writeTemp('amazon.csv', `${delimitedLine(AMAZON_HEADER.filter((h) => h !== AMAZON_2020_MAPPING.attributes![0]))}\n`);
    expect(await recognizeExport(withoutAsin, 'csv')).toBeNull();
    const semicolons = await writeTemp('amazon.csv', `${delimitedLine(AMAZON_HEADER, ';')}\n`);
    expect(await recognizeExport(semicolons, 'csv', ';')).toMatchObject({ preset: 'amazon-2020' });
  });

  it("recognises Algolia's Best Buy export by its first record's keys", async () => {
    const record = { name: 'Case', description: 'A case', brand: 'Otter', categories: ['Cases'], price: 9, image: 'https://x.test/1_sb.jpg', popularity: 3 };
    expect(await recognizeExport(await writeTemp('bb.json', JSON.stringify([record])), 'jsonl')).toMatchObject({ preset: 'bestbuy-algolia' });
    expect(await recognizeExport(await writeTemp('bb.jsonl', JSON.stringify({ ...record, popularity: undefined })), 'jsonl')).toBeNull();
  });

  it('recognises nothing in a plain feed or an XML feed, and throws for a CSV with no header', async () => {
    expect(await recognizeExport(await writeTemp('p.csv', 'title,price\nLamp,9\n'), 'csv')).toBeNull();
    expect(await recognizeExport(await writeTemp('p.jsonl', '{"title":"Lamp"}\n'), 'jsonl')).toBeNull();
    expect(await recognizeExport(await writeTemp('p.xml', '<rss/>'), 'gmc-xml')).toBeNull();
    await expect(recognizeExport(await writeTemp('e.csv', ''), 'csv')).rejects.toThrow(/no header row/);
  });

  it.skipIf(realFiles.skip)(`recognises the real sample files in ../shared/data/catalogs${realFiles.note}`, async () => {
    realFiles.check();
    expect(await recognizeExport(AMAZON, 'csv')).toMatchObject({ preset: 'amazon-2020' });
    expect(await recognizeExport(BESTBUY, 'jsonl')).toMatchObject({ preset: 'bestbuy-algolia' });
  });
});
