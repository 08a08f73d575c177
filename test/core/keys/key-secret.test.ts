import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateKeySecret, hashKeySecret, isWellFormedKey, KEY_PATTERN, KEY_PREFIX, keyHint } from '../../../src/core/keys/key-secret.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const randomBody = () => Array.from(randomBytes(36), (b) => ALPHABET[b % 62]).join('');

describe('key secrets', () => {
  // The 100,000-iteration loops collect what fails and assert once: an expect() per iteration
  // cost ten times the work under test.
  it('generates 100,000 distinct keys that match the documented pattern and checksum', () => {
    const seen = new Set<string>();
    const malformed: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      const key = generateKeySecret();
      if (!KEY_PATTERN.test(key) || !isWellFormedKey(key)) malformed.push(key);
      seen.add(key);
    }
    expect(malformed).toEqual([]);
    expect(seen.size).toBe(100_000);
  });

  it('rejects random strings with the right prefix and shape (checksum catches them)', () => {
    const accepted: string[] = [];
    let shaped = 0;
    for (let i = 0; i < 100_000; i++) {
      const candidate = `${KEY_PREFIX}${randomBody()}`;
      if (KEY_PATTERN.test(candidate)) shaped++;
      if (isWellFormedKey(candidate)) accepted.push(candidate);
    }
    expect(shaped).toBe(100_000);
    // A random 6-char base62 suffix matches a CRC32 with probability 2^32/62^6 / 2^32 ≈ 1.8e-11 each.
    expect(accepted).toEqual([]);
  });

  it('rejects single-character typos and wrong shapes', () => {
    const key = generateKeySecret();
    for (let i = KEY_PREFIX.length; i < key.length; i++) {
      const c = key[i] === 'a' ? 'b' : 'a';
      expect(isWellFormedKey(key.slice(0, i) + c + key.slice(i + 1))).toBe(false);
    }
    for (const bad of ['', 'aisle_sk_', key.slice(0, -1), `${key}x`, key.replace('aisle_sk_', 'aisle_pk_'), ` ${key}`, key.toUpperCase()]) {
      expect(isWellFormedKey(bad)).toBe(false);
    }
  });

  it('stores a SHA-256 and shows the last four characters', () => {
    const key = generateKeySecret();
    expect(hashKeySecret(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashKeySecret(key)).not.toContain(key.slice(KEY_PREFIX.length, KEY_PREFIX.length + 8));
    expect(keyHint(key)).toBe(key.slice(-4));
  });
});
