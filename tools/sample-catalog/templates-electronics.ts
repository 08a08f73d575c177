/** Generated electronics: audio, computers and accessories. */
import { describe, NEUTRALS } from './text.js';
import type { Template } from './types.js';

export const ELECTRONICS_TEMPLATES: Template[] = [
  {
    category: 'Electronics > Audio > Headphones',
    count: 8,
    merchants: ['voltline', 'voltline', 'northbound'],
    brands: ['Auralis', 'Halcyon Sound', 'Quillon Audio'],
    price: [39, 549],
    make: ({ rng, brand }) => {
      const anc = rng.chance(0.6);
      const wired = !anc && rng.chance(0.4);
      const hours = rng.pick([30, 40, 50, 60]);
      const model = rng.pick(['Q7', 'Studio 40', 'Nocturne', 'Aria', 'H900', 'Monitor One']);
      const color = rng.pick(NEUTRALS);
      return {
        title: wired
          ? `${brand} ${model} Wired Studio Headphones, Closed-Back, ${color}`
          : rng.pick([
              `${brand} ${model} Wireless ${anc ? 'Noise Cancelling ' : ''}Over-Ear Headphones - ${color}`,
              `${brand} ${model} Bluetooth Headphones${anc ? ' with Active Noise Cancellation' : ''}, ${hours}h Battery`,
            ]),
        description: describe(
          rng,
          wired
            ? 'Closed-back studio headphones with 40 mm drivers and a detachable 3 m cable, tuned flat for mixing and monitoring.'
            : `Over-ear ${anc ? 'noise-cancelling ' : ''}Bluetooth 5.3 headphones with ${hours} hours of battery life.`,
          [
            'Memory-foam ear cushions stay comfortable on long flights.',
            wired ? 'Coiled and straight cables included.' : 'Multipoint pairing connects a laptop and a phone at once.',
            wired ? '' : 'A 10-minute charge adds about 5 hours of playback.',
            'Folds flat into the included hard case.',
            anc ? 'Transparency mode lets you hear announcements without taking them off.' : '',
            wired ? 'Low 32-ohm impedance, easy to drive from a laptop.' : 'Supports high-resolution Bluetooth audio codecs.',
          ],
        ),
        attributes: { color, wireless: !wired, noise_cancelling: anc, ...(wired ? {} : { battery_hours: hours }), driver_mm: 40, weight_g: rng.int(220, 330) },
        price: wired ? rng.int(4, 15) * 10 - 0.01 : (anc ? 149 : 59) + rng.int(0, 25) * 10 + 0.99,
      };
    },
  },
  {
    category: 'Electronics > Audio > Earbuds',
    count: 7,
    merchants: ['voltline', 'stride'],
    brands: ['Auralis', 'Halcyon Sound', 'Pulsewave'],
    price: [25, 299],
    make: ({ rng, brand }) => {
      const anc = rng.chance(0.55);
      const sport = rng.chance(0.35);
      const ip = rng.pick(['IPX4', 'IPX5', 'IP55', 'IPX7']);
      const color = rng.pick(['Black', 'White', 'Sand', 'Midnight Blue', 'Sage']);
      const model = rng.pick(['Buds Pro', 'Pods 2', 'Loop', 'Fit Sport', 'Mini']);
      return {
        title: `${brand} ${model} True Wireless ${sport ? 'Sport ' : ''}Earbuds${anc ? ' with ANC' : ''}, ${ip}, ${color}`,
        description: describe(
          rng,
          `True wireless earbuds with ${anc ? 'hybrid active noise cancellation, ' : ''}${ip} water resistance and ${rng.int(6, 10)} hours per charge (${rng.int(24, 36)} with the case).`,
          [
            sport ? 'Flexible ear hooks stay put on runs and in the gym.' : 'Three sizes of silicone tips included.',
            'The case charges by USB-C or wireless pad.',
            'Touch controls for tracks, calls and volume.',
            'Low-latency mode for gaming and video.',
            'Find-my-earbud chime through the companion app.',
          ],
        ),
        attributes: { color, noise_cancelling: anc, water_resistance: ip, sport_fit: sport, wireless: true },
        price: (anc ? 89 : 29) + rng.int(0, 15) * 10 + 0.99,
      };
    },
  },
  {
    category: 'Electronics > Computers > Laptops',
    count: 7,
    merchants: ['voltline', 'ledgerLamp'],
    brands: ['Northstack', 'Pixelforge', 'Veyra'],
    price: [399, 2499],
    make: ({ rng, brand }) => {
      const screen = rng.pick([13.3, 14, 15.6, 16]);
      const ram = rng.pick([8, 16, 16, 32]);
      const ssd = rng.pick([256, 512, 1024]);
      const cpu = rng.pick(['8-core', '10-core', '12-core', '16-core']);
      const line = rng.pick(['Air', 'Pro', 'Studio', 'Go', 'Creator']);
      const storage = ssd >= 1024 ? '1TB' : `${ssd}GB`;
      return {
        title: rng.pick([
          `${brand} ${line} ${screen}" Laptop, ${cpu} CPU, ${ram}GB RAM, ${storage} SSD`,
          `${brand} ${line} ${Math.round(screen)} Thin and Light Laptop - ${ram}GB / ${storage}, ${rng.pick(NEUTRALS)}`,
        ]),
        description: describe(rng, `A ${screen}-inch laptop with a ${cpu} processor, ${ram} GB of memory and a ${storage} NVMe SSD.`, [
          `The ${screen >= 15 ? '2560×1600' : '1920×1200'} display reaches 400 nits.`,
          'Up to 14 hours of mixed-use battery life.',
          'Two USB4 Type-C ports, one USB-A and HDMI 2.1.',
          'Backlit keyboard and a 1080p webcam with privacy shutter.',
          'Aluminium unibody chassis under 1.5 kg.',
          'Wi-Fi 6E and Bluetooth 5.3.',
        ]),
        attributes: { screen_in: screen, ram_gb: ram, storage_gb: ssd, cpu, weight_g: Math.round(screen * 95 + rng.int(-100, 150)) },
        price: 449 + ram * 30 + (ssd === 256 ? 0 : ssd === 512 ? 100 : 250) + (screen >= 15 ? 200 : 0) + rng.int(0, 30) * 10 + 0.99,
      };
    },
  },
  {
    category: 'Electronics > Computers > Monitors',
    count: 7,
    merchants: ['voltline', 'ledgerLamp'],
    brands: ['Lumenview', 'Pixelforge', 'Veyra'],
    price: [119, 1299],
    make: ({ rng, brand }) => {
      const size = rng.pick([24, 27, 27, 32, 34]);
      const res = size === 34 ? '3440×1440 Ultrawide' : rng.pick(['1920×1080', '2560×1440', '3840×2160 4K']);
      const hz = rng.pick([60, 75, 144, 165]);
      const panel = rng.pick(['IPS', 'VA', 'OLED']);
      return {
        title: rng.pick([
          `${brand} ${size}" ${res.includes('4K') ? '4K UHD' : res.includes('Ultrawide') ? 'Curved Ultrawide' : res === '2560×1440' ? 'QHD' : 'Full HD'} ${panel} Monitor, ${hz}Hz`,
          `${brand} ${size}-Inch ${panel} Monitor with USB-C, ${res.split(' ')[0] ?? res}`,
        ]),
        description: describe(rng, `A ${size}-inch ${panel} monitor at ${res} and ${hz} Hz.`, [
          'USB-C with 65 W power delivery charges a laptop over one cable.',
          'Height, tilt and swivel adjustable stand; VESA 100 mounting.',
          'Covers 99% of sRGB, factory calibrated.',
          'Flicker-free backlight with a low blue-light mode.',
          'Built-in KVM switch for two computers.',
        ]),
        attributes: { screen_in: size, resolution: res, refresh_hz: hz, panel, usb_c: true },
        price: 99 + size * 6 + (res.includes('4K') ? 180 : 0) + (panel === 'OLED' ? 400 : 0) + (hz >= 144 ? 60 : 0) + rng.int(0, 8) * 10 + 0.99,
      };
    },
  },
  {
    category: 'Electronics > Accessories > Keyboards',
    count: 7,
    merchants: ['voltline', 'ledgerLamp'],
    brands: ['Keyloom', 'Tactile Lab', 'Northstack'],
    price: [29, 249],
    make: ({ rng, brand }) => {
      const layout = rng.pick(['75%', 'TKL', 'full-size', '65%']);
      const sw = rng.pick(['hot-swappable brown tactile', 'linear red', 'clicky blue', 'low-profile scissor']);
      const wireless = rng.chance(0.6);
      const color = rng.pick(['Charcoal', 'White / Grey', 'Retro Beige', 'Navy']);
      const mech = !sw.includes('scissor');
      const switchLabel = mech ? `${sw.replace('hot-swappable ', '').replace(/\b\w/g, (c) => c.toUpperCase())} Switches` : 'Quiet Keys';
      return {
        title: `${brand} ${layout === 'full-size' ? 'Full-Size' : layout.toUpperCase()} ${wireless ? 'Wireless ' : ''}${mech ? 'Mechanical' : 'Low-Profile'} Keyboard, ${switchLabel}, ${color}`,
        description: describe(
          rng,
          `A ${layout} ${mech ? 'mechanical' : 'low-profile'} keyboard with ${sw} switches${wireless ? ', Bluetooth and 2.4 GHz wireless' : ''}.`,
          [
            'PBT keycaps resist shine from daily use.',
            'Gasket-mounted plate for a softer, quieter typing feel.',
            'Switches between Mac and Windows layouts.',
            'White backlight with adjustable brightness.',
            'Detachable USB-C cable included.',
          ],
        ),
        attributes: { layout, switches: sw, wireless, color, mechanical: mech },
      };
    },
  },
  {
    category: 'Electronics > Accessories > Phone Cases',
    count: 6,
    merchants: ['voltline', 'northbound'],
    brands: ['Armorlite', 'Shellguard', 'Corkcraft'],
    price: [12, 59],
    make: ({ rng, brand }) => {
      const kind = rng.pick(['Rugged', 'Clear', 'Leather Folio', 'Silicone', 'Wallet']);
      const size = rng.pick(['6.1"', '6.3"', '6.7"']);
      const color = rng.pick(['Black', 'Clear', 'Lavender', 'Tan Leather', 'Forest Green', 'Navy']);
      return {
        title: `${brand} ${kind} Phone Case for ${size} Phones - ${color}`,
        description: describe(rng, `A ${kind.toLowerCase()} case for ${size} phones with raised bezels and precise button cut-outs.`, [
          'Drop-tested from 2 metres.',
          'Works with wireless charging.',
          'Anti-yellowing coating on clear parts.',
          kind === 'Wallet' || kind.includes('Folio') ? 'Holds up to three cards.' : '',
          'Lifetime replacement warranty.',
        ]),
        attributes: {
          color,
          style: kind.toLowerCase(),
          fits_screen_in: Number(size.replace('"', '')),
          material: kind.includes('Leather') ? 'Leather' : kind === 'Silicone' ? 'Silicone' : 'TPU / polycarbonate',
        },
      };
    },
  },
  {
    category: 'Electronics > Accessories > Chargers',
    count: 7,
    merchants: ['voltline', 'northbound', 'ledgerLamp'],
    brands: ['Amperly', 'Chargewell', 'Voltline Basics'],
    price: [12, 149],
    make: ({ rng, brand }) => {
      const watts = rng.pick([20, 30, 65, 100, 140]);
      const kind = rng.pick(['GaN USB-C Wall Charger', '3-in-1 Wireless Charging Stand', 'Power Bank', 'Dual-Port Car Charger']);
      const mah = rng.pick([10000, 20000, 26800]);
      const bank = kind === 'Power Bank';
      return {
        title: bank ? `${brand} ${mah.toLocaleString('en-US')} mAh ${watts}W USB-C Power Bank` : `${brand} ${watts}W ${kind}`,
        description: describe(
          rng,
          bank
            ? `A ${mah.toLocaleString('en-US')} mAh portable battery with ${watts} W USB-C power delivery.`
            : `A ${watts} W ${kind.toLowerCase()} with smart power allocation.`,
          [
            kind.includes('GaN') ? 'Gallium nitride parts keep it compact and cool.' : '',
            'Over-voltage and temperature protection built in.',
            kind.includes('Wall') ? 'Folding plug for travel.' : '',
            kind.includes('Stand') ? 'Charges a phone, earbuds and a watch at once.' : '',
            'Fast-charges most phones to 50% in about 30 minutes.',
            'Includes a 1 m braided USB-C cable.',
          ],
        ),
        attributes: { wattage_w: watts, type: kind.toLowerCase(), ...(bank ? { capacity_mah: mah } : {}), color: rng.pick(['White', 'Black']) },
        price: 9.99 + Math.round(watts * 0.5) + (bank ? mah / 1000 : 0) + rng.int(0, 3) * 5,
      };
    },
  },
];
