/**
 * ISO 4217 minor units: how many decimals a currency's amounts have. UCP and ACP send prices as
 * integers in minor units ("12999" USD is $129.99); Aisle's catalog keeps decimal major units.
 * The table is ISO's, not CLDR's (Intl.NumberFormat shows 0 decimals for HUF, IDR, COP, PKR and
 * MGA, where ISO says 2); every code not listed has 2.
 */
const EXPONENTS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

const minorUnitExponent = (currency: string): number => EXPONENTS[currency.toUpperCase()] ?? 2;

/** 129.99 USD → 12999. Rounded half away from zero at the currency's precision (toFixed works on the decimal text, not on a float product). */
export function toMinorUnits(amount: number, currency: string): number {
  const exponent = minorUnitExponent(currency);
  const [whole, fraction = ''] = Math.abs(amount).toFixed(exponent).split('.');
  const units = Number(`${whole}${fraction}`);
  return amount < 0 ? -units : units;
}

/** 12999 USD → 129.99. */
export const fromMinorUnits = (units: number, currency: string): number => units / 10 ** minorUnitExponent(currency);
