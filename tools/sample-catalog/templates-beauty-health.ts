/** Generated beauty and health products. */
import { describe, titleCase } from './text.js';
import type { Template } from './types.js';

export const BEAUTY_HEALTH_TEMPLATES: Template[] = [
  {
    category: 'Beauty > Skincare > Moisturizers',
    count: 7,
    merchants: ['fernwood', 'fernwood', 'larderLeaf'],
    brands: ['Dewlight', 'Petal & Pestle', 'Solari Skin'],
    price: [9, 89],
    make: ({ rng, brand }) => {
      const kind = rng.pick(['Daily Moisturizer', 'Gel Cream', 'Night Cream', 'Barrier Repair Cream', 'Tinted Moisturizer']);
      const hero = rng.pick(['hyaluronic acid', 'ceramides', 'niacinamide', 'squalane', 'oat extract', 'peptides']);
      const skin = rng.pick(['dry', 'oily', 'combination', 'sensitive', 'all']);
      const ml = rng.pick([30, 50, 75, 100]);
      const fragranceFree = kind !== 'Night Cream' && rng.chance(0.7);
      return {
        title: `${brand} ${titleCase(hero)} ${kind} for ${skin === 'all' ? 'All Skin Types' : `${skin.replace(/^\w/, (c) => c.toUpperCase())} Skin`}, ${ml} ml`,
        description: describe(rng, `A ${kind.toLowerCase()} with ${hero} for ${skin === 'all' ? 'all skin types' : `${skin} skin`}.`, [
          fragranceFree ? 'Fragrance-free and dermatologist tested.' : 'Lightly scented with natural essential oils.',
          'Absorbs quickly without a greasy finish.',
          'Vegan and cruelty-free.',
          'Non-comedogenic, so it will not clog pores.',
          'Recyclable glass jar.',
        ]),
        attributes: { size_ml: ml, skin_type: skin, key_ingredient: hero, fragrance_free: fragranceFree, vegan: true },
        price: 8.99 + ml * 0.3 + rng.int(0, 8) * 3,
      };
    },
  },
  {
    category: 'Beauty > Skincare > Sunscreen',
    count: 6,
    merchants: ['fernwood', 'trailhead', 'larderLeaf'],
    brands: ['Solari Skin', 'Dewlight', 'Saltmarsh'],
    price: [7, 49],
    make: ({ rng, brand }) => {
      const spf = rng.pick([30, 40, 50]);
      const kind = rng.pick(['Mineral Sunscreen Lotion', 'Sport Sunscreen Spray', 'Daily Face Sunscreen', 'Sunscreen Stick']);
      const ml = kind.includes('Stick') ? 15 : rng.pick([50, 88, 150, 200]);
      const mineral = kind.includes('Mineral') || rng.chance(0.3);
      return {
        title: `${brand} SPF ${spf} ${kind}, Broad Spectrum, ${ml} ml`,
        description: describe(
          rng,
          `A broad-spectrum SPF ${spf} ${mineral ? 'mineral (zinc oxide) ' : ''}${kind.toLowerCase()}, water-resistant for 80 minutes.`,
          [
            'Reef-friendly formula without oxybenzone or octinoxate.',
            'Sheer finish with no white cast.',
            'Sweat-resistant for runs and rides.',
            'Fragrance-free for sensitive skin.',
          ],
        ),
        attributes: { spf, size_ml: ml, mineral, water_resistant_min: 80, type: kind.toLowerCase() },
        price: 6.99 + Math.round(ml / 20) + rng.int(0, 5) * 2,
      };
    },
  },
  {
    category: 'Beauty > Hair Care > Hair Dryers',
    count: 6,
    merchants: ['fernwood', 'mapleMortar', 'voltline'],
    brands: ['Airloft Beauty', 'Ionique Studio', 'Dewlight'],
    price: [24, 449],
    make: ({ rng, brand }) => {
      const watts = rng.pick([1200, 1600, 1875, 2000]);
      const kind = rng.pick(['Ionic Hair Dryer', 'Travel Hair Dryer', 'High-Speed Hair Dryer', 'Hot Air Brush']);
      const color = rng.pick(['Rose Gold', 'Black', 'Pearl White', 'Sage']);
      return {
        title: `${brand} ${watts}W ${kind} with Diffuser and Concentrator, ${color}`,
        description: describe(rng, `A ${watts} W ${kind.toLowerCase()} with three heat settings, two speeds and a cool-shot button.`, [
          'Negative ions reduce frizz and static.',
          'Brushless motor is quieter and lighter.',
          kind.includes('Travel') ? 'Dual-voltage and foldable for international travel.' : '',
          'Removable rear filter for easy cleaning.',
          'Heat-protect sensor prevents over-drying.',
        ]),
        attributes: { wattage_w: watts, color, ionic: true, dual_voltage: kind.includes('Travel'), type: kind.toLowerCase() },
        price: kind.includes('High-Speed') ? rng.int(15, 44) * 10 - 0.01 : rng.int(3, 12) * 10 - 0.01,
      };
    },
  },
  {
    category: 'Health > Vitamins & Supplements > Multivitamins',
    count: 6,
    merchants: ['fernwood', 'larderLeaf'],
    brands: ['Wellspring Labs', 'Greenhaven Nutrition'],
    price: [8, 59],
    make: ({ rng, brand }) => {
      const who = rng.pick(["Women's", "Men's", 'Adult', 'Kids', '50+']);
      const form = rng.pick(['Tablets', 'Capsules', 'Gummies']);
      const count = rng.pick([60, 90, 120]);
      return {
        title: `${brand} ${who} Daily Multivitamin ${form}, ${count} Count`,
        description: describe(
          rng,
          `A once-daily ${who === 'Adult' ? 'adult' : who.toLowerCase()} multivitamin in ${form.toLowerCase()} with vitamins D3, B12 and K2.`,
          [
            'Third-party tested for purity and potency.',
            'No artificial colours or sweeteners.',
            'Vegetarian and gluten-free.',
            'Methylated folate for better absorption.',
            'These statements have not been evaluated by the FDA.',
          ],
        ),
        attributes: { audience: who, form: form.toLowerCase(), count, vegetarian: true },
        price: 7.99 + count * 0.12 + rng.int(0, 4) * 2,
      };
    },
  },
  {
    category: 'Health > Monitoring > Blood Pressure Monitors',
    count: 6,
    merchants: ['fernwood', 'voltline'],
    brands: ['Pulsecheck', 'Wellspring Labs', 'Cardiva'],
    price: [24, 129],
    make: ({ rng, brand }) => {
      const cuff = rng.pick(['Upper Arm', 'Wrist']);
      const users = rng.pick([1, 2]);
      const memory = rng.pick([60, 120, 200]);
      const bt = rng.chance(0.5);
      return {
        title: `${brand} ${cuff} Blood Pressure Monitor${bt ? ' with Bluetooth App' : ''}, ${users}-User, ${memory} Readings`,
        description: describe(
          rng,
          `A clinically validated ${cuff.toLowerCase()} blood pressure monitor that stores ${memory} readings for ${users === 2 ? 'two users' : 'one user'}.`,
          [
            'Irregular heartbeat detection.',
            'Large backlit display is easy to read.',
            'Wide-range cuff fits 22–42 cm arms.',
            'Averages the last three readings automatically.',
            'Runs on 4×AA batteries or USB-C power.',
          ],
        ),
        attributes: { cuff_type: cuff.toLowerCase(), users, memory_readings: memory, bluetooth: bt },
        price: 24.99 + (cuff === 'Upper Arm' ? 15 : 0) + (bt ? 20 : 0) + rng.int(0, 5) * 5,
      };
    },
  },
  {
    category: 'Health > First Aid > First Aid Kits',
    count: 6,
    merchants: ['trailhead', 'fernwood', 'wrenchRally'],
    brands: ['Kitwise', 'Hollowpine', 'Roadmender'],
    price: [12, 89],
    make: ({ rng, brand }) => {
      const pieces = rng.pick([85, 120, 200, 300]);
      const use = rng.pick(['Hiking', 'Car', 'Home', 'Workplace']);
      return {
        title: `${brand} ${pieces}-Piece ${use} First Aid Kit${use === 'Hiking' ? ', Ultralight' : ''}`,
        description: describe(rng, `A ${pieces}-piece first aid kit organised into labelled pouches for ${use.toLowerCase()} use.`, [
          'Includes bandages, gauze, antiseptic wipes, tweezers and an emergency blanket.',
          'Water-resistant zip case.',
          'Printed first-aid guide inside.',
          'Easy to restock with refill packs.',
        ]),
        attributes: { pieces, use: use.toLowerCase(), weight_g: Math.round(pieces * 2.5), waterproof: false },
        price: 9.99 + Math.round(pieces / 6) + rng.int(0, 3) * 2,
      };
    },
  },
];
