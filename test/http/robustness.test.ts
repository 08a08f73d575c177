/**
 * Property-based robustness: every route in the app's route table (so routes added later are
 * covered without touching this file) is fed random JSON, wrong-typed fields, oversized bodies,
 * bad UTF-8, wrong content types, malformed JSON, odd query strings and odd API-key headers.
 * Whatever comes in, the app must answer below 500 with a well-formed problem+json that leaks
 * no stack trace or SQL.
 *
 * One app (one PGlite database) serves the whole file: an app takes ~3 s to start, so one per
 * route would cost more than the fuzzing itself. Path params only ever carry random ids, ids of
 * another account, or ids of throw-away keys, never the id of a key this file authenticates with.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorRegistry, type ErrorCode } from '../../src/core/errors.js';
import { generateKeySecret } from '../../src/core/keys/key-secret.js';
import { SCOPES } from '../../src/core/keys/scopes.js';
import { DEFAULT_BODY_LIMIT } from '../../src/http/app.js';
import type { RouteEntry } from '../../src/http/route-table.js';
import { call, createKey, createTestApp, expectStatus, ManualClock } from '../helpers/app.js';
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
  method: InjectOptions['method'] & string;
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
// Arbitraries.

/** Any string, including lone surrogates, NUL and other control characters. */
const anyString = (maxLength = 30) => fc.string({ unit: 'binary', maxLength });

/** Percent-encodes every byte outside the unreserved set (works for lone surrogates, unlike encodeURIComponent). */
const pctEncode = (s: string): string =>
  [...Buffer.from(s, 'utf8')]
    .map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');

const PREFIXES = ['key', 'KEY', 'imp', 'acct', 'wh', 'prd', 'key_key', ''];

/** find-my-way refuses longer params (Fastify's default maxParamLength). */
const MAX_PARAM_LENGTH = 100;
const isDotSegment = (v: string) => /^(?:\.|%2e)+$/i.test(v);

/**
 * Path-param values that form a valid, routable URL: random strings, random UUIDs, other accounts'
 * ids, prefixed ids, throw-away keys. Dot segments are left out (the URL parser resolves them, so
 * the request would no longer hit the route), and so is anything past the param length limit:
 * both, and malformed percent-encoding, are fuzzed by 'malformed URLs' below.
 */
const wellFormedParam = (): fc.Arbitrary<string> =>
  fc
    .oneof(
      fc.uuid(),
      fc.constantFrom(...fx.otherAccountIds),
      fc.constantFrom(...fx.otherAccountIds).map((id) => `key_${id}`),
      fc.constantFrom(...fx.otherAccountIds).map((id) => id.toUpperCase()),
      fc.constantFrom(...fx.victimIds),
      fc.constantFrom(...fx.victimIds).map((id) => `key_${id}`),
      fc.tuple(fc.constantFrom(...PREFIXES), fc.uuid()).map(([p, id]) => (p === '' ? `_${id}` : `${p}_${id}`)),
      fc.uuid().map((id) => id.replaceAll('-', '')),
      {
        weight: 2,
        arbitrary: anyString(30)
          .filter((s) => s.length > 0)
          .map(pctEncode),
      },
      fc.integer({ min: 1, max: MAX_PARAM_LENGTH }).map((n) => 'a'.repeat(n)),
      fc.constantFrom('0', '-1', 'null', 'undefined', '%20', '%2F', '%00', '%25', 'key_', '%E2%80%AE', '%F0%9F%98%80', '%EF%BF%BD'),
    )
    .filter((v) => v.length <= MAX_PARAM_LENGTH && !isDotSegment(v));

/** Params that make the URL itself invalid or unroutable: malformed percent-encoding, over-long, dot segments. */
const malformedParam = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom('%', '%zz', '%ff', '%c0%af', '%ed%a0%80', 'a%', '%%', '%e2%82', '%u0041', '..', '.', '%2e%2e'),
    fc.integer({ min: MAX_PARAM_LENGTH + 1, max: 2_000 }).map((n) => 'a'.repeat(n)),
    anyString(200)
      .map(pctEncode)
      .filter((v) => v.length > MAX_PARAM_LENGTH),
  );

