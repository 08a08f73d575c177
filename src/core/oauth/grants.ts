import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { parseId } from '../ids.js';
import { decodeCursor, encodeCursor } from '../keys/cursor.js';
import type { GrantPage, GrantRecord, ListGrantsQuery } from '../schemas/oauth.js';
import type { Principal } from '../shared-ports.js';
import type { OAuthStore, StoredGrant } from './ports.js';
import { redirectHost } from './redirect-uris.js';

function toGrantRecord(g: StoredGrant): GrantRecord {
  return {
    id: g.id,
    client_id: g.clientId,
    client_name: g.clientName,
    redirect_host: redirectHost(g.redirectUri),
    scopes: g.scopes,
    resource: g.resource,
    key_id: g.keyId,
    created_at: g.createdAt.toISOString(),
    last_used_at: g.lastUsedAt?.toISOString() ?? null,
    expires_at: g.expiresAt.toISOString(),
  };
}

/** The account's connected apps (GET and DELETE /v1/oauth/grants, the console's Connected apps). */
export class GrantService {
  constructor(private readonly deps: { store: OAuthStore; clock: Clock }) {}

  /** Live grants, newest first, paged like keys. */
  async list(principal: Principal, query: ListGrantsQuery): Promise<GrantPage> {
    const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
    const rows = await this.deps.store.listGrants(principal.accountId, this.deps.clock.now(), query.limit + 1, after);
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    const hasMore = rows.length > query.limit && last !== undefined;
    return {
      data: page.map(toGrantRecord),
      next_cursor: hasMore ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
      has_more: hasMore,
    };
  }

  /** Revokes a grant: its access and refresh tokens stop working at once. 404 for an unknown, ended or foreign grant. */
  async revoke(principal: Principal, rawId: string): Promise<void> {
    const id = parseId('grant', rawId);
    const revoked = id !== null && (await this.deps.store.revokeAccountGrant(principal.accountId, id, this.deps.clock.now()));
    if (!revoked) throw new AppError('not_found', `No live grant with id ${rawId} in this account.`);
  }
}
