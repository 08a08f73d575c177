/** Publisher policies in storage (src/store/pg/policy-store.ts). */
import type { PolicyFields } from '../schemas/policy.js';

export interface StoredPolicy {
  fields: PolicyFields;
  updatedAt: Date;
}

export interface PolicyStore {
  /** The account's policy and, when `keyId` is given, that key's: null where none was set. */
  read(accountId: string, keyId: string | null): Promise<{ account: StoredPolicy | null; key: StoredPolicy | null }>;
  /** Replaces the account's policy (keyId null) or one key's. */
  write(accountId: string, keyId: string | null, fields: PolicyFields, now: Date): Promise<void>;
}
