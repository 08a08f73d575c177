import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError, toProblem } from '../../../src/core/errors.js';
import { applyPiiPolicy, detectPii, PII_TYPES, type PiiType, redactPii } from '../../../src/core/pii/pii.js';
import { fours, ibanCheckDigits } from './generators.js';

const found = (text: string) => detectPii(text).map((m) => ({ type: m.type, value: text.slice(m.start, m.end) }));

describe('detectPii', () => {
  describe.each<[PiiType, string[]]>([
    ['email', ['jane.doe+shoes@mail.example.co.uk', 'JOSÉ@correo.es', 'bob_smith@x.io', 'a.b-c@sub.domain.org']],
    [
      'phone',
      [
        '(415) 555-0132',
        '415-555-0132',
        '415.555.0132',
        '415 555-0132',
        '+1 415 555 0132',
        '1-800-555-0199',
        '+44 20 7946 0958',
        '+49 30 901820',
        '+44 (0)20 7946 0958',
        '+81 3-1234-5678',
        '+442079460958',
      ],
    ],
    [
      'card',
      [
        '4111 1111 1111 1111',
        '5555-5555-5555-4444',
        '378282246310005',
        '3782 822463 10005',
        '6011111111111117',
        '3530111333300000',
        '3056 930902 5904',
        '2221000000000009',
      ],
    ],
    ['ssn', ['123-45-6789', '123 45 6789', '078-05-1120']],
    [
      'iban',
      [
        'DE89 3704 0044 0532 0130 00',
        'GB29 NWBK 6016 1331 9268 19',
        'FR14 2004 1010 0505 0001 3M02 606',
        'CH9300762011623852957',
        'gb29nwbk60161331926819',
        'NO93 8601 1117 947',
      ],
    ],
    [
      'ip',
      [
        '192.168.1.1',
        '8.8.8.8',
        '2001:0db8:85a3:0000:0000:8a2e:0370:7334',
        '2001:db8::8a2e:370:7334',
        'fe80::1ff:fe23:4567:890a',
        '::ffff:192.0.2.128',
        '2001:DB8::1',
      ],
    ],
  ])('%s', (type, values) => {
    it.each(values)('finds %s inside a sentence, exactly', (value) => {
      expect(found(`I need running shoes, my details: ${value}. Thanks!`)).toEqual([{ type, value }]);
    });
  });

  it.each([
    ['call me at 4155550132 about the sofa', '4155550132', 'phone'], // bare ten digits after a phone word
    ['my SSN is 123456789 if you need it', '123456789', 'ssn'],
    ['social security number: 078051120', '078051120', 'ssn'],
    ['my card number is 4222222222222', '4222222222222', 'card'], // 13-digit Visa after a card word
    ['card 4111 1111 1111 1111 123 exp 12/27', '4111 1111 1111 1111', 'card'], // CVV after the number
    ['server at [2001:db8::1]:8080 is down', '2001:db8::1', 'ip'],
    ['reach fe80::1:2: it is up', 'fe80::1:2', 'ip'],
    ['proxy 10.0.0.1:3128 blocks the shop', '10.0.0.1', 'ip'],
    ['mail ...jo@example.com please', 'jo@example.com', 'email'],
  ])('in %j finds %s as %s', (text, value, type) => {
    expect(found(text)).toEqual([{ type, value }]);
  });

  it.each([
    'model 555-0132 replacement filter', // 7 digits, no area code: not a phone (decision)
    'order 4155550132 never arrived', // bare ten digits without a phone word
    'part 415-555.0132', // a dot mixed with another separator
    'barcode 123-456-7890', // area code cannot start with 1
    'gift code 4111 1111 1111 1112', // Luhn fails
    'EAN 4222222222222 on the box', // Luhn-valid 13 digits starting with 4, no card word
    'ISBN 978-0-13-468599-1 and 0-306-40615-2',
    'order #112-7834561-1234567 and ORD-2024-000123',
    'part no. 000-12-3456, 666-12-3456, 900-12-3456, 123-00-4567, 123-45-0000',
    'item 123456789 in blue',
    'IBAN DE88 3704 0044 0532 0130 00 (wrong check digits)',
    'IBAN DE89 3704 0044 0532 0130 001 (too long)',
    'ZZ89 3704 0044 0532 0130 00 is no country',
    'v1.2.3.4, firmware 2.1.0.4, version 4.2.0.1, 1.2.3, 256.1.1.1, 10.0.19045.3693, 1.2.3.4.5, 01.02.03.04',
    'loopback ::1 and :: and 10:30:45 and MAC 00:1A:2B:3C:4D:5E',
    'stores near +37.774930, -122.419416 or +37.7749-122.4194/',
    '+2 years warranty, +15% off, DS218+ 2-bay',
    'SM-G991U, WH-1000XM5, RTX 4090, i7-13700K, A2338, $1,299.99, 1920x1080, 94107-1234',
  ])('finds nothing in %j', (text) => {
    expect(found(text)).toEqual([]);
  });

  it('misses a card that continues a run of 4-digit groups (documented limit)', () => {
    expect(found('USPS 9400 1000 4111 1111 1111 1111 22')).toEqual([]);
    expect(found('year 2024 4111 1111 1111 1111')).toEqual([]);
  });

  it('prefers the longest match when detectors overlap', () => {
    // The BBAN holds a Luhn-valid Visa number in its first four groups.
    const bban = '411111111111111111';
    const iban = fours(`DE${ibanCheckDigits('DE', bban)}${bban}`);
    expect(found(`IBAN ${iban} please`)).toEqual([{ type: 'iban', value: iban }]);
    expect(found('mapped ::ffff:192.0.2.128 here')).toEqual([{ type: 'ip', value: '::ffff:192.0.2.128' }]);
    expect(found('tel +44 207 94 6095 (an SSN shape inside)')).toEqual([{ type: 'phone', value: '+44 207 94 6095' }]);
  });

  it('returns sorted, non-overlapping, in-bounds matches for any text', () => {
    const unit = fc.constantFrom(...'0123456789  -.:+@()[]/#$,abcdefDEGBxyz_'.split(''), 'é', '\n', '4111', '::', '192.168.');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 120 }), (text) => {
        const matches = detectPii(text);
        let previousEnd = 0;
        for (const m of matches) {
          expect(PII_TYPES).toContain(m.type);
          expect(m.start).toBeGreaterThanOrEqual(previousEnd);
          expect(m.end).toBeGreaterThan(m.start);
          expect(m.end).toBeLessThanOrEqual(text.length);
          previousEnd = m.end;
        }
        expect(redactPii(text).types).toEqual(PII_TYPES.filter((t) => matches.some((m) => m.type === t)));
      }),
      { numRuns: 2000, seed: 42 },
    );
  });
});

