import type { KeyRecord } from '../schemas/keys.js';
import { KEY_PREFIX, TEST_KEY_PREFIX } from './key-secret.js';
import type { StoredKey, StoredKeyStatus } from './ports.js';

/** The status the clock makes true now: a rotation's grace or an expiry may have run out. */
export function effectiveStatus(key: StoredKey, now: Date): StoredKeyStatus {
  if (key.status !== 'active' && key.status !== 'disabled') return key.status;
  if (key.revokeAt !== null && key.revokeAt.getTime() <= now.getTime()) return 'revoked';
  if (key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime()) return 'expired';
  return key.status;
}

export function toKeyRecord(key: StoredKey, now: Date): KeyRecord {
  return {
    id: key.id,
    name: key.name,
    prefix: key.livemode ? KEY_PREFIX : TEST_KEY_PREFIX,
    livemode: key.livemode,
    hint: key.hint,
    scopes: key.scopes,
    status: effectiveStatus(key, now),
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    expires_at: stopsWorkingAt(key)?.toISOString() ?? null,
    rate_limit_per_minute: key.rateLimitPerMinute,
    merchant: key.merchant,
  };
}

/** Expiry or the end of a rotation's grace period, whichever comes first. */
function stopsWorkingAt(key: StoredKey): Date | null {
  const times = [key.expiresAt, key.revokeAt].filter((t): t is Date => t !== null);
  if (times.length === 0) return null;
  return new Date(Math.min(...times.map((t) => t.getTime())));
}
