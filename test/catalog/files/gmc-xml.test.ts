import { describe, expect, it } from 'vitest';
import { readGmcXml } from '../../../src/catalog/files/gmc-xml.js';
import { FeedFormatError } from '../../../src/catalog/files/types.js';
import { collect, errorsOf, expectRoundTrip, rowsOf, type SampleProduct, sampleProducts, writeTemp, xmlEscape } from './fixtures.js';

const rssItem = (p: SampleProduct, i: number) => `    <item>
      <g:id>${xmlEscape(p.id)}</g:id>
      ${i % 2 === 0 ? `<title>${xmlEscape(p.title)}</title>` : `<g:title><![CDATA[${p.title}]]></g:title>`}
      <description>${xmlEscape(p.description)}</description>
      ${i % 2 === 0 ? `<link>${xmlEscape(p.url)}</link>` : `<g:link>${xmlEscape(p.url)}</g:link>`}
      <g:image_link>${xmlEscape(p.image)}</g:image_link>
      <g:price>${p.price.toFixed(2)} ${p.currency}</g:price>
      <g:availability>${p.availability.replace('_', ' ')}</g:availability>
      <g:brand>${xmlEscape(p.brand)}</g:brand>
      <g:product_type>${xmlEscape(p.category.join(' > '))}</g:product_type>
      <g:shipping><g:country>US</g:country><g:price>4.95 USD</g:price></g:shipping>
    </item>`;
const rss = (items: string[], channelTitle = 'Example &amp; Sons Store') => `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0">
  <channel>
    <title>${channelTitle}</title>
    <link>https://shop.example.com</link>
    <description>All products</description>
${items.join('\n')}
  </channel>
</rss>
`;

const atomEntry = (p: SampleProduct) => `  <entry>
    <id>tag:shop.example.com,2024:${xmlEscape(p.id)}</id>
    <title>${xmlEscape(p.title)}</title>
    <link rel="self" href="https://shop.example.com/feed/${xmlEscape(p.id)}"/>
    <link href="${xmlEscape(p.url)}"/>
    <summary>${xmlEscape(p.description)}</summary>
    <gm:id>${xmlEscape(p.id)}</gm:id>
    <gm:image_link>${xmlEscape(p.image)}</gm:image_link>
    <gm:price>${p.price.toFixed(2)} ${p.currency}</gm:price>
    <gm:availability>${p.availability}</gm:availability>
    <gm:brand>${xmlEscape(p.brand)}</gm:brand>
    <gm:google_product_category>${xmlEscape(p.category.join(' > '))}</gm:google_product_category>
  </entry>`;

