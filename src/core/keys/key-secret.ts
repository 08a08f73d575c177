import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Secrets Aisle hands out (API keys, OAuth tokens and codes): a type prefix + 30 random base62
 * characters + 6 base62 characters of the CRC32 of those 30. The checksum lets us refuse a
 * mistyped or made-up secret without a database read, and the fixed shape lets secret scanners
 * find leaked ones. Keys are `aisle_sk_…` (docs/api.md); OAuth's prefixes are in docs/oauth.md.
 */
export const KEY_PREFIX = 'aisle_sk_';
/** Test-mode keys (docs/commerce.md, "Test mode"). */
export const TEST_KEY_PREFIX = 'aisle_test_';
const KEY_RANDOM_LENGTH = 30;
const KEY_CHECKSUM_LENGTH = 6;
export const KEY_PATTERN = /^aisle_sk_[0-9A-Za-z]{36}$/;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// 62 * 4 = 248: bytes at or above it are rejected so every character is equally likely.
const UNBIASED_LIMIT = 248;
const BODY = new RegExp(`^[0-9A-Za-z]{${KEY_RANDOM_LENGTH + KEY_CHECKSUM_LENGTH}}$`);

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < UNBIASED_LIMIT) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

function checksum(body: string): string {
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < KEY_CHECKSUM_LENGTH; i++) {
    out = ALPHABET[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/** A new secret of the given type prefix (`aisle_sk_`, `aisle_ot_`, …). */
export function generateSecret(prefix: string): string {
  const body = randomBase62(KEY_RANDOM_LENGTH);
  return `${prefix}${body}${checksum(body)}`;
}

/** True when the string is `prefix` + 36 base62 characters whose last 6 are the checksum. Pure; no I/O. */
export function isWellFormedSecret(prefix: string, candidate: string): boolean {
  if (!candidate.startsWith(prefix)) return false;
  const rest = candidate.slice(prefix.length);
  if (!BODY.test(rest)) return false;
  return rest.endsWith(checksum(rest.slice(0, KEY_RANDOM_LENGTH)));
}

export const generateKeySecret = (livemode = true): string => generateSecret(livemode ? KEY_PREFIX : TEST_KEY_PREFIX);

/** True when the string has the shape of a live or test key and a matching checksum. Pure; no I/O. */
export const isWellFormedKey = (candidate: string): boolean => isWellFormedSecret(KEY_PREFIX, candidate) || isWellFormedSecret(TEST_KEY_PREFIX, candidate);

/** The only form in which a secret is stored: hex SHA-256. */
export const hashKeySecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** Last four characters, shown so a person can tell keys apart. */
export const keyHint = (secret: string): string => secret.slice(-4);
