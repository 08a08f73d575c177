/**
 * Property-based robustness: every route in the app's route table (so routes added later are
 * covered without touching this file) is fed random JSON, wrong-typed fields, oversized bodies,
 * bad UTF-8, wrong content types, malformed JSON, odd query strings and odd API-key headers.
 * Whatever comes in, the app must answer below 500 with a well-formed problem+json that leaks
 * no stack trace or SQL. The requests come from the arbitraries in test/helpers/fuzz.ts.
 *
 * One app (one PGlite database) serves the whole file: an app takes ~3 s to start, so one per
 * route would cost more than the fuzzing itself. Path params only ever carry random ids, ids of
 * another account, or ids of throw-away keys, never the id of a key this file authenticates with.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ErrorCode, errorRegistry } from '../../src/core/errors.js';
import { DEFAULT_BODY_LIMIT } from '../../src/http/app.js';
import type { RouteEntry } from '../../src/http/route-table.js';
import { call, createKey, createTestApp, expectStatus, ManualClock } from '../helpers/app.js';
import {
  apiKeyVariant,
  badUtf8Body,
  bodySizeSpec,
  contentTypeBody,
  contentTypeHeader,
  fillPath,
  type InjectMethod,
  jsonBodyText,
  jsonContentType,
  malformedUrl,
  NO_CONTENT_TYPE,
  type OpenApiDocument,
  pathArb,
  queryString,
  requestIdHeader,
  strayPath,
  UNSUPPORTED_CONTENT_TYPES,
  wellFormedParam,
  withRequestId,
} from '../helpers/fuzz.js';
import { openSampleCatalog } from '../helpers/search.js';

// ---------------------------------------------------------------------------------------------
// One app for the file. Built at collection time: describe.each needs the route table.

const clock = new ManualClock();
// With a real catalog, so random input that passes validation runs a real search; a copy, since a
// feed upsert that passes validation writes to it.
const sample = await openSampleCatalog({ copy: true });
const t = await createTestApp({ clock, search: sample });
const ROUTES: readonly RouteEntry[] = [...t.routes];

interface Fixtures {
  /** Key every fuzz request authenticates with: all scopes, 1,000,000 requests per minute. */
  fuzzKey: string;
  /** Ids of another account's keys: every route must answer them like unknown ids. */
  otherAccountIds: string[];
  /** Throw-away keys of the fuzzed account (search scope only): random input may disable, rotate or delete them. */
  victimIds: string[];
  disabledKey: string;
  revokedKey: string;
  expiredKey: string;
  searchOnlyKey: string;
}
let fx: Fixtures;

beforeAll(async () => {
  const { app, adminKey } = t;
  const fuzz = await createKey(app, adminKey, { name: 'fuzz', rate_limit_per_minute: 1_000_000 });
  const k = (body: Parameters<typeof createKey>[2]) => createKey(app, fuzz.key, { rate_limit_per_minute: 1_000_000, ...body });

  const other = await t.core.accounts.create('other account');
  const otherSecond = await createKey(app, other.firstKey.key, { name: 'other search', scopes: ['search'] });

  const victimIds: string[] = [];
  for (let i = 0; i < 6; i++) victimIds.push((await k({ name: `victim ${i}`, scopes: ['search'] })).id);

  const disabled = await k({ name: 'disabled', scopes: ['search'] });
  expectStatus(await call(app, fuzz.key, 'POST', `/v1/keys/${disabled.id}`), 200);
  const revoked = await k({ name: 'revoked', scopes: ['search'] });
  expectStatus(await call(app, fuzz.key, 'POST', `/v1/keys/${revoked.id}/rotate`, { grace_period_seconds: 0 }), 201);
  const expired = await k({ name: 'expired', scopes: ['search'], expires_at: new Date(clock.now().getTime() + 60_000).toISOString() });
  clock.advance(120_000);
  const searchOnly = await k({ name: 'search only', scopes: ['search'] });

  fx = {
    fuzzKey: fuzz.key,
    otherAccountIds: [other.firstKey.metadata.id, otherSecond.id],
    victimIds,
    disabledKey: disabled.key,
    revokedKey: revoked.key,
    expiredKey: expired.key,
    searchOnlyKey: searchOnly.key,
  };
});

afterAll(async () => {
  await t.close();
  await sample.close();
});

// ---------------------------------------------------------------------------------------------
// Requests, invariants and failure reports.

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

