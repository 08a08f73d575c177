/**
 * Building blocks for the PII corpus: a seeded PRNG and check-digit algorithms written here
 * independently of src/core/pii, so a checksum bug there cannot hide itself in the test data.
 */

/** mulberry32: small, fast, and the same sequence on every machine. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(low: number, high: number): number {
    return low + Math.floor(this.next() * (high - low + 1));
  }
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }
  digits(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += String(this.int(0, 9));
    return s;
  }
  letters(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += String.fromCharCode(65 + this.int(0, 25));
    return s;
  }
  /** Upper-case letters and digits, as in an IBAN's alphanumeric BBAN fields. */
  alnum(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += this.next() < 0.7 ? String(this.int(0, 9)) : String.fromCharCode(65 + this.int(0, 25));
    return s;
  }
  hex(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += this.int(0, 15).toString(16);
    return s;
  }
}

export function luhnCheckDigit(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

/** ISO 7064 mod 97-10 check digits for country + BBAN, by big-integer arithmetic. */
export function ibanCheckDigits(country: string, bban: string): string {
  const numeric = `${bban}${country}00`.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  return String(98n - (BigInt(numeric) % 97n)).padStart(2, '0');
}

/** GS1 check digit (UPC, EAN, GTIN): weights 3 and 1 from the right. */
export function gs1CheckDigit(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[body.length - 1 - i]) * (i % 2 === 0 ? 3 : 1);
  return String((10 - (sum % 10)) % 10);
}

export const groupBy = (value: string, sizes: readonly number[], sep: string): string => {
  const parts: string[] = [];
  let at = 0;
  for (const size of sizes) {
    parts.push(value.slice(at, at + size));
    at += size;
  }
  if (at < value.length) parts.push(value.slice(at));
  return parts.filter((p) => p !== '').join(sep);
};

export const fours = (value: string, sep = ' '): string => groupBy(value, Array(Math.ceil(value.length / 4)).fill(4), sep);
