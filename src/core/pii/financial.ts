import { cardPlausibility, IBAN_LENGTHS, ibanChecksumValid, luhnValid } from './checksums.js';
import { type PiiMatch, precededBy } from './match.js';

// Digit groups joined by single spaces or dashes, not continuing a word, decimal or code.
const DIGIT_RUN = /(?<![\w.,+/-])\d+(?:[ -]\d+)*/g;
const CARD_WORDS = /\b(?:card|visa|credit|debit|cc)\b\D{0,24}$/i;
// Card numbers (PANs, ISO/IEC 7812) as printed run 13 to 19 digits; like contact.ts's E.164
// limits in form only.
const MIN_CARD_DIGITS = 13;
const MAX_CARD_DIGITS = 19;

interface DigitGroup {
  start: number;
  end: number;
  /** The separator before this group; '' for the first. */
  sep: string;
}

function groupsOf(run: string, offset: number): DigitGroup[] {
  const groups: DigitGroup[] = [];
  for (const m of run.matchAll(/([ -]?)(\d+)/g)) {
    const start = offset + m.index + (m[1] ?? '').length;
    groups.push({ start, end: start + (m[2] ?? '').length, sep: m[1] ?? '' });
  }
  return groups;
}

/** Printed layouts: one block, fours with a shorter tail (4-4-4-4, 4-4-4-4-3), Amex 4-6-5, Diners 4-6-4. */
function cardLayout(groups: readonly DigitGroup[]): boolean {
  if (groups.length === 1) return true;
  if (groups.slice(2).some((g) => g.sep !== groups[1]?.sep)) return false;
  const lengths = groups.map((g) => g.end - g.start);
  const shape = lengths.join('-');
  if (shape === '4-6-5' || shape === '4-6-4') return true;
  const last = lengths[lengths.length - 1] ?? 0;
  return lengths.slice(0, -1).every((n) => n === 4) && last >= 1 && last <= 4;
}

/** Whether groups i..j can stay the non-final part of a printed layout (keeps long runs linear). */
function canExtend(groups: readonly DigitGroup[], i: number, j: number): boolean {
  const group = groups[j] as DigitGroup;
  const length = group.end - group.start;
  const first = groups[i] as DigitGroup;
  const okShape = length === 4 || (j === i + 1 && length === 6 && first.end - first.start === 4);
  return okShape && (j === i || groups[j + 1]?.sep === groups[i + 1]?.sep);
}

/** A USPS tracking number is 4-4-4-4-4-4-2: a card may not start in the middle of such a run. */
function insideQuads(groups: readonly DigitGroup[], i: number): boolean {
  const prev = groups[i - 1];
  const current = groups[i];
  if (prev === undefined || current === undefined) return false;
  return prev.end - prev.start === 4 && current.end - current.start === 4 && current.sep === groups[i + 1]?.sep;
}

/** Payment card numbers: a known issuer prefix and length, a printed layout, and a valid Luhn digit. */
export function findCards(text: string): PiiMatch[] {
  const found: PiiMatch[] = [];
  for (const m of text.matchAll(DIGIT_RUN)) {
    if (m[0].length < MIN_CARD_DIGITS) continue;
    const groups = groupsOf(m[0], m.index);
    // "4111111111111111.50" or "…1111x": the last group belongs to something else.
    if (/^(?:[\p{L}_]|[.,]\d)/u.test(text.slice(m.index + m[0].length, m.index + m[0].length + 2))) groups.pop();
    for (let i = 0; i < groups.length; i++) {
      if (insideQuads(groups, i)) continue;
      let digits = '';
      for (let j = i; j < groups.length && digits.length <= MAX_CARD_DIGITS; j++) {
        const group = groups[j] as DigitGroup;
        digits += text.slice(group.start, group.end);
        const start = (groups[i] as DigitGroup).start;
        const fits = digits.length >= MIN_CARD_DIGITS && digits.length <= MAX_CARD_DIGITS;
        if (fits && cardLayout(groups.slice(i, j + 1)) && isCard(text, digits, start)) found.push({ type: 'card', start, end: group.end });
        if (!canExtend(groups, i, j)) break;
      }
    }
  }
  return found;
}

function isCard(text: string, digits: string, start: number): boolean {
  const plausibility = cardPlausibility(digits);
  if (plausibility === 'no' || (plausibility === 'with-context' && !precededBy(text, start, CARD_WORDS))) return false;
  return luhnValid(digits);
}

const SSN_FORMATTED = /(?<![\w-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\w-]|[.,]\d)/g;
const SSN_BARE = /(?<![\w-])(\d{3})(\d{2})(\d{4})(?![\w-]|[.,]\d)/g;
const SSN_WORDS = /\b(?:ssn|social security)\b\D{0,24}$/i;

/** SSA rules: area not 000, 666 or 900–999 (never issued), group not 00, serial not 0000. */
function ssnValid(area: string, group: string, serial: string): boolean {
  return area !== '000' && area !== '666' && !area.startsWith('9') && group !== '00' && serial !== '0000';
}

/** US SSNs: AAA-GG-SSSS or AAA GG SSSS anywhere; nine bare digits only after "SSN" or "social security". */
export function findSsns(text: string): PiiMatch[] {
  const found: PiiMatch[] = [];
  for (const m of text.matchAll(SSN_FORMATTED)) {
    if (ssnValid(m[1] ?? '', m[3] ?? '', m[4] ?? '')) found.push({ type: 'ssn', start: m.index, end: m.index + m[0].length });
  }
  for (const m of text.matchAll(SSN_BARE)) {
    if (ssnValid(m[1] ?? '', m[2] ?? '', m[3] ?? '') && precededBy(text, m.index, SSN_WORDS)) {
      found.push({ type: 'ssn', start: m.index, end: m.index + m[0].length });
    }
  }
  return found;
}

const IBAN_START = /(?<![\p{L}\p{N}])[A-Za-z]{2}\d{2}(?= ?[A-Za-z0-9])/gu;
function isAlnum(c: string | undefined): boolean {
  const code = c === undefined ? 0 : c.charCodeAt(0);
  const folded = code | 0x20; // A–Z onto a–z
  return (code >= 0x30 && code <= 0x39) || (folded >= 0x61 && folded <= 0x7a);
}

/** Reads exactly `length` BBAN characters from `from`, allowing single spaces between them. */
function readBban(text: string, from: number, length: number): { end: number; bban: string } | undefined {
  let bban = '';
  let i = from;
  while (bban.length < length) {
    if (text[i] === ' ' && isAlnum(text[i + 1])) i++;
    if (!isAlnum(text[i])) return undefined;
    bban += text[i];
    i++;
  }
  // Exactly the registry length: a longer block of characters is some other code.
  return isAlnum(text[i]) ? undefined : { end: i, bban };
}

/** IBANs of registry countries at their exact length, compact or spaced, with a valid mod-97 check. */
export function findIbans(text: string): PiiMatch[] {
  const found: PiiMatch[] = [];
  for (const m of text.matchAll(IBAN_START)) {
    const head = m[0].toUpperCase();
    const length = IBAN_LENGTHS[head.slice(0, 2)];
    if (length === undefined) continue;
    const read = readBban(text, m.index + 4, length - 4);
    if (read !== undefined && ibanChecksumValid(head + read.bban.toUpperCase())) {
      found.push({ type: 'iban', start: m.index, end: read.end });
    }
  }
  return found;
}
