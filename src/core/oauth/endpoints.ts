import { SCOPES, type Scope } from '../keys/scopes.js';
import type { AuthorizationServerMetadata, ProtectedResourceMetadata } from '../schemas/oauth.js';

/** The protected resources a token can be minted for (docs/oauth.md): MCP and the REST API. */
export const RESOURCE_NAMES = ['mcp', 'v1'] as const;
export type ResourceName = (typeof RESOURCE_NAMES)[number];

/**
 * Scopes an OAuth client can be granted: every scope but `keys:manage`, since a token holding it
 * could mint API keys that outlive the grant and its revocation, and `catalog:write`, which
 * changes what every account's searches show: both stay with keys.
 */
export const GRANTABLE_SCOPES: readonly Scope[] = SCOPES.filter((s) => s !== 'keys:manage' && s !== 'catalog:write');

/** What the MCP tools use; the scopes the MCP resource's metadata offers. */
const MCP_SCOPES: readonly Scope[] = ['search', 'events:write', 'analytics:read'];

/** Granted when a client asks for no scope: what an MCP connector needs to search and report clicks. */
export const DEFAULT_SCOPES: readonly Scope[] = ['search', 'events:write'];

/**
 * Every URL of Aisle's authorization server and protected resources, from the one public base
 * URL (AISLE_PUBLIC_URL). The issuer is that URL exactly, without a trailing slash; the resources
 * are `<issuer>/mcp` and `<issuer>/v1`. Metadata URLs follow RFC 8414 and RFC 9728: the
 * well-known segment goes between the host and the path.
 */
export class OAuthEndpoints {
  readonly issuer: string;
  readonly resources: Readonly<Record<ResourceName, string>>;

  constructor(publicBaseUrl: string) {
    this.issuer = publicBaseUrl.replace(/\/+$/, '');
    this.resources = { mcp: `${this.issuer}/mcp`, v1: `${this.issuer}/v1` };
  }

  private get origin(): string {
    return new URL(this.issuer).origin;
  }

  /** The issuer's path (`''`, or `/prefix` behind a proxy that serves Aisle under a path). */
  private get basePath(): string {
    return new URL(this.issuer).pathname.replace(/\/+$/, '');
  }

  /** Where this server answers each metadata document (paths on this server). */
  get wellKnownPaths(): { authorizationServer: string; protectedResource: Record<ResourceName, string>; rootProtectedResource: string } {
    return {
      authorizationServer: `/.well-known/oauth-authorization-server${this.basePath}`,
      protectedResource: { mcp: `/.well-known/oauth-protected-resource${this.basePath}/mcp`, v1: `/.well-known/oauth-protected-resource${this.basePath}/v1` },
      rootProtectedResource: '/.well-known/oauth-protected-resource',
    };
  }

  /** The RFC 9728 metadata URL of a resource: what a 401's `resource_metadata` names. */
  metadataUrl(resource: ResourceName): string {
    return `${this.origin}${this.wellKnownPaths.protectedResource[resource]}`;
  }

  /** The resource a `resource` parameter names (a trailing slash tolerated), or null for anything else. */
  resourceNamed(raw: string): ResourceName | null {
    const value = raw.replace(/\/+$/, '');
    return RESOURCE_NAMES.find((name) => this.resources[name] === value) ?? null;
  }

  authorizationServerMetadata(metadataDocumentsSupported: boolean): AuthorizationServerMetadata {
    const base = this.issuer;
    return {
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      scopes_supported: [...GRANTABLE_SCOPES],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: metadataDocumentsSupported,
      service_documentation: `${base}/docs`,
    };
  }

  protectedResourceMetadata(resource: ResourceName): ProtectedResourceMetadata {
    return {
      resource: this.resources[resource],
      authorization_servers: [this.issuer],
      scopes_supported: [...(resource === 'mcp' ? MCP_SCOPES : GRANTABLE_SCOPES)],
      bearer_methods_supported: ['header'],
      resource_name: resource === 'mcp' ? 'Aisle MCP server' : 'Aisle REST API',
      resource_documentation: `${this.issuer}/docs`,
    };
  }
}
