/** Generated kitchen products: coffee gear, knives and cookware. */
import { describe, titleCase } from './text.js';
import type { Template } from './types.js';

const FINISHES = ['Brushed Stainless', 'Matte Black', 'Cream', 'Sage Green', 'Copper Trim'] as const;

export const KITCHEN_TEMPLATES: Template[] = [
  {
    category: 'Kitchen > Coffee > Espresso Machines',
    count: 8,
    merchants: ['copperKettle', 'copperKettle', 'mapleMortar'],
    brands: ['Brewhaus', 'Crema Lab', 'Ferro & Figlio'],
    price: [149, 2499],
    make: ({ rng, brand }) => {
      const tier = rng.pick(['entry', 'mid', 'prosumer'] as const);
      const model = rng.pick(['Barista One', 'Piccolo', 'Doppio', 'Verona', 'Aurora', 'Classico', 'Lever Pro']);
      const finish = rng.pick(FINISHES);
      const grinder = tier !== 'prosumer' && rng.chance(0.5);
      const boiler = tier === 'prosumer' ? 'dual boiler' : tier === 'mid' ? 'heat exchanger' : 'thermoblock';
      const watts = tier === 'prosumer' ? 1800 : rng.pick([1350, 1450, 1600]);
      const price = tier === 'entry' ? rng.int(15, 39) * 10 - 0.01 : tier === 'mid' ? rng.int(55, 120) * 10 - 0.01 : rng.int(160, 249) * 10;
      return {
        title: rng.pick([
          `${brand} ${model} ${grinder ? 'Espresso Machine with Built-In Grinder' : 'Espresso Machine'}, ${finish}`,
          `${brand} ${model} 15-Bar ${boiler === 'dual boiler' ? 'Dual Boiler ' : ''}Espresso Maker with Steam Wand`,
          `${brand} ${model} Semi-Automatic Espresso Machine - ${finish}`,
        ]),
        description: describe(
          rng,
          `A ${watts} W ${boiler} espresso machine with a 58 mm portafilter${grinder ? ' and an integrated conical burr grinder' : ''}.`,
          [
            'PID temperature control keeps extraction consistent shot after shot.',
            'The commercial-style steam wand textures milk for latte art.',
            'A pressure gauge on the front shows extraction in real time.',
            'Removable 2 L water tank fills from the top.',
            'Pre-infusion gently wets the puck to reduce channelling.',
            'Includes tamper, milk jug and single and double baskets.',
          ],
        ),
        attributes: { wattage_w: watts, boiler, built_in_grinder: grinder, color: finish, water_tank_l: rng.pick([1.8, 2, 2.5]), portafilter_mm: 58 },
        price,
      };
    },
  },
  {
    category: 'Kitchen > Coffee > Coffee Makers',
    count: 8,
    merchants: ['copperKettle', 'mapleMortar', 'northbound'],
    brands: ['Brewhaus', 'Quernstone Coffee Works', 'Kettle & Crane'],
    price: [24, 329],
    make: ({ rng, brand }) => {
      const kind = rng.pick([
        '12-Cup Programmable Drip Coffee Maker',
        'Pour-Over Coffee Maker',
        'French Press',
        'Cold Brew Coffee Maker',
        '8-Cup Thermal Carafe Coffee Maker',
      ]);
      const finish = rng.pick(FINISHES);
      const electric = kind.includes('Drip') || kind.includes('Thermal');
      const model = rng.pick(['Morning Ritual', 'Daybreak', 'Slowpour', 'Homestead', 'Bloom']);
      return {
        title: rng.pick([`${brand} ${model} ${kind} - ${finish}`, `${brand} ${kind}, ${model} Series`]),
        description: describe(
          rng,
          `A ${kind.toLowerCase()} ${electric ? 'that brews at the recommended 92–96 °C' : 'for full-bodied coffee without a machine'}.`,
          [
            'Borosilicate glass is heat-resistant and easy to clean.',
            'Reusable stainless mesh filter, so no paper filters needed.',
            electric ? 'A 24-hour timer has coffee ready when you wake up.' : '',
            kind.includes('Thermal') ? 'The double-wall carafe keeps coffee hot for hours without a hot plate.' : '',
            'Dishwasher-safe parts for quick clean-up.',
            electric ? 'Bloom mode pre-wets the grounds for a sweeter cup.' : 'No power needed, so it travels well.',
          ],
        ),
        attributes: {
          type: kind.toLowerCase(),
          color: finish,
          ...(electric ? { wattage_w: rng.pick([900, 1000, 1100]) } : {}),
          capacity_cups: rng.pick([4, 8, 10, 12]),
        },
        price: electric ? rng.int(6, 32) * 10 - 0.01 : rng.int(25, 69) - 0.05,
      };
    },
  },
  {
    category: 'Kitchen > Coffee > Coffee Grinders',
    count: 6,
    merchants: ['copperKettle', 'copperKettle'],
    brands: ['Quernstone Coffee Works', 'Crema Lab', 'Brewhaus'],
    price: [29, 499],
    make: ({ rng, brand }) => {
      const burr = rng.pick(['40 mm conical steel', '54 mm flat steel', '38 mm ceramic conical']);
      const electric = rng.chance(0.7);
      const settings = rng.pick([18, 30, 40, 60]);
      const model = rng.pick(['Stoneground', 'Mill One', 'Precis', 'Fineline', 'Hopper']);
      return {
        title: electric
          ? `${brand} ${model} Electric Burr Coffee Grinder, ${settings} Grind Settings`
          : `${brand} ${model} Manual Hand Coffee Grinder with ${burr.split(' ')[0] ?? ''} Burrs`,
        description: describe(
          rng,
          `A ${electric ? 'electric' : 'hand-crank'} grinder with ${burr} burrs and ${settings} settings, from espresso-fine to French-press coarse.`,
          [
            'Low-retention design wastes less coffee between doses.',
            electric ? 'A timed dose dial grinds the same amount every morning.' : 'Folding handle and a compact body for travel.',
            'Anti-static chute keeps the counter clean.',
            'Removable upper burr for easy cleaning.',
            electric ? 'Quiet motor, handy for early mornings.' : 'Dual ball bearings keep the burr centred.',
          ],
        ),
        attributes: {
          burr,
          grind_settings: settings,
          electric,
          ...(electric ? { wattage_w: rng.pick([150, 200, 250]) } : {}),
          color: rng.pick(['Black', 'Silver', 'White']),
        },
        price: electric ? rng.int(9, 45) * 10 + 9.95 : rng.int(3, 14) * 10 - 0.01,
      };
    },
  },
  {
    category: "Kitchen > Cutlery > Chef's Knives",
    count: 8,
    merchants: ['copperKettle', 'mapleMortar'],
    brands: ['Oakhollow Cutlery', 'Forge & Fennel', 'Kiribana', 'Ferro & Figlio'],
    price: [29, 349],
    make: ({ rng, brand }) => {
      const style = rng.pick(["Chef's Knife", "Chef's Knife", 'Gyuto', 'Santoku', 'Nakiri']);
      const inch = style === 'Santoku' || style === 'Nakiri' ? rng.pick([6, 7]) : rng.pick([8, 8, 10]);
      const steel = rng.pick(['German X50CrMoV15 stainless', 'VG-10 Damascus', 'AUS-10 stainless', 'high-carbon 1095']);
      const handle = rng.pick(['walnut', 'olive wood', 'black pakkawood', 'G10 composite']);
      return {
        title: rng.pick([
          `${brand} ${inch}" ${style}, ${steel.includes('Damascus') ? 'Damascus Steel' : 'Stainless Steel'}, ${titleCase(handle).replace('G10 Composite', 'G10')} Handle`,
          `${brand} Professional ${inch}-Inch ${style} with Sheath`,
        ]),
        description: describe(rng, `${inch === 8 ? 'An' : 'A'} ${inch}-inch ${style.toLowerCase()} forged from ${steel} steel with a ${handle} handle.`, [
          'Hand-sharpened to a 15-degree edge per side.',
          'A full tang gives balance and durability.',
          'Hardened to 60 HRC for long edge retention.',
          'Hand-wash only; dry immediately.',
          'Comes in a magnetic gift box with a blade guard.',
        ]),
        attributes: { blade_length_in: inch, style: style.toLowerCase(), steel, handle_material: handle, dishwasher_safe: false },
        price: (steel.includes('Damascus') || steel.includes('AUS') ? 119 : 39) + rng.int(0, 15) * 10 + 0.95,
      };
    },
  },
  {
    category: 'Kitchen > Cookware > Skillets & Pans',
    count: 8,
    merchants: ['copperKettle', 'mapleMortar', 'northbound'],
    brands: ['Castwell', 'Ironbark Cookware', 'Copperleaf', 'Forge & Fennel'],
    price: [19, 399],
    make: ({ rng, brand }) => {
      const material = rng.pick(['pre-seasoned cast iron', 'tri-ply stainless steel', 'carbon steel', 'ceramic non-stick', 'hard-anodised aluminium']);
      const inch = rng.pick([8, 10, 12]);
      const item = rng.pick(['Skillet', 'Frying Pan', 'Sauté Pan with Lid', '10-Piece Cookware Set']);
      const set = item.includes('Set');
      return {
        title: set ? `${brand} ${item}, ${titleCase(material)}` : `${brand} ${inch}" ${titleCase(material)} ${item}`,
        description: describe(
          rng,
          `${set ? 'A ten-piece set' : `A ${inch}-inch ${item.toLowerCase()}`} in ${material}, compatible with gas, electric and induction hobs.`,
          [
            'Oven-safe to 260 °C (500 °F).',
            'PFAS-free cooking surface.',
            'Riveted, stay-cool handles for a secure grip.',
            'Heats evenly with no hot spots.',
            'Flared rims make pouring sauces tidy.',
            'Backed by a lifetime warranty.',
          ],
        ),
        attributes: { material, ...(set ? { pieces: 10 } : { diameter_in: inch }), induction_compatible: true, oven_safe_f: 500 },
        price: set ? rng.int(19, 39) * 10 - 0.01 : rng.int(2, 14) * 10 + 4.99,
      };
    },
  },
];
