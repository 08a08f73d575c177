/** Generated home and garden products. */
import { COLORS, describe, titleCase } from './text.js';
import type { Template } from './types.js';

const BED_SIZES = ['Twin', 'Full', 'Queen', 'King', 'California King'] as const;

export const HOME_GARDEN_TEMPLATES: Template[] = [
  {
    category: 'Home > Cleaning > Vacuums',
    count: 8,
    merchants: ['mapleMortar', 'voltline', 'northbound'],
    brands: ['Dustwick', 'Breezewell', 'Tidyhome'],
    price: [79, 799],
    make: ({ rng, brand }) => {
      const kind = rng.pick(['Cordless Stick Vacuum', 'Robot Vacuum and Mop', 'Bagless Upright Vacuum', 'Handheld Vacuum', 'Canister Vacuum']);
      const watts = rng.pick([150, 250, 350, 600, 1200]);
      const minutes = rng.pick([25, 40, 60, 90, 120]);
      const cordless = kind.includes('Cordless') || kind.includes('Robot') || kind.includes('Handheld');
      const model = rng.pick(['V5', 'Swift', 'Cyclone 2', 'Roam', 'Featherlite', 'PetPro']);
      return {
        title: rng.pick([`${brand} ${model} ${kind}`, `${brand} ${model} ${kind} with HEPA Filter, ${cordless ? `${minutes}-Min Runtime` : `${watts}W`}`]),
        description: describe(
          rng,
          `A ${kind.toLowerCase()} with ${cordless ? `up to ${minutes} minutes of runtime` : `a ${watts} W motor`} and a sealed HEPA filtration system.`,
          [
            'Anti-tangle brush roll handles pet hair and long hair.',
            kind.includes('Robot') ? 'Maps rooms and returns to its dock to recharge.' : 'LED headlights reveal dust under furniture.',
            kind.includes('Robot') ? 'Self-empties into a sealed base for up to 60 days.' : 'One-touch bin emptying keeps hands clean.',
            kind.includes('Stick') ? 'Converts to a handheld for stairs and car seats.' : '',
            kind.includes('Handheld') ? 'Crevice and upholstery tools clip onto the body.' : 'Automatically boosts suction on carpets.',
          ],
        ),
        attributes: {
          type: kind.toLowerCase(),
          cordless,
          ...(cordless ? { runtime_min: minutes } : { wattage_w: watts }),
          hepa: true,
          color: rng.pick(['Grey', 'White', 'Black / Copper']),
        },
        price: (kind.includes('Robot') ? 249 : kind.includes('Handheld') ? 39 : 119) + rng.int(0, kind.includes('Handheld') ? 8 : 30) * 10 + 0.99,
      };
    },
  },
  {
    category: 'Home > Air Quality > Air Purifiers',
    count: 7,
    merchants: ['mapleMortar', 'voltline', 'littleLantern'],
    brands: ['Purelune', 'Breezewell', 'Clearnook'],
    price: [59, 699],
    make: ({ rng, brand }) => {
      const sqft = rng.pick([200, 350, 500, 800, 1200]);
      const cadr = Math.round(sqft * 0.65);
      const db = rng.int(22, 28);
      const model = rng.pick(['Aero', 'Core 300', 'Halo', 'Still', 'Nest Air']);
      return {
        title: rng.pick([
          `${brand} ${model} True HEPA Air Purifier for Rooms up to ${sqft} sq ft`,
          `${brand} ${model} Smart Air Purifier, H13 HEPA, ${cadr} CADR`,
        ]),
        description: describe(rng, `A True HEPA (H13) purifier with a CADR of ${cadr} cfm, sized for rooms up to ${sqft} square feet.`, [
          'An activated-carbon pre-filter reduces cooking smells and smoke.',
          `Sleep mode runs at just ${db} dB.`,
          'A PM2.5 sensor adjusts fan speed automatically.',
          'App control with filter-life reminders.',
          'Captures 99.97% of particles as small as 0.3 microns.',
        ]),
        attributes: {
          room_size_sqft: sqft,
          cadr_cfm: cadr,
          filter: 'H13 True HEPA',
          noise_db_min: db,
          wattage_w: Math.round(sqft / 12 + 15),
          color: rng.pick(['White', 'Stone', 'Charcoal']),
        },
        price: 39 + sqft * 0.4 + rng.int(0, 6) * 10 + 0.99,
      };
    },
  },
  // A template is data: the same fields and pick-then-describe steps as its neighbours, other values.
  {
    category: 'Home > Bedding > Sheet Sets',
    count: 7,
    merchants: ['mapleMortar', 'mapleMortar', 'northbound'],
    brands: ['Linden & Loom', 'Cloudnest', 'Harbor Knit'],
    price: [39, 329],
    make: ({ rng, brand }) => {
      const fabric = rng.pick(['400 thread count cotton sateen', 'stonewashed linen', 'cotton percale', 'eucalyptus lyocell', 'brushed flannel']);
      const size = rng.pick(BED_SIZES);
      const color = rng.pick(['White', 'Oat', 'Sage', 'Slate', 'Blush', 'Indigo', 'Terracotta']);
      return {
        title: `${brand} ${titleCase(fabric)} Sheet Set, ${size}, ${color}`,
        description: describe(rng, `A four-piece ${size.toLowerCase()} sheet set in ${fabric}: fitted sheet, flat sheet and two pillowcases.`, [
          'Deep pockets fit mattresses up to 16 inches.',
          'Independently tested for harmful substances.',
          'Gets softer with every wash.',
          'Breathable for hot sleepers.',
          'Elastic all the way around the fitted sheet.',
        ]),
        attributes: { size: [size], color, material: fabric, pieces: 4 },
        price: (fabric.includes('linen') ? 149 : 49) + BED_SIZES.indexOf(size) * 15 + rng.int(0, 6) * 10 + 0.99,
      };
    },
  },
  {
    category: 'Home > Bedding > Duvet Inserts',
    count: 5,
    merchants: ['mapleMortar', 'northbound'],
    brands: ['Cloudnest', 'Linden & Loom'],
    price: [59, 449],
    make: ({ rng, brand }) => {
      const fill = rng.pick(['700-fill-power white down', 'down alternative microfibre', 'wool']);
      const warmth = rng.pick(['Lightweight', 'All-Season', 'Extra Warm']);
      const size = rng.pick(['Full/Queen', 'King/Cal King', 'Twin']);
      return {
        title: `${brand} ${warmth} ${fill.includes('down alt') ? 'Down Alternative' : fill.includes('wool') ? 'Wool' : 'Down'} Duvet Insert - ${size}`,
        description: describe(rng, `A ${warmth.toLowerCase()} duvet insert filled with ${fill}, box-stitched to keep the fill evenly spread.`, [
          'Corner loops hold it in place inside a duvet cover.',
          'Cotton shell is soft and quiet.',
          'Machine washable on a gentle cycle.',
          'Hypoallergenic fill suitable for allergy sufferers.',
        ]),
        attributes: { size: [size], fill, warmth: warmth.toLowerCase(), color: 'White' },
        price:
          (fill.includes('alternative') ? 59 : fill === 'wool' ? 149 : 189) +
          (size === 'Twin' ? 0 : size === 'Full/Queen' ? 40 : 80) +
          rng.int(0, 6) * 10 +
          0.99,
      };
    },
  },
  // A template is data: the same fields and pick-then-describe steps as its neighbours, other values.
  {
    category: 'Garden > Watering > Garden Hoses',
    count: 7,
    merchants: ['greenrow', 'northbound'],
    brands: ['Rillwater', 'Fernhill', 'Hedgerow Tools'],
    price: [19, 129],
    make: ({ rng, brand }) => {
      const feet = rng.pick([25, 50, 75, 100]);
      const kind = rng.pick(['Expandable Garden Hose', 'Hybrid Polymer Garden Hose', 'Drinking-Water-Safe Hose', 'Flat Soaker Hose', 'Retractable Hose Reel']);
      const diameter = rng.pick(['1/2"', '5/8"', '3/4"']);
      const color = rng.pick(['Green', 'Blue', 'Black', 'Terracotta']);
      return {
        title: `${brand} ${feet} ft ${kind}, ${diameter} Diameter, ${color}`,
        description: describe(rng, `A ${feet}-foot ${kind.toLowerCase()} with a ${diameter} inner diameter and crush-proof brass fittings.`, [
          'Kink-resistant and stays flexible below freezing.',
          'Lead-free and BPA-free.',
          'Includes a 9-pattern spray nozzle.',
          'UV-stabilised outer jacket resists cracking in the sun.',
          'Lightweight and easy to coil.',
        ]),
        attributes: { length_ft: feet, diameter_in: diameter, color, fittings: 'brass', kink_resistant: true },
        price: 14.99 + feet * 0.5 + (kind.includes('Reel') ? 60 : 0) + rng.int(0, 3) * 5,
      };
    },
  },
  {
    category: 'Garden > Tools > Hand Tools',
    count: 8,
    merchants: ['greenrow', 'greenrow', 'northbound'],
    brands: ['Hedgerow Tools', 'Rootsy', 'Fernhill'],
    price: [9, 89],
    make: ({ rng, brand }) => {
      const tool = rng.pick(['Bypass Pruning Shears', 'Hand Trowel', 'Hori Hori Garden Knife', 'Hedge Shears', 'Loppers', 'Garden Fork', 'Weeding Tool']);
      const handle = rng.pick(['ash wood', 'fibreglass', 'soft-grip', 'beech wood']);
      const steel = rng.pick(['carbon steel', 'stainless steel', 'SK5 steel']);
      return {
        title: rng.pick([`${brand} ${tool} with ${titleCase(handle)} Handle`, `${brand} ${titleCase(steel).replace('Sk5', 'SK5')} ${tool}`]),
        description: describe(rng, `A ${tool.toLowerCase()} with a ${steel} head and a ${handle} handle.`, [
          'Rust-resistant coating for years of use.',
          'Balanced for less wrist strain.',
          'Hang-hole in the handle for tidy storage.',
          'Backed by a 10-year warranty.',
          'Replaceable blade and spring.',
        ]),
        attributes: { tool: tool.toLowerCase(), material: steel, handle_material: handle, weight_g: rng.int(120, 1400) },
        price:
          (['Loppers', 'Hedge Shears', 'Garden Fork'].includes(tool) ? 34 : tool.includes('Pruning') || tool.includes('Hori') ? 21 : 9) +
          rng.int(0, 5) * 4 +
          0.99,
      };
    },
  },
  // A template is data: the same fields and pick-then-describe steps as its neighbours, other values.
  {
    category: 'Garden > Planters > Planters',
    count: 6,
    merchants: ['greenrow', 'mapleMortar'],
    brands: ['Rootsy', 'Terrace & Trellis', 'Fernhill'],
    price: [12, 189],
    make: ({ rng, brand }) => {
      const inch = rng.pick([6, 8, 10, 12, 16, 24]);
      const material = rng.pick(['glazed ceramic', 'terracotta', 'recycled plastic', 'fibrestone', 'galvanised steel']);
      const color = rng.pick(COLORS);
      return {
        title: `${brand} ${inch}" ${material.replace(/\b\w/g, (c) => c.toUpperCase())} Planter with Drainage Hole, ${color}`,
        description: describe(rng, `A ${inch}-inch ${material} planter for indoor or outdoor plants.`, [
          'A drainage hole and removable plug prevent root rot.',
          'Frost-resistant for year-round use outdoors.',
          'Includes a matching saucer.',
          'Lightweight enough to move between seasons.',
        ]),
        attributes: { diameter_in: inch, material, color, drainage_hole: true },
        price: 7.99 + inch * (material.includes('steel') || material.includes('fibre') ? 6 : 3) + rng.int(0, 4),
      };
    },
  },
];