describe('redactPii', () => {
  it.each([
    ['my email is jane@example.com, I need running shoes', 'my email is [EMAIL], I need running shoes', ['email']],
    ['Call (415) 555-0132 or mail bob@x.io; card 4111 1111 1111 1111.', 'Call [PHONE] or mail [EMAIL]; card [CARD].', ['email', 'phone', 'card']],
    ['from 10.0.0.1, IBAN GB29 NWBK 6016 1331 9268 19, SSN 123-45-6789', 'from [IP], IBAN [IBAN], SSN [SSN]', ['ssn', 'iban', 'ip']],
    ['a@b.io and c@d.io', '[EMAIL] and [EMAIL]', ['email']],
    ['waterproof hiking boots, size 10.5 US, under $150', 'waterproof hiking boots, size 10.5 US, under $150', []],
  ])('redacts %j', (text, expected, types) => {
    expect(redactPii(text)).toEqual({ text: expected, types });
  });
});

describe('applyPiiPolicy', () => {
  const text = 'ship to jane@example.com, card 4111 1111 1111 1111';

  it('redacts under the redact policy', () => {
    expect(applyPiiPolicy(text, 'redact', 'query')).toEqual({ text: 'ship to [EMAIL], card [CARD]', types: ['email', 'card'] });
  });

  it('passes clean text through under the reject policy', () => {
    expect(applyPiiPolicy('blue running shoes', 'reject', 'query')).toEqual({ text: 'blue running shoes', types: [] });
  });

  it('throws pii_detected naming the field and types, never the values', () => {
    let thrown: unknown;
    try {
      applyPiiPolicy(text, 'reject', 'conversation_context[2].content');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    const error = thrown as AppError;
    expect(error.code).toBe('pii_detected');
    expect(error.status).toBe(422);
    expect(error.detail).toContain('conversation_context[2].content');
    expect(error.detail).toContain('email, card');
    expect(error.extensions).toEqual({ pii_types: ['email', 'card'] });
    const rendered = JSON.stringify({ message: error.message, problem: toProblem(error, 'req_1') });
    for (const fragment of ['jane', 'example.com', '4111', '1111']) expect(rendered).not.toContain(fragment);
  });
});
