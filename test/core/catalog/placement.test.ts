import { beforeAll, describe, expect, it } from 'vitest';
import { TaxonomyPlacer } from '../../../src/core/catalog/placement.js';
import type { Taxonomy } from '../../../src/core/knowledge/taxonomy.js';
import { loadKnowledge, loadTaxonomy } from '../../../src/knowledge/files.js';

// The shipped taxonomy and knowledge base, as an import would use them.
let taxonomy: Taxonomy;
let placer: TaxonomyPlacer;
beforeAll(async () => {
  taxonomy = await loadTaxonomy();
  const { entries } = await loadKnowledge(taxonomy);
  placer = new TaxonomyPlacer(
    taxonomy,
    entries.map((e) => ({ categoryId: e.category_id, names: [e.type, ...e.names] })),
  );
}, 60_000);

describe('placement in the Google product taxonomy', () => {
  it('takes the category a feed names, by id or by path, and nothing else', () => {
    expect(placer.fromFeed('753')).toEqual({ categoryId: 753, path: taxonomy.get(753)!.path, confidence: 1 });
    expect(placer.fromFeed(753)?.categoryId).toBe(753);
    expect(placer.fromFeed(' home & garden >kitchen & dining> Kitchen Appliances > microwave ovens ')?.categoryId).toBe(753);
    for (const unknown of ['99999999', 'Kitchen > Microwaves', '', null, undefined]) expect(placer.fromFeed(unknown), String(unknown)).toBeNull();
  });

  it('places by the thing the title names, not what it is for or comes with', () => {
    const place = (title: string, extra: { description?: string; category?: string } = {}) => placer.fromText({ title, ...extra })?.categoryId;
    expect(place('Whirlpool 1.9 cu. ft. Over the Range Convection Microwave in Stainless Steel with Sensor Cooking')).toBe(753);
    expect(place('DEWALT 20-Piece Titanium Drill Bit Set for Metal')).toBe(1540);
    expect(place('Lodge 10.25 in. Cast Iron Skillet')).toBe(662);
    // Nothing in it names a product: no placement rather than a guess.
    expect(placer.fromText({ title: 'The Deluxe Edition, No. 7' })).toBeNull();
  });

  it('says how clearly the text named the category', () => {
    const clear = placer.fromText({ title: 'Lodge 10.25 in. Cast Iron Skillet' })!;
    expect(clear.confidence).toBeGreaterThan(0.5);
    expect(clear.confidence).toBeLessThanOrEqual(1);
    expect(clear.path).toEqual(taxonomy.get(clear.categoryId)!.path);
  });
});