function fillPath(route: RouteEntry, params: readonly string[]): string {
  let i = 0;
  return route.url.replace(/:[A-Za-z_]+|\*/g, () => params[i++ % params.length] ?? 'x');
}
const paramCount = (route: RouteEntry) => (route.url.match(/:[A-Za-z_]+|\*/g) ?? []).length;
const pathArb = (route: RouteEntry, param: () => fc.Arbitrary<string>) =>
  paramCount(route) === 0
    ? fc.constant(route.url)
    : fc.array(param(), { minLength: paramCount(route), maxLength: paramCount(route) }).map((ps) => fillPath(route, ps));

/** Values for the fields the API knows, mostly of the wrong type or out of range. */
const knownFields = {
  name: fc.oneof(
    fc.constantFrom<unknown>(123, true, null, [], {}, '', '   ', 'x'.repeat(101), 'a\u0000b', '\u0000', '\ud800', 'ok name', ['a']),
    anyString(120),
  ),
  scopes: fc.oneof(
    fc.constantFrom<unknown>('x', 'search', [], ['nope'], ['search', 'search'], [null], [1], [...SCOPES], [...SCOPES, ...SCOPES], { 0: 'search' }),
    fc.array(fc.constantFrom<string>(...SCOPES, 'admin', '', 'SEARCH', 'keys:*'), { maxLength: 8 }),
  ),
  rate_limit_per_minute: fc.oneof(
    fc.constantFrom<unknown>('600', 0, -1, 1.5, 1_000_000, 1_000_001, 2 ** 53, 1e308, -0, '1e3', null, true, [600]),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  ),
  expires_at: fc.oneof(
    fc.constantFrom<unknown>(
      'tomorrow',
      '',
      0,
      Date.now(),
      '2020-01-01T00:00:00Z',
      '2027-01-01',
      '2027-01-01T00:00:00',
      '2027-02-30T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2027-01-01T00:00:00+99:99',
      '2027-01-01T00:00:00.123456789Z',
      '9999-12-31T23:59:59Z',
      '9999-12-31T23:59:59.999-14:00',
      '0000-01-01T00:00:00Z',
    ),
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  ),
  grace_period_seconds: fc.oneof(fc.constantFrom<unknown>(-1, 0, 60, 604_800, 604_801, '60', 1.5, null, 1e308, -0, [60]), fc.integer()),
  status: fc.oneof(fc.constantFrom<unknown>('revoked', 'expired', 'active', 'disabled', 'ACTIVE', '', 1, null, true, ['active']), anyString(10)),
};

const wrongTypedObject = fc
  .tuple(fc.record(knownFields, { requiredKeys: [] }), fc.option(fc.dictionary(anyString(12), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })))
  .map(([known, extra]) => ({ ...(extra ?? {}), ...known }));

