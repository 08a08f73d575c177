/** Generated grocery: tea, coffee beans and pantry staples. */
import { describe } from './text.js';
import type { Template } from './types.js';

export const GROCERY_TEMPLATES: Template[] = [
  {
    category: 'Grocery > Beverages > Tea',
    count: 7,
    merchants: ['larderLeaf', 'larderLeaf', 'copperKettle'],
    brands: ['Misthollow Tea', 'Kettle & Crane', 'Larder & Leaf'],
    price: [5, 39],
    make: ({ rng, brand }) => {
      const tea = rng.pick([
        'Darjeeling First Flush',
        'Sencha Green',
        'Earl Grey',
        'Chamomile & Lavender',
        'Masala Chai',
        'Oolong',
        'Peppermint',
        'Ceremonial Matcha',
      ]);
      const form = tea.includes('Matcha') ? 'Powder' : rng.pick(['Loose Leaf', 'Pyramid Tea Bags']);
      const grams = form === 'Powder' ? 30 : form === 'Loose Leaf' ? rng.pick([50, 100, 250]) : 0;
      const bags = form === 'Pyramid Tea Bags' ? rng.pick([15, 20, 50]) : 0;
      const herbal = ['Chamomile & Lavender', 'Peppermint'].includes(tea);
      const organic = rng.chance(0.6);
      return {
        title: `${brand} ${organic ? 'Organic ' : ''}${tea} ${form === 'Powder' ? 'Green Tea Powder' : form}, ${bags ? `${bags} Count` : `${grams} g`}`,
        description: describe(
          rng,
          `${organic ? 'Certified organic ' : ''}${tea.toLowerCase()} ${herbal ? 'herbal infusion, naturally caffeine-free' : 'tea'}, ${bags ? `in ${bags} plant-based pyramid bags` : `in a resealable ${grams} g tin`}.`,
          [
            'Steep at 80–95 °C for 2–4 minutes.',
            'Sourced directly from a single estate.',
            'Bright, floral aroma with a smooth finish.',
            'Packed in compostable, plastic-free materials.',
            'Makes excellent iced tea.',
          ],
        ),
        attributes: { type: tea.toLowerCase(), form: form.toLowerCase(), ...(bags ? { count: bags } : { weight_g: grams }), organic, caffeine_free: herbal },
        price: 4.99 + (bags ? bags * 0.2 : grams * 0.06) + (tea.includes('Matcha') || tea.includes('Darjeeling') ? 12 : 0) + rng.int(0, 2),
      };
    },
  },
  {
    category: 'Grocery > Beverages > Coffee Beans',
    count: 8,
    merchants: ['larderLeaf', 'copperKettle', 'copperKettle'],
    brands: ['Hillside Roasters', 'Ember Roast Coffee', 'Quernstone Coffee Works', 'Brewhaus'],
    price: [9, 59],
    make: ({ rng, brand }) => {
      const origin = rng.pick([
        'Ethiopia Yirgacheffe',
        'Colombia Huila',
        'Guatemala Antigua',
        'Sumatra Mandheling',
        'Kenya AA',
        'Brazil Cerrado',
        'House Espresso Blend',
        'Decaf Water-Processed Colombia',
      ]);
      const roast = rng.pick(['Light Roast', 'Medium Roast', 'Medium-Dark Roast', 'Dark Roast']);
      const oz = rng.pick([12, 16, 32, 80]);
      const notes = rng.sample(['blueberry', 'milk chocolate', 'citrus', 'caramel', 'toasted almond', 'jasmine', 'brown sugar', 'cherry', 'cedar'], 3);
      const whole = rng.chance(0.75);
      return {
        title: `${brand} ${origin} ${roast} ${whole ? 'Whole Bean' : 'Ground'} Coffee, ${oz >= 32 ? `${oz / 16} lb` : `${oz} oz`}`,
        description: describe(
          rng,
          `${roast.replace(' Roast', '').toLowerCase()}-roasted ${origin} with notes of ${notes.join(', ')}.`.replace(/^\w/, (c) => c.toUpperCase()),
          [
            'Roasted to order and shipped within 48 hours.',
            'Specialty grade, scoring 85+ points.',
            'Great for espresso, pour-over and French press.',
            'Direct-trade beans from smallholder farms.',
            'One-way valve bag keeps it fresh.',
          ],
        ),
        attributes: { origin, roast: roast.toLowerCase(), weight_oz: oz, whole_bean: whole, tasting_notes: notes, decaf: origin.startsWith('Decaf') },
        price: 6.99 + oz * (oz >= 80 ? 0.55 : 0.9) + rng.int(0, 3),
      };
    },
  },
  {
    category: 'Grocery > Pantry > Olive Oil',
    count: 5,
    merchants: ['larderLeaf', 'copperKettle'],
    brands: ['Olivara', 'Larder & Leaf', 'Sunterra Groves'],
    price: [8, 69],
    make: ({ rng, brand }) => {
      const origin = rng.pick(['Greek Koroneiki', 'Spanish Arbequina', 'Italian Coratina', 'California Mission']);
      const ml = rng.pick([250, 500, 750, 1000, 3000]);
      return {
        title: `${brand} Extra Virgin Olive Oil, ${origin}, ${ml >= 1000 ? `${ml / 1000} L` : `${ml} ml`} ${ml >= 3000 ? 'Tin' : 'Bottle'}`,
        description: describe(rng, `Cold-pressed extra virgin olive oil from ${origin.split(' ').slice(-1)[0] ?? origin} olives, harvested this season.`, [
          'Peppery finish with notes of green tomato and fresh herbs.',
          'Dark glass protects the oil from light.',
          'Harvest date printed on every bottle.',
          'Single-origin, unblended.',
        ]),
        attributes: { origin, volume_ml: ml, organic: rng.chance(0.5) },
        price: 7.99 + ml * 0.018 + rng.int(0, 3),
      };
    },
  },
];
