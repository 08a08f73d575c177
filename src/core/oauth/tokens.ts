import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { effectiveStatus } from '../keys/key-status.js';
import type { Scope } from '../keys/scopes.js';
import type { TokenResponse } from '../schemas/oauth.js';
import type { Logger, Principal } from '../shared-ports.js';
import type { ClientRegistry } from './clients.js';
import type { OAuthEndpoints, ResourceName } from './endpoints.js';
import { type OAuthFailure, type OAuthOutcome, oauthFailure } from './outcome.js';
import type { NewGrant, OAuthRepository, OAuthStore, StoredCode, TokenWithGrant } from './ports.js';
import {
  ACCESS_TOKEN_TTL_MS,
  hashSecret,
  isAccessToken,
  isCode,
  isRefreshToken,
  newAccessToken,
  newRefreshToken,
  pkceMatches,
  REFRESH_TOKEN_TTL_MS,
} from './secrets.js';

/** The token endpoint's form fields (application/x-www-form-urlencoded, each at most once). */
export type TokenForm = Readonly<Record<string, string>>;

type AccessTokenFailure = 'malformed' | 'unknown' | 'expired' | 'revoked' | 'wrong_resource' | 'key_inactive';
export type AccessTokenResult = { ok: true; principal: Principal } | { ok: false; reason: AccessTokenFailure; detail: string };

const invalidGrant = (description: string): OAuthFailure => oauthFailure('invalid_grant', description);

/**
 * Tokens (docs/oauth.md): the token endpoint's two grants, access-token authentication and
 * revocation. Access tokens live an hour, refresh tokens 30 days and rotate on every use; a code
 * or refresh token presented twice revokes the whole grant. Only SHA-256 hashes are stored.
 */
export class TokenService {
  constructor(private readonly deps: { store: OAuthStore; clients: ClientRegistry; endpoints: OAuthEndpoints; clock: Clock; logger: Logger }) {}

