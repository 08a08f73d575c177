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
    expect(clear.confidence).toBeGreaterThan(0.6);
    expect(clear.confidence).toBeLessThanOrEqual(1);
    expect(clear.path).toEqual(taxonomy.get(clear.categoryId)!.path);
    // A lone word in the description names a category only faintly, alone or not.
    const faint = placer.fromText({ title: 'The Deluxe Edition, No. 7', description: 'Comes in a box with a skillet.' })!;
    expect(faint.categoryId).toBe(662);
    expect(faint.confidence).toBeLessThan(0.6);
    expect(faint.confidence).toBeLessThan(clear.confidence);
  });

  it("lets the product's embedding choose among the categories its words name", () => {
    const small: Taxonomy = new Map([
      [10, { id: 10, path: ['Sporting Goods', 'Cycling', 'Bicycle Headsets'] }],
      [20, { id: 20, path: ['Electronics', 'Audio', 'Headsets'] }],
    ]);
    const types = [
      { categoryId: 10, names: ['headset'] },
      { categoryId: 20, names: ['headset'] },
    ];
    const vectors = new Map([
      [10, [Float32Array.of(1, 0)]],
      [20, [Float32Array.of(0, 1)]],
    ]);
    const voting = new TaxonomyPlacer(small, types, vectors);
    const product = { title: 'Corded Stereo Headset' };
    expect(voting.fromText(product, Float32Array.of(0.1, 0.9))?.categoryId).toBe(20);
    expect(voting.fromText(product, Float32Array.of(0.9, 0.1))?.categoryId).toBe(10);
    // Without a vector the words alone decide (a tie: the lower id).
    expect(voting.fromText(product)?.categoryId).toBe(10);
    // The vote chooses among what the words named, never a category they did not.
    expect(voting.fromText({ title: 'Stereo Speaker' }, Float32Array.of(0, 1))).toBeNull();
  });
});
