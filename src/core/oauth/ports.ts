/** What the OAuth domain needs from storage (src/store/pg/oauth-store.ts) and from the network. */
import type { StoredKey } from '../keys/ports.js';
import type { Scope } from '../keys/scopes.js';
import type { PageCursor } from '../shared-ports.js';

/** A client registered by Dynamic Client Registration (RFC 7591). */
export interface RegisteredClient {
  clientId: string;
  clientName: string | null;
  redirectUris: string[];
  createdAt: Date;
  /** When it first obtained an authorization code; a registration never authorized expires (docs/oauth.md). */
  authorizedAt: Date | null;
}

/** An authorization code as approved on the consent page; only its hash is stored. */
export interface NewCode {
  codeHash: string;
  accountId: string;
  /** The key the person signed in with: the grant acts as this key. */
  keyId: string;
  clientId: string;
  clientName: string | null;
  redirectUri: string;
  codeChallenge: string;
  scopes: Scope[];
  resource: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface StoredCode extends NewCode {
  usedAt: Date | null;
  /** The grant its exchange created: revoked if the code is presented again. */
  grantId: string | null;
}

/** One authorization of one client by one key: the family of tokens it issues. */
export interface NewGrant {
  id: string;
  accountId: string;
  keyId: string;
  clientId: string;
  clientName: string | null;
  redirectUri: string;
  scopes: Scope[];
  resource: string;
  createdAt: Date;
  /** When its newest refresh token expires: unused past this, the grant has ended. */
  expiresAt: Date;
}

export interface StoredGrant extends NewGrant {
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export type TokenKind = 'access' | 'refresh';

export interface NewToken {
  tokenHash: string;
  grantId: string;
  kind: TokenKind;
  scopes: Scope[];
  createdAt: Date;
  expiresAt: Date;
}

interface StoredToken extends NewToken {
  /** A refresh token's rotation: set when it was exchanged for the next pair. */
  usedAt: Date | null;
}

/** A token with its grant and the key behind the grant as the key is now (status, scopes, PII policy). */
export interface TokenWithGrant {
  token: StoredToken;
  grant: StoredGrant;
  key: StoredKey;
}

/** A code with the key that approved it, as the key is now. */
export interface CodeWithKey {
  code: StoredCode;
  key: StoredKey;
}

/** Reads and writes inside one transaction (OAuthStore.inTransaction): a code or token is locked once read. */
export interface OAuthRepository {
  findCodeForUpdate(codeHash: string): Promise<CodeWithKey | null>;
  markCodeUsed(codeHash: string, usedAt: Date, grantId: string | null): Promise<void>;
  findTokenForUpdate(tokenHash: string): Promise<TokenWithGrant | null>;
  markTokenUsed(tokenHash: string, usedAt: Date): Promise<void>;
  insertGrant(grant: NewGrant): Promise<void>;
  /** A refresh moved the grant's end and counts as a use. */
  extendGrant(grantId: string, expiresAt: Date, usedAt: Date): Promise<void>;
  revokeGrant(grantId: string, at: Date): Promise<void>;
  insertTokens(tokens: readonly NewToken[]): Promise<void>;
}

export interface OAuthStore {
  inTransaction<T>(fn: (repo: OAuthRepository) => Promise<T>): Promise<T>;
  insertClient(client: RegisteredClient): Promise<void>;
  findClient(clientId: string): Promise<RegisteredClient | null>;
  /** Stores an approved code and marks a registered client as authorized, atomically. */
  insertCode(code: NewCode): Promise<void>;
  /** Any token, with its grant and key (authentication, revocation). */
  findToken(tokenHash: string): Promise<TokenWithGrant | null>;
  deleteToken(tokenHash: string): Promise<void>;
  revokeGrant(grantId: string, at: Date): Promise<void>;
  /** Writes last_used_at unless another write happened within the last minute. */
  touchGrant(grantId: string, now: Date): Promise<void>;
  /** Live grants of the account (not revoked, not past their end, their key active), newest first. */
  listGrants(accountId: string, now: Date, limit: number, after: PageCursor | null): Promise<StoredGrant[]>;
  /** Revokes one live grant of the account; false when there is none with that id. */
  revokeAccountGrant(accountId: string, grantId: string, now: Date): Promise<boolean>;
  /** Retention: registrations never authorized and created before `cutoff`. */
  pruneUnusedClients(cutoff: Date, limit: number): Promise<number>;
  /** Retention: codes that expired before `cutoff`. */
  pruneCodes(cutoff: Date, limit: number): Promise<number>;
  /** Retention: tokens that expired before `cutoff`. */
  pruneTokens(cutoff: Date, limit: number): Promise<number>;
  /** Retention: grants revoked or ended before `cutoff`, with their tokens. */
  pruneGrants(cutoff: Date, limit: number): Promise<number>;
}

/** A client metadata document fetched from its URL, or why it could not be. */
export type MetadataFetch = { ok: true; document: unknown } | { ok: false; reason: string };

/**
 * Fetches a Client ID Metadata Document (src/outbound/client-metadata.ts): https only,
 * through the SSRF guard, bounded in size and time, redirects not followed, cached as its
 * HTTP caching headers say.
 */
export interface ClientMetadataFetcher {
  fetch(url: string): Promise<MetadataFetch>;
}
