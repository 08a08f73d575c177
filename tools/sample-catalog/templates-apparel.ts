/** Generated apparel: rain jackets, hoodies, running shirts and socks. */
import { APPAREL_SIZES, COLORS, describe, sizeRun } from './text.js';
import type { Template } from './types.js';

const GENDERS = ["Men's", "Women's"] as const;

export const APPAREL_TEMPLATES: Template[] = [
  {
    category: 'Apparel > Outerwear > Rain Jackets',
    count: 9,
    merchants: ['trailhead', 'trailhead', 'northbound', 'stride'],
    brands: ['Norrland', 'Drizzle & Co.', 'Fieldfare', 'Cairnline'],
    price: [49, 449],
    make: ({ rng, brand }) => {
      const layers = rng.pick(['2.5-layer', '3-layer', '2-layer']);
      const g = rng.pick(GENDERS);
      const color = rng.pick(COLORS);
      const packable = rng.chance(0.5);
      const model = rng.pick(['Squall', 'Downpour', 'Monsoon', 'Stormfront', 'Haar', 'Cloudburst']);
      const mmH2O = layers === '3-layer' ? 20000 : layers === '2.5-layer' ? 10000 : 5000;
      return {
        title: rng.pick([
          `${brand} ${model} Waterproof Rain Jacket - ${g}, ${color}`,
          `${g} ${brand} ${model} ${layers.replace('layer', 'Layer')} ${packable ? 'Packable ' : ''}Rain Shell, ${color}`,
          `${brand} ${model} Breathable Waterproof Jacket with Hood - ${g}`,
        ]),
        description: describe(rng, `A ${layers} waterproof, breathable rain jacket rated to ${mmH2O.toLocaleString('en-US')} mm with fully taped seams.`, [
          'Helmet-compatible hood adjusts with one hand.',
          'Pit zips dump heat on steep climbs.',
          packable ? 'Packs into its own chest pocket.' : 'Articulated sleeves allow full arm movement.',
          'PFC-free durable water-repellent finish.',
          'Made with recycled nylon face fabric.',
          'Drop-tail hem keeps your backside dry.',
        ]),
        attributes: {
          color,
          size: sizeRun(rng, APPAREL_SIZES, 4),
          waterproof: true,
          waterproof_rating_mm: mmH2O,
          layers,
          packable,
          gender: g === "Men's" ? 'men' : 'women',
          weight_g: rng.int(180, 480),
        },
        price: (layers === '3-layer' ? 199 : layers === '2.5-layer' ? 99 : 59) + rng.int(0, 15) * 10 + 0.95,
      };
    },
  },
  {
    category: 'Apparel > Tops > Hoodies',
    count: 5,
    merchants: ['trailhead', 'northbound', 'stride'],
    brands: ['Harbor Knit', 'Loomstead', 'Fieldfare'],
    price: [34, 119],
    make: ({ rng, brand }) => {
      const kind = rng.pick(['Full-Zip Hoodie', 'Pullover Hoodie', 'Fleece Hoodie', 'Merino Hoodie']);
      const color = rng.pick(COLORS);
      const material = kind.includes('Merino') ? 'merino wool' : kind.includes('Fleece') ? 'recycled polyester fleece' : 'cotton-blend French terry';
      return {
        title: `${brand} ${kind.includes('Merino') ? 'Lightweight ' : ''}${kind} - ${color}`,
        description: describe(rng, `A ${kind.toLowerCase()} in ${material} with a relaxed fit.`, [
          'Double-layer hood with flat drawcords.',
          'Ribbed cuffs and hem hold their shape.',
          'Side-seam pockets with hidden phone sleeve.',
          'Pre-shrunk so the fit stays true after washing.',
          kind.includes('Merino') ? 'Naturally odour-resistant for multi-day trips.' : '',
        ]),
        attributes: { color, size: sizeRun(rng, APPAREL_SIZES, 4), material, fit: 'relaxed' },
        price: (kind.includes('Merino') ? 99 : 39) + rng.int(0, 4) * 5 + 0.95,
      };
    },
  },
  {
    category: 'Apparel > Activewear > Running Shirts',
    count: 6,
    merchants: ['stride', 'stride', 'trailhead'],
    brands: ['Kestrel Running', 'Vireo Athletics', 'Harrier Athletic'],
    price: [19, 54],
    make: ({ rng, brand }) => {
      const sleeve = rng.pick(['Short-Sleeve', 'Long-Sleeve', 'Sleeveless']);
      const g = rng.pick(GENDERS);
      const color = rng.pick(['Electric Blue', 'Black', 'Neon Coral', 'White', 'Volt Green', 'Heather Grey']);
      return {
        title: `${brand} ${g} ${sleeve} Running Shirt, ${color}`,
        description: describe(rng, `A ${sleeve.toLowerCase()} running shirt in a lightweight, moisture-wicking knit.`, [
          'Flatlock seams prevent chafing on long runs.',
          'Reflective logo for low-light visibility.',
          'Anti-odour treatment.',
          'UPF 30 sun protection.',
          'Laser-cut ventilation across the back.',
        ]),
        attributes: {
          color,
          size: sizeRun(rng, APPAREL_SIZES, 4),
          sleeve: sleeve.toLowerCase(),
          material: 'Recycled polyester',
          gender: g === "Men's" ? 'men' : 'women',
        },
      };
    },
  },
  {
    category: 'Apparel > Accessories > Socks',
    count: 5,
    merchants: ['stride', 'trailhead', 'northbound'],
    brands: ['Fellwalker', 'Kestrel Running', 'Harbor Knit'],
    price: [9, 49],
    make: ({ rng, brand }) => {
      const kind = rng.pick(['Merino Hiking Socks', 'Running Socks', 'Cushioned Crew Socks', 'Waterproof Socks']);
      const pairs = kind.includes('Waterproof') ? 1 : rng.pick([1, 3, 6]);
      return {
        title: `${brand} ${kind}${pairs > 1 ? `, ${pairs} Pairs` : ''}`,
        description: describe(
          rng,
          kind.includes('Waterproof')
            ? 'A three-layer waterproof sock with a breathable membrane, seamless toes and arch support.'
            : `${pairs > 1 ? `A ${pairs}-pack of` : 'One pair of'} ${kind.toLowerCase()} with seamless toes and arch support.`,
          [
            'Targeted cushioning under the heel and forefoot.',
            'Merino blend regulates temperature and resists odour.',
            'Y-stitched heel for a snug fit.',
            'Lifetime guarantee against holes.',
          ],
        ),
        attributes: {
          size: ['S', 'M', 'L', 'XL'],
          pairs,
          waterproof: kind.includes('Waterproof'),
          material: kind.includes('Merino') ? 'Merino wool blend' : 'Nylon blend',
        },
        price: (kind.includes('Waterproof') ? 34.95 : 13.95) + (pairs - 1) * 6,
      };
    },
  },
];
