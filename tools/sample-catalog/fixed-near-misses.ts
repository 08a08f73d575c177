/**
 * Hand-written products that sit next to the trail-shoe scenario (near misses for search tests)
 * and the colour-variant sets for apparel and phone cases.
 */
import type { FixedProduct } from './types.js';

// Hand-written products are data: each spells out the FixedProduct fields, so they repeat in shape.
const ROAD = 'Footwear > Running Shoes > Road Running Shoes';
const HIKING = 'Footwear > Boots > Hiking Boots';
const SIZES = ['7', '8', '9', '10', '11', '12'];

/** Waterproof shoes under $120 that are NOT trail running shoes, and a dry road shoe. */
const nearMisses: FixedProduct[] = [
  {
    category: ROAD,
    merchant: 'stride',
    brand: 'Kestrel Running',
    price: 115.0,
    title: "Kestrel Running Metro Waterproof Road Running Shoe - Men's",
    description:
      'A waterproof road running shoe for winter commutes and rainy city miles. Smooth, high-abrasion rubber outsole tuned for pavement rather than trails.',
    attributes: {
      color: 'Black / Reflective',
      size: SIZES,
      waterproof: true,
      weight_g: 295,
      material: 'Knit upper, waterproof membrane',
      drop_mm: 10,
      surface: 'road',
      gender: 'men',
    },
  },
  {
    category: ROAD,
    merchant: 'northbound',
    brand: 'Vireo Athletics',
    price: 89.95,
    title: "Vireo Athletics Drizzle Waterproof Road Runner - Women's",
    description: 'Waterproof daily trainer for wet pavement, with reflective details and a soft foam midsole. Flat, road-specific tread.',
    attributes: {
      color: 'Navy / Coral',
      size: SIZES,
      waterproof: true,
      weight_g: 270,
      material: 'Coated mesh, waterproof liner',
      drop_mm: 8,
      surface: 'road',
      gender: 'women',
    },
  },
  {
    category: ROAD,
    merchant: 'stride',
    brand: 'Talus',
    price: 129.95,
    title: 'Talus Velocity 4 Road Running Shoe, Electric Blue',
    description: 'A lightweight, neutral road running shoe with a nylon plate for tempo runs and race day. Breathable mesh upper; not waterproof.',
    attributes: {
      color: 'Electric Blue',
      size: SIZES,
      waterproof: false,
      weight_g: 225,
      material: 'Engineered mesh',
      drop_mm: 8,
      surface: 'road',
      gender: 'unisex',
    },
  },
  {
    category: HIKING,
    merchant: 'trailhead',
    brand: 'Norrland',
    price: 114.95,
    title: 'Norrland Hedda Mid Waterproof Hiking Boot',
    description:
      'A mid-height waterproof hiking boot with a nubuck upper and a stiff shank for carrying a pack. Heavier and more supportive than a trail runner.',
    attributes: {
      color: 'Walnut Brown',
      size: SIZES,
      waterproof: true,
      weight_g: 560,
      material: 'Nubuck leather, waterproof membrane',
      height: 'mid',
      gender: 'unisex',
    },
  },
  {
    category: HIKING,
    merchant: 'northbound',
    brand: 'Fellwalker',
    price: 99.0,
    title: 'Fellwalker Dales Low Waterproof Hiking Shoe',
    description: 'A low-cut waterproof hiking shoe for day hikes and muddy dog walks, with a grippy lugged sole and a padded collar.',
    attributes: {
      color: 'Dark Olive',
      size: SIZES,
      waterproof: true,
      weight_g: 430,
      material: 'Suede and mesh, waterproof membrane',
      height: 'low',
      gender: 'unisex',
    },
  },
];

const hoodieColors = ['Heather Grey', 'Forest Green', 'Navy'] as const;
const hoodies: FixedProduct[] = hoodieColors.map((color) => ({
  category: 'Apparel > Tops > Hoodies',
  merchant: 'trailhead',
  brand: 'Loomstead',
  price: 64.0,
  title: `Loomstead Heavyweight Organic Cotton Pullover Hoodie - ${color}`,
  description:
    'A 400 gsm brushed-back fleece hoodie in organic cotton, with a lined hood, ribbed cuffs and a kangaroo pocket. Garment-dyed, so each colour has a softly lived-in look.',
  attributes: {
    color,
    size: ['XS', 'S', 'M', 'L', 'XL', 'XXL'],
    material: '100% organic cotton fleece',
    fabric_weight_gsm: 400,
    fit: 'relaxed',
    variant_group: 'loomstead-heavyweight-hoodie',
  },
}));

const caseColors = ['Midnight Black', 'Clear', 'Sage Green'] as const;
const phoneCases: FixedProduct[] = caseColors.map((color) => ({
  category: 'Electronics > Accessories > Phone Cases',
  merchant: 'voltline',
  brand: 'Shellguard',
  price: 29.99,
  title: `Shellguard Slim Armor Magnetic Phone Case for 6.1" Phones - ${color}`,
  description:
    'A slim case with raised edges around the screen and camera, air-cushioned corners rated for 3 m drops and built-in magnets for magnetic chargers and mounts.',
  attributes: {
    color,
    material: 'Polycarbonate shell, TPU bumper',
    drop_rating_m: 3,
    magnetic: true,
    fits_screen_in: 6.1,
    variant_group: 'shellguard-slim-armor',
  },
}));

export const NEAR_MISSES_AND_VARIANTS: FixedProduct[] = [...nearMisses, ...hoodies, ...phoneCases];
