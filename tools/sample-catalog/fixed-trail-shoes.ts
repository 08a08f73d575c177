/**
 * Hand-written trail running shoes: the "waterproof trail shoes under $120" demo scenario.
 *
 *  - 7 waterproof and under $120 (one of them on preorder, so 6 are buyable today)
 *  - 4 waterproof and $120 or more
 *  - 7 not waterproof and under $120 (incl. one "water-resistant" trap and a 3-colour variant set)
 *  - 1 not waterproof and over $120
 */
import type { FixedProduct } from './types.js';

// Hand-written products are data: each spells out the FixedProduct fields, so they repeat in shape.
const TRAIL = 'Footwear > Running Shoes > Trail Running Shoes';
const MEN = ['8', '8.5', '9', '9.5', '10', '10.5', '11', '11.5', '12', '13'];
const WOMEN = ['6', '6.5', '7', '7.5', '8', '8.5', '9', '9.5', '10', '11'];
const UNISEX = ['7', '8', '9', '10', '11', '12'];

const waterproofUnder120: FixedProduct[] = [
  {
    category: TRAIL,
    merchant: 'trailhead',
    brand: 'Kestrel Running',
    price: 109.95,
    title: "Kestrel Running Ridgeline WP Waterproof Trail Running Shoe - Men's, Slate Grey",
    description:
      'A waterproof trail running shoe with a seam-sealed membrane bootie and 4.5 mm multidirectional lugs for wet, rooty singletrack. Medium cushioning and an 8 mm drop keep it comfortable from 5K loops to half-marathon distances.',
    attributes: {
      color: 'Slate Grey',
      size: MEN,
      waterproof: true,
      weight_g: 315,
      material: 'Recycled ripstop mesh with waterproof membrane',
      drop_mm: 8,
      lug_depth_mm: 4.5,
      gender: 'men',
    },
  },
  {
    category: TRAIL,
    merchant: 'trailhead',
    brand: 'Norrland',
    price: 99.0,
    title: "Norrland Fjellsti Waterproof Trail Runner - Women's, Heather Purple",
    description:
      'Lightweight waterproof trail runner built for Nordic bogs and shoulder-season mud. The breathable membrane keeps feet dry while a grippy rubber outsole bites on wet granite.',
    attributes: {
      color: 'Heather Purple',
      size: WOMEN,
      waterproof: true,
      weight_g: 255,
      material: 'Engineered mesh, waterproof-breathable membrane',
      drop_mm: 6,
      lug_depth_mm: 4,
      gender: 'women',
    },
  },
  {
    category: TRAIL,
    merchant: 'northbound',
    brand: 'Alder & Pike',
    price: 89.99,
    title: 'Alder & Pike Mossback Waterproof Trail Shoe, Olive / Black',
    description:
      'An everyday waterproof trail shoe that moves between park paths, forest trails and rainy commutes. Gusseted tongue keeps grit out; the EVA midsole is firm and stable.',
    attributes: {
      color: 'Olive / Black',
      size: UNISEX,
      waterproof: true,
      weight_g: 340,
      material: 'Synthetic leather overlays, waterproof membrane',
      drop_mm: 10,
      lug_depth_mm: 3.5,
      gender: 'unisex',
    },
  },
  {
    category: TRAIL,
    merchant: 'stride',
    brand: 'Talus',
    price: 114.5,
    title: "Talus Mudlark 2 Waterproof Trail Running Shoe - Men's",
    description:
      'The Mudlark 2 pairs a fully waterproof upper with 5 mm chevron lugs that shed mud instead of packing it. A rock plate under the forefoot takes the sting out of sharp scree.',
    attributes: {
      color: 'Black / Safety Orange',
      size: MEN,
      waterproof: true,
      weight_g: 330,
      material: 'Welded TPU overlays, waterproof membrane',
      drop_mm: 6,
      lug_depth_mm: 5,
      rock_plate: true,
      gender: 'men',
    },
  },
  {
    category: TRAIL,
    merchant: 'stride',
    brand: 'Cairnline',
    price: 119.0,
    title: 'Cairnline Scree Runner WP Waterproof Trail Shoe, Glacier Blue',
    description:
      'Waterproof and quick-drying at the collar, the Scree Runner WP is made for cold, wet miles. A wide forefoot gives toes room to splay on long descents.',
    attributes: {
      color: 'Glacier Blue',
      size: UNISEX,
      waterproof: true,
      weight_g: 305,
      material: 'Knit upper with waterproof membrane',
      drop_mm: 5,
      lug_depth_mm: 4,
      wide_toe_box: true,
      gender: 'unisex',
    },
  },
  {
    category: TRAIL,
    merchant: 'northbound',
    brand: 'Kestrel Running',
    price: 104.99,
    title: "Kestrel Running Switchback Waterproof Trail Shoe - Women's, Teal",
    description:
      'A women-specific waterproof trail running shoe with a narrower heel and softer foam for technical climbs. Reflective heel tab for early-morning runs.',
    attributes: {
      color: 'Teal',
      size: WOMEN,
      waterproof: true,
      weight_g: 270,
      material: 'Engineered mesh, waterproof membrane',
      drop_mm: 8,
      lug_depth_mm: 4,
      reflective: true,
      gender: 'women',
    },
  },
  {
    category: TRAIL,
    merchant: 'trailhead',
    brand: 'Vireo Athletics',
    price: 94.95,
    availability: 'preorder',
    title: 'Vireo Athletics Puddlejump Waterproof Trail Running Shoe, Charcoal',
    description:
      "Vireo's first waterproof trail runner: a sock-like collar, a waterproof liner and a sticky rubber outsole for slick boardwalks and puddled fire roads. Ships in early December.",
    attributes: {
      color: 'Charcoal',
      size: UNISEX,
      waterproof: true,
      weight_g: 290,
      material: 'Stretch knit with waterproof liner',
      drop_mm: 7,
      lug_depth_mm: 3.5,
      gender: 'unisex',
    },
  },
];