/** Valid values with edges the schemas accept (or should): bodies built from them reach the core and the database. */
const validishFields: Record<string, fc.Arbitrary<unknown>> = {
  name: fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        'ok',
        'a\u0000b',
        '\u0000',
        'x\u0000',
        '\ud800',
        '\udfff\ud800',
        ' padded ',
        'x'.repeat(100),
        '\u202e',
        "O'Reilly'); DROP TABLE api_keys; --",
      ),
    },
    anyString(100),
  ),
  scopes: fc.subarray([...SCOPES], { minLength: 1 }),
  rate_limit_per_minute: fc.oneof(fc.constantFrom(1, 1_000_000), fc.integer({ min: 1, max: 1_000_000 })),
  expires_at: fc.oneof(
    fc.constantFrom('9999-12-31T23:59:59Z', '9999-12-31T23:59:59.999-14:00', '9999-12-31T23:59:59.999+14:00', '2100-01-01T00:00:00.000000001Z'),
    fc.date({ min: new Date('2027-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }).map((d) => d.toISOString()),
  ),
  grace_period_seconds: fc.oneof(fc.constantFrom(0, 604_800), fc.integer({ min: 0, max: 604_800 })),
  status: fc.constantFrom('active', 'disabled'),
  // ACP feed upserts: nearly valid products (a copy of the catalog takes what passes).
  products: fc.oneof(
    fc.constantFrom(
      [],
      [{ id: 'p', variants: [] }],
      [{ id: 'p', variants: [{ id: 'v', title: '' }] }],
      [{ id: 'p', variants: [{ id: 'v', title: 'Fuzz lantern', price: { amount: -1, currency: 'USD' } }] }],
    ),
    fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  ),
  target_country: fc.oneof(fc.constantFrom('US', 'usa', '', 'ZZ'), anyString(3)),
  // UCP catalog requests.
  query: fc.oneof(fc.constantFrom('shoes', 'espresso machine', ' ', '\u0000'), anyString(50)),
  ids: fc.oneof(fc.array(fc.uuid(), { maxLength: 60 }), fc.array(anyString(30), { maxLength: 5 })),
  id: fc.oneof(fc.uuid(), anyString(30)),
  filters: fc.oneof(
    fc.constantFrom({ categories: ['Footwear'] }, { price: { min: 500, max: 100 } }, { price: { max: 1e300 } }, { min_relevance_score: 2 }, { colour: 'blue' }),
    fc.jsonValue({ maxDepth: 2 }),
  ),
  pagination: fc.oneof(fc.constantFrom({ limit: 0 }, { limit: 10_000 }, { cursor: 'AQ' }, { cursor: '' }), fc.jsonValue({ maxDepth: 1 })),
  context: fc.oneof(fc.constantFrom({ currency: 'usd' }, { session_id: 'x' }, { intent: 'a gift' }), fc.jsonValue({ maxDepth: 1 })),
};

/**
 * The body fields a route documents, read from the OpenAPI document so that future routes get
 * nearly-valid bodies too. Undocumented or unknown routes get every field this file knows.
 */
function bodyFieldsFor(route: RouteEntry): string[] {
  type Schema = { properties?: Record<string, unknown>; anyOf?: Schema[] };
  type Operation = { requestBody?: { content?: Record<string, { schema?: Schema }> } };
  const spec = t.app.swagger() as { paths?: Record<string, Record<string, Operation>> };
  const path = route.url.replace(/^\/v1/, '').replace(/:([A-Za-z_]+)/g, '{$1}');
  const operation = spec.paths?.[path] ?? spec.paths?.[route.url];
  const schema = operation?.[route.method.toLowerCase()]?.requestBody?.content?.['application/json']?.schema;
  if (!schema) return Object.keys(validishFields);
  const names = new Set<string>();
  for (const s of [schema, ...(schema.anyOf ?? [])]) for (const name of Object.keys(s.properties ?? {})) names.add(name);
  return [...names];
}

/** Objects with only the route's own fields, mostly valid: these get past validation. */
const nearlyValidObject = (route: RouteEntry): fc.Arbitrary<Record<string, unknown>> => {
  const fields = bodyFieldsFor(route);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of fields) model[f] = validishFields[f] ?? fc.jsonValue({ maxDepth: 1 });
  return fc.record(model, { requiredKeys: [] });
};

const deepText = fc
  .record({ depth: fc.integer({ min: 50, max: 20_000 }), kind: fc.constantFrom('array', 'object', 'unclosed') })
  .map(({ depth, kind }) =>
    kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : kind === 'object' ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : '['.repeat(depth),
  );

/** `_meta` of a 2026-07-28 request (the revision rides in every request), broken ones, or none (a 2025 request). */
const MODERN_ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const mcpMeta = fc.constantFrom(
  undefined,
  undefined,
  MODERN_ENVELOPE,
  MODERN_ENVELOPE,
  { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' },
  { ...MODERN_ENVELOPE, 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' },
  { ...MODERN_ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': 'all' },
);

/** JSON-RPC messages an MCP client could send, on either revision: tool calls with random arguments, and other methods. */
const mcpMessage = fc
  .record({
    meta: mcpMeta,
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null)),
    method: fc.constantFrom(
      'tools/call',
      'tools/call',
      'tools/call',
      'tools/list',
      'resources/read',
      'prompts/get',
      'initialize',
      'ping',
      'notifications/initialized',
      'nope',
    ),
    name: fc.constantFrom(
      'search_products',
      'record_click',
      'submit_feedback',
      'get_analytics',
      'search_catalog',
      'lookup_catalog',
      'get_product',
      'recommend_products',
      'x',
    ),
    args: fc.oneof(
      fc.dictionary(
        fc.constantFrom(
          'query',
          'limit',
          'filters',
          'detail',
          'impression_id',
          'request_id',
          'product_id',
          'relevant',
          'metric',
          'start_date',
          'uri',
          'meta',
          'catalog',
        ),
        fc.jsonValue({ maxDepth: 2 }),
        { maxKeys: 4 },
      ),
      fc.constantFrom({ query: 'shoes' }, { query: 'shoes', limit: 10, detail: 'full' }, { impression_id: '00000000-0000-4000-8000-000000000000' }),
      fc.jsonValue({ maxDepth: 2 }),
    ),
  })
  .map(({ meta, id, method, name, args }) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method,
      params: { name, arguments: args, uri: 'aisle://rules/integrator', protocolVersion: '2025-06-18', ...(meta === undefined ? {} : { _meta: meta }) },
    }),
  );

