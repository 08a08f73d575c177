/**
 * The one registry of error codes. Each code maps to its HTTP status and a stable title;
 * REST renders it as RFC 9457 problem+json, MCP as an `isError` tool result.
 * Codes are part of the public contract: never rename one, only add.
 */
export const errorRegistry = {
  bad_request: { status: 400, title: 'The request could not be understood' },
  invalid_authorization_request: { status: 400, title: 'The OAuth authorization request is not valid' },
  validation_failed: { status: 400, title: 'The request did not pass validation' },
  pii_not_allowed: { status: 400, title: 'Personal data is not allowed here' },
  invalid_json: { status: 400, title: 'The request body is not valid JSON' },
  missing_api_key: { status: 401, title: 'No API key was sent' },
  invalid_api_key: { status: 401, title: 'The API key is not valid' },
  api_key_disabled: { status: 401, title: 'The API key is disabled' },
  api_key_revoked: { status: 401, title: 'The API key has been revoked' },
  api_key_expired: { status: 401, title: 'The API key has expired' },
  session_expired: { status: 401, title: 'The console session is not valid' },
  invalid_token: { status: 401, title: 'The access token is not valid' },
  insufficient_scope: { status: 403, title: 'The API key lacks a required scope' },
  csrf_failed: { status: 403, title: 'The request lacks a valid CSRF token' },
  merchant_not_allowed: { status: 403, title: 'The key is limited to another merchant' },
  origin_not_allowed: { status: 403, title: 'Requests from this Origin are not allowed' },
  host_not_allowed: { status: 403, title: 'Requests for this Host are not allowed' },
  not_found: { status: 404, title: 'The resource was not found' },
  method_not_allowed: { status: 405, title: 'The method is not allowed on this resource' },
  request_timeout: { status: 408, title: 'The request was not received in time' },
  conflict: { status: 409, title: 'The request conflicts with the current state' },
  last_admin_key: { status: 409, title: 'The last key able to manage keys cannot be removed' },
  key_limit_reached: { status: 409, title: 'The account has reached its key limit' },
  webhook_limit_reached: { status: 409, title: 'The account has reached its webhook limit' },
  impression_expired: { status: 410, title: 'The impression is outside the attribution window' },
  payload_too_large: { status: 413, title: 'The request body is too large' },
  unsupported_media_type: { status: 415, title: 'The request body has an unsupported content type' },
  pii_detected: { status: 422, title: 'The request contains personal data' },
  product_not_in_results: { status: 422, title: 'The product was not among the search results' },
  attribution_token_invalid: { status: 422, title: 'The attribution token was not issued by this server or has been altered' },
  impression_not_clicked: { status: 422, title: 'The impression has no click to attribute a conversion to' },
  conversion_window_closed: { status: 422, title: 'The conversion falls outside the attribution window of its click' },
  webhook_url_not_allowed: { status: 422, title: 'The webhook URL is not an allowed destination' },
  source_url_not_allowed: { status: 422, title: 'The feed URL is not an allowed source' },
  source_limit_reached: { status: 409, title: 'The account has reached its catalog source limit' },
  rate_limited: { status: 429, title: 'Too many requests' },
  headers_too_large: { status: 431, title: 'The request headers are too large' },
  internal_error: { status: 500, title: 'Internal server error' },
  unavailable: { status: 503, title: 'The service is temporarily unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorRegistry;

export interface FieldError {
  path: string;
  message: string;
}

/** RFC 9457 problem details as Aisle sends them. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  request_id: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

export interface AppErrorOptions {
  errors?: FieldError[];
  /** Extra problem members, e.g. `required_scope`. */
  extensions?: Record<string, unknown>;
  /** Response headers the error implies, e.g. `Retry-After`. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** The one error type the core throws for expected failures. */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly status: number;
  readonly errors: FieldError[] | undefined;
  readonly extensions: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    options: AppErrorOptions = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = errorRegistry[code].status;
    this.errors = options.errors;
    this.extensions = options.extensions ?? {};
    this.headers = options.headers ?? {};
  }
}

export const errorTypeUri = (code: ErrorCode): string => `/docs/errors#${code}`;

/** Renders an AppError as a problem object. 5xx details are replaced: internals never leave. */
export function toProblem(error: AppError, requestId: string): Problem {
  const entry = errorRegistry[error.code];
  const problem: Problem = {
    ...error.extensions,
    type: errorTypeUri(error.code),
    title: entry.title,
    status: entry.status,
    detail: entry.status >= 500 ? genericDetail(error.code) : error.detail,
    code: error.code,
    request_id: requestId,
  };
  if (error.errors && error.errors.length > 0) problem.errors = error.errors;
  return problem;
}

function genericDetail(code: ErrorCode): string {
  return code === 'unavailable'
    ? 'A dependency is unavailable. Retry with backoff; the request id identifies this failure in our logs.'
    : 'An unexpected error occurred. The request id identifies it in our logs.';
}
