import { describe, expect, it } from 'vitest';
import { cardPlausibility, IBAN_LENGTHS, ibanChecksumValid, luhnValid } from '../../../src/core/pii/checksums.js';
import { ibanCheckDigits } from './generators.js';

// Published test numbers of the card networks and example IBANs of the SWIFT registry: independent
// of both the detector and the corpus generator.
const TEST_CARDS = [
  '4111111111111111',
  '4012888888881881',
  '5555555555554444',
  '5105105105105100',
  '2221000000000009',
  '378282246310005',
  '6011111111111117',
  '3530111333300000',
  '3566002020360505',
  '30569309025904',
  '36227206271667',
  '6200000000000005',
];
const REGISTRY_IBANS = [
  'DE89370400440532013000',
  'GB29NWBK60161331926819',
  'FR1420041010050500013M02606',
  'CH9300762011623852957',
  'BE68539007547034',
  'AT611904300234573201',
  'IE29AIBK93115212345678',
  'ES9121000418450200051332',
  'DK5000400440116243',
  'FI2112345600000785',
  'NL91ABNA0417164300',
  'IT60X0542811101000000123456',
  'NO9386011117947',
  'PL61109010140000071219812874',
  'MT84MALT011000012345MTLCAST001S',
  'SE4550000000058398257466',
  'PT50000201231234567890154',
  'LU280019400644750000',
];

describe('luhnValid', () => {
  it('accepts the networks’ published test numbers', () => {
    expect(TEST_CARDS.filter((c) => !luhnValid(c))).toEqual([]);
  });

  it('rejects every single-digit change of a valid number', () => {
    const card = '4111111111111111';
    for (let i = 0; i < card.length; i++) {
      const changed = card.slice(0, i) + String((Number(card[i]) + 1) % 10) + card.slice(i + 1);
      expect(luhnValid(changed), changed).toBe(false);
    }
  });
});

describe('cardPlausibility', () => {
  it('knows every test number’s issuer and length', () => {
    expect(TEST_CARDS.filter((c) => cardPlausibility(c) !== 'yes')).toEqual([]);
  });

  it.each([
    ['4222222222222', 'with-context'], // 13-digit Visa: the EAN-13 length
    ['5555555555554', 'no'], // Mastercard is 16 digits only
    ['3782822463100', 'no'], // Amex is 15
    ['9780134685991', 'no'], // an ISBN
    ['1234567812345670', 'no'], // no issuer starts with 1
    ['37828224631000', 'no'], // Amex prefix, 14 digits
    ['2720990000000007', 'yes'], // top of the Mastercard 2-series
    ['2721000000000006', 'no'], // just above it
  ] as const)('%s is %s', (digits, expected) => {
    expect(cardPlausibility(digits)).toBe(expected);
  });
});

describe('ibanChecksumValid', () => {
  it('accepts the registry examples at their registry lengths', () => {
    expect(REGISTRY_IBANS.filter((i) => !ibanChecksumValid(i) || IBAN_LENGTHS[i.slice(0, 2)] !== i.length)).toEqual([]);
  });

  it('rejects changed check digits and a swapped pair', () => {
    expect(ibanChecksumValid('DE88370400440532013000')).toBe(false);
    expect(ibanChecksumValid('DE89370400440532031000')).toBe(false);
  });

  // Check digits c and c ± 97 are the same residue: where the standard issues 98, 97 or 02, the
  // never-issued 01, 00 or 99 would pass a bare mod-97 test.
  it.each([
    ['98', '01'],
    ['97', '00'],
    ['02', '99'],
  ])('rejects %s written as the never-issued %s', (issued, alias) => {
    let bban = 0;
    while (ibanCheckDigits('DE', String(bban).padStart(18, '0')) !== issued) bban++;
    const body = String(bban).padStart(18, '0');
    expect(ibanChecksumValid(`DE${issued}${body}`)).toBe(true);
    expect(BigInt(`${body}1314${alias}`) % 97n).toBe(1n);
    expect(ibanChecksumValid(`DE${alias}${body}`)).toBe(false);
  });
});