describe('readGmcXml', () => {
  it('round-trips products through an RSS 2.0 feed, with the channel title as merchant', async () => {
    const products = sampleProducts(12);
    const path = await writeTemp('feed.xml', rss(products.map(rssItem)));
    expectRoundTrip(await collect(readGmcXml(path)), products, 'Example & Sons Store');
  });

  it('prefers the merchant option over the channel title', async () => {
    const products = sampleProducts(2);
    const path = await writeTemp('feed.xml', rss(products.map(rssItem)));
    expectRoundTrip(await collect(readGmcXml(path, { merchant: 'Given' })), products, 'Given');
  });

  it('round-trips products through an Atom feed under any prefix bound to the GMC namespace', async () => {
    const products = sampleProducts(6);
    const path = await writeTemp(
      'feed.atom',
      `<?xml version="1.0"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:gm="http://base.google.com/ns/1.0">
  <title>Atom Shop</title>
  <link href="https://shop.example.com" rel="alternate"/>
${products.map(atomEntry).join('\n')}
</feed>`,
    );
    expectRoundTrip(await collect(readGmcXml(path)), products, 'Atom Shop');
  });

  it('decodes CDATA, XML, numeric and HTML entities and keeps a bare ampersand', async () => {
    const path = await writeTemp(
      'entities.xml',
      rss([
        `<item><g:id>1</g:id><title><![CDATA[Fish & Chips <Deluxe> ]]>&amp; more</title>
        <description><![CDATA[<p>Crispy & hot</p>]]></description><g:brand>Acme&#174; &reg; &#x2122;</g:brand></item>`,
        '<item><g:id>2</g:id><title>AT&T Phone</title></item>',
      ]),
    );
    const records = await collect(readGmcXml(path));
    expect(errorsOf(records)).toEqual([]);
    expect(rowsOf(records)).toEqual([
      { product_id: '1', title: 'Fish & Chips <Deluxe> & more', description: '<p>Crispy & hot</p>', brand: 'Acme® ® ™', merchant: 'Example & Sons Store' },
      { product_id: '2', title: 'AT&T Phone', merchant: 'Example & Sons Store' },
    ]);
  });

  it('ignores nested groups and elements in other namespaces', async () => {
    const path = await writeTemp(
      'nested.xml',
      `<rss xmlns:g="http://base.google.com/ns/1.0" xmlns:media="http://search.yahoo.com/mrss/"><channel>
      <item><g:id>9</g:id><title>Mug</title><media:title>Not this</media:title><g:price>5.00 USD</g:price>
      <g:shipping><g:price>4.95 USD</g:price><g:title>nope</g:title></g:shipping><g:additional_image_link>https://x.test/1.jpg</g:additional_image_link>
      <g:additional_image_link>https://x.test/2.jpg</g:additional_image_link><g:color>Red</g:color></item></channel></rss>`,
    );
    expect(rowsOf(await collect(readGmcXml(path)))).toEqual([
      {
        product_id: '9',
        title: 'Mug',
        price: '5.00 USD',
        attributes: { color: 'Red', additional_image_link: ['https://x.test/1.jpg', 'https://x.test/2.jpg'] },
      },
    ]);
  });

  it('reads the rest of a feed with 10% broken items and reports each one at its line', async () => {
    const products = sampleProducts(20);
    const items = products.map(rssItem);
    items.splice(4, 0, '    <item>\n      <g:id>B1</g:id><title>Broken</titel>\n    </item>');
    items.splice(15, 0, '    <item>\n      <g:id>B2</g:id><title>Unclosed<title>\n    </item>');
    const xml = rss(items);
    const path = await writeTemp('broken.xml', xml);
    const records = await collect(readGmcXml(path));
    const lineOf = (needle: string) => xml.slice(0, xml.indexOf(needle)).split('\n').length - 1;
    expect(errorsOf(records)).toEqual([
      { line: lineOf('<g:id>B1'), error: 'malformed_xml', detail: expect.stringMatching(/close tag/i) },
      { line: lineOf('<g:id>B2'), error: 'malformed_xml', detail: expect.stringMatching(/close tag/i) },
    ]);
    expectRoundTrip(
      records.filter((r) => 'row' in r),
      products,
      'Example & Sons Store',
    );
  });

  it('reports an item cut off by the end of the file', async () => {
    const xml = rss([rssItem(sampleProducts(1)[0]!, 0)]).replace(/\s*<\/channel>[\s\S]*$/, '\n<item><title>Half');
    const path = await writeTemp('cut.xml', xml);
    const records = await collect(readGmcXml(path));
    const line = xml.split('\n').length;
    expect(records.map((r) => ('error' in r ? r : 'row'))).toEqual(['row', { line, error: 'malformed_xml', detail: 'the file ends inside this item' }]);
  });

  it('accepts a BOM', async () => {
    const products = sampleProducts(2);
    const path = await writeTemp('bom.xml', `\uFEFF${rss(products.map(rssItem))}`);
    expectRoundTrip(await collect(readGmcXml(path)), products, 'Example & Sons Store');
  });

  it.each([
    ['XML that is neither RSS nor Atom', '<html><body><item><title>A</title></item></body></html>', /neither RSS/],
    ['a file that is not XML', 'id,title\n1,A\n', /not an XML feed/],
    ['an empty file', '', /no XML root/],
  ])('throws FeedFormatError for %s', async (_, content, message) => {
    const path = await writeTemp('bad.xml', content);
    const failure = collect(readGmcXml(path));
    await expect(failure).rejects.toBeInstanceOf(FeedFormatError);
    await expect(failure).rejects.toThrow(message);
  });

  it('names the line and column of the element that makes a file no feed', async () => {
    const path = await writeTemp('page.xml', '<?xml version="1.0"?>\n\n  <html><body/></html>\n');
    await expect(collect(readGmcXml(path))).rejects.toMatchObject({
      message: `${path}:3:9: root element <html> is neither RSS <rss> nor Atom <feed>`,
      place: { line: 3 },
    });
  });
});
