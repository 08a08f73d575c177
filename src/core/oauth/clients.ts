import type { Clock } from '../clock.js';
import { isUuid, newId } from '../ids.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import { type ClientMetadata, ClientMetadataDocumentSchema, ClientMetadataSchema, type RegisteredClientResponse } from '../schemas/oauth.js';
import type { Logger } from '../shared-ports.js';
import { type OAuthFailure, type OAuthOutcome, oauthFailure } from './outcome.js';
import type { ClientMetadataFetcher, OAuthStore } from './ports.js';
import { checkRedirectUri } from './redirect-uris.js';

/** A client as the authorization endpoint knows it, however it became known. */
export interface OAuthClient {
  clientId: string;
  name: string | null;
  redirectUris: readonly string[];
  /** Its client_id is the URL of its own metadata document (CIMD), or it registered (RFC 7591). */
  kind: 'metadata_document' | 'registered';
}

export type ClientLookup = { ok: true; client: OAuthClient } | { ok: false; reason: string };

/** A registration never used for an authorization is forgotten after this (retention prunes it). */
export const UNUSED_REGISTRATION_TTL_MS = 24 * 60 * 60_000;

/** The rate-limit buckets of registrations, one per client address. */
export const REGISTRATION_BUCKET_PREFIX = 'oauth-register:';

/** Registrations per minute from one client address, by default (AISLE_OAUTH_REGISTER_RATE_LIMIT). */
export const DEFAULT_REGISTRATIONS_PER_MINUTE = 10;

export interface ClientRegistryDeps {
  store: OAuthStore;
  clock: Clock;
  logger: Logger;
  rateLimiter: RateLimiter;
  /** Absent: client ids that are URLs are not fetched, and the metadata says so. */
  fetcher: ClientMetadataFetcher | null;
  registrationsPerMinute: number;
}

/**
 * Why a client id cannot name a metadata document, or null when it can: an https URL with a path,
 * written in its canonical form (so it compares equal to the document's `client_id`), without
 * fragment, user info or dot segments.
 */
function metadataDocumentUrlProblem(clientId: string): string | null {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:') return 'must be an https URL';
  if (url.pathname === '/' || url.pathname === '') return 'must have a path';
  if (url.hash !== '' || url.username !== '' || url.password !== '') return 'must not have a fragment or user info';
  if (/\/\.{1,2}(\/|$)/.test(url.pathname) || url.href !== clientId) return `must be written in its canonical form (${url.href})`;
  return null;
}

