/** What the key domain needs from storage (implemented in src/store/pg/key-store.ts). */
import type { PageCursor } from '../shared-ports.js';
import type { Scope } from './scopes.js';

export type StoredKeyStatus = 'active' | 'disabled' | 'revoked' | 'expired';

export interface StoredKey {
  id: string;
  accountId: string;
  name: string;
  hint: string;
  scopes: Scope[];
  status: StoredKeyStatus;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  /** Set by rotation: the key stays usable until then, and is revoked from then on. */
  revokeAt: Date | null;
  rateLimitPerMinute: number;
  rotatedFrom: string | null;
  /** Set for a key limited to one merchant: it verifies and converts that merchant's attribution only. */
  merchant: string | null;
  /** False for a test key (`aisle_test_…`), which belongs to its account's test account. */
  livemode: boolean;
  /** The owning account's PII policy; filled by findBySecretHash (authentication) only. */
  piiPolicy?: 'redact' | 'reject';
}

export interface NewKey {
  id: string;
  accountId: string;
  name: string;
  secretHash: string;
  hint: string;
  scopes: Scope[];
  createdAt: Date;
  expiresAt: Date | null;
  rateLimitPerMinute: number;
  rotatedFrom: string | null;
  merchant: string | null;
  livemode: boolean;
}

/** Key reads and writes scoped to one account; inside `KeyStore.inAccountTransaction` they are serialised per account. */
export interface KeyRepository {
  findById(accountId: string, id: string): Promise<StoredKey | null>;
  list(accountId: string, limit: number, after: PageCursor | null): Promise<StoredKey[]>;
  insert(key: NewKey): Promise<void>;
  setStatus(accountId: string, id: string, status: StoredKeyStatus, revokeAt?: Date | null): Promise<void>;
  delete(accountId: string, id: string): Promise<void>;
  /** Revokes the OAuth grants the key approved, so their tokens end with it (docs/oauth.md). */
  revokeGrants(accountId: string, keyId: string, at: Date): Promise<void>;
  /** Keys that are active or disabled and not past their revocation or expiry time. */
  countLiveKeys(accountId: string, now: Date): Promise<number>;
  /** Active keys holding `keys:manage` with no pending revocation, other than `excludeId`. */
  countOtherDurableAdmins(accountId: string, excludeId: string, now: Date): Promise<number>;
}

export interface KeyStore extends KeyRepository {
  findBySecretHash(secretHash: string): Promise<StoredKey | null>;
  /** Writes last_used_at unless another write happened within the last minute (any process). */
  touchLastUsed(id: string, now: Date): Promise<void>;
  /** Persists a status the clock has already made effective (grace over, expiry reached). */
  settleStatus(id: string, status: 'revoked' | 'expired'): Promise<void>;
  inAccountTransaction<T>(accountId: string, fn: (repo: KeyRepository) => Promise<T>): Promise<T>;
}
