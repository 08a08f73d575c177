import { type PiiMatch, precededBy } from './match.js';

// No leading zeros ("01.02.03.04" is not how addresses are written), so the octet alternation
// cannot match the same digits two ways.
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const DOTTED_QUAD = `${OCTET}(?:\\.${OCTET}){3}`;
// Not part of a longer dotted number ("1.2.3.4.5", "10.0.19045.3693") or a word.
const IPV4 = new RegExp(`(?<![\\w.])${DOTTED_QUAD}(?![\\w]|\\.\\d)`, 'g');
const IPV4_EXACT = new RegExp(`^${DOTTED_QUAD}$`);
const VERSION_WORDS = /\b(?:v|ver|version|firmware|fw|build|release|rev|update|driver|bios)\.?:?\s*$/i;

// Candidate shape only; `isIpv6Address` decides. Colons delimit groups, so no two ways to match.
const IPV6 = /(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f]{1,4})?(?![\w:]|\.\d)/g;
const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;

/**
 * Full (8 groups), compressed (one `::`) or IPv4-mapped addresses with at least two non-zero-length
 * groups: `::1` and `::` name no one, and times (10:30:45) or MACs (6 groups) are not addresses.
 */
function isIpv6Address(candidate: string): boolean {
  let body = candidate;
  const lastColon = body.lastIndexOf(':');
  const tail = body.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!IPV4_EXACT.test(tail)) return false;
    body = `${body.slice(0, lastColon + 1)}0:0`; // the embedded IPv4 fills two groups
  }
  const halves = body.split('::');
  if (halves.length > 2) return false;
  const groups = halves.flatMap((h) => (h === '' ? [] : h.split(':')));
  if (!groups.every((g) => HEX_GROUP.test(g)) || groups.length < 2) return false;
  return halves.length === 2 ? groups.length <= 7 : groups.length === 8;
}

/** IPv4 dotted quads (not after a version word) and IPv6 addresses. */
export function findIps(text: string): PiiMatch[] {
  const found: PiiMatch[] = [];
  for (const m of text.matchAll(IPV4)) {
    if (!precededBy(text, m.index, VERSION_WORDS, 16)) found.push({ type: 'ip', start: m.index, end: m.index + m[0].length });
  }
  for (const m of text.matchAll(IPV6)) {
    // "reach fe80::1: it is up": a single trailing colon is punctuation.
    const value = /[^:]:$/.test(m[0]) ? m[0].slice(0, -1) : m[0];
    if (isIpv6Address(value)) found.push({ type: 'ip', start: m.index, end: m.index + value.length });
  }
  return found;
}
