import type { Scope } from '../../core/keys/scopes.js';
import type {
  CodeWithKey,
  NewCode,
  NewGrant,
  NewToken,
  OAuthRepository,
  OAuthStore,
  RegisteredClient,
  StoredGrant,
  TokenKind,
  TokenWithGrant,
} from '../../core/oauth/ports.js';
import type { PageCursor } from '../../core/shared-ports.js';
import type { Db, Queryable } from './db.js';
import { KEY_COLUMNS_OF_K, type KeyRow, toStoredKey } from './key-store.js';

const GRANT_COLUMNS = [
  'id',
  'account_id',
  'key_id',
  'client_id',
  'client_name',
  'redirect_uri',
  'scopes',
  'resource',
  'created_at',
  'last_used_at',
  'expires_at',
  'revoked_at',
];
/** The grant's columns as `g_<name>`, beside the key's own (which share several names). */
const GRANT_AS_G = GRANT_COLUMNS.map((c) => `g.${c} AS g_${c}`).join(', ');

interface GrantRow {
  g_id: string;
  g_account_id: string;
  g_key_id: string;
  g_client_id: string;
  g_client_name: string | null;
  g_redirect_uri: string;
  g_scopes: string[];
  g_resource: string;
  g_created_at: Date;
  g_last_used_at: Date | null;
  g_expires_at: Date;
  g_revoked_at: Date | null;
}

type KeyJoin = KeyRow & { pii_policy: 'redact' | 'reject' };

type TokenRow = GrantRow &
  KeyJoin & { token_hash: string; t_kind: TokenKind; t_scopes: string[]; t_created_at: Date; t_expires_at: Date; t_used_at: Date | null };

type CodeRow = KeyJoin & {
  code_hash: string;
  c_account_id: string;
  c_key_id: string;
  c_client_id: string;
  c_client_name: string | null;
  c_redirect_uri: string;
  c_code_challenge: string;
  c_scopes: string[];
  c_resource: string;
  c_created_at: Date;
  c_expires_at: Date;
  c_used_at: Date | null;
  c_grant_id: string | null;
};

const toGrant = (r: GrantRow): StoredGrant => ({
  id: r.g_id,
  accountId: r.g_account_id,
  keyId: r.g_key_id,
  clientId: r.g_client_id,
  clientName: r.g_client_name,
  redirectUri: r.g_redirect_uri,
  scopes: r.g_scopes as Scope[],
  resource: r.g_resource,
  createdAt: r.g_created_at,
  lastUsedAt: r.g_last_used_at,
  expiresAt: r.g_expires_at,
  revokedAt: r.g_revoked_at,
});

const keyOf = (r: KeyJoin) => ({ ...toStoredKey(r), piiPolicy: r.pii_policy });

const TOKEN_SELECT = `SELECT t.token_hash, t.kind AS t_kind, t.scopes AS t_scopes, t.created_at AS t_created_at, t.expires_at AS t_expires_at,
    t.used_at AS t_used_at, ${GRANT_AS_G}, ${KEY_COLUMNS_OF_K}, a.pii_policy
  FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN api_keys k ON k.id = g.key_id JOIN accounts a ON a.id = k.account_id
  WHERE t.token_hash = $1`;

const CODE_COLUMNS = [
  'account_id',
  'key_id',
  'client_id',
  'client_name',
  'redirect_uri',
  'code_challenge',
  'scopes',
  'resource',
  'created_at',
  'expires_at',
  'used_at',
  'grant_id',
];
const CODE_SELECT = `SELECT c.code_hash, ${CODE_COLUMNS.map((col) => `c.${col} AS c_${col}`).join(', ')}, ${KEY_COLUMNS_OF_K}, a.pii_policy
  FROM oauth_codes c JOIN api_keys k ON k.id = c.key_id JOIN accounts a ON a.id = k.account_id
  WHERE c.code_hash = $1`;

// The SQL form of "live": not revoked, not past its end, and its key active (core/keys/key-status.ts).
const LIVE_GRANT = `g.revoked_at IS NULL AND g.expires_at > $2 AND k.status = 'active'
  AND (k.revoke_at IS NULL OR k.revoke_at > $2) AND (k.expires_at IS NULL OR k.expires_at > $2)`;

