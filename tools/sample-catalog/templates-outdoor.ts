/** Generated outdoor gear: tents, sleeping bags, backpacks, headlamps, water bottles. */
import { describe } from './text.js';
import type { Template } from './types.js';

export const OUTDOOR_TEMPLATES: Template[] = [
  {
    category: 'Outdoor > Camping > Tents',
    count: 8,
    merchants: ['trailhead', 'northbound'],
    brands: ['Hollowpine', 'Bivouac & Co.', 'Norrland', 'Cairnline'],
    price: [89, 649],
    make: ({ rng, brand }) => {
      const people = rng.pick([1, 2, 2, 3, 4, 6]);
      const season = rng.pick(['3-Season', '3-Season', '4-Season']);
      const kind = people <= 2 ? rng.pick(['Backpacking Tent', 'Dome Tent', 'Ultralight Tent']) : rng.pick(['Dome Tent', 'Tunnel Tent', 'Family Camping Tent']);
      const model = rng.pick(['Lodgepole', 'Snowline', 'Basecamp', 'Sparrow', 'Halfmoon', 'Ridgeway']);
      const weightG = Math.round((people * 650 + (season === '4-Season' ? 900 : 0) + rng.int(-150, 250)) / 10) * 10;
      const color = rng.pick(['Olive / Tan', 'Orange / Grey', 'Sage', 'Sand']);
      const base = people * 70 + (season === '4-Season' ? 180 : 40);
      return {
        title: rng.pick([`${brand} ${model} ${people}-Person ${season} ${kind}`, `${brand} ${model} ${people}P ${kind}, ${season}, ${color}`]),
        description: describe(rng, `A ${people}-person ${season.toLowerCase()} ${kind.toLowerCase()} weighing ${(weightG / 1000).toFixed(2)} kg packed.`, [
          'Colour-coded aluminium poles make pitching quick, even in the dark.',
          people >= 2 ? 'Two doors and two vestibules mean nobody climbs over anyone.' : 'A large side door and vestibule stash boots and pack.',
          'Silicone-coated ripstop fly with a 3,000 mm hydrostatic head.',
          'Mesh inner panels cut condensation on humid nights.',
          'Includes stakes, guylines and a compression stuff sack.',
          'Can be pitched fly-first to keep the inner dry in the rain.',
        ]),
        attributes: {
          capacity_people: people,
          season: season.toLowerCase(),
          weight_g: weightG,
          color,
          waterproof: true,
          material: 'Silicone-coated nylon ripstop',
        },
        price: Math.min(649, base + rng.int(0, 12) * 10 + 9.95),
      };
    },
  },
  {
    category: 'Outdoor > Camping > Sleeping Bags',
    count: 7,
    merchants: ['trailhead', 'northbound'],
    brands: ['Hollowpine', 'Norrland', 'Emberwool', 'Bivouac & Co.'],
    price: [59, 479],
    make: ({ rng, brand }) => {
      const tempF = rng.pick([0, 15, 20, 30, 40]);
      const fill = rng.pick(['650-fill duck down', '800-fill goose down', 'synthetic insulation']);
      const shape = rng.pick(['Mummy', 'Semi-Rectangular', 'Quilt-Style']);
      const model = rng.pick(['Nightjar', 'Snowmelt', 'Embers', 'Starfield', 'Hearthstone']);
      const down = fill.includes('down');
      return {
        title: rng.pick([
          `${brand} ${model} ${tempF}°F ${down ? 'Down ' : 'Synthetic '}${shape} Sleeping Bag`,
          `${brand} ${model} ${shape} Sleeping Bag, ${tempF}°F / ${Math.round((tempF - 32) / 1.8)}°C`,
        ]),
        description: describe(rng, `A ${shape.toLowerCase()} sleeping bag rated to ${tempF}°F, filled with ${fill}.`, [
          'A draft collar and insulated zip baffle keep warm air in.',
          'Water-resistant shell fabric sheds tent condensation.',
          'Packs down into the included compression sack.',
          'Full-length two-way zip for venting on warmer nights.',
          'A stash pocket near the chest holds a phone or headlamp.',
        ]),
        attributes: {
          temp_rating_f: tempF,
          fill,
          shape: shape.toLowerCase(),
          weight_g: rng.int(down ? 700 : 1100, down ? 1300 : 2100),
          zip_side: rng.pick(['left', 'right']),
        },
        price: (down ? 219 : 69) + rng.int(0, 20) * 10 - 0.05 + (tempF <= 15 ? 60 : 0),
      };
    },
  },
  {
    category: 'Outdoor > Hiking > Backpacks',
    count: 8,
    merchants: ['trailhead', 'northbound', 'waypoint'],
    brands: ['Cairnline', 'Norrland', 'Packwell', 'Alder & Pike'],
    price: [49, 329],
    make: ({ rng, brand }) => {
      const liters = rng.pick([18, 22, 28, 35, 45, 55, 65]);
      const use = liters <= 28 ? 'Daypack' : liters <= 45 ? 'Hiking Backpack' : 'Backpacking Pack';
      const color = rng.pick(['Black', 'Moss', 'Rust', 'Slate Blue', 'Sand']);
      const model = rng.pick(['Skyline', 'Overlook', 'Pathfinder', 'Kettle', 'Scout', 'Fjord']);
      return {
        title: rng.pick([`${brand} ${model} ${liters}L ${use} - ${color}`, `${brand} ${model} ${liters} Liter ${use} with Rain Cover`]),
        description: describe(rng, `A ${liters}-litre ${use.toLowerCase()} with a ventilated back panel and padded hip belt.`, [
          'Hydration-sleeve compatible, with a port for the drinking tube.',
          'Side stretch pockets hold 1 L bottles within reach.',
          'Trekking-pole loops and an ice-axe attachment on the front.',
          'Made from recycled 210D nylon with a water-repellent finish.',
          'The adjustable torso length fits a wide range of body sizes.',
          'A zipped lid pocket keeps keys, snacks and a map handy.',
        ]),
        attributes: {
          capacity_l: liters,
          color,
          weight_g: Math.round(liters * 28 + rng.int(100, 400)),
          material: 'Recycled nylon',
          hydration_compatible: true,
        },
        price: 19 + liters * 3 + rng.int(0, 4) * 10 + 0.95,
      };
    },
  },
  // A template is data: the same fields and pick-then-describe steps as its neighbours, other values.
  {
    category: 'Outdoor > Lighting > Headlamps',
    count: 7,
    merchants: ['trailhead', 'northbound', 'stride'],
    brands: ['Nightjar Gear', 'Brightpath', 'Emberlite'],
    price: [19, 129],
    make: ({ rng, brand }) => {
      const lumens = rng.pick([200, 350, 450, 600, 900, 1200]);
      const power = rng.pick(['USB-C rechargeable', '3×AAA', 'hybrid (rechargeable or AAA)']);
      const model = rng.pick(['Beacon', 'Owl', 'Lantern', 'Zenith', 'Firefly']);
      const ip = rng.pick(['IPX4', 'IPX6', 'IPX7']);
      return {
        title: rng.pick([
          `${brand} ${model} ${lumens} Lumen ${power.startsWith('USB') ? 'Rechargeable ' : ''}Headlamp`,
          `${brand} ${model} ${lumens} LED Headlamp, ${ip}, Red Night Mode`,
        ]),
        description: describe(rng, `A ${lumens}-lumen headlamp powered by ${power} and rated ${ip} for rain.`, [
          'Red-light mode preserves night vision around camp.',
          'A lock-out function stops it switching on in your pack.',
          'The tilting lamp head points light where you are looking.',
          'Reactive mode dims automatically when you read a map.',
          'Reflective headband for running on dark roads.',
        ]),
        attributes: { lumens, power, water_resistance: ip, weight_g: rng.int(55, 120), color: rng.pick(['Black', 'Orange', 'Blue']) },
        price: 14.95 + Math.round(lumens / 15) + (power.startsWith('3×') ? 0 : 10),
      };
    },
  },
  {
    category: 'Outdoor > Hydration > Water Bottles',
    count: 5,
    merchants: ['trailhead', 'northbound', 'stride'],
    brands: ['Rillwater', 'Hollowpine', 'Kestrel Running'],
    price: [12, 49],
    make: ({ rng, brand }) => {
      const oz = rng.pick([18, 24, 32, 40]);
      const kind = rng.pick(['Insulated Stainless Steel Bottle', 'Wide-Mouth Copolyester Bottle', 'Soft Running Flask']);
      const color = rng.pick(['Glacier', 'Charcoal', 'Sage', 'Sunset', 'White']);
      return {
        title: `${brand} ${oz} oz ${kind} - ${color}`,
        description: describe(rng, `A ${oz} oz (${Math.round(oz * 29.57)} ml) ${kind.toLowerCase()} that is BPA-free and dishwasher safe.`, [
          'Double-wall vacuum insulation keeps drinks cold for 24 hours.',
          'Leak-proof lid with a carry loop.',
          'Fits most car cup holders.',
          'Powder-coated finish resists scratches and sweat.',
        ]),
        attributes: {
          capacity_oz: oz,
          color,
          material: kind.includes('Steel') ? 'Stainless steel' : kind.includes('Copolyester') ? 'BPA-free copolyester' : 'TPU',
          bpa_free: true,
        },
        price: kind.includes('Steel') ? 21.95 + oz * 0.5 : kind.includes('Copolyester') ? 10.99 + oz * 0.25 : 17.95 + rng.int(0, 2) * 2,
      };
    },
  },
];
