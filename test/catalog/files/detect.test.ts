import { describe, expect, it } from 'vitest';
import { detectFormat, readFeed } from '../../../src/catalog/files/detect.js';
import { decodeHtmlText, PRESETS } from '../../../src/catalog/files/presets.js';
import { FEED_FORMATS, type FeedFormat, FeedFormatError } from '../../../src/catalog/files/types.js';
import { collect, rowsOf, writeTemp } from './fixtures.js';

describe('detectFormat', () => {
  it.each([
    ['feed.jsonl', 'jsonl'],
    ['feed.NDJSON', 'jsonl'],
    ['feed.json', 'jsonl'],
    ['feed.csv', 'csv'],
    ['feed.tsv', 'gmc-tsv'],
    ['feed.txt', 'gmc-tsv'],
    ['feed.xml', 'gmc-xml'],
    ['feed.rss', 'gmc-xml'],
  ])('maps %s to %s by extension without reading it', async (name, format) => {
    expect(await detectFormat(`/nonexistent/${name}`)).toBe(format);
  });

  it.each([
    ['\uFEFF  <?xml version="1.0"?><rss/>', 'gmc-xml'],
    ['{"title":"A"}\n', 'jsonl'],
    ['\n[{"title":"A"}]', 'jsonl'],
    ['id\ttitle\tprice\n1\tA, B\t1 USD\n', 'gmc-tsv'],
    ['title,price\nA\tB,1\n', 'csv'],
  ])('sniffs %j as %s when the extension says nothing', async (content, format) => {
    expect(await detectFormat(await writeTemp('feed.dat', content))).toBe(format);
  });

  it('lets an explicit format win and rejects an unknown one', async () => {
    expect(await detectFormat('/nonexistent/feed.csv', 'gmc-tsv')).toBe('gmc-tsv');
    await expect(detectFormat('/nonexistent/feed.csv', 'yaml' as FeedFormat)).rejects.toThrow(/unknown feed format/);
  });
});

describe('readFeed', () => {
  const feeds: Record<FeedFormat, [string, string]> = {
    jsonl: ['a.jsonl', '{"title":"Mug","price":"3 USD"}\n'],
    csv: ['a.csv', 'title,price\nMug,3 USD\n'],
    'gmc-tsv': ['a.tsv', 'g:title\tg:price\nMug\t3 USD\n'],
    'gmc-xml': ['a.xml', '<rss xmlns:g="http://base.google.com/ns/1.0"><channel><item><title>Mug</title><g:price>3 USD</g:price></item></channel></rss>'],
  };

  it.each(FEED_FORMATS)('dispatches %s to its reader and applies the merchant', async (format) => {
    const [name, content] = feeds[format];
    const feed = await readFeed(await writeTemp(name, content), { merchant: 'M' });
    expect(feed.format).toBe(format);
    expect(rowsOf(await collect(feed.records))).toEqual([{ title: 'Mug', price: '3 USD', merchant: 'M' }]);
  });

  it('passes the delimiter and mapping to the CSV reader', async () => {
    const feed = await readFeed(await writeTemp('b.csv', 'Name;Cost\nMug;3\n'), { delimiter: ';', mapping: { title: 'Name', price: 'Cost' } });
    expect(rowsOf(await collect(feed.records))).toEqual([{ title: 'Mug', price: '3' }]);
  });

  it("applies a preset's renames and row adapter", async () => {
    const path = await writeTemp(
      'bb.json',
      JSON.stringify([
        {
          name: 'Case&#8482;',
          categories: ['Cell Phones', 'Cases'],
          price: 9,
          image: 'https://cdn-demo.algolia.com/bestbuy-0118/123456_sb.jpg',
          popularity: 7,
        },
      ]),
    );
    const feed = await readFeed(path, PRESETS['bestbuy-algolia']);
    expect(rowsOf(await collect(feed.records))).toEqual([
      {
        title: 'Case™',
        category: ['Cell Phones', 'Cases'],
        price: 9,
        image_url: 'https://cdn-demo.algolia.com/bestbuy-0118/123456_sb.jpg',
        product_id: '123456',
        merchant: 'Best Buy',
        attributes: { popularity: 7 },
      },
    ]);
  });

  it('rejects a missing file before reading', async () => {
    await expect(readFeed('/nonexistent/aisle/feed.csv')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('rejects a directory', async () => {
    await expect(readFeed('/tmp')).rejects.toBeInstanceOf(FeedFormatError);
  });
});

describe('decodeHtmlText', () => {
  it.each([
    ['Galaxy&#174; S8', 'Galaxy® S8'],
    ['Otter&#8482; &amp; Co&#x2019;s', 'Otter™ & Co’s'],
    ['Caf&eacute;? &unknown; stays', 'Caf&eacute;? &unknown; stays'],
    ['Win&#153; and raw \u0099', 'Win™ and raw ™'],
  ])('decodes %j', (input, expected) => {
    expect(decodeHtmlText(input)).toBe(expected);
  });
});
