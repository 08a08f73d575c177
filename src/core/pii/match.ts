/** The kinds of personal data Aisle detects, in the order `pii_redacted` lists them. */
export const PII_TYPES = ['email', 'phone', 'card', 'ssn', 'iban', 'ip'] as const;

export type PiiType = (typeof PII_TYPES)[number];

/** One detected value: `text.slice(start, end)` is the personal data. */
export interface PiiMatch {
  type: PiiType;
  start: number;
  end: number;
}

/** Most context words sit right before the value ("my SSN is 123456789"); 40 chars covers that. */
const CONTEXT_WINDOW = 40;

/** Whether `pattern` (not global; anchor it with `$`) matches the text just before `index`. */
export function precededBy(text: string, index: number, pattern: RegExp, window = CONTEXT_WINDOW): boolean {
  return pattern.test(text.slice(Math.max(0, index - window), index));
}
