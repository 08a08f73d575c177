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
}
