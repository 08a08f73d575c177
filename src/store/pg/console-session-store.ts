import type { ConsoleSessionStore, NewConsoleSession, StoredConsoleSession } from '../../core/sessions/ports.js';
import type { Db } from './db.js';
import { KEY_COLUMNS_OF_K, type KeyRow, toStoredKey } from './key-store.js';

const FIND = `SELECT s.csrf_token, s.expires_at AS session_expires_at, ${KEY_COLUMNS_OF_K}, a.pii_policy
  FROM console_sessions s JOIN api_keys k ON k.id = s.key_id JOIN accounts a ON a.id = k.account_id
  WHERE s.token_hash = $1`;

type FindRow = KeyRow & { csrf_token: string; session_expires_at: Date; pii_policy: 'redact' | 'reject' };

export class PgConsoleSessionStore implements ConsoleSessionStore {
  constructor(private readonly db: Db) {}

  async insert(s: NewConsoleSession): Promise<void> {
    await this.db.query(`INSERT INTO console_sessions (token_hash, account_id, key_id, csrf_token, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
      s.tokenHash,
      s.accountId,
      s.keyId,
      s.csrfToken,
      s.createdAt,
      s.expiresAt,
    ]);
  }

  async find(tokenHash: string): Promise<StoredConsoleSession | null> {
    const row = (await this.db.query<FindRow>(FIND, [tokenHash]))[0];
    if (!row) return null;
    return {
      csrfToken: row.csrf_token,
      expiresAt: row.session_expires_at,
      key: { ...toStoredKey(row), piiPolicy: row.pii_policy },
    };
  }

  async delete(tokenHash: string): Promise<void> {
    await this.db.query(`DELETE FROM console_sessions WHERE token_hash = $1`, [tokenHash]);
  }

  async deleteExpired(now: Date): Promise<number> {
    const rows = await this.db.query<{ n: number }>(
      `WITH gone AS (DELETE FROM console_sessions WHERE expires_at <= $1 RETURNING 1) SELECT count(*)::int AS n FROM gone`,
      [now],
    );
    return rows[0]?.n ?? 0;
  }
}
