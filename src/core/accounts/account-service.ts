import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { mintKey } from '../keys/key-service.js';
import { toKeyRecord } from '../keys/key-status.js';
import type { NewKey } from '../keys/ports.js';
import { SCOPES, type Scope } from '../keys/scopes.js';
import type { CreatedKey } from '../schemas/keys.js';
import type { Account, AccountStore } from './ports.js';

export interface NewAccountResult {
  account: Account;
  firstKey: CreatedKey;
}

const firstKeyOf = (row: NewKey, secret: string, now: Date): CreatedKey => ({
  key: secret,
  metadata: toKeyRecord({ ...row, status: 'active', lastUsedAt: null, revokeAt: null }, now),
});

/** Operator-side account management (CLI and first start); accounts have no public REST endpoint. */
export class AccountService {
  constructor(private readonly deps: { store: AccountStore; clock: Clock; defaultRateLimitPerMinute: number }) {}

  /** Creates an account and its first key (all scopes, unless narrowed), atomically. */
  async create(name: string, scopes: readonly Scope[] = SCOPES): Promise<NewAccountResult> {
    const { account, row, secret } = this.draft(name, scopes);
    await this.deps.store.insertWithFirstKey(account, row);
    return { account, firstKey: firstKeyOf(row, secret, account.createdAt) };
  }

  /** First start: creates `default` with an all-scope key when no account exists; null otherwise. */
  async ensureDefault(): Promise<NewAccountResult | null> {
    const { account, row, secret } = this.draft('default', SCOPES);
    const created = await this.deps.store.insertIfNoAccounts(account, row);
    if (!created) return null;
    return { account, firstKey: firstKeyOf(row, secret, account.createdAt) };
  }

  async get(id: string): Promise<Account> {
    const account = await this.deps.store.findById(id);
    if (account === null) throw new AppError('not_found', `No account with id ${id}.`);
    return account;
  }

  private draft(name: string, scopes: readonly Scope[]) {
    const now = this.deps.clock.now();
    const account: Account = { id: newId(), name, piiPolicy: 'redact', createdAt: now };
    const { row, secret } = mintKey({
      accountId: account.id,
      name: `${name} admin`,
      scopes: [...scopes],
      createdAt: now,
      expiresAt: null,
      rateLimitPerMinute: this.deps.defaultRateLimitPerMinute,
      rotatedFrom: null,
      merchant: null,
      livemode: true,
    });
    return { account, row, secret };
  }
}
