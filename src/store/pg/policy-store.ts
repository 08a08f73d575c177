import type { PolicyStore, StoredPolicy } from '../../core/policy/ports.js';
import type { PolicyFields } from '../../core/schemas/policy.js';
import type { Db } from './db.js';

export class PgPolicyStore implements PolicyStore {
  constructor(private readonly db: Db) {}

  async read(accountId: string, keyId: string | null): Promise<{ account: StoredPolicy | null; key: StoredPolicy | null }> {
    const rows = await this.db.query<{ key_id: string | null; fields: PolicyFields; updated_at: Date }>(
      'SELECT key_id, fields, updated_at FROM publisher_policies WHERE account_id = $1 AND (key_id IS NULL OR key_id = $2)',
      [accountId, keyId],
    );
    const of = (r: (typeof rows)[number] | undefined): StoredPolicy | null => (r ? { fields: r.fields, updatedAt: r.updated_at } : null);
    return { account: of(rows.find((r) => r.key_id === null)), key: keyId === null ? null : of(rows.find((r) => r.key_id === keyId)) };
  }

  async write(accountId: string, keyId: string | null, fields: PolicyFields, now: Date): Promise<void> {
    const conflict = keyId === null ? '(account_id) WHERE key_id IS NULL' : '(key_id) WHERE key_id IS NOT NULL';
    await this.db.query(
      `INSERT INTO publisher_policies (account_id, key_id, fields, updated_at) VALUES ($1, $2, $3::jsonb, $4)
       ON CONFLICT ${conflict} DO UPDATE SET fields = EXCLUDED.fields, updated_at = EXCLUDED.updated_at`,
      [accountId, keyId, JSON.stringify(fields), now],
    );
  }
}
