/**
 * PII detection and redaction for text an agent sends: search queries, conversation turns and
 * feedback reasons (docs/search.md). Patterns plus checksums, no model: every rule below
 * trades a little recall on unusual spellings for few false positives on product-search text,
 * which is full of ISBNs, EANs, order numbers, prices, dates, model numbers and versions.
 *
 * Decisions (the hand cases in test/core/pii/pii.test.ts pin most of them):
 * - **Email**: `local@domain.tld`, letters of any script, TLD of 2–24 letters. No IP-literal
 *   domains, no quoted local parts.
 * - **Phone**: NANP needs the area code, and area code and exchange start with 2–9. "555-0132"
 *   alone is NOT a phone: seven digits are indistinguishable from part and model numbers, and a
 *   number without an area code identifies no one by itself. Separators are spaces and dashes in
 *   any mix ("415 555-0132") or dots throughout ("415.555.0132"); "415-555.0132" is not a phone.
 *   Ten bare digits count only after `+1` or a phone word (call, phone, text, mobile, cell…, at
 *   most 24 non-digit characters before), else they are taken for an order or part number.
 *   Other countries only with a `+` country code: 8–15 digits (E.164), single separators, all dots
 *   or all spaces/dashes, dots only with three or more groups (so "+37.774930" stays a latitude).
 *   National formats without `+` ("020 7946 0958", "0044 …") are not detected: they look like
 *   product codes. A phone-shaped product code WITH an area code ("SKU 415-555-0132") is redacted:
 *   it cannot be told apart, and a wrong redaction costs less than a leaked number.
 * - **Card**: 13–19 digits in one block or a printed layout (4-4-4-4, 4-4-4-4-3, Amex 4-6-5,
 *   Diners 4-6-4, spaces or dashes, not mixed), an issuer prefix with a length that issuer uses
 *   (see checksums.ts), and Luhn. 13-digit Visa needs a card word just before it (card, visa,
 *   credit, debit, cc): 13 digits is the length of every EAN-13, and German and Japanese EANs
 *   start with 4.
 *   12–15-digit Maestro is not covered (UPC/EAN/GTIN territory). A card never starts in the middle
 *   of a run of 4-digit groups (tracking numbers), so "2024 4111 1111 1111 1111" is missed.
 * - **SSN**: AAA-GG-SSSS or AAA GG SSSS with SSA validity rules (area not 000/666/900–999, group
 *   not 00, serial not 0000). Nine bare digits only when "SSN" or "social security" comes at most
 *   24 non-digit characters before them ("my SSN is 123456789").
 * - **IBAN**: a registry country code, the exact registry length, single spaces anywhere, any
 *   case, mod 97 = 1 and check digits 02–98. Unknown countries are not matched.
 * - **IP**: IPv4 dotted quads without leading zeros, not part of a longer dotted number and not
 *   right after a version word (v, version, firmware, build…: "firmware 2.1.0.4"); a four-part
 *   version after a product name ("Python 3.11.4.1") is taken for an address. IPv6 full,
 *   compressed and IPv4-mapped; `::1` and `::` are not PII; times and MAC addresses are not IPs.
 * - Text is not normalised first, so offsets stay valid for the caller: full-width digits and
 *   spelt-out numbers ("four one five…") are not detected.
 * - Overlaps resolve longest first, then earliest, then in `PII_TYPES` order; the regexes anchor
 *   their starts at token boundaries, so scanning is linear in the text length.
 */
import { AppError } from '../errors.js';
import { findEmails, findPhones } from './contact.js';
import { findCards, findIbans, findSsns } from './financial.js';
import { PII_TYPES, type PiiMatch, type PiiType } from './match.js';
import { findIps } from './network.js';

export { PII_TYPES, type PiiMatch, type PiiType } from './match.js';

export type PiiPolicy = 'redact' | 'reject';

export interface RedactedText {
  text: string;
  /** Each type found, once, in `PII_TYPES` order. */
  types: PiiType[];
}

const REPLACEMENTS: Readonly<Record<PiiType, string>> = {
  email: '[EMAIL]',
  phone: '[PHONE]',
  card: '[CARD]',
  ssn: '[SSN]',
  iban: '[IBAN]',
  ip: '[IP]',
};

const typeRank = (type: PiiType): number => PII_TYPES.indexOf(type);

function resolveOverlaps(matches: readonly PiiMatch[]): PiiMatch[] {
  const preferred = [...matches].sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start || typeRank(a.type) - typeRank(b.type));
  // Quadratic in the number of matches, which stays in the tens for a 4,000-character text.
  const kept: PiiMatch[] = [];
  for (const m of preferred) {
    if (!kept.some((k) => m.start < k.end && k.start < m.end)) kept.push(m);
  }
  return kept.sort((a, b) => a.start - b.start);
}

/** Personal data in `text`, sorted by position and never overlapping. Pure; never throws. */
export function detectPii(text: string): PiiMatch[] {
  // Every detector needs a digit, an `@` or a colon (IPv6): most conversation turns stop here.
  if (!/[\d@:]/.test(text)) return [];
  const detectors = [findEmails, findPhones, findCards, findSsns, findIbans, findIps];
  return resolveOverlaps(detectors.flatMap((find) => find(text)));
}

/** `text` with each detected value replaced by `[EMAIL]`, `[PHONE]`, `[CARD]`, `[SSN]`, `[IBAN]` or `[IP]`. */
export function redactPii(text: string): RedactedText {
  const matches = detectPii(text);
  let redacted = '';
  let cursor = 0;
  for (const m of matches) {
    redacted += text.slice(cursor, m.start) + REPLACEMENTS[m.type];
    cursor = m.end;
  }
  redacted += text.slice(cursor);
  const present = new Set(matches.map((m) => m.type));
  return { text: redacted, types: PII_TYPES.filter((t) => present.has(t)) };
}

/**
 * Applies an account's PII policy to one field. `redact` returns the redacted text and the types
 * found; `reject` returns the text unchanged when it is clean and otherwise throws `pii_detected`
 * (422) naming `field` and the types, never the values.
 */
export function applyPiiPolicy(text: string, policy: PiiPolicy, field: string): RedactedText {
  const result = redactPii(text);
  if (policy === 'redact' || result.types.length === 0) return result;
  const types = result.types.join(', ');
  throw new AppError('pii_detected', `${field} contains personal data (${types}). Remove it and retry.`, {
    errors: [{ path: field, message: `contains personal data: ${types}` }],
    extensions: { pii_types: result.types },
  });
}
