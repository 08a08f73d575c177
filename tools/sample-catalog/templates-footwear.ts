/** Generated footwear: road running shoes, hiking boots, sneakers and sandals. */
import { COLORS, describe, SHOE_SIZES_US, sizeRun } from './text.js';
import type { Template } from './types.js';

const GENDERS = ["Men's", "Women's"] as const;
const gender = (g: string): string => (g === "Men's" ? 'men' : 'women');

export const FOOTWEAR_TEMPLATES: Template[] = [
  {
    category: 'Footwear > Running Shoes > Road Running Shoes',
    count: 10,
    merchants: ['stride', 'stride', 'northbound', 'trailhead'],
    brands: ['Kestrel Running', 'Vireo Athletics', 'Talus', 'Harrier Athletic', 'Norrland'],
    price: [69, 179],
    make: ({ rng, brand }) => {
      const model = rng.pick(['Pacer', 'Cadence', 'Longrun', 'Glide', 'Aster', 'Metronome', 'Daybreak', 'Swiftline']);
      const version = rng.int(2, 9);
      const g = rng.pick(GENDERS);
      const color = rng.pick(COLORS);
      const cushion = rng.pick(['max', 'moderate', 'light']);
      const support = rng.pick(['neutral', 'stability']);
      const drop = rng.pick([4, 6, 8, 10, 12]);
      const foam = rng.pick(['nitrogen-infused', 'PEBA-blend', 'EVA', 'TPU-bead']);
      return {
        title: rng.pick([
          `${brand} ${model} ${version} Road Running Shoe - ${g}, ${color}`,
          `${brand} ${model} ${version} ${cushion === 'max' ? 'Max-Cushion' : 'Cushioned'} Running Shoe, ${color}`,
          `${g} ${brand} ${model} ${version} ${support === 'stability' ? 'Stability' : 'Neutral'} Road Runner`,
        ]),
        description: describe(rng, `A ${cushion}-cushioned ${support} road running shoe with a ${foam} midsole and a ${drop} mm drop.`, [
          'The engineered mesh upper breathes well on hot days.',
          'Reflective heel details add visibility on early-morning runs.',
          'Carbon rubber in high-wear zones extends outsole life on asphalt.',
          'A padded heel collar and gusseted tongue lock the foot in place.',
          'Suited to daily training, long runs and easy recovery days.',
          'A rockered forefoot encourages a smooth, quick toe-off.',
        ]),
        attributes: {
          color,
          size: sizeRun(rng, SHOE_SIZES_US, 6),
          waterproof: false,
          weight_g: rng.int(210, 310),
          drop_mm: drop,
          cushioning: cushion,
          support,
          material: 'Engineered mesh',
          surface: 'road',
          gender: gender(g),
        },
      };
    },
  },
  {
    category: 'Footwear > Boots > Hiking Boots',
    count: 10,
    merchants: ['trailhead', 'trailhead', 'northbound'],
    brands: ['Norrland', 'Fellwalker', 'Cairnline', 'Alder & Pike', 'Ridgeback Boot Co.'],
    price: [89, 289],
    make: ({ rng, brand }) => {
      const model = rng.pick(['Tundra', 'Highpass', 'Bergen', 'Coldwater', 'Scarp', 'Treeline', 'Kettle Moraine', 'Cirque']);
      const waterproof = rng.chance(0.6);
      const height = rng.pick(['Mid', 'High', 'Low']);
      const material = rng.pick(['full-grain leather', 'nubuck leather', 'suede and nylon mesh', 'synthetic leather']);
      const color = rng.pick(['Walnut Brown', 'Tan', 'Dark Olive', 'Charcoal', 'Chestnut', 'Black']);
      const g = rng.pick(GENDERS);
      const wp = waterproof ? 'Waterproof ' : '';
      return {
        title: rng.pick([
          `${brand} ${model} ${height} ${wp}Hiking Boot - ${g}`,
          `${brand} ${model} ${wp}${height}-Cut ${material.includes('leather') && !material.includes('synthetic') ? 'Leather ' : ''}Hiker, ${color}`,
          `${g} ${brand} ${model} ${height} ${waterproof ? 'WP ' : ''}Backpacking Boot`,
        ]),
        description: describe(
          rng,
          `A ${height.toLowerCase()}-cut hiking boot in ${material}${waterproof ? ' with a waterproof, breathable membrane' : ', unlined for breathability in warm weather'}.`,
          [
            'A nylon shank adds torsional stiffness when carrying a loaded pack.',
            'Deep, self-cleaning lugs grip on loose dirt and wet rock.',
            'A rubber toe rand protects against scuffs and trail debris.',
            'Comes with a removable contoured footbed.',
            'Resoleable construction for a longer service life.',
            'Speed-lace hooks make it easy to adjust fit on the move.',
          ],
        ),
        attributes: {
          color,
          size: sizeRun(rng, SHOE_SIZES_US, 6),
          waterproof,
          weight_g: rng.int(480, 820),
          material,
          height: height.toLowerCase(),
          gender: gender(g),
        },
      };
    },
  },
  {
    category: 'Footwear > Sneakers > Casual Sneakers',
    count: 8,
    merchants: ['stride', 'northbound', 'trailhead'],
    brands: ['Harbor & Hale', 'Cobble Street', 'Vireo Athletics', 'Lowtide'],
    price: [45, 140],
    make: ({ rng, brand }) => {
      const style = rng.pick(['Low-Top Court Sneaker', 'Canvas Slip-On', 'Leather Low Sneaker', 'Knit Everyday Sneaker', 'Retro Trainer']);
      const material = style.includes('Canvas') ? 'organic cotton canvas' : style.includes('Knit') ? 'recycled polyester knit' : 'leather';
      const color = rng.pick(
        material === 'leather'
          ? ['White', 'Black', 'Tan', 'Bone / Gum', 'Grey Suede']
          : material.includes('canvas')
            ? ['Natural', 'Black', 'Navy', 'Olive', 'White']
            : ['Black', 'Heather Grey', 'Navy', 'Sage'],
      );
      const name = rng.pick(['Pier', 'Alley', 'Sunday', 'Marlowe', 'Corso', 'Westbank']);
      return {
        title: rng.pick([`${brand} ${name} ${style} - ${color}`, `${brand} ${name} Unisex ${style}, ${color}`]),
        description: describe(rng, `A clean, everyday ${style.toLowerCase()} in ${material} with a cushioned insole.`, [
          'The vulcanised rubber sole is flexible from day one.',
          'A padded collar and tongue make it easy to wear all day.',
          'Goes with jeans, chinos or shorts.',
          'Removable insole made from cork and recycled foam.',
          'Waxed cotton laces included, plus a spare pair.',
        ]),
        attributes: { color, size: sizeRun(rng, SHOE_SIZES_US, 7), material, waterproof: false, weight_g: rng.int(280, 420) },
        price: (material === 'leather' ? 89 : 49) + rng.int(0, 8) * 5 + 0.99,
      };
    },
  },
  {
    category: 'Footwear > Sandals > Sport Sandals',
    count: 6,
    merchants: ['trailhead', 'northbound', 'stride'],
    brands: ['Driftwood Sandal Co.', 'Saltmarsh', 'Kestrel Running'],
    price: [29, 109],
    make: ({ rng, brand }) => {
      const name = rng.pick(['Riverwalk', 'Tidepool', 'Canyon', 'Shoreline', 'Estuary']);
      const color = rng.pick(['Black', 'Olive', 'Desert Tan', 'Navy / Orange', 'Coral']);
      const strap = rng.pick(['three-point', 'toe-loop', 'cross-strap']);
      return {
        title: rng.pick([`${brand} ${name} Sport Sandal, ${color}`, `${brand} ${name} ${strap === 'toe-loop' ? 'Toe-Loop ' : ''}Hiking Sandal - ${color}`]),
        description: describe(rng, `A water-friendly sport sandal with ${strap} polyester webbing straps and a grippy rubber outsole.`, [
          'Quick-drying straps go straight from river to trail.',
          'The contoured footbed supports the arch on long days.',
          'A hook-and-loop heel strap adjusts in seconds.',
          'Antimicrobial treatment helps control odour.',
        ]),
        attributes: { color, size: sizeRun(rng, SHOE_SIZES_US, 6), strap_style: strap, water_friendly: true, weight_g: rng.int(190, 330) },
      };
    },
  },
];
