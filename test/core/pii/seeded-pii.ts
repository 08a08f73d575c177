import type { PiiType } from '../../../src/core/pii/pii.js';
import { fours, groupBy, ibanCheckDigits, luhnCheckDigit, Rng } from './generators.js';

/** One personal value embedded in an agent sentence; `sentence.slice(start, end) === value`. */
export interface SeededPii {
  type: PiiType;
  format: string;
  value: string;
  sentence: string;
  start: number;
  end: number;
}

interface Value {
  value: string;
  format: string;
  /** Formats the detector accepts only after a context word: the label must sit right before the value. */
  needsLabel?: boolean;
}

const FIRST = ['jane', 'john', 'maria', 'wei', 'aisha', 'lukas', 'sofia', 'kenji', 'olu', 'priya', 'mateo', 'emma', 'josé', 'zoë'];
const LAST = ['doe', 'smith', 'garcia', 'chen', 'okafor', 'mueller', 'rossi', 'tanaka', 'patel', 'novak', 'kowalski'];
const DOMAINS = [
  'gmail.com',
  'outlook.com',
  'yahoo.co.uk',
  'mail.example.com',
  'corp.acme.io',
  'students.uni-heidelberg.de',
  'proton.me',
  'icloud.com',
  'eu.shop-mail.fr',
  'example.org',
  'x.co',
];
const TAGS = ['shoes', 'orders', 'aisle', '2024', 'gifts'];

function email(rng: Rng): Value {
  const first = rng.pick(FIRST);
  const last = rng.pick(LAST);
  const styles = [
    `${first}.${last}`,
    `${first}_${last}`,
    `${first[0]}${last}${rng.int(1, 99)}`,
    `${first}-${last}`,
    first,
    `${first}.${last}+${rng.pick(TAGS)}`,
  ];
  const style = rng.int(0, styles.length - 1);
  let local = styles[style] ?? first;
  if (rng.next() < 0.15) local = local.toUpperCase();
  return { value: `${local}@${rng.pick(DOMAINS)}`, format: `email-${style}` };
}

function phone(rng: Rng): Value {
  const area = `${rng.int(2, 9)}${rng.digits(2)}`;
  const exchange = `${rng.int(2, 9)}${rng.digits(2)}`;
  const line = rng.digits(4);
  const d = (n: number) => rng.digits(n);
  const formats: Array<[string, () => string]> = [
    ['nanp-parens', () => `(${area}) ${exchange}-${line}`],
    ['nanp-dashes', () => `${area}-${exchange}-${line}`],
    ['nanp-dots', () => `${area}.${exchange}.${line}`],
    ['nanp-spaces', () => `${area} ${exchange} ${line}`],
    ['nanp-space-dash', () => `${area} ${exchange}-${line}`],
    ['nanp-plus1-spaces', () => `+1 ${area} ${exchange} ${line}`],
    ['nanp-plus1-dashes', () => `+1-${area}-${exchange}-${line}`],
    ['nanp-plus1-parens', () => `+1 (${area}) ${exchange}-${line}`],
    ['nanp-1-dashes', () => `1-${area}-${exchange}-${line}`],
    ['nanp-plus1-compact', () => `+1${area}${exchange}${line}`],
    ['uk-london', () => `+44 20 ${d(4)} ${d(4)}`],
    ['uk-mobile', () => `+44 7${d(3)} ${d(6)}`],
    ['uk-trunk', () => `+44 (0)20 ${d(4)} ${d(4)}`],
    ['uk-compact', () => `+44${d(10)}`],
    ['de-berlin', () => `+49 30 ${d(rng.int(6, 8))}`],
    ['de-mobile', () => `+49 151 ${d(8)}`],
    ['de-dashes', () => `+49-89-${d(7)}`],
    ['fr', () => `+33 ${rng.int(1, 9)} ${d(2)} ${d(2)} ${d(2)} ${d(2)}`],
    ['au', () => `+61 2 ${d(4)} ${d(4)}`],
    ['jp', () => `+81 3-${d(4)}-${d(4)}`],
    ['in', () => `+91 9${d(4)} ${d(5)}`],
    ['es', () => `+34 6${d(2)} ${d(3)} ${d(3)}`],
    ['nl', () => `+31 6 ${d(8)}`],
    ['ie', () => `+353 1 ${d(3)} ${d(4)}`],
    ['br', () => `+55 11 9${d(4)}-${d(4)}`],
    ['cn', () => `+86 13${d(1)} ${d(4)} ${d(4)}`],
    ['ch-dots', () => `+41.44.${d(3)}.${d(2)}.${d(2)}`],
  ];
  if (rng.next() < 0.08) return { value: `${area}${exchange}${line}`, format: 'nanp-bare-with-label', needsLabel: true };
  const [format, make] = rng.pick(formats);
  return { value: make(), format };
}