// Token and code rows each unpack their own prefixed columns (t_, c_) and so look alike; the part
// they share, the approving key, goes through keyOf.
function toTokenWithGrant(r: TokenRow): TokenWithGrant {
  return {
    token: {
      tokenHash: r.token_hash,
      grantId: r.g_id,
      kind: r.t_kind,
      scopes: r.t_scopes as Scope[],
      createdAt: r.t_created_at,
      expiresAt: r.t_expires_at,
      usedAt: r.t_used_at,
    },
    grant: toGrant(r),
    key: keyOf(r),
  };
}

function toCodeWithKey(r: CodeRow): CodeWithKey {
  return {
    code: {
      codeHash: r.code_hash,
      accountId: r.c_account_id,
      keyId: r.c_key_id,
      clientId: r.c_client_id,
      clientName: r.c_client_name,
      redirectUri: r.c_redirect_uri,
      codeChallenge: r.c_code_challenge,
      scopes: r.c_scopes as Scope[],
      resource: r.c_resource,
      createdAt: r.c_created_at,
      expiresAt: r.c_expires_at,
      usedAt: r.c_used_at,
      grantId: r.c_grant_id,
    },
    key: keyOf(r),
  };
}

async function revokeGrant(q: Queryable, grantId: string, at: Date): Promise<void> {
  await q.query('UPDATE oauth_grants SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [grantId, at]);
}

class PgOAuthRepository implements OAuthRepository {
  constructor(private readonly q: Queryable) {}

  async findCodeForUpdate(codeHash: string): Promise<CodeWithKey | null> {
    const row = (await this.q.query<CodeRow>(`${CODE_SELECT} FOR UPDATE OF c`, [codeHash]))[0];
    return row ? toCodeWithKey(row) : null;
  }

  async markCodeUsed(codeHash: string, usedAt: Date, grantId: string | null): Promise<void> {
    await this.q.query('UPDATE oauth_codes SET used_at = $2, grant_id = $3 WHERE code_hash = $1', [codeHash, usedAt, grantId]);
  }

  async findTokenForUpdate(tokenHash: string): Promise<TokenWithGrant | null> {
    const row = (await this.q.query<TokenRow>(`${TOKEN_SELECT} FOR UPDATE OF t`, [tokenHash]))[0];
    return row ? toTokenWithGrant(row) : null;
  }

  async markTokenUsed(tokenHash: string, usedAt: Date): Promise<void> {
    await this.q.query('UPDATE oauth_tokens SET used_at = $2 WHERE token_hash = $1', [tokenHash, usedAt]);
  }

  async insertGrant(g: NewGrant): Promise<void> {
    await this.q.query(
      `INSERT INTO oauth_grants (id, account_id, key_id, client_id, client_name, redirect_uri, scopes, resource, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [g.id, g.accountId, g.keyId, g.clientId, g.clientName, g.redirectUri, g.scopes, g.resource, g.createdAt, g.expiresAt],
    );
  }

  async extendGrant(grantId: string, expiresAt: Date, usedAt: Date): Promise<void> {
    await this.q.query('UPDATE oauth_grants SET expires_at = $2, last_used_at = $3 WHERE id = $1', [grantId, expiresAt, usedAt]);
  }

  revokeGrant(grantId: string, at: Date): Promise<void> {
    return revokeGrant(this.q, grantId, at);
  }

  async insertTokens(tokens: readonly NewToken[]): Promise<void> {
    for (const t of tokens) {
      await this.q.query('INSERT INTO oauth_tokens (token_hash, grant_id, kind, scopes, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)', [
        t.tokenHash,
        t.grantId,
        t.kind,
        t.scopes,
        t.createdAt,
        t.expiresAt,
      ]);
    }
  }
}

/** OAuth clients, codes, grants and tokens (migration 013, docs/oauth.md). */
export class PgOAuthStore implements OAuthStore {
  constructor(private readonly db: Db) {}

  inTransaction<T>(fn: (repo: OAuthRepository) => Promise<T>): Promise<T> {
    return this.db.transaction((tx) => fn(new PgOAuthRepository(tx)));
  }

  // A plain one-row insert, alike in form to others in these stores (feed-store's create) with no
  // column in common: nothing to share.
  async insertClient(c: RegisteredClient): Promise<void> {
    await this.db.query('INSERT INTO oauth_clients (client_id, client_name, redirect_uris, created_at, authorized_at) VALUES ($1, $2, $3, $4, $5)', [
      c.clientId,
      c.clientName,
      c.redirectUris,
      c.createdAt,
      c.authorizedAt,
    ]);
  }

  async findClient(clientId: string): Promise<RegisteredClient | null> {
    const rows = await this.db.query<{ client_id: string; client_name: string | null; redirect_uris: string[]; created_at: Date; authorized_at: Date | null }>(
      'SELECT client_id, client_name, redirect_uris, created_at, authorized_at FROM oauth_clients WHERE client_id = $1',
      [clientId],
    );
    const r = rows[0];
    return r
      ? { clientId: r.client_id, clientName: r.client_name, redirectUris: r.redirect_uris, createdAt: r.created_at, authorizedAt: r.authorized_at }
      : null;
  }

  async insertCode(c: NewCode): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO oauth_codes (code_hash, account_id, key_id, client_id, client_name, redirect_uri, code_challenge, scopes, resource, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [c.codeHash, c.accountId, c.keyId, c.clientId, c.clientName, c.redirectUri, c.codeChallenge, c.scopes, c.resource, c.createdAt, c.expiresAt],
      );
      await tx.query('UPDATE oauth_clients SET authorized_at = $2 WHERE client_id = $1 AND authorized_at IS NULL', [c.clientId, c.createdAt]);
    });
  }

  async findToken(tokenHash: string): Promise<TokenWithGrant | null> {
    const row = (await this.db.query<TokenRow>(TOKEN_SELECT, [tokenHash]))[0];
    return row ? toTokenWithGrant(row) : null;
  }

  async deleteToken(tokenHash: string): Promise<void> {
    await this.db.query('DELETE FROM oauth_tokens WHERE token_hash = $1', [tokenHash]);
  }

  revokeGrant(grantId: string, at: Date): Promise<void> {
    return revokeGrant(this.db, grantId, at);
  }

  async touchGrant(grantId: string, now: Date): Promise<void> {
    // The WHERE clause makes this at most one write per grant per minute across all processes.
    await this.db.query(
      `UPDATE oauth_grants SET last_used_at = $2
       WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $2::timestamptz - interval '60 seconds')`,
      [grantId, now],
    );
  }

  async listGrants(accountId: string, now: Date, limit: number, after: PageCursor | null): Promise<StoredGrant[]> {
    const base = `SELECT ${GRANT_AS_G} FROM oauth_grants g JOIN api_keys k ON k.id = g.key_id WHERE g.account_id = $1 AND ${LIVE_GRANT}`;
    const rows = after
      ? await this.db.query<GrantRow>(`${base} AND (g.created_at, g.id) < ($3, $4) ORDER BY g.created_at DESC, g.id DESC LIMIT $5`, [
          accountId,
          now,
          after.createdAt,
          after.id,
          limit,
        ])
      : await this.db.query<GrantRow>(`${base} ORDER BY g.created_at DESC, g.id DESC LIMIT $3`, [accountId, now, limit]);
    return rows.map(toGrant);
  }

  async revokeAccountGrant(accountId: string, grantId: string, now: Date): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>(
      `UPDATE oauth_grants g SET revoked_at = $2 FROM api_keys k
       WHERE k.id = g.key_id AND g.account_id = $1 AND g.id = $3 AND ${LIVE_GRANT} RETURNING g.id`,
      [accountId, now, grantId],
    );
    return rows.length > 0;
  }

  pruneUnusedClients(cutoff: Date, limit: number): Promise<number> {
    return this.prune('oauth_clients', 'client_id', 'authorized_at IS NULL AND created_at <= $1', cutoff, limit);
  }

  pruneCodes(cutoff: Date, limit: number): Promise<number> {
    return this.prune('oauth_codes', 'code_hash', 'expires_at <= $1', cutoff, limit);
  }

  pruneGrants(cutoff: Date, limit: number): Promise<number> {
    return this.prune('oauth_grants', 'id', 'COALESCE(revoked_at, expires_at) <= $1', cutoff, limit);
  }

  pruneTokens(cutoff: Date, limit: number): Promise<number> {
    return this.prune('oauth_tokens', 'token_hash', 'expires_at <= $1', cutoff, limit);
  }

  /** One batch of retention: at most `limit` rows matching `where` (fixed texts above, never input). */
  private async prune(table: string, key: string, where: string, cutoff: Date, limit: number): Promise<number> {
    const rows = await this.db.query<{ n: number }>(
      `WITH gone AS (DELETE FROM ${table} WHERE ${key} IN (SELECT ${key} FROM ${table} WHERE ${where} LIMIT $2) RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [cutoff, limit],
    );
    return rows[0]?.n ?? 0;
  }
}
