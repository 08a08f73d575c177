import { z } from 'zod';
import { SCOPES } from '../keys/scopes.js';
import { PageQuery, pageOf, Timestamp } from './common.js';

/** RFC 8414 authorization server metadata, as GET /.well-known/oauth-authorization-server answers it. */
const AuthorizationServerMetadataSchema = z.object({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  registration_endpoint: z.string(),
  revocation_endpoint: z.string(),
  response_types_supported: z.array(z.literal('code')),
  response_modes_supported: z.array(z.literal('query')),
  grant_types_supported: z.array(z.enum(['authorization_code', 'refresh_token'])),
  code_challenge_methods_supported: z.array(z.literal('S256')),
  token_endpoint_auth_methods_supported: z.array(z.literal('none')),
  revocation_endpoint_auth_methods_supported: z.array(z.literal('none')),
  scopes_supported: z.array(z.enum(SCOPES)),
  authorization_response_iss_parameter_supported: z.literal(true),
  client_id_metadata_document_supported: z.boolean(),
  service_documentation: z.string(),
});
export type AuthorizationServerMetadata = z.infer<typeof AuthorizationServerMetadataSchema>;

/** RFC 9728 protected resource metadata. */
const ProtectedResourceMetadataSchema = z.object({
  resource: z.string(),
  authorization_servers: z.array(z.string()),
  scopes_supported: z.array(z.enum(SCOPES)),
  bearer_methods_supported: z.array(z.literal('header')),
  resource_name: z.string(),
  resource_documentation: z.string(),
});
export type ProtectedResourceMetadata = z.infer<typeof ProtectedResourceMetadataSchema>;

// Control characters and bidirectional overrides could make a name on the consent page read as another.
const UNSAFE_NAME = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

/** A client's display name: what the consent page and the grant list show. */
const ClientNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .refine((v) => !UNSAFE_NAME.test(v), 'must not contain control or bidirectional-override characters');

/**
 * The client metadata both registration paths read (RFC 7591 §2): a DCR request body and a Client
 * ID Metadata Document. Members Aisle does not use are ignored, as RFC 7591 asks; redirect URIs
 * are checked one by one afterwards (core/oauth/redirect-uris.ts).
 */
export const ClientMetadataSchema = z
  .object({
    redirect_uris: z.array(z.string().max(2000)).min(1, 'at least one redirect URI is required').max(20),
    client_name: ClientNameSchema.optional(),
    token_endpoint_auth_method: z.string().max(100).optional(),
    grant_types: z.array(z.string().max(100)).max(10).optional(),
    response_types: z.array(z.string().max(100)).max(10).optional(),
  })
  .loose();
export type ClientMetadata = z.infer<typeof ClientMetadataSchema>;

/** A Client ID Metadata Document names itself: its `client_id` is the URL it was fetched from. */
export const ClientMetadataDocumentSchema = ClientMetadataSchema.extend({ client_id: z.string().max(2000) });

/** POST /oauth/register's 201 answer (RFC 7591 §3.2.1). */
const RegisteredClientSchema = z.object({
  client_id: z.string(),
  client_id_issued_at: z.number().int(),
  client_name: z.string().optional(),
  redirect_uris: z.array(z.string()),
  grant_types: z.array(z.string()),
  response_types: z.array(z.string()),
  token_endpoint_auth_method: z.literal('none'),
});
export type RegisteredClientResponse = z.infer<typeof RegisteredClientSchema>;

/** POST /oauth/token's 200 answer (RFC 6749 §5.1). */
const TokenResponseSchema = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  refresh_token: z.string(),
  scope: z.string(),
});
export type TokenResponse = z.infer<typeof TokenResponseSchema>;

/** The pending authorization request as the consent page shows it (GET /console/oauth/authorize). */
export const ConsentDescriptionSchema = z.object({
  client: z.object({
    client_id: z.string(),
    name: z.string().nullable().describe('The name the client gave itself; not verified'),
    kind: z.enum(['metadata_document', 'registered']).describe('How the client is known: its own metadata document URL, or dynamic registration'),
    redirect_uri: z.string(),
    redirect_host: z.string().describe('Where the browser goes after the decision: the part of the client a person can check'),
  }),
  resource: z.string().describe('What the token will be for: this server’s /mcp or /v1'),
  scopes: z.array(z.object({ scope: z.enum(SCOPES), grantable: z.boolean().describe('False when the signed-in key lacks it, or no app may hold it') })),
  granted: z.array(z.enum(SCOPES)).describe('What approving grants: the requested scopes that are grantable'),
});
export type ConsentDescription = z.infer<typeof ConsentDescriptionSchema>;

/** POST /console/oauth/authorize (same query string as the page). */
export const ConsentDecisionBodySchema = z.object({ decision: z.enum(['approve', 'deny']) }).strict();
export type ConsentDecision = z.infer<typeof ConsentDecisionBodySchema>['decision'];

export const ConsentRedirectSchema = z.object({
  redirect_to: z.string().describe('The client’s redirect URI with code (or error), state and iss: navigate there'),
});

const GrantRecordSchema = z.object({
  id: z.uuid(),
  client_id: z.string().describe('A registered client id, or the URL of the client’s metadata document'),
  client_name: z.string().nullable(),
  redirect_host: z.string(),
  scopes: z.array(z.enum(SCOPES)).describe('Granted scopes; a token acts with these and only while the key still holds them'),
  resource: z.string(),
  key_id: z.uuid().describe('The key that approved the grant: its tokens act as this key'),
  created_at: Timestamp,
  last_used_at: Timestamp.nullable().describe('Updated at most once a minute'),
  expires_at: Timestamp.describe('When the grant ends unless its client refreshes it'),
});
z.globalRegistry.add(GrantRecordSchema, { id: 'OAuthGrant' });
export type GrantRecord = z.infer<typeof GrantRecordSchema>;

export const ListGrantsQuerySchema = PageQuery;
export type ListGrantsQuery = z.infer<typeof ListGrantsQuerySchema>;

export const GrantPageSchema = pageOf(GrantRecordSchema);
export type GrantPage = z.infer<typeof GrantPageSchema>;

export const GrantIdParamsSchema = z.object({ grant_id: z.string().describe('Grant id: a UUID or its `grt_` prefixed form') }).strict();
