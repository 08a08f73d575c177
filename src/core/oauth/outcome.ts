/**
 * The OAuth endpoints' expected failures (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 7009): values, not
 * exceptions, because the endpoints answer them in OAuth's own error format, not problem+json.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'rate_limited';

export interface OAuthFailure {
  ok: false;
  error: OAuthErrorCode;
  description: string;
  /** 400, or 401 for an unknown client (which makes MCP clients register again), 429 when rate limited. */
  status: number;
  retryAfterSeconds?: number;
}

export type OAuthOutcome<T> = { ok: true; value: T } | OAuthFailure;

export const oauthFailure = (error: OAuthErrorCode, description: string, status = 400): OAuthFailure => ({ ok: false, error, description, status });
