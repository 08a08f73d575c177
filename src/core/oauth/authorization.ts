import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { SCOPES, type Scope } from '../keys/scopes.js';
import type { ConsentDecision, ConsentDescription } from '../schemas/oauth.js';
import type { Principal } from '../shared-ports.js';
import type { ClientRegistry, OAuthClient } from './clients.js';
import { DEFAULT_SCOPES, GRANTABLE_SCOPES, type OAuthEndpoints, type ResourceName } from './endpoints.js';
import type { OAuthStore } from './ports.js';
import { redirectHost } from './redirect-uris.js';
import { CODE_CHALLENGE, CODE_TTL_MS, hashSecret, newCode } from './secrets.js';

/** A valid authorization request, ready for the consent page. */
export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  /** The scopes asked for (DEFAULT_SCOPES when the request named none). */
  scopes: Scope[];
  resource: ResourceName;
}

/**
 * What /oauth/authorize does with a request (RFC 6749 §4.1.2.1): an unknown client or a
 * redirect URI it did not register is refused outright; any other error is addressed to the
 * client's redirect URI with `state` and `iss`, which the error page offers as a link rather than
 * a redirect (anyone may register a redirect URI: RFC 9700 §4.11.2, docs/oauth.md).
 */
export type AuthorizeCheck =
  | { kind: 'invalid'; reason: string }
  | { kind: 'redirect'; url: string; error: string; description: string }
  | { kind: 'valid'; request: AuthorizationRequest };

/** The query string as the HTTP layer parsed it: a repeated parameter arrives as an array. */
export type AuthorizeQuery = Record<string, unknown>;

const MAX_STATE_LENGTH = 2000;
/** Refresh tokens are always issued; a client asking for `offline_access` gets what it wants either way. */
const IGNORED_SCOPES = new Set(['offline_access']);

type Param = { ok: true; value: string | undefined } | { ok: false };

/** A parameter sent without a value counts as omitted (RFC 6749 §3.1); sent twice it is an error. */
function param(query: AuthorizeQuery, name: string): Param {
  const v = query[name];
  if (v === undefined || v === '') return { ok: true, value: undefined };
  return typeof v === 'string' ? { ok: true, value: v } : { ok: false };
}

/** The client's redirect URI with the answer's parameters, `state` and `iss` (RFC 9207) added. */
function redirectWith(redirectUri: string, issuer: string, state: string | undefined, params: Record<string, string>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  if (state !== undefined) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuer);
  return url.href;
}

/** The authorization endpoint and its consent step (docs/oauth.md). */
export class Authorizations {
  constructor(private readonly deps: { clients: ClientRegistry; store: OAuthStore; endpoints: OAuthEndpoints; clock: Clock }) {}