interface CardBrand {
  name: string;
  prefix: (rng: Rng) => string;
  lengths: readonly number[];
}

const CARD_BRANDS: readonly CardBrand[] = [
  { name: 'visa', prefix: () => '4', lengths: [16, 16, 16, 19] },
  { name: 'mastercard', prefix: (r) => String(r.int(51, 55)), lengths: [16] },
  { name: 'mastercard-2series', prefix: (r) => String(r.int(2221, 2720)), lengths: [16] },
  { name: 'amex', prefix: (r) => r.pick(['34', '37']), lengths: [15] },
  { name: 'discover', prefix: (r) => r.pick(['6011', '65', String(r.int(644, 649))]), lengths: [16] },
  { name: 'jcb', prefix: (r) => String(r.int(3528, 3589)), lengths: [16] },
  { name: 'diners', prefix: (r) => r.pick(['36', String(r.int(300, 305))]), lengths: [14] },
  { name: 'unionpay', prefix: () => '62', lengths: [16, 19] },
  { name: 'visa-13', prefix: () => '4', lengths: [13] },
];

function layoutOf(digits: string, rng: Rng): string {
  const sep = rng.pick([' ', '-']);
  if (rng.next() < 0.35) return digits;
  if (digits.length === 15) return groupBy(digits, [4, 6, 5], sep);
  if (digits.length === 14) return groupBy(digits, [4, 6, 4], sep);
  return fours(digits, sep);
}

function card(rng: Rng): Value {
  const brand = rng.pick(CARD_BRANDS);
  const length = rng.pick(brand.lengths);
  const prefix = brand.prefix(rng);
  const body = prefix + rng.digits(length - prefix.length - 1);
  const digits = body + luhnCheckDigit(body);
  if (length === 13) return { value: digits, format: 'visa-13-with-label', needsLabel: true };
  return { value: layoutOf(digits, rng), format: `${brand.name}-${length}` };
}

function ssn(rng: Rng): Value {
  let area = rng.int(1, 899);
  if (area === 666) area = 667;
  const parts = [String(area).padStart(3, '0'), String(rng.int(1, 99)).padStart(2, '0'), String(rng.int(1, 9999)).padStart(4, '0')];
  const roll = rng.next();
  if (roll < 0.5) return { value: parts.join('-'), format: 'ssn-dashes' };
  if (roll < 0.75) return { value: parts.join(' '), format: 'ssn-spaces' };
  return { value: parts.join(''), format: 'ssn-bare-with-label', needsLabel: true };
}

const BBANS: ReadonlyArray<[string, (r: Rng) => string]> = [
  ['DE', (r) => r.digits(18)],
  ['GB', (r) => r.letters(4) + r.digits(14)],
  ['FR', (r) => r.digits(10) + r.alnum(11) + r.digits(2)],
  ['NL', (r) => r.letters(4) + r.digits(10)],
  ['ES', (r) => r.digits(20)],
  ['IT', (r) => r.letters(1) + r.digits(10) + r.alnum(12)],
  ['BE', (r) => r.digits(12)],
  ['CH', (r) => r.digits(5) + r.alnum(12)],
  ['AT', (r) => r.digits(16)],
  ['PL', (r) => r.digits(24)],
  ['SE', (r) => r.digits(20)],
  ['NO', (r) => r.digits(11)],
  ['IE', (r) => r.letters(4) + r.digits(14)],
  ['PT', (r) => r.digits(21)],
  ['DK', (r) => r.digits(14)],
  ['LU', (r) => r.digits(3) + r.alnum(13)],
  ['MT', (r) => r.letters(4) + r.digits(5) + r.alnum(18)],
];