interface Req {
  method: InjectMethod;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

/** Patterns that must never appear in an error body (unless the request itself contained them and it was echoed). */
const LEAKS: { name: string; re: RegExp }[] = [
  { name: 'stack frame', re: /\n\s*at\s|\bat\s+[\w.$<>[\] ]+\s\((?:file:|node:|\/)|\bat\s+(?:file:|node:)/ },
  { name: '.ts: location', re: /\.ts:\d/ },
  { name: '.js:line:col location', re: /\.[cm]?js:\d+:\d+/ },
  { name: 'node_modules', re: /node_modules/ },
  { name: 'SQL SELECT', re: /\bSELECT\b/ },
  { name: 'SQL INSERT', re: /\bINSERT\b/ },
  { name: 'SQL relation', re: /\brelation\b/ },
  { name: 'SQL syntax error', re: /syntax error at/ },
  { name: 'constraint violation', re: /violates/ },
];

function preview(value: string | Buffer | undefined, max = 400): string {
  if (value === undefined) return '(none)';
  if (Buffer.isBuffer(value)) {
    const head = value.subarray(0, 64).toString('hex');
    return `<Buffer ${value.length} bytes: ${head}${value.length > 64 ? '…' : ''}> utf8: ${JSON.stringify(value.subarray(0, max).toString('utf8'))}`;
  }
  return value.length > max ? `${JSON.stringify(value.slice(0, max))}… (${value.length} chars)` : JSON.stringify(value);
}

function report(req: Req, res: LightMyRequestResponse, problems: string[]): string {
  return [
    `Robustness violation: ${problems.join('; ')}`,
    `  request:  ${req.method} ${req.url.length > 500 ? `${req.url.slice(0, 500)}…` : req.url}`,
    `  headers:  ${JSON.stringify(req.headers, (_k, v: unknown) => (typeof v === 'string' && v.length > 200 ? `${v.slice(0, 200)}…` : v))}`,
    `  payload:  ${preview(req.payload)}`,
    `  response: ${res.statusCode} ${JSON.stringify(res.headers)}`,
    `  body:     ${res.body.length > 2000 ? `${res.body.slice(0, 2000)}…` : res.body}`,
  ].join('\n');
}

/** Violations of the rules every response obeys, whatever the request. */
function invariantViolations(req: Req, res: LightMyRequestResponse): string[] {
  const problems: string[] = [];
  const status = res.statusCode;
  if (status >= 500) problems.push(`status ${status} >= 500`);
  const requestId = res.headers['x-request-id'];
  if (typeof requestId !== 'string' || requestId === '') problems.push('no x-request-id header');
  const sentId = req.headers['x-request-id'];
  if (sentId !== undefined && REQUEST_ID.test(sentId) && requestId !== sentId) problems.push('a valid incoming x-request-id was not echoed');
  const contentType = String(res.headers['content-type'] ?? '');

  if (status >= 400 && isOAuthEndpoint(req.url) && isOAuthError(res.body)) {
    // The OAuth endpoints answer RFC 6749 errors ({error, error_description}) as application/json,
    // which OAuth clients read; only their 404/405 (no such route) stay problem+json.
    if (!/^application\/json/.test(contentType)) problems.push(`OAuth error with content-type ${contentType || '(none)'}`);
    const { error } = JSON.parse(res.body) as { error: string };
    if (!OAUTH_ERRORS.has(error)) problems.push(`OAuth error ${JSON.stringify(error)} is not one the endpoints answer`);
    problems.push(...leaks(req, res));
  } else if (status === 400 && isAuthorizePage(req.url) && contentType.startsWith('text/html')) {
    // A refused authorization request is an error page, never a redirect (docs/oauth.md).
    problems.push(...leaks(req, res));
  } else if (status >= 400 && isMcpPath(req.url) && isJsonRpcError(res.body)) {
    // Errors the MCP transport answers itself (406 without the MCP Accept header, 415, a body that is
    // not JSON-RPC) are JSON-RPC error objects, as the Streamable HTTP transport specifies: MCP
    // clients expect that shape there. Auth, Origin/Host, body size and JSON syntax stay problem+json.
    if (!/^application\/json/.test(contentType)) problems.push(`JSON-RPC error with content-type ${contentType || '(none)'}`);
  } else if (status >= 400) {
    if (!/^application\/problem\+json/.test(contentType)) problems.push(`content-type ${contentType || '(none)'} is not application/problem+json`);
    let body: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(res.body);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
      else problems.push('problem body is not a JSON object');
    } catch {
      problems.push('problem body is not JSON');
    }
    if (body) {
      const code = body.code;
      if (body.status !== status) problems.push(`body.status ${String(body.status)} != HTTP ${status}`);
      if (typeof code !== 'string' || !Object.hasOwn(errorRegistry, code)) {
        problems.push(`code ${JSON.stringify(code)} is not in errorRegistry`);
      } else {
        const entry = errorRegistry[code as ErrorCode];
        if (entry.status !== status) problems.push(`errorRegistry.${code}.status ${entry.status} != HTTP ${status}`);
        if (body.title !== entry.title) problems.push(`title ${JSON.stringify(body.title)} != registry title`);
        if (body.type !== `/docs/errors#${code}`) problems.push(`type ${JSON.stringify(body.type)} != /docs/errors#${code}`);
      }
      if (typeof body.detail !== 'string') problems.push('detail is not a string');
      if (body.request_id !== requestId) problems.push(`request_id ${JSON.stringify(body.request_id)} != x-request-id ${JSON.stringify(requestId)}`);
    }
    problems.push(...leaks(req, res));
    if (status === 405) {
      const allow = String(res.headers.allow ?? '');
      const methods = allow
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean);
      if (methods.length === 0) problems.push('405 without an Allow header');
      if (methods.includes(req.method)) problems.push(`405 although Allow lists the request's own method ${req.method}`);
    }
  } else if (status >= 200 && status < 300 && status !== 204 && /^application\/json/.test(contentType)) {
    try {
      const parsed: unknown = JSON.parse(res.body);
      if (isMcpPath(req.url)) problems.push(...toolErrorViolations(parsed));
    } catch {
      problems.push('2xx application/json body does not parse');
    }
  }
  return problems;
}

