/** Generated baby gear and pet supplies. */
import { describe } from './text.js';
import type { Template } from './types.js';

export const BABY_PET_TEMPLATES: Template[] = [
  {
    category: 'Baby > Strollers > Strollers',
    count: 6,
    merchants: ['littleLantern', 'mapleMortar'],
    brands: ['Nestling', 'Bramble Baby', 'Wayfawn'],
    price: [129, 1099],
    make: ({ rng, brand }) => {
      const kind = rng.pick(['Lightweight Travel Stroller', 'Full-Size Stroller', 'Jogging Stroller', 'Double Stroller', 'Compact Fold Stroller']);
      const kg = rng.int(6, 14);
      const color = rng.pick(['Charcoal', 'Moss', 'Dune', 'Navy', 'Black']);
      return {
        title: `${brand} ${rng.pick(['Amble', 'Roam', 'Breeze', 'Willow'])} ${kind}, ${color}`,
        description: describe(rng, `A ${kind.toLowerCase()} weighing ${kg} kg, suitable from birth to 50 lb.`, [
          'One-hand fold stands on its own when closed.',
          'All-wheel suspension smooths out rough pavements.',
          'Extendable UPF 50+ canopy with a peek-a-boo window.',
          'Large under-seat basket holds a full changing bag.',
          'Compatible with most infant car seats via adapters.',
          kind.includes('Travel') || kind.includes('Compact') ? 'Fits airline overhead bins when folded.' : '',
        ]),
        attributes: { type: kind.toLowerCase(), weight_kg: kg, color, max_child_weight_lb: 50, ...(kind.includes('Jogging') ? { all_terrain: true } : {}) },
        price: (kind.includes('Double') ? 499 : kind.includes('Full') || kind.includes('Jogging') ? 349 : 149) + rng.int(0, 20) * 10 + 0.99,
      };
    },
  },
  {
    category: 'Baby > Feeding > Baby Bottles',
    count: 6,
    merchants: ['littleLantern', 'fernwood'],
    brands: ['Nestling', 'Milkweed', 'Bramble Baby'],
    price: [8, 59],
    make: ({ rng, brand }) => {
      const oz = rng.pick([4, 5, 8, 9]);
      const count = rng.pick([2, 3, 4, 6]);
      const material = rng.pick(['glass', 'medical-grade silicone', 'BPA-free polypropylene']);
      return {
        title: `${brand} Anti-Colic ${material === 'glass' ? 'Glass ' : material.includes('silicone') ? 'Silicone ' : ''}Baby Bottles, ${oz} oz, ${count}-Pack`,
        description: describe(rng, `A ${count}-pack of ${oz} oz anti-colic baby bottles made from ${material} with slow-flow nipples.`, [
          'Vented base reduces air intake during feeds.',
          'Wide neck is easy to fill and clean.',
          'Dishwasher and steriliser safe.',
          'Breast-like nipple shape eases switching.',
        ]),
        attributes: { capacity_oz: oz, pack_size: count, material, bpa_free: true, age_range: '0m+' },
        price: 4.99 + count * (material === 'glass' ? 6 : 4),
      };
    },
  },
  {
    category: 'Baby > Nursery > Baby Monitors',
    count: 6,
    merchants: ['littleLantern', 'voltline'],
    brands: ['Peekaboo Labs', 'Nestling', 'Hushcam'],
    price: [39, 349],
    make: ({ rng, brand }) => {
      const screen = rng.pick([0, 3.5, 5]);
      const wifi = screen === 0 || rng.chance(0.4);
      const res = rng.pick(['720p', '1080p', '2K']);
      return {
        title:
          screen > 0
            ? `${brand} ${screen}" Video Baby Monitor with Camera, ${res}, Night Vision${wifi ? ', Wi-Fi App' : ''}`
            : `${brand} Smart Wi-Fi Baby Monitor, ${res} Camera with Breathing Motion Alerts`,
        description: describe(
          rng,
          screen > 0
            ? `A ${screen}-inch parent unit paired with a ${res} camera over a secure, encrypted link.`
            : `A ${res} Wi-Fi camera that streams to your phone, with sleep tracking and motion alerts.`,
          [
            'Infrared night vision with no visible glow.',
            'Two-way talk and built-in lullabies.',
            'Room temperature and humidity readouts.',
            screen > 0 ? 'Pan, tilt and zoom from the parent unit.' : 'Share access with a partner or grandparent.',
            'Works without a subscription.',
          ],
        ),
        attributes: { resolution: res, wifi, ...(screen > 0 ? { screen_in: screen } : {}), night_vision: true },
        price: 49 + (screen > 0 ? screen * 20 : 80) + (res === '2K' ? 40 : 0) + rng.int(0, 6) * 10 + 0.99,
      };
    },
  },
  {
    category: 'Pet Supplies > Dogs > Dog Beds',
    count: 7,
    merchants: ['kibbleKin', 'kibbleKin', 'mapleMortar'],
    brands: ['Barkley & Bean', 'Hearty Hound', 'Tailwise'],
    price: [29, 249],
    make: ({ rng, brand }) => {
      const size = rng.pick(['Small', 'Medium', 'Large', 'XL']);
      const kind = rng.pick(['Orthopedic Memory Foam Dog Bed', 'Calming Donut Dog Bed', 'Bolster Dog Bed', 'Elevated Cooling Dog Cot']);
      const color = rng.pick(['Grey', 'Oatmeal', 'Espresso', 'Navy', 'Sage']);
      const maxLb = { Small: 25, Medium: 50, Large: 90, XL: 130 }[size] ?? 50;
      return {
        title: `${brand} ${kind}, ${size} (up to ${maxLb} lb), ${color}`,
        description: describe(rng, `A ${size.toLowerCase()} ${kind.toLowerCase()} for dogs up to ${maxLb} lb.`, [
          'Removable, machine-washable cover.',
          'Water-resistant liner protects the foam from accidents.',
          'Non-slip base stays put on hard floors.',
          kind.includes('Cot') ? 'Breathable mesh deck keeps dogs cool in summer.' : 'Raised bolsters give anxious dogs something to lean on.',
          'Chew-resistant fabric and reinforced seams.',
        ]),
        attributes: { size: [size], max_pet_weight_lb: maxLb, color, washable_cover: true },
        price: 24.99 + maxLb * 0.8 + (kind.includes('Orthopedic') ? 40 : 0) + rng.int(0, 3) * 5,
      };
    },
  },
  {
    category: 'Pet Supplies > Dogs > Dog Food',
    count: 6,
    merchants: ['kibbleKin', 'larderLeaf'],
    brands: ['Hearty Hound', 'Prairie Bowl', 'Tailwise'],
    price: [14, 99],
    make: ({ rng, brand }) => {
      const protein = rng.pick(['Chicken & Brown Rice', 'Salmon & Sweet Potato', 'Lamb & Oatmeal', 'Turkey & Pumpkin', 'Beef & Barley']);
      const lb = rng.pick([4, 12, 24, 30]);
      const life = rng.pick(['Adult', 'Puppy', 'Senior', 'Small Breed Adult']);
      const grainFree = protein.includes('Sweet Potato');
      return {
        title: `${brand} ${life} Dry Dog Food, ${protein} Recipe, ${lb} lb Bag`,
        description: describe(
          rng,
          `${grainFree ? 'Grain-free' : 'Wholesome'} ${life.toLowerCase()} dry dog food with real ${(protein.split(' & ')[0] ?? protein).toLowerCase()} as the first ingredient.`,
          [
            'No artificial colours, flavours or preservatives.',
            'Added omega-3 and omega-6 for skin and coat.',
            'Glucosamine for healthy joints.',
            'Made in small batches in the USA.',
            'Kibble sized for easy chewing.',
          ],
        ),
        attributes: { flavor: protein, weight_lb: lb, life_stage: life.toLowerCase(), grain_free: grainFree },
        price: 9.99 + lb * 2.25,
      };
    },
  },
  {
    category: 'Pet Supplies > Cats > Cat Toys',
    count: 6,
    merchants: ['kibbleKin', 'littleLantern'],
    brands: ['Whiskerworks', 'Tailwise'],
    price: [3, 39],
    make: ({ rng, brand }) => {
      const kind = rng.pick([
        'Feather Wand Teaser',
        'Catnip Kicker',
        'Interactive Ball Track',
        'Electronic Chirping Mouse',
        'Crinkle Tunnel',
        'Silvervine Chew Sticks',
      ]);
      const count = rng.pick([1, 1, 3, 6]);
      return {
        title: `${brand} ${kind}${count > 1 ? `, ${count}-Pack` : ''}`,
        description: describe(rng, `A ${kind.toLowerCase()} to keep indoor cats active and curious.`, [
          kind.includes('Catnip') ? 'Filled with organic North American catnip.' : '',
          kind.includes('Kicker') ? 'Durable stitching stands up to bunny kicks.' : '',
          kind.includes('Electronic') ? 'Rechargeable by USB; auto-sleeps after ten minutes.' : '',
          kind.includes('Tunnel') ? 'Folds flat for storage.' : '',
          kind.includes('Silvervine') ? 'Silvervine often excites cats that ignore catnip.' : '',
          'Encourages natural hunting instincts.',
          'Made without small detachable parts.',
        ]),
        attributes: { type: kind.toLowerCase(), pack_size: count, catnip: kind.includes('Catnip') },
        price: 3.49 + rng.int(0, 6) * 2 + count * 1.5 + (kind.includes('Electronic') || kind.includes('Track') ? 10 : 0),
      };
    },
  },
];