/** JSON text bodies: random JSON, random keys, nested values, arrays, wrong-typed known fields, nearly valid bodies, deep nesting. */
const jsonBodyText = (route: RouteEntry): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: route.url === '/mcp' ? 6 : 0, arbitrary: mcpMessage },
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null'),
    fc.dictionary(anyString(20), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 8 }).map((v) => JSON.stringify(v)),
    fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 10 }).map((v) => JSON.stringify(v)),
    { weight: 3, arbitrary: wrongTypedObject.map((v) => JSON.stringify(v)) },
    { weight: 4, arbitrary: nearlyValidObject(route).map((v) => JSON.stringify(v)) },
    deepText,
    fc.constantFrom(
      '{}',
      'null',
      '""',
      '0',
      'true',
      '[]',
      '{"__proto__":{"status":"active"}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '{"name":"a","name":"b"}',
    ),
  );

const malformedJsonText = fc.oneof(
  fc.constantFrom(
    '{',
    '}',
    '{"name":',
    "{'name':'x'}",
    'undefined',
    'NaN',
    '[1,]',
    '{"a":1,}',
    '{}x',
    '{"a":1}{"b":2}',
    '\u0000',
    '{"name":"\u0001"}',
    '{"name":"x"',
    'nul',
    '+1',
    '01',
    '"\\ud800"',
    '\ufeff{}',
    '/* */ {}',
  ),
  anyString(60).filter((s) => s.trim() !== ''),
);

/** Random x-request-id: valid ones must be echoed, invalid ones replaced. */
const requestIdHeader = fc.option(fc.oneof(fc.stringMatching(/^[A-Za-z0-9._:-]{1,40}$/), fc.string({ unit: 'binary-ascii', maxLength: 140 })), {
  nil: undefined,
});

const withRequestId = (headers: Record<string, string>, id: string | undefined) => (id === undefined ? headers : { ...headers, 'x-request-id': id });

