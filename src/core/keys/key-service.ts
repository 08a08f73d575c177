import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId, parseId } from '../ids.js';
import type { CreatedKey, CreateKeyBody, KeyPage, KeyRecord, ListKeysQuery, RotatedKey, RotateKeyBody, UpdateKeyBody } from '../schemas/keys.js';
import type { Principal } from '../shared-ports.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { generateKeySecret, hashKeySecret, keyHint } from './key-secret.js';
import { effectiveStatus, toKeyRecord } from './key-status.js';
import type { KeyRepository, KeyStore, NewKey, StoredKey } from './ports.js';
import { hasScope, type Scope } from './scopes.js';

const MAX_KEYS_PER_ACCOUNT = 100;

export interface KeyServiceDeps {
  store: KeyStore;
  clock: Clock;
  defaultRateLimitPerMinute: number;
  /** The live account's test account, created on first use (test keys live there). */
  testAccountOf(liveAccountId: string, now: Date): Promise<string>;
}

/** Builds a new key row and its secret; the secret leaves only through the caller's response. */
export function mintKey(fields: Omit<NewKey, 'id' | 'secretHash' | 'hint'>): { row: NewKey; secret: string } {
  const secret = generateKeySecret(fields.livemode);
  return { secret, row: { ...fields, id: newId(), secretHash: hashKeySecret(secret), hint: keyHint(secret) } };
}

/** Key management for one account (docs/api.md). Every method is scoped to the principal's account. */
export class KeyService {
  constructor(private readonly deps: KeyServiceDeps) {}

  /** 403 insufficient_scope when asking for scopes the caller lacks; 409 key_limit_reached past 100 live keys. */
  async create(principal: Principal, body: CreateKeyBody): Promise<CreatedKey> {
    const now = this.deps.clock.now();
    const scopes = body.scopes ? [...new Set(body.scopes)] : [...principal.scopes];
    const missing = scopes.filter((s) => !hasScope(principal.scopes, s));
    if (missing.length > 0) {
      throw new AppError('insufficient_scope', `A key cannot grant scopes it does not hold: ${missing.join(', ')}.`, {
        extensions: { required_scope: missing[0], missing_scopes: missing },
      });
    }
    // A test key makes test keys only; a live key makes either, a test one in its test account.
    const livemode = body.mode === undefined ? principal.livemode !== false : body.mode === 'live';
    if (livemode && principal.livemode === false) {
      throw new AppError('insufficient_scope', 'A test key cannot create live keys; use a live key.', { extensions: { required_scope: 'keys:manage' } });
    }
    const accountId = livemode || principal.livemode === false ? principal.accountId : await this.deps.testAccountOf(principal.accountId, now);
    // A merchant-limited key makes only keys limited to its merchant: the limit cannot be shed by minting a key.
    const merchant = body.merchant ?? principal.merchant ?? null;
    if (principal.merchant && merchant !== principal.merchant) {
      throw new AppError('insufficient_scope', `This key is limited to the merchant "${principal.merchant}" and can only create keys limited to it.`, {
        extensions: { required_scope: 'keys:manage' },
      });
    }
    const expiresAt = body.expires_at === undefined ? null : new Date(body.expires_at);
    if (expiresAt !== null && expiresAt.getTime() <= now.getTime()) {
      throw new AppError('validation_failed', 'expires_at must be in the future.', {
        errors: [{ path: 'body.expires_at', message: 'must be in the future' }],
      });
    }
    const { row, secret } = mintKey({
      accountId,
      livemode,
      name: body.name,
      scopes,
      createdAt: now,
      expiresAt,
      rateLimitPerMinute: body.rate_limit_per_minute ?? this.deps.defaultRateLimitPerMinute,
      rotatedFrom: null,
      merchant,
    });
    await this.deps.store.inAccountTransaction(accountId, async (repo) => {
      if ((await repo.countLiveKeys(accountId, now)) >= MAX_KEYS_PER_ACCOUNT) {
        throw new AppError('key_limit_reached', `An account can hold at most ${MAX_KEYS_PER_ACCOUNT} active or disabled keys; delete unused ones first.`);
      }
      await repo.insert(row);
    });
    return { key: secret, metadata: toKeyRecord(storedFrom(row), now) };
  }

  async list(principal: Principal, query: ListKeysQuery): Promise<KeyPage> {
    const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
    const rows = await this.deps.store.list(principal.accountId, query.limit + 1, after);
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    const hasMore = rows.length > query.limit && last !== undefined;
    const now = this.deps.clock.now();
    return {
      data: page.map((k) => toKeyRecord(k, now)),
      next_cursor: hasMore ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
      has_more: hasMore,
    };
  }

  /** 404 for unknown ids and for keys of other accounts alike. */
  async get(principal: Principal, rawId: string): Promise<KeyRecord> {
    const key = await this.find(this.deps.store, principal, rawId);
    return toKeyRecord(key, this.deps.clock.now());
  }

