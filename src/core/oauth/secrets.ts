import { createHash, timingSafeEqual } from 'node:crypto';
import { generateSecret, hashKeySecret, isWellFormedSecret } from '../keys/key-secret.js';

/** Opaque OAuth secrets in the key format (core/keys/key-secret.ts), told apart by prefix (docs/oauth.md). */
export const ACCESS_TOKEN_PREFIX = 'aisle_ot_';
const REFRESH_TOKEN_PREFIX = 'aisle_rt_';
const CODE_PREFIX = 'aisle_ac_';

export const ACCESS_TOKEN_TTL_MS = 60 * 60_000;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60_000;
/** A client exchanges its code as soon as the browser lands on its redirect URI. */
export const CODE_TTL_MS = 5 * 60_000;

export const newAccessToken = (): string => generateSecret(ACCESS_TOKEN_PREFIX);
export const newRefreshToken = (): string => generateSecret(REFRESH_TOKEN_PREFIX);
export const newCode = (): string => generateSecret(CODE_PREFIX);

export const isAccessToken = (raw: string): boolean => isWellFormedSecret(ACCESS_TOKEN_PREFIX, raw);
export const isRefreshToken = (raw: string): boolean => isWellFormedSecret(REFRESH_TOKEN_PREFIX, raw);
export const isCode = (raw: string): boolean => isWellFormedSecret(CODE_PREFIX, raw);

/** Stored form of every token and code: hex SHA-256, as for keys. */
export const hashSecret = hashKeySecret;

/** An S256 code challenge: base64url of a SHA-256, 43 characters (RFC 7636 §4.2). */
export const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** A code verifier: 43 to 128 unreserved characters (RFC 7636 §4.1). */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** PKCE S256 (RFC 7636 §4.6): base64url(SHA-256(verifier)) equals the challenge, compared in constant time. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!CODE_VERIFIER.test(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