  async check(query: AuthorizeQuery): Promise<AuthorizeCheck> {
    const clientId = param(query, 'client_id');
    const redirectUri = param(query, 'redirect_uri');
    if (!clientId.ok || clientId.value === undefined) return { kind: 'invalid', reason: 'The request must name its client once (client_id).' };
    if (!redirectUri.ok || redirectUri.value === undefined) return { kind: 'invalid', reason: 'The request must name its redirect_uri once.' };
    const lookup = await this.deps.clients.resolve(clientId.value);
    if (!lookup.ok) return { kind: 'invalid', reason: lookup.reason };
    if (!lookup.client.redirectUris.includes(redirectUri.value)) {
      return { kind: 'invalid', reason: `The redirect_uri is not one this client registered: ${redirectUri.value.slice(0, 300)}` };
    }
    const uri = redirectUri.value;
    const stateParam = param(query, 'state');
    const state = stateParam.ok && (stateParam.value?.length ?? 0) <= MAX_STATE_LENGTH ? stateParam.value : undefined;
    const fail = (error: string, description: string): AuthorizeCheck => ({
      kind: 'redirect',
      error,
      description,
      url: redirectWith(uri, this.deps.endpoints.issuer, state, { error, error_description: description }),
    });
    if (!stateParam.ok || state !== stateParam.value) return fail('invalid_request', `state must be sent once, at most ${MAX_STATE_LENGTH} characters.`);
    const [responseType, challenge, method, scope, resource] = ['response_type', 'code_challenge', 'code_challenge_method', 'scope', 'resource'].map((n) =>
      param(query, n),
    ) as [Param, Param, Param, Param, Param];
    if (!responseType.ok || !challenge.ok || !method.ok || !scope.ok) return fail('invalid_request', 'A parameter was sent more than once.');
    if (responseType.value === undefined) return fail('invalid_request', 'response_type is required (code).');
    if (responseType.value !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported.');
    if (method.value !== 'S256' || challenge.value === undefined || !CODE_CHALLENGE.test(challenge.value)) {
      return fail('invalid_request', 'PKCE is required: code_challenge_method=S256 and a code_challenge of 43 base64url characters.');
    }
    const scopes = parseScopes(scope.value);
    if (typeof scopes === 'string') return fail('invalid_scope', scopes);
    if (!resource.ok) return fail('invalid_target', 'One resource per request.');
    const named = resource.value === undefined ? 'mcp' : this.deps.endpoints.resourceNamed(resource.value);
    if (named === null) return fail('invalid_target', `Tokens are issued for ${Object.values(this.deps.endpoints.resources).join(' or ')} only.`);
    return { kind: 'valid', request: { client: lookup.client, redirectUri: uri, state, codeChallenge: challenge.value, scopes, resource: named } };
  }

  /** The consent page's view of a request. 400 invalid_authorization_request when it is not valid. */
  async describe(principal: Principal, query: AuthorizeQuery): Promise<ConsentDescription> {
    const request = await this.validRequest(query);
    const { client } = request;
    return {
      client: {
        client_id: client.clientId,
        name: client.name,
        kind: client.kind,
        redirect_uri: request.redirectUri,
        redirect_host: redirectHost(request.redirectUri),
      },
      resource: this.deps.endpoints.resources[request.resource],
      scopes: request.scopes.map((scope) => ({ scope, grantable: grantable(principal, scope) })),
      granted: request.scopes.filter((s) => grantable(principal, s)),
    };
  }

  /**
   * The person's decision. Approving grants the requested scopes the signed-in key holds (the
   * others are left out, as the consent page shows); 403 insufficient_scope when it holds none.
   * Answers where the browser goes next: the redirect URI with a code, or with access_denied.
   */
  async decide(principal: Principal, query: AuthorizeQuery, decision: ConsentDecision): Promise<{ redirect_to: string }> {
    const request = await this.validRequest(query);
    const { issuer } = this.deps.endpoints;
    if (decision === 'deny')
      return {
        redirect_to: redirectWith(request.redirectUri, issuer, request.state, { error: 'access_denied', error_description: 'The account owner declined.' }),
      };
    const granted = request.scopes.filter((s) => grantable(principal, s));
    if (granted.length === 0) {
      throw new AppError(
        'insufficient_scope',
        `The key you signed in with cannot grant any of the scopes this app asks for (${request.scopes.join(', ')}). Sign in with a key that holds them.`,
      );
    }
    const code = newCode();
    const now = this.deps.clock.now();
    await this.deps.store.insertCode({
      codeHash: hashSecret(code),
      accountId: principal.accountId,
      keyId: principal.keyId,
      clientId: request.client.clientId,
      clientName: request.client.name,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      scopes: granted,
      resource: this.deps.endpoints.resources[request.resource],
      createdAt: now,
      expiresAt: new Date(now.getTime() + CODE_TTL_MS),
    });
    return { redirect_to: redirectWith(request.redirectUri, issuer, request.state, { code }) };
  }

  private async validRequest(query: AuthorizeQuery): Promise<AuthorizationRequest> {
    const checked = await this.check(query);
    if (checked.kind === 'invalid') throw new AppError('invalid_authorization_request', checked.reason);
    if (checked.kind === 'redirect') {
      throw new AppError('invalid_authorization_request', `${checked.error}: ${checked.description}`, { extensions: { redirect_to: checked.url } });
    }
    return checked.request;
  }
}

const grantable = (principal: Principal, scope: Scope): boolean => principal.scopes.includes(scope) && GRANTABLE_SCOPES.includes(scope);

/** Space-separated scopes (RFC 6749 §3.3), DEFAULT_SCOPES when none; a message naming an unknown one. */
function parseScopes(raw: string | undefined): Scope[] | string {
  const names = [...new Set((raw ?? '').split(' ').filter((s) => s !== '' && !IGNORED_SCOPES.has(s)))];
  const unknown = names.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) return `Unknown scope ${unknown[0]!.slice(0, 100)}; Aisle's scopes are ${SCOPES.join(', ')}.`;
  return names.length === 0 ? [...DEFAULT_SCOPES] : (names as Scope[]);
}