// ---------------------------------------------------------------------------------------------
// The route properties.

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

  it('survives random JSON bodies and wrong-typed fields', async () => {
    await fc.assert(
      fc.asyncProperty(pathArb(route, wellFormedParam), jsonBodyText(route), requestIdHeader, async (path, payload, id) => {
        await send({ method, url: path, headers: withRequestId({ 'x-api-key': fx.fuzzKey, ...json }, id), payload });
      }),
      { numRuns: 100 },
    );
  });

  it('answers 413 to bodies beyond the body limit', async () => {
    const limit = route.bodyLimit ?? DEFAULT_BODY_LIMIT;
    const size = fc.oneof({ weight: 3, arbitrary: fc.integer({ min: limit + 1, max: limit + 50_000 }) }, fc.integer({ min: 0, max: limit }));
    await fc.assert(
      fc.asyncProperty(
        pathArb(route, wellFormedParam),
        fc.record({ chars: size, char: fc.constantFrom('a', 'é', '€', '😀', '\\', '"'), wrap: fc.constantFrom('name', 'raw', 'array') }),
        async (path, spec) => {
          // Built from a small spec so a failure report stays short.
          const filler = spec.char.repeat(Math.ceil(spec.chars / spec.char.length));
          const payload =
            spec.wrap === 'name' ? JSON.stringify({ name: filler }) : spec.wrap === 'array' ? `[${'1,'.repeat(Math.floor(spec.chars / 2))}1]` : filler;
          const tooLarge = Buffer.byteLength(payload) > limit;
          await send(
            { method, url: path, headers: { 'x-api-key': fx.fuzzKey, ...json }, payload },
            takesBody && tooLarge ? expectCode(413, 'payload_too_large') : undefined,
          );
        },
      ),
      { numRuns: 30 },
    );
  });

  it('survives bad UTF-8 sent as application/json', async () => {
    const bad = fc.constantFrom(
      [0xff],
      [0xfe],
      [0xff, 0xfe],
      [0xc0, 0xaf], // overlong "/"
      [0xc0, 0x80], // overlong NUL
      [0xe0, 0x80, 0xaf], // overlong "/"
      [0xed, 0xa0, 0x80], // lone high surrogate U+D800
      [0xed, 0xbf, 0xbf], // lone low surrogate U+DFFF
      [0xf4, 0x90, 0x80, 0x80], // beyond U+10FFFF
      [0xe2, 0x82], // truncated "€"
      [0x80],
      [0xef, 0xbb, 0xbf], // BOM
      [0x00],
    );
    const fragment = fc.oneof(
      bad.map((b) => Buffer.from(b)),
      fc.constantFrom('{"name":"', '"}', '{', '}', '"', 'x', ',', ':', '[', ']', '{"status":"', '{"grace_period_seconds":').map((s) => Buffer.from(s)),
    );
    const payload = fc.oneof(
      fc.tuple(bad, fc.constantFrom('name', 'status')).map(([b, field]) => Buffer.concat([Buffer.from(`{"${field}":"`), Buffer.from(b), Buffer.from('"}')])),
      fc.array(fragment, { minLength: 1, maxLength: 12 }).map((parts) => Buffer.concat(parts)),
      fc.uint8Array({ minLength: 1, maxLength: 64 }).map((a) => Buffer.from(a)),
    );
    const contentType = fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'application/json;charset=UTF-16',
    );
    await fc.assert(
      fc.asyncProperty(pathArb(route, wellFormedParam), payload, contentType, async (path, body, ct) => {
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
    const unsupported = [
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=----aisle0123',
      'application/xml',
      'text/xml',
      'application/octet-stream',
      'image/png',
      'application/jsonx',
      'garbage',
      ';;;',
      '(none)',
    ];
    const contentType = fc.constantFrom(
      ...unsupported,
      'text/plain',
      'text/plain; charset=utf-8',
      'application/json',
      'APPLICATION/JSON',
      'application/json; charset=utf-8',
      'application/problem+json',
    );
    const body = fc.oneof(
      malformedJsonText,
      jsonBodyText(route),
      fc.constantFrom(
        'name=x&scopes=search',
        '------aisle0123\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n------aisle0123--\r\n',
        '<key><name>x</name></key>',
      ),
    );
    await fc.assert(
      fc.asyncProperty(pathArb(route, wellFormedParam), contentType, body, async (path, ct, payload) => {
        const headers: Record<string, string> = { 'x-api-key': fx.fuzzKey };
        if (ct !== '(none)') headers['content-type'] = ct;
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
        if (takesBody && nonEmpty && unsupported.includes(ct) && !formRoute) expectation = expectCode(415, 'unsupported_media_type');
        else if (takesBody && ct === 'application/json' && malformed && payload.trim() !== '' && withinLimit) expectation = expectCode(400, 'invalid_json');
        await send({ method, url: path, headers, payload }, expectation);
      }),
      { numRuns: 80 },
    );
  });

  it('survives random query strings', async () => {
    const cursorLike = fc.oneof(
      fc.tuple(fc.date({ noInvalidDate: true }), fc.uuid()).map(([d, id]) => Buffer.from(`${d.toISOString()}|${id}`).toString('base64url')),
      fc
        .tuple(
          fc.constantFrom(
            '0000-01-01T00:00:00.000Z',
            '-000001-01-01T00:00:00.000Z',
            '+275760-09-13T00:00:00.000Z',
            '1970-01-01T00:00:00.000Z',
            '9999-12-31T23:59:59.999Z',
            '2026-11-22T10:00:00.000+01:00',
            'Sat, 01 Jan 2000 00:00:00 GMT',
            '2000',
            '0',
          ),
          fc.uuid(),
        )
        .map(([d, id]) => Buffer.from(`${d}|${id}`).toString('base64url')),
      fc.tuple(anyString(30), fc.uuid()).map(([s, id]) => Buffer.from(`${s}|${id}`).toString('base64url')),
      fc.uint8Array({ maxLength: 80 }).map((a) => Buffer.from(a).toString('base64url')),
      fc.base64String({ maxLength: 300 }),
    );
    const key = fc.oneof(
      fc.constantFrom('limit', 'limit', 'cursor', 'cursor', 'LIMIT', 'limit[]', 'limit[0]', '__proto__', 'constructor', 'hasOwnProperty', ''),
      anyString(12),
    );
    const value = fc.oneof(
      fc.constantFrom('abc', '-1', '0', '1', '20', '100', '101', '1.5', '1e2', '0x10', ' 5', '', 'NaN', 'Infinity', '9'.repeat(400), 'true', '[]', '{}'),
      fc.integer().map(String),
      anyString(30),
      cursorLike,
    );
    const pair = fc
      .record({ key, value, raw: fc.boolean() })
      .map(({ key: k, value: v, raw }) => (raw ? `${k.replace(/[#\s]/g, '')}=${v.replace(/[#\s]/g, '')}` : `${pctEncode(k)}=${pctEncode(v)}`));
    // Queries the schema accepts, so odd cursors reach the core and the database.
    const plausible = fc
      .tuple(fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }), cursorLike)
      .map(([limit, cursor]) => `${limit === undefined ? '' : `limit=${limit}&`}cursor=${cursor}`);
    const query = fc.oneof(
      fc.array(pair, { minLength: 1, maxLength: 6 }).map((ps) => ps.join('&')),
      { weight: 2, arbitrary: plausible },
      fc.constantFrom('', '&', '&&&', '=', 'limit', 'limit=', 'limit=1&limit=2', 'cursor=&cursor=', '%', '%zz=1', 'limit=%ff', '?', 'a=1;b=2'),
    );
    await fc.assert(
      fc.asyncProperty(pathArb(route, wellFormedParam), query, requestIdHeader, async (path, q, id) => {
        await send({ method, url: `${path}?${q}`, headers: withRequestId({ 'x-api-key': fx.fuzzKey }, id) });
      }),
      { numRuns: 100 },
    );
  });

  it('answers odd API-key headers with the right 401/403', async () => {
    type Variant = { headers: Record<string, string>; expect: 'ok' | ErrorCode; label: string };
    const randomKeyish = fc.stringMatching(/^[0-9A-Za-z]{36}$/).map((s) => `aisle_sk_${s}`);
    const variant: fc.Arbitrary<Variant> = fc.oneof(
      fc.constant<Variant>({ label: 'no key', headers: {}, expect: 'missing_api_key' }),
      fc.constantFrom('', '   ').map<Variant>((v) => ({ label: 'blank x-api-key', headers: { 'x-api-key': v }, expect: 'missing_api_key' })),
      fc
        .string({ unit: 'binary-ascii', minLength: 1, maxLength: 80 })
        .filter((s) => s.trim() !== '')
        .map<Variant>((v) => ({ label: 'malformed key', headers: { 'x-api-key': v }, expect: 'invalid_api_key' })),
      randomKeyish.map<Variant>((v) => ({ label: 'key-shaped, checksum almost surely wrong', headers: { 'x-api-key': v }, expect: 'invalid_api_key' })),
      fc.constant(null).map<Variant>(() => ({ label: 'well-formed unknown key', headers: { 'x-api-key': generateKeySecret() }, expect: 'invalid_api_key' })),
      fc
        .constantFrom('Bearer', 'Bearer ', 'Basic YWRtaW46YWRtaW4=', 'Token K', 'Bearer a b', 'Bearer\n')
        .map<Variant>((v) => ({ label: 'broken Authorization', headers: { authorization: v.replace('K', fx.fuzzKey) }, expect: 'missing_api_key' })),
      fc
        .constantFrom('Bearer K', 'bearer K', 'BEARER   K  ', 'Bearer\tK')
        .map<Variant>((v) => ({ label: 'Bearer with the valid key', headers: { authorization: v.replace('K', fx.fuzzKey) }, expect: 'ok' })),
      fc
        .constantFrom(' K', 'K ', '\tK\t')
        .map<Variant>((v) => ({ label: 'valid key with whitespace', headers: { 'x-api-key': v.replace('K', fx.fuzzKey) }, expect: 'ok' })),
      fc.constant<Variant>({
        label: 'bad x-api-key wins over a valid Bearer',
        headers: { 'x-api-key': 'nope', authorization: `Bearer ${fx.fuzzKey}` },
        expect: 'invalid_api_key',
      }),
      fc.constant<Variant>({
        label: 'x-api-key with a one-character typo',
        headers: { 'x-api-key': `${fx.fuzzKey.slice(0, -1)}${fx.fuzzKey.endsWith('A') ? 'B' : 'A'}` },
        expect: 'invalid_api_key',
      }),
      fc.constant<Variant>({ label: 'disabled key', headers: { 'x-api-key': fx.disabledKey }, expect: 'api_key_disabled' }),
      fc.constant<Variant>({ label: 'revoked key', headers: { 'x-api-key': fx.revokedKey }, expect: 'api_key_revoked' }),
      fc.constant<Variant>({ label: 'expired key', headers: { 'x-api-key': fx.expiredKey }, expect: 'api_key_expired' }),
      fc.constant<Variant>({
        label: 'search-only key',
        headers: { 'x-api-key': fx.searchOnlyKey },
        expect: route.scope === 'search' || route.scope === 'any' ? 'ok' : 'insufficient_scope',
      }),
    );
    await fc.assert(
      fc.asyncProperty(pathArb(route, wellFormedParam), variant, requestIdHeader, async (path, v, id) => {
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
    const prefix = fc.constantFrom(
      '',
      '/v1',
      '/v1/keys',
      '/v2',
      '/docs',
      '/docs/static',
      '/healthz',
      '/v1/openapi.json',
      '/V1/KEYS',
      '//',
      '/v1/keys/x/rotate',
    );
    // Malformed percent-encoding is left to 'malformed URLs' below.
    const segment = fc.oneof(
      anyString(20).map(pctEncode),
      fc.uuid(),
      fc.constantFrom('', '.', '..', '%2e%2e', 'rotate', 'keys', 'index.html', ';', ':key_id', '*', '%2F', '%00'),
    );
    const path = fc
      .tuple(prefix, fc.array(segment, { maxLength: 4 }), fc.boolean())
      .map(([p, segs, slash]) => `${p}/${segs.join('/')}${slash ? '/' : ''}`.replace(/^(?!\/)/, '/'));
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...methods),
        fc.oneof(path, fc.constantFrom(...ROUTES.map((r) => fillPath(r, ['00000000-0000-4000-8000-000000000000'])))),
        fc.option(fc.constantFrom(...ROUTES).chain(jsonBodyText), { nil: undefined }),
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
    // Named params only: a wildcard has no length limit, and its routes are fuzzed above.
    const paramRoutes = ROUTES.filter((r) => /:[A-Za-z_]/.test(r.url));
    const routed = fc
      .constantFrom(...paramRoutes)
      .chain((route) => pathArb(route, malformedParam).map((url) => ({ method: route.method as Req['method'], url })));
    const anywhere = fc
      .tuple(
        fc.constantFrom('GET', 'POST', 'DELETE') as fc.Arbitrary<Req['method']>,
        fc.constantFrom('', '/v1', '/v1/keys', '/docs', '/nope'),
        malformedParam(),
      )
      .map(([method, prefix, seg]) => ({ method, url: `${prefix}/${seg}` }));
    await fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 3, arbitrary: routed }, anywhere), fc.boolean(), requestIdHeader, async ({ method, url }, withKey, id) => {
        await send({ method, url, headers: withRequestId(withKey ? { 'x-api-key': fx.fuzzKey } : {}, id) });
      }),
      { numRuns: 100 },
    );
  });
});