const isMcpPath = (url: string) => /^\/mcp(?:[?#]|$)/.test(url);
const isOAuthEndpoint = (url: string) => /^\/oauth\/(?:register|token|revoke)(?:[?#]|$)/.test(url);
const isAuthorizePage = (url: string) => /^\/oauth\/authorize(?:[?#]|$)/.test(url);
const OAUTH_ERRORS = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_target',
  'invalid_redirect_uri',
  'invalid_client_metadata',
  'rate_limited',
]);

function isOAuthError(body: string): boolean {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; error_description?: unknown; code?: unknown };
    return (
      typeof parsed.error === 'string' && parsed.code === undefined && (parsed.error_description === undefined || typeof parsed.error_description === 'string')
    );
  } catch {
    return false;
  }
}

/** What an error body must never show, unless the request itself contained it and it was echoed. */
function leaks(req: Req, res: LightMyRequestResponse): string[] {
  const found = LEAKS.filter((leak) => leak.re.test(res.body));
  if (found.length === 0) return [];
  // Only then the request's text (bodies of up to a megabyte here, for the 413 property).
  const sent = `${req.url}\n${decodeSafe(req.url)}\n${req.payload === undefined ? '' : req.payload.toString()}`;
  return found.filter((leak) => !leak.re.test(sent)).map((leak) => `body leaks a ${leak.name}`);
}

/** The headers a 2026-07-28 client sends with a request whose `_meta` names that revision: revision, method and name. */
function modernMcpHeaders(payload: unknown): Record<string, string> {
  let message: { method?: unknown; params?: { name?: unknown; uri?: unknown; _meta?: Record<string, unknown> } };
  try {
    message = JSON.parse(typeof payload === 'string' ? payload : '') as typeof message;
  } catch {
    return {};
  }
  const version = message?.params?._meta?.['io.modelcontextprotocol/protocolVersion'];
  if (typeof version !== 'string' || typeof message.method !== 'string') return {};
  const name = message.method === 'resources/read' ? message.params?.uri : message.params?.name;
  return { 'mcp-protocol-version': version, 'mcp-method': message.method, ...(typeof name === 'string' ? { 'mcp-name': name } : {}) };
}

function isJsonRpcError(body: string): boolean {
  try {
    const parsed = JSON.parse(body) as { jsonrpc?: unknown; error?: { code?: unknown; message?: unknown } };
    return parsed.jsonrpc === '2.0' && typeof parsed.error?.code === 'number' && typeof parsed.error.message === 'string';
  } catch {
    return false;
  }
}

/** A tool call that failed answers a problem with a registry code, never an internal error. */
function toolErrorViolations(message: unknown): string[] {
  const result = (message as { result?: { isError?: boolean; structuredContent?: unknown; content?: { type?: unknown; text?: unknown }[] } } | null)?.result;
  if (result?.isError !== true) return [];
  if (result.structuredContent !== undefined) return ['tool error with structuredContent (SDK 1.x clients would throw on it)'];
  const json = result.content?.map((c) => (typeof c.text === 'string' && c.text.startsWith('{') ? c.text : null)).find((t) => t !== null);
  if (json == null) return ['tool error without a problem JSON block'];
  const { code, status } = JSON.parse(json) as { code?: unknown; status?: unknown };
  if (typeof code !== 'string' || !Object.hasOwn(errorRegistry, code)) return [`tool error code ${JSON.stringify(code)} is not in errorRegistry`];
  return typeof status === 'number' && status < 500 ? [] : [`tool error with status ${String(status)}`];
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The fuzz key's console session, signed in on first use. */
let consoleSession: { cookie: string; csrf: string } | undefined;

/**
 * Console-only routes take a session, not a key: a request the fuzz key would authenticate goes
 * with that key's console session instead, one for the whole file as a browser holds one. Only a
 * request carrying its cookie could end it (signing out or in again), and only console-only routes
 * get the cookie, none of which signs out; the clock stands still after the fixtures, so it does
 * not expire either.
 */
async function asConsoleSession(req: Req): Promise<Req> {
  const path = req.url.split('?')[0]!;
  if (req.headers['x-api-key'] !== fx.fuzzKey || !ROUTES.some((r) => r.consoleOnly && r.method === req.method && r.pattern.test(path))) return req;
  if (consoleSession === undefined) {
    const signIn = await t.app.inject({ method: 'POST', url: '/console/session', payload: { api_key: fx.fuzzKey } });
    expectStatus(signIn, 201);
    consoleSession = { cookie: /aisle_session=([^;]+)/.exec(String(signIn.headers['set-cookie']))![1]!, csrf: signIn.json().csrf_token as string };
  }
  const { 'x-api-key': _key, ...headers } = req.headers;
  return { ...req, headers: { ...headers, cookie: `aisle_session=${consoleSession.cookie}`, 'x-csrf-token': consoleSession.csrf } };
}

/** Sends the request and throws (printing request and response) on any violation. */
async function send(req: Req, expectation?: (res: LightMyRequestResponse, body: Record<string, unknown>) => string | null): Promise<LightMyRequestResponse> {
  // Sent as an MCP client sends it, so fuzzed bodies get past the transport's Accept check.
  if (isMcpPath(req.url) && req.headers.accept === undefined) req = { ...req, headers: { ...req.headers, accept: 'application/json, text/event-stream' } };
  if (isMcpPath(req.url)) req = { ...req, headers: { ...modernMcpHeaders(req.payload), ...req.headers } };
  // UCP's REST binding needs these two headers first; with them fuzzed bodies reach the handler.
  if (req.url.startsWith('/ucp/'))
    req = { ...req, headers: { 'ucp-agent': 'profile="https://agent.example/ucp"', 'request-id': randomUUID(), ...req.headers } };
  req = await asConsoleSession(req);
  const res = await t.app.inject({ method: req.method, url: req.url, headers: req.headers, ...(req.payload === undefined ? {} : { payload: req.payload }) });
  const problems = invariantViolations(req, res);
  if (problems.length === 0 && expectation) {
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(res.body) as Record<string, unknown>;
    } catch {
      // expectation sees an empty body
    }
    const miss = expectation(res, body);
    if (miss !== null) problems.push(miss);
  }
  if (problems.length > 0) throw new Error(report(req, res, problems));
  return res;
}

/** The status and problem code; on the OAuth endpoints (whose errors have no code) the same status with `invalid_request`. */
const expectCode =
  (status: number, code: ErrorCode) =>
  (res: LightMyRequestResponse, body: Record<string, unknown>): string | null =>
    res.statusCode === status && (body.code === code || (body.code === undefined && body.error === 'invalid_request'))
      ? null
      : `expected ${status} ${code}, got ${res.statusCode} ${String(body.code ?? body.error ?? '')}`;

// ---------------------------------------------------------------------------------------------
// The route properties.

/** The app's OpenAPI document, read when a property is built (the body arbitraries take each route's documented fields from it). */
const openapi = () => t.app.swagger() as OpenApiDocument;
const bodyText = (route: RouteEntry) => jsonBodyText(route, openapi());

const describeName = (r: RouteEntry) => `${r.method} ${r.url}`;
/** Routes that take a form (RFC 6749 §3.2, RFC 7009); anywhere else a form body is an unsupported media type. */
const FORM_ROUTES = new Set(['POST /oauth/token', 'POST /oauth/revoke']);
const authenticated = (r: RouteEntry) => r.scope !== null;

describe('route table', () => {
  it('is not empty and includes the key routes', () => {
    expect(ROUTES.map(describeName)).toEqual(expect.arrayContaining(['GET /v1/keys', 'POST /v1/keys', 'DELETE /v1/keys/:key_id']));
  });
});

describe.each(ROUTES.map((r) => [describeName(r), r] as const))('%s', (_name, route) => {
  const method = route.method as Req['method'];
  const takesBody = BODY_METHODS.has(route.method);
  const json = { 'content-type': 'application/json' };
  // Built inside each property: the fixtures that wellFormedParam draws from exist only once beforeAll has run.
  const paths = () => pathArb(route, wellFormedParam(fx));

  it('survives random JSON bodies and wrong-typed fields', async () => {
    await fc.assert(
      fc.asyncProperty(paths(), bodyText(route), requestIdHeader, async (path, payload, id) => {
        await send({ method, url: path, headers: withRequestId({ 'x-api-key': fx.fuzzKey, ...json }, id), payload });
      }),
      { numRuns: 100 },
    );
  });

  it('answers 413 to bodies beyond the body limit', async () => {
    const limit = route.bodyLimit ?? DEFAULT_BODY_LIMIT;
    await fc.assert(
      fc.asyncProperty(paths(), bodySizeSpec(limit), async (path, spec) => {
        // Built from a small spec so a failure report stays short.
        const filler = spec.char.repeat(Math.ceil(spec.chars / spec.char.length));
        const payload =
          spec.wrap === 'name' ? JSON.stringify({ name: filler }) : spec.wrap === 'array' ? `[${'1,'.repeat(Math.floor(spec.chars / 2))}1]` : filler;
        const tooLarge = Buffer.byteLength(payload) > limit;
        await send(
          { method, url: path, headers: { 'x-api-key': fx.fuzzKey, ...json }, payload },
          takesBody && tooLarge ? expectCode(413, 'payload_too_large') : undefined,
        );
      }),
      { numRuns: 30 },
    );
  });

  it('survives bad UTF-8 sent as application/json', async () => {
    await fc.assert(
      fc.asyncProperty(paths(), badUtf8Body, jsonContentType, async (path, body, ct) => {
        let parses = true;
        try {
          JSON.parse(body.toString('utf8'));
        } catch {
          parses = false;
        }
        const blank = body.toString('utf8').trim() === '';
        await send(
          { method, url: path, headers: { 'x-api-key': fx.fuzzKey, 'content-type': ct }, payload: body },
          takesBody && ct === 'application/json' && !parses && !blank ? expectCode(400, 'invalid_json') : undefined,
        );
      }),
      { numRuns: 80 },
    );
  });

  it('answers 415 to other content types and 400 invalid_json to malformed JSON', async () => {
    await fc.assert(
      fc.asyncProperty(paths(), contentTypeHeader, contentTypeBody(route, openapi()), async (path, ct, payload) => {
        const headers: Record<string, string> = { 'x-api-key': fx.fuzzKey };
        if (ct !== NO_CONTENT_TYPE) headers['content-type'] = ct;
        let malformed = false;
        try {
          JSON.parse(payload);
        } catch {
          malformed = true;
        }
        const nonEmpty = payload.length > 0;
        // A body over the route's limit is answered 413 before its syntax is read, malformed or not
        // (the body-limit property above checks those): e.g. 16,385 "[" against /oauth/token's 16 KiB.
        const withinLimit = Buffer.byteLength(payload) <= (route.bodyLimit ?? DEFAULT_BODY_LIMIT);
        let expectation: ((res: LightMyRequestResponse, b: Record<string, unknown>) => string | null) | undefined;
        const formRoute = ct === 'application/x-www-form-urlencoded' && FORM_ROUTES.has(describeName(route));
        if (takesBody && nonEmpty && UNSUPPORTED_CONTENT_TYPES.includes(ct) && !formRoute) expectation = expectCode(415, 'unsupported_media_type');
        else if (takesBody && ct === 'application/json' && malformed && payload.trim() !== '' && withinLimit) expectation = expectCode(400, 'invalid_json');
        await send({ method, url: path, headers, payload }, expectation);
      }),
      { numRuns: 80 },
    );
  });

  it('survives random query strings', async () => {
    await fc.assert(
      fc.asyncProperty(paths(), queryString, requestIdHeader, async (path, q, id) => {
        await send({ method, url: `${path}?${q}`, headers: withRequestId({ 'x-api-key': fx.fuzzKey }, id) });
      }),
      { numRuns: 100 },
    );
  });

  it('answers odd API-key headers with the right 401/403', async () => {
    await fc.assert(
      fc.asyncProperty(paths(), apiKeyVariant(route, fx), requestIdHeader, async (path, v, id) => {
        const headers = withRequestId(v.headers, id);
        await send({ method, url: path, headers }, (res, body) => {
          if (!authenticated(route)) {
            return res.statusCode === 401 || res.statusCode === 403 ? `public route answered ${res.statusCode} (${v.label})` : null;
          }
          // Console-only routes take a session cookie and nothing else: every key variant is refused alike.
          if (route.consoleOnly)
            return res.statusCode === 401 && body.code === 'session_expired'
              ? null
              : `${v.label}: console-only route answered ${res.statusCode} ${String(body.code ?? '')}`;
          if (v.expect === 'ok')
            return res.statusCode === 401 || res.statusCode === 403 ? `${v.label}: expected to pass auth, got ${res.statusCode} ${String(body.code)}` : null;
          const status = errorRegistry[v.expect].status;
          return res.statusCode === status && body.code === v.expect
            ? null
            : `${v.label}: expected ${status} ${v.expect}, got ${res.statusCode} ${String(body.code ?? '')}`;
        });
      }),
      { numRuns: 80 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Unknown routes and wrong methods.

/**
 * Like RouteEntry.pattern, but looser about what the router may still match: an empty param
 * (GET /v1/keys/ reaches /v1/keys/:key_id with key_id '') and a trailing slash (a plugin's '/'
 * route under a prefix answers both /docs and /docs/ but is recorded once).
 */
const routedPattern = (r: RouteEntry) =>
  new RegExp(
    `^${r.url
      .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/:[A-Za-z_]+/g, '[^/]*')}/?$`,
  );

/** The path as the server sees it: inject() resolves dot segments like a URL parser. */
function resolvedPath(url: string): string {
  try {
    return new URL(url, 'http://localhost').pathname;
  } catch {
    return url.split('?')[0] ?? url;
  }
}

describe('unknown routes and wrong methods', () => {
  it('answer 404/405 (or 400 for a malformed URL) as well-formed problems', async () => {
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...methods),
        fc.oneof(strayPath, fc.constantFrom(...ROUTES.map((r) => fillPath(r, ['00000000-0000-4000-8000-000000000000'])))),
        fc.option(fc.constantFrom(...ROUTES).chain(bodyText), { nil: undefined }),
        fc.boolean(),
        async (m, url, payload, withKey) => {
          const headers: Record<string, string> = payload === undefined ? {} : { 'content-type': 'application/json' };
          if (withKey) headers['x-api-key'] = fx.fuzzKey;
          const known = ROUTES.some((r) => r.method === m && routedPattern(r).test(resolvedPath(url)));
          await send({ method: m, url, headers, ...(payload === undefined ? {} : { payload }) }, (res) => {
            if (known) return null;
            // No route for this method and path: only 404, 405 or a 400 for a URL that cannot be decoded.
            return [400, 404, 405].includes(res.statusCode) ? null : `expected 404/405 for an unrouted ${m}, got ${res.statusCode}`;
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Malformed URLs: bad percent-encoding, over-long params, dot segments.

describe('malformed URLs', () => {
  it('are answered with well-formed problems on every route with a path param and elsewhere', async () => {
    await fc.assert(
      fc.asyncProperty(malformedUrl(ROUTES), fc.boolean(), requestIdHeader, async ({ method, url }, withKey, id) => {
        await send({ method, url, headers: withRequestId(withKey ? { 'x-api-key': fx.fuzzKey } : {}, id) });
      }),
      { numRuns: 100 },
    );
  });
});