  /** POST /oauth/token. An unknown client is 401 invalid_client, which makes MCP clients register again. */
  async token(form: TokenForm): Promise<OAuthOutcome<TokenResponse>> {
    const grantType = form.grant_type;
    if (grantType === undefined) return oauthFailure('invalid_request', 'grant_type is required.');
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
      return oauthFailure('unsupported_grant_type', 'Supported grant types: authorization_code, refresh_token.');
    }
    const clientId = form.client_id;
    if (clientId === undefined || !(await this.deps.clients.isKnown(clientId))) {
      return oauthFailure('invalid_client', 'Unknown client_id: register the client again.', 401);
    }
    return grantType === 'authorization_code' ? this.exchangeCode(form, clientId) : this.refresh(form, clientId);
  }

  private async exchangeCode(form: TokenForm, clientId: string): Promise<OAuthOutcome<TokenResponse>> {
    const { code, redirect_uri: redirectUri, code_verifier: verifier, resource } = form;
    if (code === undefined || redirectUri === undefined || verifier === undefined) {
      return oauthFailure('invalid_request', 'code, redirect_uri and code_verifier are required.');
    }
    if (!isCode(code)) return invalidGrant('The authorization code is not valid.');
    const hash = hashSecret(code);
    return this.deps.store.inTransaction(async (repo) => {
      const found = await repo.findCodeForUpdate(hash);
      if (found === null) return invalidGrant('The authorization code is not valid (unknown or expired).');
      const now = this.deps.clock.now();
      const { code: stored, key } = found;
      if (stored.usedAt !== null) {
        if (stored.grantId !== null) await repo.revokeGrant(stored.grantId, now);
        this.deps.logger.warn({ clientId, grantId: stored.grantId }, 'OAuth authorization code reused: its grant is revoked');
        return invalidGrant('The authorization code was already used; the tokens issued for it are revoked.');
      }
      // Any attempt consumes the code, so a wrong verifier cannot be followed by another guess.
      const refused =
        this.codeProblem(stored, clientId, redirectUri, verifier, resource, now) ??
        (effectiveStatus(key, now) === 'active' ? null : invalidGrant('The API key that approved this authorization no longer works.'));
      if (refused !== null) {
        await repo.markCodeUsed(hash, now, null);
        return refused;
      }
      const grant: NewGrant = {
        id: newId(),
        accountId: stored.accountId,
        keyId: stored.keyId,
        clientId,
        clientName: stored.clientName,
        redirectUri: stored.redirectUri,
        scopes: stored.scopes,
        resource: stored.resource,
        createdAt: now,
        expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_MS),
      };
      await repo.insertGrant(grant);
      await repo.markCodeUsed(hash, now, grant.id);
      return { ok: true, value: await this.issue(repo, grant, stored.scopes, now) };
    });
  }

  private codeProblem(code: StoredCode, clientId: string, redirectUri: string, verifier: string, resource: string | undefined, now: Date): OAuthFailure | null {
    if (code.expiresAt.getTime() <= now.getTime()) return invalidGrant('The authorization code has expired.');
    if (code.clientId !== clientId) return invalidGrant('The authorization code was issued to another client.');
    if (code.redirectUri !== redirectUri) return invalidGrant('redirect_uri differs from the authorization request.');
    if (!pkceMatches(verifier, code.codeChallenge)) return invalidGrant('code_verifier does not match the code_challenge (PKCE S256).');
    return this.resourceProblem(resource, code.resource);
  }

  private resourceProblem(resource: string | undefined, bound: string): OAuthFailure | null {
    if (resource === undefined) return null;
    const named = this.deps.endpoints.resourceNamed(resource);
    if (named !== null && this.deps.endpoints.resources[named] === bound) return null;
    return oauthFailure('invalid_target', `This authorization is for ${bound}.`);
  }

  private async refresh(form: TokenForm, clientId: string): Promise<OAuthOutcome<TokenResponse>> {
    const raw = form.refresh_token;
    if (raw === undefined) return oauthFailure('invalid_request', 'refresh_token is required.');
    if (!isRefreshToken(raw)) return invalidGrant('The refresh token is not valid.');
    const hash = hashSecret(raw);
    return this.deps.store.inTransaction(async (repo) => {
      const found = await repo.findTokenForUpdate(hash);
      if (found === null || found.token.kind !== 'refresh') return invalidGrant('The refresh token is not valid (unknown or expired).');
      const now = this.deps.clock.now();
      const { token, grant } = found;
      if (grant.clientId !== clientId) return invalidGrant('The refresh token was issued to another client.');
      if (grant.revokedAt !== null) return invalidGrant('The authorization was revoked; authorize again.');
      if (token.usedAt !== null) {
        await repo.revokeGrant(grant.id, now);
        this.deps.logger.warn({ clientId, grantId: grant.id }, 'OAuth refresh token reused: its grant is revoked');
        return invalidGrant('The refresh token was already used; the authorization is revoked. Authorize again.');
      }
      const refused = refreshProblem(found, now) ?? this.resourceProblem(form.resource, grant.resource);
      if (refused !== null) return refused;
      const scopes = narrowedScopes(form.scope, grant.scopes);
      if (typeof scopes === 'string') return oauthFailure('invalid_scope', scopes);
      await repo.markTokenUsed(hash, now);
      const expiresAt = new Date(now.getTime() + REFRESH_TOKEN_TTL_MS);
      await repo.extendGrant(grant.id, expiresAt, now);
      return { ok: true, value: await this.issue(repo, { ...grant, expiresAt }, scopes, now) };
    });
  }

  /** A new access token with `scopes` and a new refresh token with the grant's, stored as hashes. */
  private async issue(repo: OAuthRepository, grant: NewGrant, scopes: Scope[], now: Date): Promise<TokenResponse> {
    const access = newAccessToken();
    const refresh = newRefreshToken();
    await repo.insertTokens([
      { tokenHash: hashSecret(access), grantId: grant.id, kind: 'access', scopes, createdAt: now, expiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_MS) },
      { tokenHash: hashSecret(refresh), grantId: grant.id, kind: 'refresh', scopes: grant.scopes, createdAt: now, expiresAt: grant.expiresAt },
    ]);
    return { access_token: access, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_MS / 1000, refresh_token: refresh, scope: scopes.join(' ') };
  }

  /**
   * Resolves an access token to the principal of the key that approved its grant, with the
   * token's scopes that the key still holds. Accepted only at the resource it was minted for.
   */
  async authenticate(raw: string, resource: ResourceName | null): Promise<AccessTokenResult> {
    if (!isAccessToken(raw))
      return { ok: false, reason: 'malformed', detail: 'The access token is not an Aisle token (aisle_ot_ followed by 36 characters with a valid checksum).' };
    const found = await this.lookup(raw);
    if (found === null || found.token.kind !== 'access') return { ok: false, reason: 'unknown', detail: 'Unknown access token.' };
    const now = this.deps.clock.now();
    const { token, grant, key } = found;
    if (token.expiresAt.getTime() <= now.getTime())
      return { ok: false, reason: 'expired', detail: 'The access token has expired; use the refresh token for a new one.' };
    if (grant.revokedAt !== null) return { ok: false, reason: 'revoked', detail: 'The authorization behind this token was revoked.' };
    if (effectiveStatus(key, now) !== 'active')
      return { ok: false, reason: 'key_inactive', detail: 'The API key that approved this app no longer works, which ends its access.' };
    if (resource === null || this.deps.endpoints.resources[resource] !== grant.resource) {
      return { ok: false, reason: 'wrong_resource', detail: `This access token was issued for ${grant.resource} and is not accepted here.` };
    }
    if (grant.lastUsedAt === null || now.getTime() - grant.lastUsedAt.getTime() >= 60_000) {
      await this.deps.store.touchGrant(grant.id, now).catch((err: unknown) => this.deps.logger.warn({ err }, 'grant last_used_at update failed'));
    }
    return {
      ok: true,
      principal: {
        accountId: key.accountId,
        keyId: key.id,
        scopes: token.scopes.filter((s) => key.scopes.includes(s)),
        rateLimitPerMinute: key.rateLimitPerMinute,
        merchant: key.merchant,
        livemode: key.livemode,
        piiPolicy: key.piiPolicy ?? 'redact',
        oauth: { grantId: grant.id, clientId: grant.clientId },
      },
    };
  }

  /**
   * POST /oauth/revoke (RFC 7009): always succeeds for a token it does not know or that another
   * client holds. A refresh token revokes its whole grant; an access token only itself.
   */
  async revoke(form: TokenForm): Promise<OAuthOutcome<null>> {
    const raw = form.token;
    if (raw === undefined) return oauthFailure('invalid_request', 'token is required.');
    if (form.client_id !== undefined && !(await this.deps.clients.isKnown(form.client_id))) return oauthFailure('invalid_client', 'Unknown client_id.', 401);
    if (!isAccessToken(raw) && !isRefreshToken(raw)) return { ok: true, value: null };
    const found = await this.lookup(raw);
    if (found === null || (form.client_id !== undefined && found.grant.clientId !== form.client_id)) return { ok: true, value: null };
    if (found.token.kind === 'refresh') await this.deps.store.revokeGrant(found.grant.id, this.deps.clock.now());
    else await this.deps.store.deleteToken(found.token.tokenHash);
    return { ok: true, value: null };
  }

  private async lookup(raw: string): Promise<TokenWithGrant | null> {
    try {
      return await this.deps.store.findToken(hashSecret(raw));
    } catch (cause) {
      this.deps.logger.error({ err: cause }, 'OAuth token lookup failed');
      if (cause instanceof AppError && cause.code === 'unavailable') throw cause;
      throw new AppError('unavailable', 'token lookup failed', { cause });
    }
  }
}

function refreshProblem({ token, key }: TokenWithGrant, now: Date): OAuthFailure | null {
  if (token.expiresAt.getTime() <= now.getTime()) return invalidGrant('The refresh token has expired; authorize again.');
  if (effectiveStatus(key, now) !== 'active') return invalidGrant('The API key that approved this authorization no longer works.');
  return null;
}

/** A refresh may ask for fewer scopes than the grant holds (RFC 6749 §6), never more. */
function narrowedScopes(raw: string | undefined, granted: readonly Scope[]): Scope[] | string {
  if (raw === undefined) return [...granted];
  const asked = [...new Set(raw.split(' ').filter((s) => s !== '' && s !== 'offline_access'))];
  const extra = asked.filter((s) => !(granted as readonly string[]).includes(s));
  if (extra.length > 0) return `The authorization does not include ${extra[0]!.slice(0, 100)}.`;
  return asked.length === 0 ? [...granted] : (asked as Scope[]);
}