const looksLikeUrl = (clientId: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(clientId);

/**
 * OAuth clients (docs/oauth.md): those that registered with RFC 7591 (stored), and those whose
 * client_id is the https URL of a Client ID Metadata Document (fetched through the SSRF guard,
 * cached by the fetcher, never stored).
 */
export class ClientRegistry {
  constructor(private readonly deps: ClientRegistryDeps) {}

  get metadataDocumentsSupported(): boolean {
    return this.deps.fetcher !== null;
  }

  /** The client a client_id names; `reason` says why not (shown on the error page, never redirected). */
  async resolve(clientId: string): Promise<ClientLookup> {
    if (looksLikeUrl(clientId)) return this.fromMetadataDocument(clientId);
    const row = isUuid(clientId) ? await this.deps.store.findClient(clientId) : null;
    const expired = row !== null && row.authorizedAt === null && row.createdAt.getTime() + UNUSED_REGISTRATION_TTL_MS <= this.deps.clock.now().getTime();
    if (row === null || expired)
      return {
        ok: false,
        reason: 'No client is registered with this client_id (a registration never used expires after 24 hours). The app should register again.',
      };
    return { ok: true, client: { clientId: row.clientId, name: row.clientName, redirectUris: row.redirectUris, kind: 'registered' } };
  }

  /**
   * Whether the token and revocation endpoints know this client: a registered one that has not
   * expired, or a well-formed metadata document URL (its code or grant binds it; no fetch needed).
   */
  async isKnown(clientId: string): Promise<boolean> {
    if (looksLikeUrl(clientId)) return this.metadataDocumentsSupported && metadataDocumentUrlProblem(clientId) === null;
    return (await this.resolve(clientId)).ok;
  }

  /**
   * Dynamic Client Registration (RFC 7591): public clients only. Rate-limited per client address;
   * the token endpoint auth method is always `none` (another asked for is replaced, as §3.2.1 allows).
   */
  async register(body: unknown, address: string): Promise<OAuthOutcome<RegisteredClientResponse>> {
    const decision = await this.deps.rateLimiter.consumeBucket(`${REGISTRATION_BUCKET_PREFIX}${address}`, this.deps.registrationsPerMinute);
    if (decision !== null && !decision.allowed) {
      return {
        ...oauthFailure('rate_limited', `Too many registrations from this address; retry in ${decision.retryAfterSeconds} s.`, 429),
        retryAfterSeconds: decision.retryAfterSeconds,
      };
    }
    const parsed = ClientMetadataSchema.safeParse(body ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const path = issue.path.join('.') || 'body';
      return oauthFailure(issue.path[0] === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata', `${path}: ${issue.message}`);
    }
    const problem = checkClientMetadata(parsed.data);
    if (problem !== null) return problem;
    const now = this.deps.clock.now();
    const client = {
      clientId: newId(),
      clientName: parsed.data.client_name ?? null,
      redirectUris: parsed.data.redirect_uris,
      createdAt: now,
      authorizedAt: null,
    };
    await this.deps.store.insertClient(client);
    return {
      ok: true,
      value: {
        client_id: client.clientId,
        client_id_issued_at: Math.floor(now.getTime() / 1000),
        ...(client.clientName === null ? {} : { client_name: client.clientName }),
        redirect_uris: client.redirectUris,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
    };
  }

  private async fromMetadataDocument(url: string): Promise<ClientLookup> {
    if (this.deps.fetcher === null) return { ok: false, reason: 'This server does not accept client metadata documents as client ids.' };
    const shape = metadataDocumentUrlProblem(url);
    if (shape !== null) return { ok: false, reason: `The client_id ${shape}.` };
    const fetched = await this.deps.fetcher.fetch(url);
    if (!fetched.ok) {
      this.deps.logger.warn({ clientId: url, reason: fetched.reason }, 'client metadata document refused');
      return { ok: false, reason: `The client's metadata document could not be used: ${fetched.reason}.` };
    }
    const parsed = ClientMetadataDocumentSchema.safeParse(fetched.document);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return { ok: false, reason: `The client's metadata document is not valid: ${issue.path.join('.') || 'document'}: ${issue.message}.` };
    }
    const doc = parsed.data;
    if (doc.client_id !== url) return { ok: false, reason: `The client's metadata document names another client_id (${doc.client_id.slice(0, 200)}).` };
    const refused = checkClientMetadata(doc) ?? secretProblem(doc);
    if (refused !== null) return { ok: false, reason: `The client's metadata document is not acceptable: ${refused.description}` };
    return { ok: true, client: { clientId: url, name: doc.client_name ?? null, redirectUris: doc.redirect_uris, kind: 'metadata_document' } };
  }
}

/** What both registration paths refuse: a bad redirect URI, and grants or response types Aisle does not serve. */
function checkClientMetadata(m: ClientMetadata): OAuthFailure | null {
  for (const uri of m.redirect_uris) {
    const problem = checkRedirectUri(uri);
    if (problem !== null) return oauthFailure('invalid_redirect_uri', problem);
  }
  if (m.grant_types !== undefined && !m.grant_types.includes('authorization_code')) {
    return oauthFailure('invalid_client_metadata', 'grant_types: Aisle issues tokens by the authorization_code grant (with refresh_token) only.');
  }
  if (m.response_types !== undefined && !m.response_types.includes('code')) {
    return oauthFailure('invalid_client_metadata', 'response_types: Aisle supports the code response type only.');
  }
  return null;
}

/** A metadata document describes a public client: it cannot hold a secret, nor authenticate another way Aisle supports. */
function secretProblem(doc: ClientMetadata & Record<string, unknown>): OAuthFailure | null {
  if ('client_secret' in doc || 'client_secret_expires_at' in doc) return oauthFailure('invalid_client_metadata', 'it must not contain a client_secret.');
  const method = doc.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none')
    return oauthFailure('invalid_client_metadata', `token_endpoint_auth_method ${method} is not supported (only none).`);
  return null;
}