function iban(rng: Rng): Value {
  const [country, bbanOf] = rng.pick(BBANS);
  const bban = bbanOf(rng);
  const compact = `${country}${ibanCheckDigits(country, bban)}${bban}`;
  const roll = rng.next();
  if (roll < 0.6) return { value: fours(compact), format: `iban-${country}-spaced` };
  if (roll < 0.92) return { value: compact, format: `iban-${country}-compact` };
  return { value: compact.toLowerCase(), format: `iban-${country}-lowercase` };
}

function ip(rng: Rng): Value {
  const octet = () => rng.int(0, 255);
  const group = () => rng.hex(rng.int(1, 4));
  const formats: Array<[string, () => string]> = [
    ['ipv4-private', () => `192.168.${octet()}.${rng.int(1, 254)}`],
    ['ipv4-ten', () => `10.${octet()}.${octet()}.${octet()}`],
    ['ipv4-public', () => `${rng.int(1, 223)}.${octet()}.${octet()}.${octet()}`],
    ['ipv4-172', () => `172.${rng.int(16, 31)}.${octet()}.${octet()}`],
    ['ipv6-full', () => Array.from({ length: 8 }, () => rng.hex(4)).join(':')],
    [
      'ipv6-full-upper',
      () =>
        Array.from({ length: 8 }, () => group())
          .join(':')
          .toUpperCase(),
    ],
    ['ipv6-compressed', () => `2001:db8:${group()}::${group()}`],
    ['ipv6-link-local', () => `fe80::${group()}:${group()}:${group()}:${group()}`],
    ['ipv6-mapped', () => `::ffff:${octet()}.${octet()}.${octet()}.${octet()}`],
    ['ipv6-prefix', () => `2a02:${group()}:${group()}:${group()}::${group()}`],
  ];
  const [format, make] = rng.pick(formats);
  return { value: make(), format };
}

const LABELS: Record<PiiType, readonly string[]> = {
  email: ['email', 'e-mail', 'email address', 'contact'],
  phone: ['phone', 'cell', 'mobile', 'phone number'],
  card: ['card', 'card number', 'credit card', 'visa'],
  ssn: ['SSN', 'social security number', 'ssn'],
  iban: ['IBAN', 'bank account', 'account'],
  ip: ['IP', 'IP address', 'server'],
};

/** `{label}` right before `{x}`: a context word works in these. */
const LABELLED = [
  'my {label} is {x}, I need running shoes',
  'I need trail running shoes in size 10.5 US. My {label} is {x}',
  'Looking for a 27" 4K monitor; my {label}: {x} (for the order)',
  'user: "please remember my {label} {x} and show me 3-pack socks"',
  'Can you find noise-cancelling headphones like the WH-1000XM5? {label} {x}',
  'Compare the RTX 4090 and 4080 for me, oh and my {label} is {x}!',
  'I bought a blender on 2024-03-15 for $129.99; {label} {x}. Want a similar one',
];
const UNLABELLED = [
  'Find a waterproof jacket under $200 and send the deals to {x}.',
  '{x} is my {label}. Any good espresso machines under 300 dollars?',
  'Ship the standing desk (60x30 in.) to me, {label}={x}, thanks',
  '{x}',
  'Gift ideas for my dad ({x}) under 50 dollars, he likes fishing',
];

const MAKERS: Record<PiiType, (rng: Rng) => Value> = { email, phone, card, ssn, iban, ip };

/** `perType` seeded values of every type, each in a sentence, the same for the same seed. */
export function seededPii(seed: number, perType: number): SeededPii[] {
  const rng = new Rng(seed);
  const corpus: SeededPii[] = [];
  for (const type of Object.keys(MAKERS) as PiiType[]) {
    for (let i = 0; i < perType; i++) {
      const { value, format, needsLabel } = MAKERS[type](rng);
      const template = rng.pick(needsLabel || rng.next() < 0.6 ? LABELLED : UNLABELLED);
      const [before = '', after = ''] = template.replace('{label}', rng.pick(LABELS[type])).split('{x}');
      corpus.push({ type, format, value, sentence: before + value + after, start: before.length, end: before.length + value.length });
    }
  }
  return corpus;
}
