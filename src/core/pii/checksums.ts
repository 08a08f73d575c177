/** Luhn (mod 10) over a string of ASCII digits, as printed on payment cards. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

interface IinRange {
  low: string;
  high: string;
  lengths: readonly number[];
}

const SIXTEEN_TO_NINETEEN = [16, 17, 18, 19] as const;

// Issuer prefixes and the lengths each network issues. 12–15-digit Maestro ranges are left out on
// purpose: that length band is where UPC-A, EAN-13 and GTIN-14 product codes live.
const IIN_RANGES: readonly IinRange[] = [
  { low: '4', high: '4', lengths: [16, 19] }, // Visa (13 handled by the caller: needs context)
  { low: '51', high: '55', lengths: [16] }, // Mastercard
  { low: '2221', high: '2720', lengths: [16] }, // Mastercard 2-series
  { low: '34', high: '34', lengths: [15] }, // Amex
  { low: '37', high: '37', lengths: [15] }, // Amex
  { low: '6011', high: '6011', lengths: SIXTEEN_TO_NINETEEN }, // Discover
  { low: '644', high: '649', lengths: SIXTEEN_TO_NINETEEN }, // Discover
  { low: '65', high: '65', lengths: SIXTEEN_TO_NINETEEN }, // Discover
  { low: '3528', high: '3589', lengths: SIXTEEN_TO_NINETEEN }, // JCB
  { low: '300', high: '305', lengths: [14, ...SIXTEEN_TO_NINETEEN] }, // Diners Club
  { low: '36', high: '36', lengths: [14, ...SIXTEEN_TO_NINETEEN] }, // Diners Club International
  { low: '38', high: '39', lengths: SIXTEEN_TO_NINETEEN }, // Diners Club
  { low: '62', high: '62', lengths: SIXTEEN_TO_NINETEEN }, // UnionPay
  { low: '2200', high: '2204', lengths: SIXTEEN_TO_NINETEEN }, // Mir
  { low: '6759', high: '6759', lengths: SIXTEEN_TO_NINETEEN }, // Maestro UK
  { low: '6761', high: '6763', lengths: SIXTEEN_TO_NINETEEN }, // Maestro
];

/**
 * How plausible a digit string is as a card number by its issuer prefix and length (not Luhn):
 * `yes`, `with-context` (13-digit Visa: the length of every EAN-13, so only next to a card word),
 * or `no`.
 */
export function cardPlausibility(digits: string): 'yes' | 'with-context' | 'no' {
  if (digits.length === 13 && digits.startsWith('4')) return 'with-context';
  for (const range of IIN_RANGES) {
    const prefix = digits.slice(0, range.low.length);
    if (prefix >= range.low && prefix <= range.high && range.lengths.includes(digits.length)) return 'yes';
  }
  return 'no';
}

/** IBAN lengths from the SWIFT IBAN registry, for the countries an agent is likely to meet. */
export const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MR: 27,
  MT: 31,
  MU: 30,
  NL: 18,
  NO: 15,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  SA: 24,
  SC: 31,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
};

/**
 * ISO 13616 check of a compact, upper-case IBAN: mod 97 of the rearranged number is 1. Check
 * digits 00, 01 and 99 are never issued (the standard yields 02–98) even where mod 97 would pass.
 */
export function ibanChecksumValid(iban: string): boolean {
  const check = iban.slice(2, 4);
  if (check === '00' || check === '01' || check === '99') return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (let i = 0; i < rearranged.length; i++) {
    const code = rearranged.charCodeAt(i);
    if (code >= 48 && code <= 57) remainder = (remainder * 10 + code - 48) % 97;
    else if (code >= 65 && code <= 90) remainder = (remainder * 100 + code - 55) % 97;
    else return false;
  }
  return remainder === 1;
}
