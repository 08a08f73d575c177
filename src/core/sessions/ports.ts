/** Console sign-in sessions in storage (src/store/pg/console-session-store.ts). */
import type { StoredKey } from '../keys/ports.js';

export interface NewConsoleSession {
  tokenHash: string;
  accountId: string;
  keyId: string;
  csrfToken: string;
  createdAt: Date;
  expiresAt: Date;
}

/** A console session with the key that opened it, as it is now (status, scopes, PII policy). */
export interface StoredConsoleSession {
  csrfToken: string;
  expiresAt: Date;
  key: StoredKey;
}

export interface ConsoleSessionStore {
  insert(session: NewConsoleSession): Promise<void>;
  /** The session and its key, or null when there is no such session. */
  find(tokenHash: string): Promise<StoredConsoleSession | null>;
  delete(tokenHash: string): Promise<void>;
  /** Deletes sessions expired before `now`; returns how many. */
  deleteExpired(now: Date): Promise<number>;
}
