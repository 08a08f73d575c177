import { randomUUID } from 'node:crypto';

/** Type prefixes used for ids in webhook payloads; REST paths accept both forms. */
export const idPrefixes = {
  impression: 'imp',
  product: 'prd',
  request: 'req',
  click: 'clk',
  conversion: 'cnv',
  feedback: 'fb',
  key: 'key',
  webhook: 'wh',
  event: 'evt',
  delivery: 'whd',
  account: 'acct',
  grant: 'grt',
  feed: 'feed',
  source: 'src',
  pull: 'pull',
} as const;

export type IdKind = keyof typeof idPrefixes;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const newId = (): string => randomUUID();

export const isUuid = (value: string): boolean => UUID.test(value);

/** `key_…` for a key id, and so on. */
export const prefixedId = (kind: IdKind, uuid: string): string => `${idPrefixes[kind]}_${uuid}`;

/**
 * Accepts a bare UUID or its prefixed form for `kind` and returns the lower-case UUID,
 * or null when the value is neither.
 */
export function parseId(kind: IdKind, value: string): string | null {
  const prefix = `${idPrefixes[kind]}_`;
  const bare = value.startsWith(prefix) ? value.slice(prefix.length) : value;
  return UUID.test(bare) ? bare.toLowerCase() : null;
}
