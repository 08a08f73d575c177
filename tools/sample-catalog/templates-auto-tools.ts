/** Generated automotive products and tools & hardware. */
import { describe } from './text.js';
import type { Template } from './types.js';

export const AUTO_TOOLS_TEMPLATES: Template[] = [
  {
    category: 'Automotive > Electronics > Dash Cams',
    count: 6,
    merchants: ['wrenchRally', 'voltline'],
    brands: ['Dashwise', 'Roadmender', 'Veyra'],
    price: [39, 349],
    make: ({ rng, brand }) => {
      const res = rng.pick(['1080p', '1440p', '4K']);
      const channels = rng.pick(['Front', 'Front and Rear', 'Front, Rear and Cabin']);
      const fov = rng.pick([140, 150, 170]);
      return {
        title: `${brand} ${res} ${channels} Dash Cam with ${fov}° Wide Angle${rng.chance(0.5) ? ' and Wi-Fi' : ''}`,
        description: describe(rng, `A ${res} ${channels.toLowerCase()} dash camera with a ${fov}-degree lens and loop recording.`, [
          'G-sensor locks footage automatically after an impact.',
          'Parking mode watches the car while you are away.',
          'Supercapacitor handles extreme heat and cold.',
          'Built-in GPS logs speed and location.',
          'Night vision sensor for clear plates after dark.',
        ]),
        attributes: { resolution: res, channels: channels.toLowerCase(), field_of_view_deg: fov },
        price: 39.99 + (res === '4K' ? 80 : res === '1440p' ? 40 : 0) + (channels === 'Front' ? 0 : channels.includes('Cabin') ? 90 : 50) + rng.int(0, 5) * 10,
      };
    },
  },
  {
    category: 'Automotive > Car Care > Car Wash Supplies',
    count: 6,
    merchants: ['wrenchRally', 'northbound'],
    brands: ['Glosswork', 'Roadmender'],
    price: [6, 79],
    make: ({ rng, brand }) => {
      const item = rng.pick([
        'pH-Neutral Car Wash Soap',
        'Ceramic Spray Coating',
        'Microfibre Drying Towel',
        'Wheel & Tire Cleaner',
        'Complete Car Wash Kit',
        'Interior Detailer',
      ]);
      const oz = rng.pick([16, 32, 64]);
      const liquid = !item.includes('Towel') && !item.includes('Kit');
      return {
        title: `${brand} ${item}${liquid ? `, ${oz} oz` : item.includes('Towel') ? ', 25" x 36"' : ', 9 Pieces'}`,
        description: describe(
          rng,
          `${item.replace(/^\w/, (c) => c.toUpperCase())} ${liquid ? 'that is safe on paint, glass, plastics and existing wax' : 'for a scratch-free, streak-free finish'}.`,
          [
            'Biodegradable formula.',
            'Leaves a slick, water-beading shine.',
            liquid ? '' : 'Lint-free, edgeless microfibre.',
            item.includes('Soap') ? 'Concentrated: one ounce per gallon of water.' : '',
            'Safe for ceramic-coated and wrapped cars.',
          ],
        ),
        attributes: { type: item.toLowerCase(), ...(liquid ? { volume_oz: oz } : {}) },
        price: liquid ? 5.99 + oz * 0.25 + rng.int(0, 3) : item.includes('Kit') ? 59.99 : 14.99,
      };
    },
  },
  {
    category: 'Automotive > Emergency > Jump Starters',
    count: 6,
    merchants: ['wrenchRally', 'northbound', 'voltline'],
    brands: ['Jumpstead', 'Roadmender', 'Amperly'],
    price: [49, 299],
    make: ({ rng, brand }) => {
      const amps = rng.pick([1000, 1500, 2000, 3000, 4000]);
      const engine = amps >= 3000 ? '8.0L gas / 6.0L diesel' : amps >= 2000 ? '7.0L gas / 5.5L diesel' : '6.0L gas / 3.0L diesel';
      return {
        title: `${brand} ${amps}A Portable Car Jump Starter for up to ${(engine.split(' / ')[0] ?? engine).replace(' gas', '')} Gas Engines, with USB-C Power Bank`,
        description: describe(rng, `A ${amps} peak-amp lithium jump starter for 12 V vehicles up to ${engine}.`, [
          'Reverse-polarity and spark-proof clamps.',
          'Built-in LED flashlight with SOS mode.',
          'Holds a charge for up to 12 months.',
          'Charges phones and tablets via USB-C.',
          'Rugged carrying case included.',
        ]),
        attributes: { peak_amps: amps, engine_size: engine, voltage_v: 12, usb_c: true },
        price: 49.99 + amps / 25 + rng.int(0, 4) * 5,
      };
    },
  },
  {
    category: 'Tools & Hardware > Power Tools > Cordless Drills',
    count: 7,
    merchants: ['wrenchRally', 'greenrow', 'northbound'],
    brands: ['Torqline', 'Benchmark Tool Co.', 'Hexhaven'],
    price: [49, 349],
    make: ({ rng, brand }) => {
      const volts = rng.pick([12, 18, 20]);
      const kind = rng.pick(['Drill/Driver', 'Hammer Drill', 'Impact Driver', 'Drill & Impact Driver Combo Kit']);
      const brushless = rng.chance(0.6);
      const ah = rng.pick([2, 4, 5]);
      const kit = kind.includes('Kit');
      return {
        title: `${brand} ${volts}V ${brushless ? 'Brushless ' : ''}Cordless ${kind}${kit ? '' : `, ${ah}.0Ah Battery and Charger`}`,
        description: describe(
          rng,
          `A ${volts} V ${brushless ? 'brushless ' : ''}cordless ${kind.toLowerCase()} with ${rng.pick([400, 530, 650, 1800])} in-lb of torque.`,
          [
            'Two-speed gearbox for drilling and driving.',
            kind.includes('Impact Driver') ? '1/4-inch hex quick-release chuck.' : '1/2-inch keyless metal chuck.',
            'LED work light with 20-second delay.',
            'Battery fits the whole tool family.',
            'Includes a belt clip and hard case.',
            'Electronic clutch with 21 settings.',
          ],
        ),
        attributes: { voltage_v: volts, brushless, battery_ah: ah, type: kind.toLowerCase(), weight_g: rng.int(900, 1800) },
        price: 59 + volts * 2 + (brushless ? 40 : 0) + (kit ? 120 : ah * 10) + rng.int(0, 3) * 10 + 0.99,
      };
    },
  },
  {
    category: 'Tools & Hardware > Hand Tools > Screwdriver Sets',
    count: 6,
    merchants: ['wrenchRally', 'northbound', 'voltline'],
    brands: ['Hexhaven', 'Benchmark Tool Co.', 'Torqline'],
    price: [12, 89],
    make: ({ rng, brand }) => {
      const pieces = rng.pick([8, 12, 32, 64, 100]);
      const precision = pieces >= 64;
      return {
        title: `${brand} ${pieces}-Piece ${precision ? 'Precision Electronics Screwdriver Kit' : 'Magnetic Screwdriver Set'}${precision ? ' with Star and Pentalobe Bits' : ', Chrome Vanadium'}`,
        description: describe(
          rng,
          `A ${pieces}-piece ${precision ? 'precision kit for phones, laptops and game controllers' : 'screwdriver set with cross-head, slotted and star tips'}.`,
          [
            'S2 steel bits hardened to 60 HRC.',
            'Magnetic tips hold screws in place.',
            'Cushion-grip handles reduce hand fatigue.',
            'Organised case with labelled slots.',
            'Lifetime warranty.',
          ],
        ),
        attributes: { pieces, precision, material: 'Chrome vanadium / S2 steel', magnetic: true },
        price: 11.99 + pieces * 0.4 + rng.int(0, 3) * 3,
      };
    },
  },
  {
    category: 'Tools & Hardware > Measuring Tools > Tape Measures',
    count: 5,
    merchants: ['wrenchRally', 'greenrow'],
    brands: ['Benchmark Tool Co.', 'Torqline'],
    price: [6, 49],
    make: ({ rng, brand }) => {
      const ft = rng.pick([16, 25, 30, 35]);
      const laser = rng.chance(0.3);
      return {
        title: laser ? `${brand} 165 ft Laser Distance Measure with ${ft} ft Tape` : `${brand} ${ft} ft Tape Measure, 1-1/4" Blade, Magnetic Hook`,
        description: describe(
          rng,
          laser
            ? `A laser distance meter accurate to ±1/16 inch up to 165 feet, with a ${ft}-foot backup tape.`
            : `A ${ft}-foot tape measure with a wide, nylon-coated blade and 13 ft of standout.`,
          ['Impact-resistant rubber housing survives 10 ft drops.', 'Fractional markings on both edges.', 'Belt clip and wrist strap.', 'Auto-locking blade.'],
        ),
        attributes: { length_ft: ft, laser, magnetic_hook: !laser },
        price: laser ? 39.99 : 7.99 + ft * 0.4,
      };
    },
  },
];