  /**
   * Disables (default) or re-enables a key. Disabling revokes the OAuth grants it approved.
   * 409 conflict for revoked/expired keys, 409 last_admin_key.
   */
  async update(principal: Principal, rawId: string, body: UpdateKeyBody | undefined): Promise<KeyRecord> {
    const target = body?.status ?? 'disabled';
    return this.deps.store.inAccountTransaction(principal.accountId, async (repo) => {
      const now = this.deps.clock.now();
      const key = await this.find(repo, principal, rawId);
      const status = effectiveStatus(key, now);
      if (status === 'revoked' || status === 'expired') {
        throw new AppError('conflict', `The key is ${status}; that is final. Create a new key instead.`);
      }
      if (status === target) return toKeyRecord(key, now);
      if (target === 'disabled') {
        await this.assertNotLastAdmin(repo, key, now);
        // Re-enabling the key later does not bring its apps back: they must be authorized again.
        await repo.revokeGrants(key.accountId, key.id, now);
      }
      await repo.setStatus(key.accountId, key.id, target);
      return toKeyRecord({ ...key, status: target }, now);
    });
  }

  /**
   * Issues a replacement with the same name, scopes, expiry and limit. The old key keeps working
   * for the grace period if it is active; a disabled key is revoked at once.
   */
  async rotate(principal: Principal, rawId: string, body: RotateKeyBody): Promise<RotatedKey> {
    return this.deps.store.inAccountTransaction(principal.accountId, async (repo) => {
      const now = this.deps.clock.now();
      const key = await this.find(repo, principal, rawId);
      const status = effectiveStatus(key, now);
      if (status === 'revoked' || status === 'expired') {
        throw new AppError('conflict', `The key is ${status} and cannot be rotated. Create a new key instead.`);
      }
      if (key.revokeAt !== null) {
        throw new AppError('conflict', 'The key has already been rotated; rotate its replacement instead.');
      }
      const { row, secret } = mintKey({
        accountId: key.accountId,
        name: key.name,
        scopes: key.scopes,
        createdAt: now,
        expiresAt: key.expiresAt,
        rateLimitPerMinute: key.rateLimitPerMinute,
        rotatedFrom: key.id,
        merchant: key.merchant,
        livemode: key.livemode,
      });
      await repo.insert(row);
      const grace = status === 'active' ? body.grace_period_seconds : 0;
      const revokeAt = new Date(now.getTime() + grace * 1000);
      await repo.setStatus(key.accountId, key.id, grace === 0 ? 'revoked' : key.status, revokeAt);
      // Revoked now: its grants end with it. With a grace period they end when it does (every use re-reads the key).
      if (grace === 0) await repo.revokeGrants(key.accountId, key.id, now);
      return {
        key: secret,
        metadata: toKeyRecord(storedFrom(row), now),
        rotated_from: key.id,
        old_key_expires_at: revokeAt.toISOString(),
      };
    });
  }

  /** Permanently deletes a key, and with it its OAuth grants and their tokens. 409 last_admin_key when it is the account's last durable admin key. */
  async remove(principal: Principal, rawId: string): Promise<void> {
    await this.deps.store.inAccountTransaction(principal.accountId, async (repo) => {
      const now = this.deps.clock.now();
      const key = await this.find(repo, principal, rawId);
      await this.assertNotLastAdmin(repo, key, now);
      await repo.delete(key.accountId, key.id);
    });
  }

  private async find(repo: KeyRepository, principal: Principal, rawId: string): Promise<StoredKey> {
    const id = parseId('key', rawId);
    const key = id === null ? null : await repo.findById(principal.accountId, id);
    if (key === null) throw new AppError('not_found', `No key with id ${rawId} in this account.`);
    return key;
  }

  private async assertNotLastAdmin(repo: KeyRepository, key: StoredKey, now: Date): Promise<void> {
    const durableAdmin = effectiveStatus(key, now) === 'active' && key.revokeAt === null && hasScope(key.scopes, 'keys:manage');
    if (!durableAdmin) return;
    if ((await repo.countOtherDurableAdmins(key.accountId, key.id, now)) === 0) {
      throw new AppError(
        'last_admin_key',
        'This is the last active key with the keys:manage scope; create another one first, or the account could no longer manage its keys.',
      );
    }
  }
}

function storedFrom(row: NewKey): StoredKey {
  return {
    id: row.id,
    accountId: row.accountId,
    name: row.name,
    hint: row.hint,
    scopes: row.scopes as Scope[],
    status: 'active',
    createdAt: row.createdAt,
    lastUsedAt: null,
    expiresAt: row.expiresAt,
    revokeAt: null,
    rateLimitPerMinute: row.rateLimitPerMinute,
    rotatedFrom: row.rotatedFrom,
    merchant: row.merchant,
    livemode: row.livemode,
  };
}
