import { describe, expect, it } from 'vitest';
import { nameSimilarity, suggestMapping } from '../../../src/catalog/files/column-match.js';

describe('nameSimilarity', () => {
  it.each([
    ['Product Name', 'product name', 1],
    ['ProductName', 'product name', 1],
    ['product_name', 'product name', 1],
    ['Titel', 'title', 0.8],
    ['Brand Name', 'name', 0.5],
    ['Quantity', 'title', 0],
    ['Image', 'name', 0],
    ['', 'title', 0],
  ])('scores %j against %j as %d', (header, name, score) => {
    expect(nameSimilarity(header, name)).toBeCloseTo(score, 5);
  });
});

describe('suggestMapping', () => {
  it('maps title to the column most like one, then each other unmapped field to the best unused column', () => {
    const header = ['Uniq Id', 'Item Name', 'Selling Price', 'Sale Price', 'Image', 'Product Url', 'Quantity'];
    expect(suggestMapping(header, new Set(), new Set())).toEqual({
      closestToTitle: ['Item Name', 'Product Url'],
      mapping: { title: 'Item Name', product_id: 'Uniq Id', price: 'Selling Price', sale_price: 'Sale Price', image_url: 'Image', url: 'Product Url' },
    });
  });

  it('leaves out fields and columns that are mapped already, and suggests no title for unlike names', () => {
    const header = ['Code', 'price', 'Stock Status'];
    expect(suggestMapping(header, new Set(['price']), new Set([1]))).toEqual({ closestToTitle: [], mapping: { availability: 'Stock Status' } });
  });
});
