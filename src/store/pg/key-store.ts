import type { KeyRepository, KeyStore, NewKey, StoredKey, StoredKeyStatus } from '../../core/keys/ports.js';
import type { Scope } from '../../core/keys/scopes.js';
import type { PageCursor } from '../../core/shared-ports.js';
import type { Db, Queryable } from './db.js';
import { GroupCommit } from './group-commit.js';

export interface KeyRow {
  id: string;
  account_id: string;
  name: string;
  hint: string;
  scopes: string[];
  status: StoredKeyStatus;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoke_at: Date | null;
  rate_limit_per_minute: number;
  rotated_from: string | null;
  merchant: string | null;
  livemode: boolean;
}

const KEY_COLUMNS = `id, account_id, name, hint, scopes, status, created_at, last_used_at, expires_at,
  revoke_at, rate_limit_per_minute, rotated_from, merchant, livemode`;

/** KEY_COLUMNS of `api_keys k`, for statements that join it. */
export const KEY_COLUMNS_OF_K = KEY_COLUMNS.split(',')
  .map((c) => `k.${c.trim()}`)
  .join(', ');

// Authentication runs this on every request: the statement text is built once.
const FIND_BY_SECRET_HASHES = `SELECT ${KEY_COLUMNS_OF_K}, k.secret_hash, a.pii_policy
  FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.secret_hash = ANY ($1::text[])`;

// "Live" and "durable admin" are the SQL forms of effectiveStatus() in core/keys/key-status.ts.
const LIVE = `status IN ('active', 'disabled') AND (revoke_at IS NULL OR revoke_at > $2) AND (expires_at IS NULL OR expires_at > $2)`;

export const toStoredKey = (r: KeyRow): StoredKey => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  hint: r.hint,
  scopes: r.scopes as Scope[],
  status: r.status,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  expiresAt: r.expires_at,
  revokeAt: r.revoke_at,
  rateLimitPerMinute: r.rate_limit_per_minute,
  rotatedFrom: r.rotated_from,
  merchant: r.merchant,
  livemode: r.livemode,
});

export async function insertKeyRow(q: Queryable, k: NewKey): Promise<void> {
  await q.query(
    `INSERT INTO api_keys (id, account_id, name, secret_hash, hint, scopes, status, created_at, expires_at,
       rate_limit_per_minute, rotated_from, merchant, livemode)
     VALUES ($1, $2, $3, $4, $5, $6, 'active', $7, $8, $9, $10, $11, $12)`,
    [k.id, k.accountId, k.name, k.secretHash, k.hint, k.scopes, k.createdAt, k.expiresAt, k.rateLimitPerMinute, k.rotatedFrom, k.merchant, k.livemode],
  );
}

class PgKeyRepository implements KeyRepository {
  constructor(protected readonly q: Queryable) {}

  async findById(accountId: string, id: string): Promise<StoredKey | null> {
    const rows = await this.q.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = $1 AND id = $2`, [accountId, id]);
    return rows[0] ? toStoredKey(rows[0]) : null;
  }

  async list(accountId: string, limit: number, after: PageCursor | null): Promise<StoredKey[]> {
    const rows = after
      ? await this.q.query<KeyRow>(
          `SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = $1 AND (created_at, id) < ($2, $3)
           ORDER BY created_at DESC, id DESC LIMIT $4`,
          [accountId, after.createdAt, after.id, limit],
        )
      : await this.q.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [accountId, limit]);
    return rows.map(toStoredKey);
  }

  insert(k: NewKey): Promise<void> {
    return insertKeyRow(this.q, k);
  }

  async setStatus(accountId: string, id: string, status: StoredKeyStatus, revokeAt?: Date | null): Promise<void> {
    if (revokeAt === undefined) {
      await this.q.query('UPDATE api_keys SET status = $3 WHERE account_id = $1 AND id = $2', [accountId, id, status]);
    } else {
      await this.q.query('UPDATE api_keys SET status = $3, revoke_at = $4 WHERE account_id = $1 AND id = $2', [accountId, id, status, revokeAt]);
    }
  }

  async delete(accountId: string, id: string): Promise<void> {
    await this.q.query('DELETE FROM api_keys WHERE account_id = $1 AND id = $2', [accountId, id]);
  }

  async revokeGrants(accountId: string, keyId: string, at: Date): Promise<void> {
    await this.q.query('UPDATE oauth_grants SET revoked_at = $3 WHERE account_id = $1 AND key_id = $2 AND revoked_at IS NULL', [accountId, keyId, at]);
  }

  async countLiveKeys(accountId: string, now: Date): Promise<number> {
    const rows = await this.q.query<{ n: number }>(`SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1 AND ${LIVE}`, [accountId, now]);
    return rows[0]?.n ?? 0;
  }

  async countOtherDurableAdmins(accountId: string, excludeId: string, now: Date): Promise<number> {
    const rows = await this.q.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM api_keys
       WHERE account_id = $1 AND id <> $3 AND status = 'active' AND revoke_at IS NULL
         AND (expires_at IS NULL OR expires_at > $2) AND 'keys:manage' = ANY (scopes)`,
      [accountId, now, excludeId],
    );
    return rows[0]?.n ?? 0;
  }
}

export class PgKeyStore extends PgKeyRepository implements KeyStore {
  // Every request looks its key up, and concurrent requests mostly carry the same few keys: the
  // lookups that arrive while earlier ones are at the database share one statement.
  private readonly lookups = new GroupCommit<string, StoredKey | null>({ run: (hashes) => this.findBySecretHashes(hashes), maxInFlight: 2 });

  constructor(private readonly db: Db) {
    super(db);
  }

  findBySecretHash(secretHash: string): Promise<StoredKey | null> {
    return this.lookups.submit(secretHash);
  }

  private async findBySecretHashes(hashes: readonly string[]): Promise<(StoredKey | null)[]> {
    const rows = await this.db.query<KeyRow & { secret_hash: string; pii_policy: 'redact' | 'reject' }>(FIND_BY_SECRET_HASHES, [[...new Set(hashes)]]);
    const byHash = new Map(rows.map((r) => [r.secret_hash, r]));
    return hashes.map((h) => {
      const r = byHash.get(h);
      return r ? { ...toStoredKey(r), piiPolicy: r.pii_policy } : null;
    });
  }

  async touchLastUsed(id: string, now: Date): Promise<void> {
    // The WHERE clause makes this at most one write per key per minute across all processes.
    await this.db.query(
      `UPDATE api_keys SET last_used_at = $2
       WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $2::timestamptz - interval '60 seconds')`,
      [id, now],
    );
  }

  async settleStatus(id: string, status: 'revoked' | 'expired'): Promise<void> {
    await this.db.query(`UPDATE api_keys SET status = $2 WHERE id = $1 AND status IN ('active', 'disabled')`, [id, status]);
  }

  inAccountTransaction<T>(accountId: string, fn: (repo: KeyRepository) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => {
      // Row lock on the account serialises key changes, so "last admin key" and the per-account
      // key limit hold even when two requests race.
      await tx.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      return fn(new PgKeyRepository(tx));
    });
  }
}
