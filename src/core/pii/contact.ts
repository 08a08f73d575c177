import { type PiiMatch, precededBy } from './match.js';

// Anchored at each '@' and read from the start of its local part (sticky), so text without an
// '@' costs one indexOf and each '@' at most 64 characters back plus its domain.
const EMAIL_AT = /[\p{L}\p{N}._%+-]{1,64}@[\p{L}\p{N}-]{1,63}(?:\.[\p{L}\p{N}-]{1,63})*\.\p{L}{2,24}(?![\p{L}\p{N}-]|\.[\p{L}\p{N}])/uy;
const LOCAL_CHAR = /[\p{L}\p{N}._%+-]/u;
const MAX_LOCAL = 64;

/** Where the local part before the '@' at `at` starts, or undefined when it is longer than 64. */
function localStart(text: string, at: number): number | undefined {
  let start = at;
  while (start > 0 && LOCAL_CHAR.test(text[start - 1] ?? '')) {
    if (at - start === MAX_LOCAL) return undefined;
    start--;
  }
  return start;
}

/** Email addresses; `john..doe@` or `-host.com` style malformed parts are not addresses. */
export function findEmails(text: string): PiiMatch[] {
  const found: PiiMatch[] = [];
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    let start = localStart(text, at);
    if (start === undefined) continue;
    // "see ...jo@x.com": leading dots are punctuation, not part of the local part.
    while (text[start] === '.') start++;
    EMAIL_AT.lastIndex = start;
    const m = EMAIL_AT.exec(text);
    if (m === null) continue;
    const local = text.slice(start, at);
    const labels = m[0].slice(at - start + 1).split('.');
    if (local === '' || local.endsWith('.') || local.includes('..')) continue;
    if (labels.some((l) => l.startsWith('-') || l.endsWith('-'))) continue;
    found.push({ type: 'email', start, end: start + m[0].length });
  }
  return found;
}

// NANP: area code and exchange start with 2–9. Groups: (1) prefix, (2) parenthesised area code,
// (3) bare area code, (4) its separator, (5) exchange, (6) its separator.
const NANP = /(?<![\w+.-])(\+?1[ .-]?)?(?:\(([2-9]\d\d)\) ?|([2-9]\d\d)([ .-])?)([2-9]\d\d)([ .-])?\d{4}(?!\w|[.-]\d)/g;
const PHONE_WORDS = /\b(?:phone|call|text|tel|mobile|cell|fax|whatsapp|sms|reach me)\b\D{0,24}$/i;

/** North American numbers with an area code: (415) 555-0132, 415-555-0132, +1 415 555 0132. */
function findNanpPhones(text: string): PiiMatch[] {
  const found: PiiMatch[] = [];
  for (const m of text.matchAll(NANP)) {
    const [, prefix, parenArea, , areaSep, , exchangeSep] = m;
    // "415 555-0132" is common; a lone dot more often belongs to a decimal or version number.
    const separated = areaSep !== undefined && exchangeSep !== undefined && (areaSep === '.') === (exchangeSep === '.');
    const consistent = parenArea !== undefined || separated;
    // Ten bare digits are as often an order or part number: only with +1 or a phone word before.
    const bare = parenArea === undefined && areaSep === undefined && exchangeSep === undefined;
    const bareAccepted = bare && (prefix?.startsWith('+') === true || precededBy(text, m.index, PHONE_WORDS));
    if (consistent || bareAccepted) found.push({ type: 'phone', start: m.index, end: m.index + m[0].length });
  }
  return found;
}

const INTERNATIONAL_START = /(?<![\w+])\+(?=[2-9])/g;
// Digits of a `+` number: E.164's ceiling, and a floor below which a match is not taken for a
// phone. Like financial.ts's card limits in form only: another standard, other numbers.
const E164_MIN_DIGITS = 8;
const E164_MAX_DIGITS = 15;

interface PhoneSpan {
  end: number;
  digits: number;
  groups: number;
  dotted: boolean;
}

/** One digit group at `i`, bare ("7946") or parenthesised ("(0)", "(20)"). */
function readGroup(text: string, i: number): { end: number; digits: number; paren: boolean } | undefined {
  const paren = text[i] === '(';
  const first = paren ? i + 1 : i;
  let j = first;
  while (j < text.length && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j++;
  const digits = j - first;
  if (digits === 0) return undefined;
  if (!paren) return { end: j, digits, paren };
  return text[j] === ')' && digits <= 4 ? { end: j + 1, digits, paren } : undefined;
}

/**
 * Reads digit groups after a `+`: single separators, all dots or all drawn from space and dash
 * ("+81 3-1234-5678"), a parenthesised trunk or area part ("+44 (0)20"), at most 15 digits.
 */
function readInternational(text: string, plus: number): PhoneSpan {
  const span: PhoneSpan = { end: plus, digits: 0, groups: 0, dotted: false };
  let i = plus + 1;
  let separated = false;
  for (;;) {
    const group = readGroup(text, i);
    if (group === undefined || span.digits + group.digits > E164_MAX_DIGITS) break;
    span.end = i = group.end;
    span.digits += group.digits;
    span.groups++;
    // A parenthesised part joins its neighbours without a separator: "+44(0)20".
    if ((group.paren && /\d/.test(text[i] ?? '')) || text[i] === '(') continue;
    const sep = text[i] ?? '';
    if (sep === '' || !' .-'.includes(sep) || !/[\d(]/.test(text[i + 1] ?? '')) break;
    if (separated && span.dotted !== (sep === '.')) break;
    span.dotted = sep === '.';
    separated = true;
    i++;
  }
  return span;
}

/** Numbers written with a `+` country code (other than +1): +44 20 7946 0958, +49 30 901820. */
function findInternationalPhones(text: string): PiiMatch[] {
  const found: PiiMatch[] = [];
  for (const m of text.matchAll(INTERNATIONAL_START)) {
    const span = readInternational(text, m.index);
    if (span.digits < E164_MIN_DIGITS) continue;
    // "+37.774930" is a latitude; dotted phone numbers come in three or more groups.
    if (span.dotted && span.groups < 3) continue;
    if (/[\p{L}\p{N}]/u.test(text[span.end] ?? '')) continue;
    found.push({ type: 'phone', start: m.index, end: span.end });
  }
  return found;
}

/** Phone numbers: NANP with an area code, or any number written with a `+` country code. */
export function findPhones(text: string): PiiMatch[] {
  return [...findNanpPhones(text), ...findInternationalPhones(text)];
}
