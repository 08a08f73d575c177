import type { Clock } from '../clock.js';
import { AppError, type ErrorCode } from '../errors.js';
import type { Logger, Principal } from '../shared-ports.js';
import { hashKeySecret, isWellFormedKey } from './key-secret.js';
import { effectiveStatus } from './key-status.js';
import type { KeyStore, StoredKey } from './ports.js';
import { hasScope, type Scope } from './scopes.js';

export type AuthFailure = 'missing' | 'malformed' | 'unknown' | 'disabled' | 'revoked' | 'expired';
export type AuthResult = { ok: true; principal: Principal } | { ok: false; reason: AuthFailure };

const failureCodes: Record<AuthFailure, ErrorCode> = {
  missing: 'missing_api_key',
  malformed: 'invalid_api_key',
  unknown: 'invalid_api_key',
  disabled: 'api_key_disabled',
  revoked: 'api_key_revoked',
  expired: 'api_key_expired',
};

const failureDetails: Record<AuthFailure, string> = {
  missing: 'Send your API key in the x-api-key header (or Authorization: Bearer).',
  malformed: 'The API key is not an Aisle key (aisle_sk_ followed by 36 characters with a valid checksum).',
  unknown: 'No such API key. It may have been deleted, or mistyped.',
  disabled: 'This API key is disabled. An admin can re-enable it with POST /v1/keys/{key_id} {"status":"active"}.',
  revoked: 'This API key was revoked (replaced by a rotation). Use its replacement.',
  expired: 'This API key has passed its expiry time. Create a new key.',
};

export const authFailureError = (reason: AuthFailure): AppError => new AppError(failureCodes[reason], failureDetails[reason]);

export function requireScope(principal: Principal, scope: Scope): void {
  if (!hasScope(principal.scopes, scope)) {
    throw new AppError('insufficient_scope', `This operation needs the ${scope} scope, which this API key does not have.`, {
      extensions: { required_scope: scope },
    });
  }
}

/** Resolves an API key to a principal. Expected refusals are values; a broken store is 503. */
export class Authenticator {
  constructor(private readonly deps: { store: KeyStore; clock: Clock; logger: Logger }) {}

  async authenticate(rawKey: string | undefined): Promise<AuthResult> {
    if (rawKey === undefined || rawKey === '') return { ok: false, reason: 'missing' };
    // Checked before any I/O: a guessed or truncated key costs us no database read.
    if (!isWellFormedKey(rawKey)) return { ok: false, reason: 'malformed' };
    const store = this.deps.store;
    let key: StoredKey | null;
    try {
      key = await store.findBySecretHash(hashKeySecret(rawKey));
    } catch (cause) {
      this.deps.logger.error({ err: cause }, 'API key lookup failed');
      // The store's own 503 (a database timeout) keeps its Retry-After.
      if (cause instanceof AppError && cause.code === 'unavailable') throw cause;
      throw new AppError('unavailable', 'key lookup failed', { cause });
    }
    if (key === null) return { ok: false, reason: 'unknown' };
    const now = this.deps.clock.now();
    const status = effectiveStatus(key, now);
    if (status !== key.status && (status === 'revoked' || status === 'expired')) {
      await store.settleStatus(key.id, status).catch((err: unknown) => this.deps.logger.warn({ err }, 'settling key status failed'));
    }
    if (status !== 'active') return { ok: false, reason: status };
    if (key.lastUsedAt === null || now.getTime() - key.lastUsedAt.getTime() >= 60_000) {
      await store.touchLastUsed(key.id, now).catch((err: unknown) => this.deps.logger.warn({ err }, 'last_used_at update failed'));
    }
    return {
      ok: true,
      principal: {
        accountId: key.accountId,
        keyId: key.id,
        scopes: key.scopes,
        rateLimitPerMinute: key.rateLimitPerMinute,
        merchant: key.merchant,
        livemode: key.livemode,
        piiPolicy: key.piiPolicy ?? 'redact',
      },
    };
  }
}
