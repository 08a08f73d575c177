/**
 * PII detection and redaction for text an agent sends: search queries, conversation turns,
 * feedback reasons and conversion metadata. Patterns plus checksums, no model: each rule trades a
 * little recall on unusual spellings for few false positives on product-search text (ISBNs, EANs,
 * order and model numbers, prices, dates, versions). The rules, one per kind, are in
 * docs/search.md ("What counts as personal data"); test/core/pii/pii.test.ts pins them.
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
