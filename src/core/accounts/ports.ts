/** What accounts need from storage (src/store/pg/account-store.ts). */
import type { NewKey } from '../keys/ports.js';

export interface Account {
  id: string;
  name: string;
  piiPolicy: 'redact' | 'reject';
  createdAt: Date;
}

export interface AccountStore {
  findById(id: string): Promise<Account | null>;
  /** Inserts the account and its first key atomically. */
  insertWithFirstKey(account: Account, key: NewKey): Promise<void>;
  /** Like insertWithFirstKey, but only when no account exists yet; safe when processes race. */
  insertIfNoAccounts(account: Account, key: NewKey): Promise<boolean>;
  /**
   * The id of the live account's test account (docs/commerce.md, "Test mode"), created with the
   * live account's name and PII policy on first use; one per live account, however many ask at once.
   */
  testAccountOf(liveAccountId: string, newId: string, now: Date): Promise<string>;
  /** The test account's id, or null when the live account has none yet. */
  findTestAccount(liveAccountId: string): Promise<string | null>;
}
