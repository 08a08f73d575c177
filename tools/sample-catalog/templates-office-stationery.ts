/** Generated office furniture, lighting and stationery. */
import { COLORS, describe, titleCase } from './text.js';
import type { Template } from './types.js';

export const OFFICE_STATIONERY_TEMPLATES: Template[] = [
  {
    category: 'Office > Furniture > Office Chairs',
    count: 7,
    merchants: ['ledgerLamp', 'ledgerLamp', 'mapleMortar'],
    brands: ['Ergonest', 'Posture Lab', 'Desklift'],
    price: [99, 1199],
    make: ({ rng, brand }) => {
      const kind = rng.pick([
        'Ergonomic Mesh Office Chair',
        'Ergonomic Mesh Office Chair',
        'High-Back Executive Chair',
        'Task Chair',
        'Task Chair',
        'Drafting Stool',
        'Kneeling Chair',
      ]);
      const seat = kind.includes('Stool') || kind.includes('Kneeling');
      const color = rng.pick(['Black', 'Grey', 'Graphite / Silver', 'Oatmeal Fabric', 'Cognac Vegan Leather']);
      const capacity = rng.pick([250, 275, 300, 350]);
      const model = rng.pick(['Arc', 'Tandem', 'Contour', 'Meridian', 'Sway']);
      return {
        title: seat
          ? `${brand} ${model} ${kind} - ${color}`
          : rng.pick([`${brand} ${model} ${kind} with Adjustable Lumbar Support, ${color}`, `${brand} ${model} ${kind} - ${color}`]),
        description: describe(rng, `A ${kind.toLowerCase()} with adjustable seat height and a ${capacity} lb weight capacity.`, [
          seat ? 'Encourages an open hip angle and an upright spine.' : '4D armrests move up, down, forward and sideways.',
          seat ? '' : 'Synchronised tilt with tension control and lock.',
          kind.includes('Mesh') ? 'Breathable mesh back keeps you cool through long days.' : 'Dense, high-resilience foam seat cushion.',
          'Seat-depth adjustment fits shorter and taller users.',
          'Soft casters are safe on hardwood floors.',
          'Twelve-year warranty on the frame and mechanism.',
        ]),
        attributes: {
          color,
          weight_capacity_lb: capacity,
          adjustable_lumbar: !seat,
          material: color.includes('Leather') ? 'Vegan leather' : color.includes('Fabric') ? 'Fabric' : 'Mesh',
        },
        price: seat ? 89 + rng.int(0, 12) * 10 + 0.99 : 179 + rng.int(0, 45) * 10 + 0.99,
      };
    },
  },
  {
    category: 'Office > Furniture > Standing Desks',
    count: 6,
    merchants: ['ledgerLamp', 'mapleMortar'],
    brands: ['Desklift', 'Ergonest', 'Oak & Plank Studio'],
    price: [179, 1299],
    make: ({ rng, brand }) => {
      const width = rng.pick([40, 48, 55, 60, 72]);
      const motors = rng.pick([1, 2]);
      const top = rng.pick(['Walnut Veneer', 'Solid Oak', 'White Laminate', 'Bamboo', 'Black Laminate']);
      return {
        title: `${brand} ${width}" x ${width >= 60 ? 30 : 24}" Electric Standing Desk, ${motors === 2 ? 'Dual Motor' : 'Single Motor'}, ${top} Top`,
        description: describe(
          rng,
          `A height-adjustable standing desk with a ${width}-inch ${top.toLowerCase()} top and ${motors === 2 ? 'two quiet motors' : 'a single motor'}.`,
          [
            'Four memory presets recall sitting and standing heights.',
            'Anti-collision sensor stops the desk if it meets an obstacle.',
            `Lifts up to ${motors === 2 ? 300 : 180} lb.`,
            'Cable tray and grommets included for a tidy setup.',
            'Height range from 25 to 50 inches.',
          ],
        ),
        attributes: { width_in: width, motors, top_material: top, height_range_in: '25-50', color: top },
        price: 179 + motors * 80 + width * 3 + (top.includes('Solid') ? 250 : 0) + rng.int(0, 5) * 10 + 0.99,
      };
    },
  },
  {
    category: 'Office > Lighting > Desk Lamps',
    count: 6,
    merchants: ['ledgerLamp', 'mapleMortar', 'paperFinch'],
    brands: ['Lumenarc', 'Ledger & Lamp', 'Brightpath'],
    price: [24, 149],
    make: ({ rng, brand }) => {
      const kind = rng.pick(['LED Architect Desk Lamp', 'Monitor Light Bar', 'Banker’s Lamp', 'Clamp-On LED Task Lamp']);
      const watts = rng.pick([8, 10, 12, 15]);
      const color = rng.pick(['Matte Black', 'White', 'Brass', 'Sage Green']);
      return {
        title: `${brand} ${kind}, ${watts}W, Dimmable, ${color}`,
        description: describe(rng, `A dimmable ${watts} W ${kind.toLowerCase()} with adjustable colour temperature from 2700 K to 6500 K.`, [
          'High CRI (95+) renders colours accurately.',
          'A USB-C port in the base charges your phone.',
          'Auto-dimming ambient light sensor.',
          'Flicker-free for long reading sessions.',
          kind.includes('Clamp')
            ? 'Clamps to desks up to 2.4 inches thick.'
            : kind.includes('Bar')
              ? 'Asymmetric optics light the desk without screen glare.'
              : 'Sturdy weighted base.',
        ]),
        attributes: { wattage_w: watts, color, dimmable: true, color_temp_k: '2700-6500' },
      };
    },
  },
  {
    category: 'Stationery > Notebooks > Notebooks',
    count: 7,
    merchants: ['paperFinch', 'paperFinch', 'ledgerLamp'],
    brands: ['Paper Finch', 'Marginalia', 'Inkwell & Quire'],
    price: [6, 39],
    make: ({ rng, brand }) => {
      const size = rng.pick(['A5', 'A6 Pocket', 'B5', 'A4']);
      const ruling = rng.pick(['Dot Grid', 'Lined', 'Blank', 'Squared']);
      const pages = rng.pick([120, 160, 192, 240]);
      const gsm = rng.pick([80, 90, 100, 120]);
      const cover = rng.pick(['Hardcover', 'Softcover', 'Linen Hardcover', 'Kraft Cover']);
      const color = rng.pick(COLORS);
      return {
        title: `${brand} ${size} ${ruling} Notebook, ${cover}, ${pages} Pages, ${color}`,
        description: describe(rng, `A ${size} ${ruling.toLowerCase()} notebook with ${pages} numbered pages of ${gsm} gsm acid-free paper.`, [
          'Fountain-pen friendly with minimal ghosting.',
          'Lay-flat binding opens 180 degrees.',
          'Elastic closure, ribbon marker and back pocket.',
          'Index pages at the front for bullet journalling.',
          'Paper from responsibly managed forests.',
        ]),
        attributes: { size, ruling: ruling.toLowerCase(), pages, paper_gsm: gsm, cover: cover.toLowerCase(), color },
      };
    },
  },
  {
    category: 'Stationery > Writing > Pens',
    count: 7,
    merchants: ['paperFinch', 'ledgerLamp'],
    brands: ['Tidemark', 'Inkwell & Quire', 'Quillon'],
    price: [3, 189],
    make: ({ rng, brand }) => {
      const kind = rng.pick(['Fountain Pen', 'Gel Pens, 12-Pack', 'Rollerball Pen', 'Fineliner Set, 10 Colours', 'Ballpoint Pen']);
      const tip = rng.pick(['0.38 mm', '0.5 mm', '0.7 mm', 'Fine nib', 'Medium nib']);
      const multi = kind.includes('Pack') || kind.includes('Set');
      const body = multi ? 'recycled plastic' : rng.pick(['brass', 'aluminium', 'resin']);
      const fountain = kind === 'Fountain Pen';
      const tipLabel = fountain ? rng.pick(['Fine Nib', 'Medium Nib']) : tip.includes('nib') ? '0.5 mm' : tip;
      return {
        title: multi ? `${brand} ${kind}, ${tipLabel}` : `${brand} ${titleCase(body)} ${kind}, ${tipLabel}`,
        description: describe(
          rng,
          `${multi ? 'A set of' : 'A'} ${body} ${kind.toLowerCase().replace(/, .*/, '')} with a ${tipLabel.toLowerCase()} tip${fountain ? ' and a converter for bottled ink' : ''}.`,
          [
            'Quick-drying ink, smear-resistant for left-handed writers.',
            fountain ? 'Refillable with standard international cartridges.' : multi ? 'Archival, water-resistant pigment ink.' : 'Takes standard refills.',
            multi ? 'Colour-matched caps post securely on the barrel.' : 'Balanced weight for long writing sessions.',
            'Comes in a gift box.',
          ],
        ),
        attributes: { type: kind.toLowerCase(), tip: tipLabel, body_material: body, refillable: fountain || body === 'brass' },
        price: fountain ? rng.int(2, 18) * 10 - 0.01 : multi ? rng.int(8, 24) - 0.01 : rng.int(3, 6) * 10 - 0.05,
      };
    },
  },
  {
    category: 'Stationery > Planners > Planners',
    count: 5,
    merchants: ['paperFinch'],
    brands: ['Paper Finch', 'Marginalia'],
    price: [14, 49],
    make: ({ rng, brand }) => {
      const kind = rng.pick(['2027 Weekly Planner', '2027 Daily Planner', 'Undated Monthly Planner', 'Academic Planner Jul 2026–Jun 2027']);
      const color = rng.pick(['Terracotta', 'Navy', 'Sage', 'Black', 'Blush']);
      const size = rng.pick(['A5', 'B6', 'Pocket']);
      return {
        title: `${brand} ${kind}, ${size}, ${color} Linen Cover`,
        description: describe(rng, `A ${size} ${kind.toLowerCase().replace(/^\d{4} /, '')} with a linen hardcover and 100 gsm cream paper.`, [
          'Monthly overviews, weekly spreads and notes pages.',
          'Two ribbon markers and a pen loop.',
          'Perforated corners to find the current week fast.',
          'Includes a sheet of planning stickers.',
        ]),
        attributes: { size, color, cover: 'linen', layout: kind.toLowerCase() },
      };
    },
  },
];
