import { fours, gs1CheckDigit, luhnCheckDigit, Rng } from './generators.js';

/** Product-search text that looks numeric but holds no personal data. */
export interface NearMiss {
  kind: string;
  sentence: string;
}

type Maker = (r: Rng) => string;

const isbn10 = (r: Rng): string => {
  const body = r.digits(9);
  const sum = [...body].reduce((s, d, i) => s + Number(d) * (10 - i), 0);
  const check = (11 - (sum % 11)) % 11;
  const digits = body + (check === 10 ? 'X' : String(check));
  return r.next() < 0.5 ? digits : `${digits[0]}-${digits.slice(1, 4)}-${digits.slice(4, 9)}-${digits[9]}`;
};

const isbn13 = (r: Rng): string => {
  const body = r.pick(['978', '979']) + r.digits(9);
  const digits = body + gs1CheckDigit(body);
  if (r.next() < 0.4) return digits;
  const registrant = r.int(2, 5);
  return [digits.slice(0, 3), digits[3], digits.slice(4, 4 + registrant), digits.slice(4 + registrant, 12), digits[12]].join('-');
};

const ean13 = (r: Rng): string => {
  // German (400–440) and Japanese (45, 49) EANs start with 4 like Visa cards: the hard case.
  const prefix = r.pick([
    '400',
    '401',
    '403',
    '405',
    '410',
    '419',
    '426',
    '440',
    '45',
    '49',
    '50',
    '30',
    '34',
    '37',
    '690',
    '693',
    '76',
    '80',
    '84',
    '87',
    '54',
    '57',
    '64',
  ]);
  const body = prefix + r.digits(12 - prefix.length);
  return body + gs1CheckDigit(body);
};

const upc = (r: Rng): string => {
  const body = r.pick(['0', '0', '1', '6', '7', '8']) + r.digits(10);
  const digits = body + gs1CheckDigit(body);
  return r.next() < 0.7 ? digits : `${digits[0]} ${digits.slice(1, 6)} ${digits.slice(6, 11)} ${digits[11]}`;
};

const gtin14 = (r: Rng): string => {
  const body = String(r.int(1, 8)) + r.pick(['0', '0', '4', '5', '7']) + r.digits(11);
  return body + gs1CheckDigit(body);
};

const luhnInvalid16 = (r: Rng): string => {
  const body = r.pick(['4', '51', '55', '2221', '6011', '37', '3530']);
  const full = body + r.digits(15 - body.length);
  const wrong = String((Number(luhnCheckDigit(full)) + r.int(1, 9)) % 10);
  const digits = full + wrong;
  return r.pick([digits, fours(digits), fours(digits, '-')]);
};

const MODELS = [
  'SM-G991U',
  'WH-1000XM5',
  'WH-1000XM4',
  'RTX 4090',
  'RTX 3060 Ti',
  'i7-13700K',
  'i9-14900KS',
  'A2338',
  'A2442',
  'KD-65X85K',
  'QN65QN90C',
  'XPS 13 9340',
  'DCD771C2',
  'B0C1X2Y3Z4',
  'MQ2Y3LL/A',
  'SRS-XB100',
  'LG 55UQ7570',
  'EOS R6 Mark II',
  'GTX 1080',
  'DS218+',
  'HX-1200i',
  'NP-FZ100',
  'PS5-CFI-1215A',
  'T480s 20L7',
];

const ORDER_WRAP = ['Where is my order {x}?', 'The order {x} arrived damaged, find me a replacement kettle', 'Re-order the same filters as {x} please'];

/** Agent-side framing around a near-miss phrase; none of it is personal data. */
const FRAMES = [
  '{x}',
  'I am shopping for my sister: {x}. What would you recommend?',
  'user asked: "{x}" - find the best match under $100',
  'Earlier you showed me {x}; anything similar in stock near me?',
];

const pad2 = (n: number): string => String(n).padStart(2, '0');

