/** Generated bags & luggage and watches. */
import { describe, NEUTRALS } from './text.js';
import type { Template } from './types.js';

export const BAGS_WATCHES_TEMPLATES: Template[] = [
  {
    category: 'Bags & Luggage > Luggage > Carry-On Luggage',
    count: 7,
    merchants: ['waypoint', 'waypoint', 'northbound'],
    brands: ['Transit Tern', 'Atlas & Ash', 'Packwell'],
    price: [89, 649],
    make: ({ rng, brand }) => {
      const shell = rng.pick(['polycarbonate hardside', 'aluminium hardside', 'ballistic nylon softside']);
      const inch = rng.pick([20, 21, 22]);
      const color = rng.pick(['Graphite', 'Forest', 'Sand', 'Navy', 'Silver', 'Terracotta']);
      const liters = inch * 2 - rng.int(0, 4);
      return {
        title: `${brand} ${inch}" ${shell.includes('aluminium') ? 'Aluminium' : shell.includes('nylon') ? 'Softside' : 'Hardside'} Carry-On Spinner, ${color}`,
        description: describe(rng, `A ${liters}-litre ${shell} carry-on with four 360° spinner wheels, sized for most US airline overhead bins.`, [
          'TSA-accepted combination lock.',
          'Compression panels fit an extra day of clothes.',
          'Front laptop pocket for quick security checks.',
          'Telescoping handle with three height stops.',
          'Ten-year warranty.',
        ]),
        attributes: { height_in: inch, capacity_l: liters, material: shell, color, wheels: 4, weight_g: rng.int(2400, 4300) },
        price: (shell.includes('aluminium') ? 449 : shell.includes('nylon') ? 149 : 119) + rng.int(0, 15) * 10 + 0.99,
      };
    },
  },
  {
    category: 'Bags & Luggage > Everyday Bags > Laptop Backpacks',
    count: 6,
    merchants: ['waypoint', 'voltline', 'ledgerLamp'],
    brands: ['Atlas & Ash', 'Packwell', 'Transit Tern'],
    price: [39, 229],
    make: ({ rng, brand }) => {
      const laptop = rng.pick([14, 15.6, 16, 17]);
      const liters = rng.pick([18, 22, 26, 30]);
      const material = rng.pick(['waxed canvas', 'recycled polyester', 'water-resistant nylon', 'vegan leather']);
      const color = rng.pick(['Black', 'Charcoal', 'Olive', 'Navy', 'Tan']);
      return {
        title: `${brand} ${liters}L Laptop Backpack, Fits ${laptop}" Laptops, ${color}`,
        description: describe(rng, `A ${liters}-litre commuter backpack in ${material} with a padded sleeve for laptops up to ${laptop} inches.`, [
          'Clamshell opening packs like a suitcase.',
          'Luggage pass-through strap slides over a suitcase handle.',
          'Hidden back pocket for a passport and wallet.',
          'Water-bottle pocket on each side.',
          'Lockable main zips.',
        ]),
        attributes: { capacity_l: liters, laptop_size_in: laptop, material, color },
        price: 39 + liters * 2 + (material.includes('leather') || material.includes('canvas') ? 60 : 0) + rng.int(0, 6) * 5 + 0.95,
      };
    },
  },
  {
    category: 'Bags & Luggage > Travel Bags > Duffel Bags',
    count: 5,
    merchants: ['waypoint', 'trailhead'],
    brands: ['Cairnline', 'Atlas & Ash', 'Packwell'],
    price: [39, 229],
    make: ({ rng, brand }) => {
      const liters = rng.pick([40, 55, 70, 90]);
      const color = rng.pick(['Black', 'Glacier Blue', 'Ember Orange', 'Olive']);
      return {
        title: `${brand} ${liters}L Water-Resistant Duffel Bag with Backpack Straps - ${color}`,
        description: describe(rng, `A ${liters}-litre duffel in TPU-laminated polyester with stowable backpack straps.`, [
          'Wide D-zip opening for easy packing.',
          'Separate shoe compartment.',
          'Packs flat into its own end pocket.',
          'Haul loops on both ends.',
        ]),
        attributes: { capacity_l: liters, color, material: 'TPU-laminated polyester', water_resistant: true, waterproof: false },
        price: 39 + liters + rng.int(0, 4) * 5 + 0.95,
      };
    },
  },
  {
    category: 'Watches > Smartwatches > Smartwatches',
    count: 6,
    merchants: ['voltline', 'waypoint'],
    brands: ['Pulsewave', 'Veyra', 'Tickwright'],
    price: [79, 699],
    make: ({ rng, brand }) => {
      const mm = rng.pick([40, 41, 44, 45, 47]);
      const days = rng.pick([2, 5, 7, 14]);
      const color = rng.pick(NEUTRALS);
      const lte = rng.chance(0.3);
      return {
        title: `${brand} ${rng.pick(['Pulse', 'Orbit', 'Halo', 'Core'])} ${rng.int(2, 6)} Smartwatch, ${mm} mm ${color} Case${lte ? ', GPS + Cellular' : ', GPS'}`,
        description: describe(rng, `A ${mm} mm smartwatch with an AMOLED display, heart-rate and SpO2 sensors and up to ${days} days of battery life.`, [
          'Tracks sleep, stress and over 100 workout types.',
          'Contactless payments from your wrist.',
          'Water-resistant to 50 m for pool swims.',
          'Interchangeable 20 mm straps.',
          'Notifications and quick replies from your phone.',
        ]),
        attributes: { case_mm: mm, color, battery_days: days, cellular: lte, gps: true, water_resistance_m: 50 },
        price: 129 + (lte ? 100 : 0) + rng.int(0, 25) * 10 + 0.99,
      };
    },
  },
  {
    category: 'Watches > Sport Watches > GPS Running Watches',
    count: 5,
    merchants: ['stride', 'voltline', 'trailhead'],
    brands: ['Stridetrack', 'Pulsewave'],
    price: [129, 799],
    make: ({ rng, brand }) => {
      const hours = rng.pick([20, 30, 40, 60, 120]);
      const maps = hours >= 40;
      return {
        title: `${brand} ${rng.pick(['Tempo', 'Summit', 'Pace', 'Ultra'])} ${maps ? 'Multisport ' : ''}GPS Running Watch${maps ? ' with Offline Maps' : ''}`,
        description: describe(rng, `A GPS running watch with multi-band satellite support and up to ${hours} hours of GPS tracking.`, [
          'Wrist heart rate, training load and recovery advice.',
          'Downloadable structured workouts and race predictor.',
          'Breadcrumb navigation with back-to-start.',
          'Transflective display is easy to read in bright sun.',
          'Syncs to popular training apps.',
        ]),
        attributes: { gps_battery_hours: hours, offline_maps: maps, heart_rate: true, water_resistance_m: 50, color: rng.pick(['Black', 'Slate', 'White']) },
        price: 149 + hours * 3 + (maps ? 150 : 0) + rng.int(0, 5) * 10 + 0.99,
      };
    },
  },
  {
    category: 'Watches > Analog Watches > Analog Watches',
    count: 6,
    merchants: ['waypoint', 'waypoint', 'northbound'],
    brands: ['Halden Watch Co.', 'Tickwright', 'Meridian & Vale'],
    price: [59, 1499],
    make: ({ rng, brand }) => {
      const movement = rng.pick(['Japanese quartz', 'automatic', 'solar quartz']);
      const mm = rng.pick([36, 38, 40, 42]);
      const style = rng.pick(['Field Watch', 'Dive Watch', 'Dress Watch', 'Pilot Watch']);
      const strap = rng.pick(['leather strap', 'stainless steel bracelet', 'nylon NATO strap']);
      return {
        title: `${brand} ${mm}mm ${movement === 'automatic' ? 'Automatic ' : movement === 'solar quartz' ? 'Solar ' : ''}${style}, ${strap.replace(/\b\w/g, (c) => c.toUpperCase()).replace('Nato', 'NATO')}`,
        description: describe(
          rng,
          `A ${mm} mm ${style.toLowerCase()} with a ${movement} movement, sapphire crystal and ${strap}.`,
          [
            `Water-resistant to ${style === 'Dive Watch' ? 200 : 100} m.`,
            'Luminous hands and indices.',
            'Screw-down crown.',
            'Exhibition caseback shows the movement.',
            'Two-year international warranty.',
          ].filter((f) => movement === 'automatic' || !f.startsWith('Exhibition')),
        ),
        attributes: { case_mm: mm, movement, style: style.toLowerCase(), strap, water_resistance_m: style === 'Dive Watch' ? 200 : 100 },
        price: (movement === 'automatic' ? 349 : 79) + rng.int(0, 30) * 10 + 0.99,
      };
    },
  },
];
