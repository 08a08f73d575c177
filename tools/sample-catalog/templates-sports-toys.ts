/** Generated sports & fitness gear and toys. */
import { describe } from './text.js';
import type { Template } from './types.js';

export const SPORTS_TOYS_TEMPLATES: Template[] = [
  {
    category: 'Sports & Fitness > Yoga > Yoga Mats',
    count: 7,
    merchants: ['stride', 'northbound', 'fernwood'],
    brands: ['Lotusfield', 'Groundwork', 'Kestrel Running'],
    price: [19, 139],
    make: ({ rng, brand }) => {
      const mm = rng.pick([3, 4, 5, 6, 8]);
      const material = rng.pick(['natural tree rubber', 'TPE foam', 'cork and rubber', 'PU-topped rubber']);
      const color = rng.pick(['Sage', 'Plum', 'Charcoal', 'Ocean Blue', 'Sand', 'Terracotta']);
      return {
        title: rng.pick([
          `${brand} ${mm}mm Non-Slip Yoga Mat, ${color}`,
          `${brand} ${material.includes('cork') ? 'Cork' : 'Pro Grip'} Yoga Mat ${mm} mm with Carry Strap - ${color}`,
        ]),
        description: describe(rng, `A ${mm} mm yoga mat made from ${material}, measuring 183 × 66 cm.`, [
          'Grips even in sweaty hot-yoga classes.',
          'Alignment lines help with posture.',
          'Free from PVC and latex fillers.',
          'Closed-cell surface wipes clean easily.',
          'Extra cushioning for knees and wrists.',
        ]),
        attributes: { thickness_mm: mm, material, color, length_cm: 183, width_cm: 66, weight_g: mm * 400 + rng.int(0, 400) },
        price: (material.includes('TPE') ? 19 : 59) + mm * 5 + rng.int(0, 3) * 5 + 0.99,
      };
    },
  },
  {
    category: 'Sports & Fitness > Strength Training > Dumbbells',
    count: 7,
    merchants: ['stride', 'northbound'],
    brands: ['Plateworks', 'Ironhill Fitness', 'Groundwork'],
    price: [15, 549],
    make: ({ rng, brand }) => {
      const adjustable = rng.chance(0.4);
      const lb = adjustable ? rng.pick([25, 52.5, 90]) : rng.pick([5, 10, 15, 20, 25, 35, 50]);
      const coat = rng.pick(['neoprene', 'rubber hex', 'chrome', 'urethane']);
      return {
        title: adjustable
          ? `${brand} Adjustable Dumbbell, 5–${lb} lb, Single`
          : `${brand} ${lb} lb ${coat === 'rubber hex' ? 'Rubber Hex' : coat === 'neoprene' ? 'Neoprene' : coat === 'chrome' ? 'Chrome' : 'Urethane'} Dumbbells, Pair`,
        description: adjustable
          ? describe(rng, `An adjustable dumbbell that replaces a full rack: dial from 5 to ${lb} lb in seconds.`, [
              'Compact storage tray included.',
              'Knurled, ergonomic handle.',
              'Selector locks securely before lifting.',
              'Two-year warranty.',
            ])
          : describe(rng, `A pair of ${lb} lb ${coat} dumbbells for home gyms.`, [
              'Hex shape stops them rolling away.',
              'Contoured handle with medium knurling.',
              'Odour-free coating protects floors.',
              'Weight clearly marked on both ends.',
            ]),
        attributes: { weight_lb: lb, adjustable, material: coat, quantity: adjustable ? 1 : 2 },
        price: adjustable ? 129 + lb * 3 + rng.int(0, 4) * 10 + 0.99 : 9.99 + lb * (coat === 'urethane' ? 2.6 : 1.6),
      };
    },
  },
  {
    category: 'Sports & Fitness > Cycling > Bike Helmets',
    count: 6,
    merchants: ['stride', 'northbound', 'trailhead'],
    brands: ['Spokewise', 'Cadence Cycle', 'Alder & Pike'],
    price: [39, 279],
    make: ({ rng, brand }) => {
      const kind = rng.pick(['Road Bike Helmet', 'Mountain Bike Helmet', 'Commuter Helmet with Rear Light']);
      const size = rng.pick(['S (51–55 cm)', 'M (55–59 cm)', 'L (59–63 cm)']);
      const color = rng.pick(['Matte Black', 'White', 'Hi-Vis Yellow', 'Olive', 'Red']);
      const mips = rng.chance(0.5);
      return {
        title: `${brand} ${kind}${mips ? `${kind.includes(' with ') ? ' and' : ' with'} Rotational Impact Liner` : ''}, ${color}, ${size}`,
        description: describe(rng, `A lightweight ${kind.toLowerCase()} certified to CPSC and EN 1078 standards.`, [
          'Adjustable dial fit system.',
          'Eighteen vents keep air moving on climbs.',
          'Magnetic buckle works with gloves.',
          'Removable, washable pads.',
          kind.includes('Mountain') ? 'Visor adjusts to stow goggles.' : '',
        ]),
        attributes: { size: [size], color, rotational_liner: mips, weight_g: rng.int(240, 420), type: kind.toLowerCase() },
        price: 39 + (mips ? 50 : 0) + rng.int(0, 12) * 10 + 0.99,
      };
    },
  },
  {
    category: 'Toys > Building Toys > Building Sets',
    count: 7,
    merchants: ['littleLantern', 'littleLantern', 'northbound'],
    brands: ['Brickbright', 'Tumblewood', 'Sprocket & Cog Kits'],
    price: [12, 199],
    make: ({ rng, brand }) => {
      const theme = rng.pick(['Space Station', 'Castle', 'City Fire Station', 'Pirate Ship', 'Dinosaur Park', 'Marble Run', 'Robot']);
      const pieces = rng.pick([120, 250, 480, 750, 1200]);
      const age = pieces > 700 ? '10+' : pieces > 300 ? '8+' : '5+';
      const wooden = brand === 'Tumblewood';
      return {
        title: `${brand} ${theme} ${wooden ? 'Wooden Building Set' : 'Building Kit'}, ${pieces} Pieces, Ages ${age}`,
        description: describe(rng, `A ${pieces}-piece ${theme.toLowerCase()} ${wooden ? 'wooden building set' : 'building kit'} for ages ${age}.`, [
          wooden ? 'Smooth, sanded edges and water-based paints.' : 'Compatible with major brick systems.',
          'Illustrated step-by-step instructions included.',
          'Builds three different models.',
          'Sorted bags make building easy to pause and resume.',
          'Encourages spatial reasoning and fine motor skills.',
        ]),
        attributes: { pieces, age_range: age, theme: theme.toLowerCase(), material: wooden ? 'Solid beech wood' : 'ABS plastic' },
        price: 7.99 + Math.round(pieces / 8) + rng.int(0, 3) * 5,
      };
    },
  },
  {
    category: 'Toys > Puzzles > Jigsaw Puzzles',
    count: 6,
    merchants: ['littleLantern', 'paperFinch', 'northbound'],
    brands: ['Ravenstone Puzzles', 'Puzzlewright', 'Tumblewood'],
    price: [9, 49],
    make: ({ rng, brand }) => {
      const pieces = rng.pick([100, 300, 500, 1000, 1500, 2000]);
      const scene = rng.pick(['Alpine Lake at Dawn', 'Vintage Seed Packets', 'Busy Harbour Market', 'Botanical Library', 'Night Sky Atlas', 'Coral Reef']);
      return {
        title: `${brand} ${pieces}-Piece Jigsaw Puzzle – ${scene}`,
        description: describe(rng, `A ${pieces}-piece jigsaw puzzle, ${pieces >= 1000 ? '69 × 51 cm' : '48 × 35 cm'} when finished, titled “${scene}”.`, [
          'Thick, blue-board pieces with a linen finish reduce glare.',
          'Every piece is a unique shape.',
          'Includes a poster for reference.',
          'Made from 100% recycled board and vegetable inks.',
        ]),
        attributes: { pieces, theme: scene.toLowerCase(), age_range: pieces >= 500 ? '12+' : '6+' },
        price: 9.99 + Math.round(pieces / 100) * 1.5 + rng.int(0, 2) * 2,
      };
    },
  },
  {
    category: 'Toys > Plush > Stuffed Animals',
    count: 6,
    merchants: ['littleLantern', 'kibbleKin'],
    brands: ['Snugglebun', 'Hollow Oak Plush'],
    price: [9, 59],
    make: ({ rng, brand }) => {
      const animal = rng.pick(['Bunny', 'Red Fox', 'Sloth', 'Highland Cow', 'Octopus', 'Polar Bear', 'Hedgehog']);
      const inch = rng.pick([8, 12, 16, 24]);
      const color = animal === 'Red Fox' ? 'Rust' : rng.pick(['Cream', 'Grey', 'Caramel', 'Pink', 'Blue']);
      return {
        title: `${brand} ${inch}" Plush ${animal}${inch >= 16 ? ' - Jumbo' : ''}, ${color}`,
        description: describe(rng, `A super-soft ${inch}-inch ${animal.toLowerCase()} made from recycled polyester plush.`, [
          'Embroidered eyes make it safe from birth.',
          'Surface-washable; machine-washable on a cold cycle.',
          'Tested to ASTM F963 toy-safety standards.',
          'Weighted bean bottom for sitting upright.',
        ]),
        attributes: { height_in: inch, animal: animal.toLowerCase(), color, material: 'Recycled polyester', age_range: '0+' },
        price: 5.99 + inch * 1.5 + rng.int(0, 2) * 2,
      };
    },
  },
];
