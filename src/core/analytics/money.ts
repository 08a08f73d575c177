import type { DecimalString } from './ports.js';

const SCALE_DIGITS = 4;

/**
 * An exact decimal amount (numeric(18,4) as PostgreSQL sums it) in units of 0.0001. Money is added
 * as integers so no figure ever carries a float rounding error.
 */
export function parseAmount(value: DecimalString): bigint {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value.trim());
  if (!match) throw new Error(`not a decimal amount: ${value}`);
  const fraction = (match[3] ?? '').padEnd(SCALE_DIGITS, '0');
  // More than four decimals cannot come from numeric(18,4) sums; round half away from zero anyway.
  const kept = BigInt(`${match[2]}${fraction.slice(0, SCALE_DIGITS)}`);
  const roundUp = fraction.length > SCALE_DIGITS && Number(fraction[SCALE_DIGITS]) >= 5 ? 1n : 0n;
  const units = kept + roundUp;
  return match[1] === '-' ? -units : units;
}

/** Rounds an amount to the cent (half away from zero, as numeric round() does) as a JSON number. */
export function toCents(units: bigint): number {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const cents = (abs + 50n) / 100n;
  const value = Number(cents) / 100;
  return negative ? -value : value;
}

export const sumAmounts = (values: readonly DecimalString[]): bigint => values.reduce((sum, v) => sum + parseAmount(v), 0n);