const waterproofOver120: FixedProduct[] = [
  // The Mudlark 2's build on purpose (waterproof, 6 mm drop, 5 mm lugs, rock plate): only the price
  // keeps it out of "waterproof trail shoes under $120".
  {
    category: TRAIL,
    merchant: 'trailhead',
    brand: 'Norrland',
    price: 164.95,
    title: "Norrland Vidda Pro Waterproof Trail Running Shoe - Men's",
    description:
      'Premium waterproof trail running shoe with a carbon-infused rock plate, supercritical foam midsole and 5 mm lugs. Built for ultra-distance days in alpine weather.',
    attributes: {
      color: 'Black / Lichen',
      size: MEN,
      waterproof: true,
      weight_g: 320,
      material: 'Ripstop upper, waterproof-breathable membrane',
      drop_mm: 6,
      lug_depth_mm: 5,
      rock_plate: true,
      gender: 'men',
    },
  },
  {
    category: TRAIL,
    merchant: 'stride',
    brand: 'Talus',
    price: 139.99,
    title: "Talus Summit Storm Waterproof Trail Runner - Women's",
    description: 'A storm-ready waterproof trail runner with a gaiter attachment point, a protective toe cap and a cushioned midsole tuned for long descents.',
    attributes: {
      color: 'Storm Grey / Coral',
      size: WOMEN,
      waterproof: true,
      weight_g: 285,
      material: 'Ripstop mesh, waterproof membrane, rubber toe cap',
      drop_mm: 6,
      lug_depth_mm: 4.5,
      gender: 'women',
    },
  },
  {
    category: TRAIL,
    merchant: 'northbound',
    brand: 'Kestrel Running',
    price: 149.0,
    title: 'Kestrel Running Ridgeline Pro Waterproof Trail Running Shoe',
    description: 'The Ridgeline Pro adds a full-length plate and a higher stack to the waterproof Ridgeline recipe for fast, long efforts on rough ground.',
    attributes: {
      color: 'Black',
      size: UNISEX,
      waterproof: true,
      weight_g: 310,
      material: 'Recycled mesh, waterproof membrane',
      drop_mm: 8,
      lug_depth_mm: 4.5,
      rock_plate: true,
      gender: 'unisex',
    },
  },
  {
    category: TRAIL,
    merchant: 'trailhead',
    brand: 'Fellwalker',
    price: 179.0,
    title: 'Fellwalker Alpine Trail WP Waterproof Running Shoe, Red Ochre',
    description:
      'A mountain running shoe with a waterproof membrane, a high-traction rubber compound and a lacing cage that locks the heel on steep traverses.',
    attributes: {
      color: 'Red Ochre',
      size: UNISEX,
      waterproof: true,
      weight_g: 335,
      material: 'Aramid-reinforced mesh, waterproof membrane',
      drop_mm: 4,
      lug_depth_mm: 6,
      gender: 'unisex',
    },
  },
];