const KINDS: Record<string, Maker> = {
  'isbn-13': (r) => `Do you have the book with ISBN ${isbn13(r)} in paperback?`,
  'isbn-10': (r) => `Looking for ISBN ${isbn10(r)}, any edition is fine`,
  'amazon-order': (r) => r.pick(ORDER_WRAP).replace('{x}', `#${r.int(100, 999)}-${r.digits(7)}-${r.digits(7)}`),
  'order-id': (r) => {
    const id = r.pick([`ORD-${r.int(2019, 2025)}-${r.digits(6)}`, `PO 45000${r.digits(5)}`, `INV-${r.int(2019, 2025)}-${r.digits(4)}`, `#${r.digits(8)}`]);
    return r.pick(ORDER_WRAP).replace('{x}', id);
  },
  price: (r) =>
    r.pick([
      `Laptops between $${r.int(1, 9)},${r.digits(3)}.99 and $${r.int(1, 9)},${r.digits(3)}.00`,
      `a sofa for ${r.int(100, 3000)}.${r.digits(2)} USD max`,
      `Kaffeemaschine unter €${r.int(50, 999)},${r.digits(2)}`,
      `the £${r.int(1, 2)},${r.digits(3)}.00 bundle or the ${r.int(10, 99)}.99 one`,
    ]),
  date: (r) => {
    const [y, m, d] = [r.int(2015, 2026), pad2(r.int(1, 12)), pad2(r.int(1, 28))];
    return r.pick([
      `delivered on ${y}-${m}-${d}`,
      `needs to arrive by ${m}/${d}/${y}`,
      `bestellt am ${d}.${m}.${y}`,
      `released ${y}/${m}/${d}, still worth it?`,
      `purchased ${d}/${m}/${y} in London`,
    ]);
  },
  time: (r) => {
    const [h, m, s] = [pad2(r.int(0, 23)), pad2(r.int(0, 59)), pad2(r.int(0, 59))];
    return r.pick([
      `deliver between ${h}:${m} and ${h}:${s}`,
      `the stream starts at ${h}:${m}:${s} UTC`,
      `store opens ${r.int(7, 10)}:${m} AM`,
      `lap time 1:${m}:${s}.${r.digits(3)}`,
      `alarm clock that rings at ${h}:${m}`,
    ]);
  },
  model: (r) =>
    r.pick([`Is the ${r.pick(MODELS)} better than the ${r.pick(MODELS)}?`, `case for ${r.pick(MODELS)}`, `replacement battery ${r.pick(MODELS)} genuine`]),
  'model-generated': (r) =>
    r.pick([
      `Samsung SM-${r.letters(1)}${r.digits(3)}${r.letters(1)} case`,
      `Intel i${r.pick([5, 7, 9])}-${r.int(10, 14)}${r.digits(3)}K cooler`,
      `Apple A${r.int(1000, 3000)} charger`,
      `RTX ${r.pick([3060, 3070, 4070, 4080, 4090])} with 24 GB`,
      `Sony KD-${r.pick([55, 65, 75])}X${r.digits(2)}K TV mount`,
    ]),
  upc: (r) => `UPC ${upc(r)}, is it in stock?`,
  ean: (r) => r.pick([`EAN ${ean13(r)} - same item cheaper?`, `barcode ${ean13(r)} on the box`, `GTIN ${ean13(r)}`]),
  gtin14: (r) => `case pack GTIN ${gtin14(r)} for the warehouse`,
  size: (r) =>
    r.pick([
      `size ${r.int(5, 13)}.5 US`,
      '1/2 in. drive socket set',
      `${r.int(1, 7)}/${r.pick([4, 8, 16])}-inch drill bit`,
      '2x4 lumber, 8 ft',
      `monitor with ${r.pick(['1920x1080', '2560x1440', '3840 x 2160'])} resolution`,
      `${r.int(32, 85)}-inch TV`,
      `${r.int(6, 64)} oz tumbler`,
      `M${r.int(3, 12)} x 1.25 bolts`,
    ]),
  version: (r) =>
    r.pick([
      `works with v${r.int(1, 9)}.${r.int(0, 20)}.${r.int(0, 30)}`,
      `Windows 10.0.${r.int(10240, 22631)}`,
      `iOS ${r.int(14, 18)}.${r.int(0, 7)}.${r.int(1, 3)} compatible`,
      `firmware ${r.int(1, 9)}.${r.int(0, 9)}.${r.int(0, 9)}.${r.int(0, 99)}`,
      `version ${r.int(1, 9)}.${r.int(0, 9)}.${r.int(0, 9)}.${r.int(0, 9)}`,
      `build ${r.int(19041, 26100)}.${r.int(100, 4000)}`,
    ]),
  year: (r) =>
    r.pick([
      `a ${r.int(1995, 2025)} model Honda floor mats`,
      `from ${r.int(1990, 2005)} to ${r.int(2006, 2024)}`,
      `the ${r.int(2019, 2024)}-${r.int(2020, 2025)} season jersey`,
    ]),
  zip: (r) => r.pick([`ship to ${r.digits(5)}`, `stores near ${r.digits(5)}-${r.digits(4)}`, `in stock in zip ${r.digits(5)}?`]),
  'luhn-invalid-16': (r) => r.pick([`gift code ${luhnInvalid16(r)}`, `reference ${luhnInvalid16(r)} on my receipt`, `serial ${luhnInvalid16(r)}`]),
  'nine-digit': (r) => {
    const n = `${r.int(1, 9)}${r.digits(8)}`;
    return r.pick([`item ${n}`, `SKU ${n} in blue`, `part number ${n}`, `Home Depot model ${n}`]);
  },
  'ten-digit': (r) => {
    const n = `${r.int(2, 9)}${r.digits(9)}`;
    return r.pick([`order number ${n}`, `tracking ${n}`, `ASIN ${n} still available?`]);
  },
  quantity: (r) =>
    r.pick([
      `${r.int(2, 12)}-pack of socks`,
      `pack of ${r.int(2, 48)}`,
      `${r.int(12, 96)}-count K-cups`,
      `${r.int(2, 6)} x 500 ml bottles`,
      `set of ${r.int(2, 8)}`,
    ]),
  'short-phone-like': (r) => {
    const n = `${r.int(2, 9)}${r.digits(2)}-${r.digits(4)}`;
    return r.pick([`model ${n}`, `part ${n} replacement`, `catalog no. ${n}`]);
  },
  coordinates: (r) => {
    const lat = `${r.int(10, 60)}.${r.digits(r.int(4, 6))}`;
    const lon = `${r.int(1, 170)}.${r.digits(r.int(4, 6))}`;
    return r.pick([`stores near ${lat}, -${lon}`, `(${lat}, ${lon})`, `${lat}° N, ${lon}° W`, `+${lat}-${lon}/`, `lat ${lat} lon -${lon}`, `+${lat}, -${lon}`]);
  },
  'invalid-ssn-shape': (r) => {
    const area = r.pick(['000', '666', String(r.int(900, 999))]);
    const shape = r.pick([`${area}-${r.digits(2)}-${r.digits(4)}`, `${r.int(100, 899)}-00-${r.digits(4)}`, `${r.int(100, 665)}-${r.int(10, 99)}-0000`]);
    return `part no. ${shape} fits my dishwasher`;
  },
  'invalid-nanp-shape': (r) =>
    r.pick([
      `barcode ${r.int(0, 1)}${r.digits(2)}-${r.digits(3)}-${r.digits(4)}`,
      `item (0${r.digits(2)}) ${r.int(2, 9)}${r.digits(2)}-${r.digits(4)}`,
      `code ${r.int(2, 9)}${r.digits(2)}-${r.int(0, 1)}${r.digits(2)}-${r.digits(4)}`,
    ]),
  tracking: (r) => r.pick([`USPS ${fours(`94${r.digits(20)}`)}`, `UPS 1Z${r.alnum(6)}${r.digits(10)}`, `FedEx ${r.digits(12)}`]),
  'rating-ratio': (r) =>
    r.pick([
      `rated ${r.int(3, 4)}.${r.int(0, 9)} out of 5`,
      `${r.pick(['16:9', '21:9', '4:3'])} monitor`,
      `${r.int(10, 95)}% off`,
      `${r.int(1, 3)}:${r.int(1, 9)} ratio mixer`,
    ]),
};

/** `perKind` sentences of each near-miss kind, the same for the same seed. */
export function nearMisses(seed: number, perKind: number): NearMiss[] {
  const rng = new Rng(seed);
  return Object.entries(KINDS).flatMap(([kind, make]) =>
    Array.from({ length: perKind }, () => ({ kind, sentence: rng.pick(FRAMES).replace('{x}', make(rng)) })),
  );
}
