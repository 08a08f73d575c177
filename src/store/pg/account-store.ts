import type { Account, AccountStore } from '../../core/accounts/ports.js';
import type { NewKey } from '../../core/keys/ports.js';
import type { Db, Queryable } from './db.js';
import { insertKeyRow } from './key-store.js';

// Serialises first-start account creation across processes (distinct from the migration lock).
const FIRST_ACCOUNT_LOCK_ID = 7_302_215_015;

interface AccountRow {
  id: string;
  name: string;
  pii_policy: 'redact' | 'reject';
  created_at: Date;
}

async function insertAccountAndKey(tx: Queryable, a: Account, k: NewKey): Promise<void> {
  await tx.query('INSERT INTO accounts (id, name, pii_policy, created_at) VALUES ($1, $2, $3, $4)', [a.id, a.name, a.piiPolicy, a.createdAt]);
  await insertKeyRow(tx, k);
}

export class PgAccountStore implements AccountStore {
  constructor(private readonly db: Db) {}

  async findById(id: string): Promise<Account | null> {
    const rows = await this.db.query<AccountRow>('SELECT id, name, pii_policy, created_at FROM accounts WHERE id = $1', [id]);
    const r = rows[0];
    return r ? { id: r.id, name: r.name, piiPolicy: r.pii_policy, createdAt: r.created_at } : null;
  }

  insertWithFirstKey(account: Account, key: NewKey): Promise<void> {
    return this.db.transaction((tx) => insertAccountAndKey(tx, account, key));
  }

  async testAccountOf(liveAccountId: string, newId: string, now: Date): Promise<string> {
    // The partial unique index on live_account_id makes a second, concurrent creation a no-op.
    await this.db.query(
      `INSERT INTO accounts (id, name, pii_policy, created_at, livemode, live_account_id)
       SELECT $1, name || ' (test)', pii_policy, $3, false, id FROM accounts WHERE id = $2 AND livemode
       ON CONFLICT (live_account_id) WHERE live_account_id IS NOT NULL DO NOTHING`,
      [newId, liveAccountId, now],
    );
    const id = await this.findTestAccount(liveAccountId);
    if (id === null) throw new Error(`account ${liveAccountId} is not a live account`);
    return id;
  }

  async findTestAccount(liveAccountId: string): Promise<string | null> {
    const rows = await this.db.query<{ id: string }>('SELECT id FROM accounts WHERE live_account_id = $1', [liveAccountId]);
    return rows[0]?.id ?? null;
  }

  insertIfNoAccounts(account: Account, key: NewKey): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [FIRST_ACCOUNT_LOCK_ID]);
      const existing = await tx.query('SELECT 1 FROM accounts LIMIT 1');
      if (existing.length > 0) return false;
      await insertAccountAndKey(tx, account, key);
      return true;
    });
  }
}