const notWaterproof: FixedProduct[] = [
  {
    category: TRAIL,
    merchant: 'stride',
    brand: 'Kestrel Running',
    price: 94.99,
    title: "Kestrel Running Tempo Trail Running Shoe - Men's, Volt Green",
    description: 'A breathable, fast-draining trail running shoe for summer singletrack. Open mesh vents heat and sheds water quickly after creek crossings.',
    attributes: {
      color: 'Volt Green',
      size: MEN,
      waterproof: false,
      weight_g: 265,
      material: 'Open engineered mesh',
      drop_mm: 8,
      lug_depth_mm: 3.5,
      gender: 'men',
    },
  },
  {
    category: TRAIL,
    merchant: 'northbound',
    brand: 'Cairnline',
    price: 79.95,
    title: 'Cairnline Gravel Dash Trail Shoe, Sand',
    description: 'An affordable, lightweight trail shoe for gravel paths and groomed trails. Not waterproof; the airy upper is built for warm, dry days.',
    attributes: {
      color: 'Sand',
      size: UNISEX,
      waterproof: false,
      weight_g: 245,
      material: 'Single-layer mesh',
      drop_mm: 10,
      lug_depth_mm: 3,
      gender: 'unisex',
    },
  },
  {
    category: TRAIL,
    merchant: 'trailhead',
    brand: 'Talus',
    price: 109.0,
    title: "Talus Quickstep Water-Resistant Trail Running Shoe - Women's",
    description:
      'A tightly woven, water-resistant upper shrugs off dew and light drizzle but is not waterproof. Responsive foam and 4 mm lugs for mixed terrain.',
    attributes: {
      color: 'Dusty Rose',
      size: WOMEN,
      waterproof: false,
      water_resistant: true,
      weight_g: 260,
      material: 'DWR-treated woven upper',
      drop_mm: 6,
      lug_depth_mm: 4,
      gender: 'women',
    },
  },
  {
    category: TRAIL,
    merchant: 'stride',
    brand: 'Vireo Athletics',
    price: 69.99,
    title: 'Vireo Athletics Sprig Trail Runner, Black / White',
    description: 'An entry-level trail runner with a durable rubber outsole and a padded collar. A good first pair for park trails and towpaths.',
    attributes: {
      color: 'Black / White',
      size: UNISEX,
      waterproof: false,
      weight_g: 290,
      material: 'Mesh with synthetic overlays',
      drop_mm: 10,
      lug_depth_mm: 3,
      gender: 'unisex',
    },
  },
  {
    category: TRAIL,
    merchant: 'stride',
    brand: 'Norrland',
    price: 134.99,
    title: 'Norrland Fjellmark Ultra Trail Running Shoe',
    description:
      'Max-cushion trail running shoe for ultramarathons, with a wide platform, a breathable mesh upper and drainage ports. Not waterproof by design: it drains and dries fast.',
    attributes: {
      color: 'Fog / Amber',
      size: UNISEX,
      waterproof: false,
      weight_g: 300,
      material: 'Breathable engineered mesh',
      drop_mm: 5,
      lug_depth_mm: 4,
      gender: 'unisex',
    },
  },
];

/** One shoe in three colourways: same title stem, different colour and attributes.color. */
const fernrunnerColors = ['Slate Blue', 'Moss Green', 'Ember Orange'] as const;
const fernrunner: FixedProduct[] = fernrunnerColors.map((color) => ({
  category: TRAIL,
  merchant: 'trailhead',
  brand: 'Alder & Pike',
  price: 99.95,
  title: `Alder & Pike Fernrunner Trail Running Shoe - ${color}`,
  description:
    'A versatile, mid-cushioned trail running shoe with a breathable mesh upper and a sticky rubber outsole. Not waterproof; it dries quickly after wet crossings.',
  attributes: {
    color,
    size: UNISEX,
    waterproof: false,
    weight_g: 275,
    material: 'Recycled mesh, TPU heel counter',
    drop_mm: 7,
    lug_depth_mm: 4,
    gender: 'unisex',
    variant_group: 'alder-pike-fernrunner',
  },
}));

export const TRAIL_SHOES: FixedProduct[] = [...waterproofUnder120, ...waterproofOver120, ...notWaterproof, ...fernrunner];
