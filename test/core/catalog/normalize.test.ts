import { describe, expect, it } from 'vitest';
import { firstUrl, normalizeProduct, parseAvailability, parseCategory, parsePrice, uuidV5 } from '../../../src/core/catalog/normalize.js';

describe('parsePrice', () => {
  it.each([
    [12.99, { amount: 12.99, currency: null }],
    ['12.99', { amount: 12.99, currency: null }],
    ['$1,299.00', { amount: 1299, currency: 'USD' }],
    ['12.99 USD', { amount: 12.99, currency: 'USD' }],
    ['EUR 5', { amount: 5, currency: 'EUR' }],
    ['£7.5', { amount: 7.5, currency: 'GBP' }],
    ['$10.00 - $15.99', { amount: 10, currency: 'USD' }],
    ['', null],
    [undefined, null],
    ['call for price', 'invalid'],
    [-3, 'invalid'],
    [Number.NaN, 'invalid'],
  ])('parses %j', (input, expected) => {
    expect(parsePrice(input as number | string | undefined)).toEqual(expected);
  });
});

describe('field parsers', () => {
  it('takes the first http(s) URL of a packed cell', () => {
    expect(firstUrl('https://a.example.com/1.jpg|https://a.example.com/2.jpg')).toBe('https://a.example.com/1.jpg');
    expect(firstUrl('javascript:alert(1) https://ok.example.com/')).toBe('https://ok.example.com/');
    expect(firstUrl('not a url')).toBeNull();
  });

  it('maps availability words', () => {
    expect(parseAvailability('In Stock')).toBe('in_stock');
    expect(parseAvailability('out_of_stock')).toBe('out_of_stock');
    expect(parseAvailability('pre-order')).toBe('preorder');
    expect(parseAvailability(false)).toBe('out_of_stock');
    expect(parseAvailability('maybe')).toBe('unknown');
  });

  it('splits category paths on > and |', () => {
    expect(parseCategory('Footwear > Running  Shoes > Trail')).toEqual(['Footwear', 'Running Shoes', 'Trail']);
    expect(parseCategory('Toys & Games | Learning | ')).toEqual(['Toys & Games', 'Learning']);
    expect(parseCategory(['A', ' ', 'B'])).toEqual(['A', 'B']);
  });
});

describe('normalizeProduct', () => {
  it('derives a stable UUIDv5 product id from merchant and the feed id, keeping the feed id', () => {
    const a = normalizeProduct({ sku: 'SKU-1', title: 'Mug', merchant: 'Shop' });
    const b = normalizeProduct({ sku: 'SKU-1', title: 'Mug, renamed', merchant: 'Shop' });
    const c = normalizeProduct({ sku: 'SKU-1', title: 'Mug', merchant: 'Other shop' });
    if (!a.ok || !b.ok || !c.ok) throw new Error('expected ok');
    expect(a.product.productId).toBe(uuidV5('Shop:SKU-1'));
    expect(a.product.productId).toBe(b.product.productId);
    expect(a.product.productId).not.toBe(c.product.productId);
    expect(a.product.externalId).toBe('SKU-1');
    const uuid = normalizeProduct({ product_id: 'A3BB189E-8BF9-3888-9912-ACE4E6543002', title: 'x' });
    expect(uuid.ok && uuid.product.productId).toBe('a3bb189e-8bf9-3888-9912-ace4e6543002');
    expect(uuidV5('hello', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('9342d47a-1bab-5709-9869-c840b2eac501');
  });

  it('needs only a title and fills the rest with empty values', () => {
    const r = normalizeProduct({ title: '  Plain   product ' });
    expect(r).toMatchObject({
      ok: true,
      product: { title: 'Plain product', description: '', priceAmount: null, currency: null, category: [], availability: 'unknown', url: null },
    });
  });

  it('prefers a lower sale price and keeps currency', () => {
    const r = normalizeProduct({ title: 'x', price: '20.00 USD', sale_price: '15.00 USD' });
    expect(r.ok && [r.product.priceAmount, r.product.currency]).toEqual([15, 'USD']);
  });

  it.each([
    [null, 'not_an_object'],
    [[1], 'not_an_object'],
    [{ description: 'no title' }, 'missing_title'],
    [{ title: '   ' }, 'missing_title'],
    [{ title: 'x'.repeat(501) }, 'title_too_long'],
    [{ title: 'x', price: 'free-ish' }, 'invalid_price'],
    [{ title: 'x', price: 3, currency: 'dollars' }, 'invalid_currency'],
    [{ title: 'x', attributes: 'nope' }, 'invalid_field_type'],
  ])('skips %j as %s', (row, reason) => {
    expect(normalizeProduct(row)).toMatchObject({ ok: false, reason });
  });

  it('drops unusable optional values instead of the product', () => {
    const r = normalizeProduct({ title: 'x', url: 'ftp://nope', last_updated_at: 'yesterday', attributes: { a: null, b: ' ', c: [1, 'x', {}], d: true } });
    expect(r.ok && r.product).toMatchObject({ url: null, lastUpdatedAt: null, attributes: { c: ['1', 'x'], d: true } });
  });
});
