import type { Clock } from '../clock.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import type { AuthorizationServerMetadata, ProtectedResourceMetadata } from '../schemas/oauth.js';
import type { Logger } from '../shared-ports.js';
import { Authorizations } from './authorization.js';
import { ClientRegistry, DEFAULT_REGISTRATIONS_PER_MINUTE } from './clients.js';
import { OAuthEndpoints, type ResourceName } from './endpoints.js';
import { GrantService } from './grants.js';
import type { ClientMetadataFetcher, OAuthStore } from './ports.js';
import { TokenService } from './tokens.js';

export interface OAuthOptions {
  /** AISLE_PUBLIC_URL: the issuer, and the base of the resources `<issuer>/mcp` and `<issuer>/v1`. */
  publicBaseUrl: string;
  /** Fetches Client ID Metadata Documents; without it such client ids are refused. */
  clientMetadata?: ClientMetadataFetcher;
  /** Dynamic registrations per minute per client address (default 10). */
  registrationsPerMinute?: number;
}

/** Aisle as the OAuth 2.1 authorization server of its own API (docs/oauth.md). */
export interface OAuth {
  endpoints: OAuthEndpoints;
  clients: ClientRegistry;
  authorizations: Authorizations;
  tokens: TokenService;
  grants: GrantService;
  authorizationServerMetadata(): AuthorizationServerMetadata;
  protectedResourceMetadata(resource: ResourceName): ProtectedResourceMetadata;
}

export function createOAuth(deps: { store: OAuthStore; clock: Clock; logger: Logger; rateLimiter: RateLimiter; options: OAuthOptions }): OAuth {
  const { store, clock, logger, options } = deps;
  const endpoints = new OAuthEndpoints(options.publicBaseUrl);
  const clients = new ClientRegistry({
    store,
    clock,
    logger,
    rateLimiter: deps.rateLimiter,
    fetcher: options.clientMetadata ?? null,
    registrationsPerMinute: options.registrationsPerMinute ?? DEFAULT_REGISTRATIONS_PER_MINUTE,
  });
  return {
    endpoints,
    clients,
    authorizations: new Authorizations({ clients, store, endpoints, clock }),
    tokens: new TokenService({ store, clients, endpoints, clock, logger }),
    grants: new GrantService({ store, clock }),
    authorizationServerMetadata: () => endpoints.authorizationServerMetadata(clients.metadataDocumentsSupported),
    protectedResourceMetadata: (resource) => endpoints.protectedResourceMetadata(resource),
  };
}
