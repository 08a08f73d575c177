/**
 * fast-check arbitraries for fuzzing the HTTP API (test/http/robustness.test.ts): path params,
 * paths, JSON and not-quite-JSON bodies, content types, query strings, request ids and API-key
 * headers. They build requests only; what an answer must look like stays in the tests.
 *
 * Arbitraries that need the app's state take it as arguments: the ids and keys the test's fixtures
 * made (FuzzIds, FuzzKeys) and the app's OpenAPI document (the body fields each route documents).
 */
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import type { ErrorCode } from '../../src/core/errors.js';
import { generateKeySecret } from '../../src/core/keys/key-secret.js';
import { SCOPES } from '../../src/core/keys/scopes.js';
import type { RouteEntry } from '../../src/http/route-table.js';

/** An HTTP method as app.inject takes it. */
export type InjectMethod = InjectOptions['method'] & string;

/** Ids path params may carry: another account's key ids (to be answered like unknown ids) and throw-away key ids. */
export interface FuzzIds {
  otherAccountIds: readonly string[];
  victimIds: readonly string[];
}

/** The keys apiKeyVariant sends: a valid one with every scope, and keys that must be refused or limited. */
export interface FuzzKeys {
  fuzzKey: string;
  disabledKey: string;
  revokedKey: string;
  expiredKey: string;
  searchOnlyKey: string;
}

/** An API-key header set, what a route must answer it (`ok`: past authentication) and a label for failure reports. */
export type KeyVariant = { headers: Record<string, string>; expect: 'ok' | ErrorCode; label: string };

type OpenApiSchema = { properties?: Record<string, unknown>; anyOf?: OpenApiSchema[] };
type OpenApiOperation = { requestBody?: { content?: Record<string, { schema?: OpenApiSchema }> } };
/** The part of an OpenAPI document (app.swagger()) the body arbitraries read. */
export type OpenApiDocument = { paths?: Record<string, Record<string, OpenApiOperation>> };

// ---------------------------------------------------------------------------------------------
// Paths and bodies.

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
 * both, and malformed percent-encoding, are `malformedParam`'s.
 */
export const wellFormedParam = (ids: FuzzIds): fc.Arbitrary<string> =>
  fc
    .oneof(
      fc.uuid(),
      fc.constantFrom(...ids.otherAccountIds),
      fc.constantFrom(...ids.otherAccountIds).map((id) => `key_${id}`),
      fc.constantFrom(...ids.otherAccountIds).map((id) => id.toUpperCase()),
      fc.constantFrom(...ids.victimIds),
      fc.constantFrom(...ids.victimIds).map((id) => `key_${id}`),
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
const malformedParam: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('%', '%zz', '%ff', '%c0%af', '%ed%a0%80', 'a%', '%%', '%e2%82', '%u0041', '..', '.', '%2e%2e'),
  fc.integer({ min: MAX_PARAM_LENGTH + 1, max: 2_000 }).map((n) => 'a'.repeat(n)),
  anyString(200)
    .map(pctEncode)
    .filter((v) => v.length > MAX_PARAM_LENGTH),
);

/** The route's URL with its params (`:name`, `*`) replaced by `params` in turn. */
export function fillPath(route: RouteEntry, params: readonly string[]): string {
  let i = 0;
  return route.url.replace(/:[A-Za-z_]+|\*/g, () => params[i++ % params.length] ?? 'x');
}
const paramCount = (route: RouteEntry) => (route.url.match(/:[A-Za-z_]+|\*/g) ?? []).length;
/** The route's paths, each param drawn from `param`. */
export const pathArb = (route: RouteEntry, param: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  paramCount(route) === 0
    ? fc.constant(route.url)
    : fc.array(param, { minLength: paramCount(route), maxLength: paramCount(route) }).map((ps) => fillPath(route, ps));

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
 * nearly-valid bodies too. Undocumented or unknown routes get every field validishFields knows.
 */
function bodyFieldsFor(route: RouteEntry, spec: OpenApiDocument): string[] {
  const path = route.url.replace(/^\/v1/, '').replace(/:([A-Za-z_]+)/g, '{$1}');
  const operation = spec.paths?.[path] ?? spec.paths?.[route.url];
  const schema = operation?.[route.method.toLowerCase()]?.requestBody?.content?.['application/json']?.schema;
  if (!schema) return Object.keys(validishFields);
  const names = new Set<string>();
  for (const s of [schema, ...(schema.anyOf ?? [])]) for (const name of Object.keys(s.properties ?? {})) names.add(name);
  return [...names];
}

/** Objects with only the route's own fields, mostly valid: these get past validation. */
const nearlyValidObject = (route: RouteEntry, spec: OpenApiDocument): fc.Arbitrary<Record<string, unknown>> => {
  const fields = bodyFieldsFor(route, spec);
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

/**
 * JSON text bodies for `route`: random JSON, random keys, nested values, arrays, wrong-typed known
 * fields, bodies nearly valid for the fields `spec` documents, deep nesting; on /mcp mostly
 * JSON-RPC messages.
 */
export const jsonBodyText = (route: RouteEntry, spec: OpenApiDocument): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: route.url === '/mcp' ? 6 : 0, arbitrary: mcpMessage },
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null'),
    fc.dictionary(anyString(20), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 8 }).map((v) => JSON.stringify(v)),
    fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 10 }).map((v) => JSON.stringify(v)),
    { weight: 3, arbitrary: wrongTypedObject.map((v) => JSON.stringify(v)) },
    { weight: 4, arbitrary: nearlyValidObject(route, spec).map((v) => JSON.stringify(v)) },
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

/** Text JSON.parse refuses: broken syntax, JavaScript-isms, control characters, random strings. */
const malformedJsonText: fc.Arbitrary<string> = fc.oneof(
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

/** Random x-request-id (or none): valid ones must be echoed, invalid ones replaced. */
export const requestIdHeader = fc.option(fc.oneof(fc.stringMatching(/^[A-Za-z0-9._:-]{1,40}$/), fc.string({ unit: 'binary-ascii', maxLength: 140 })), {
  nil: undefined,
});

/** `headers` with the x-request-id `id`, if there is one. */
export const withRequestId = (headers: Record<string, string>, id: string | undefined) => (id === undefined ? headers : { ...headers, 'x-request-id': id });

/**
 * What a body of about `chars` characters is made of (mostly over `limit`, by up to 50,000, else
 * within it): one character repeated (1 to 4 UTF-8 bytes, or escaped in JSON), as a name field,
 * raw, or an array of numbers. A spec rather than the body, so a failure report stays short.
 */
export const bodySizeSpec = (limit: number) => {
  const size = fc.oneof({ weight: 3, arbitrary: fc.integer({ min: limit + 1, max: limit + 50_000 }) }, fc.integer({ min: 0, max: limit }));
  return fc.record({ chars: size, char: fc.constantFrom('a', 'é', '€', '😀', '\\', '"'), wrap: fc.constantFrom('name', 'raw', 'array') });
};

// ---------------------------------------------------------------------------------------------
// Bad UTF-8.

/** Byte sequences UTF-8 forbids, and a BOM and NUL. */
const badUtf8Bytes = fc.constantFrom(
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
const utf8Fragment = fc.oneof(
  badUtf8Bytes.map((b) => Buffer.from(b)),
  fc.constantFrom('{"name":"', '"}', '{', '}', '"', 'x', ',', ':', '[', ']', '{"status":"', '{"grace_period_seconds":').map((s) => Buffer.from(s)),
);
/** JSON-ish bodies with bytes that are not UTF-8 (overlong forms, lone surrogates, truncations), or random bytes. */
export const badUtf8Body: fc.Arbitrary<Buffer> = fc.oneof(
  fc
    .tuple(badUtf8Bytes, fc.constantFrom('name', 'status'))
    .map(([b, field]) => Buffer.concat([Buffer.from(`{"${field}":"`), Buffer.from(b), Buffer.from('"}')])),
  fc.array(utf8Fragment, { minLength: 1, maxLength: 12 }).map((parts) => Buffer.concat(parts)),
  fc.uint8Array({ minLength: 1, maxLength: 64 }).map((a) => Buffer.from(a)),
);
/** application/json with and without a charset, some of them not UTF-8. */
export const jsonContentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json;charset=UTF-16',
);

// ---------------------------------------------------------------------------------------------
// Content types.

/** Stands for a request sent without a content-type header. */
export const NO_CONTENT_TYPE = '(none)';

/** Content types no JSON route takes (`(none)`: no content-type header at all). */
export const UNSUPPORTED_CONTENT_TYPES = [
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----aisle0123',
  'application/xml',
  'text/xml',
  'application/octet-stream',
  'image/png',
  'application/jsonx',
  'garbage',
  ';;;',
  NO_CONTENT_TYPE,
];
/** A content-type header: one of UNSUPPORTED_CONTENT_TYPES, text, JSON spelt several ways, problem+json. */
export const contentTypeHeader = fc.constantFrom(
  ...UNSUPPORTED_CONTENT_TYPES,
  'text/plain',
  'text/plain; charset=utf-8',
  'application/json',
  'APPLICATION/JSON',
  'application/json; charset=utf-8',
  'application/problem+json',
);
/** Bodies for the content-type property: malformed JSON, `route`'s JSON bodies, a form, a multipart body, XML. */
export const contentTypeBody = (route: RouteEntry, spec: OpenApiDocument): fc.Arbitrary<string> =>
  fc.oneof(
    malformedJsonText,
    jsonBodyText(route, spec),
    fc.constantFrom(
      'name=x&scopes=search',
      '------aisle0123\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n------aisle0123--\r\n',
      '<key><name>x</name></key>',
    ),
  );

// ---------------------------------------------------------------------------------------------
// Query strings.

/** Cursors: base64url of `<date>|<uuid>` with odd dates and odd text, random bytes, base64 that is not base64url. */
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
const queryKey = fc.oneof(
  fc.constantFrom('limit', 'limit', 'cursor', 'cursor', 'LIMIT', 'limit[]', 'limit[0]', '__proto__', 'constructor', 'hasOwnProperty', ''),
  anyString(12),
);
const queryValue = fc.oneof(
  fc.constantFrom('abc', '-1', '0', '1', '20', '100', '101', '1.5', '1e2', '0x10', ' 5', '', 'NaN', 'Infinity', '9'.repeat(400), 'true', '[]', '{}'),
  fc.integer().map(String),
  anyString(30),
  cursorLike,
);
const queryPair = fc
  .record({ key: queryKey, value: queryValue, raw: fc.boolean() })
  .map(({ key: k, value: v, raw }) => (raw ? `${k.replace(/[#\s]/g, '')}=${v.replace(/[#\s]/g, '')}` : `${pctEncode(k)}=${pctEncode(v)}`));
/** Queries the schema accepts, so odd cursors reach the core and the database. */
const plausibleQuery = fc
  .tuple(fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }), cursorLike)
  .map(([limit, cursor]) => `${limit === undefined ? '' : `limit=${limit}&`}cursor=${cursor}`);
/** Query strings (without the `?`): odd limit and cursor pairs, raw or percent-encoded, mostly-valid ones, broken syntax. */
export const queryString: fc.Arbitrary<string> = fc.oneof(
  fc.array(queryPair, { minLength: 1, maxLength: 6 }).map((ps) => ps.join('&')),
  { weight: 2, arbitrary: plausibleQuery },
  fc.constantFrom('', '&', '&&&', '=', 'limit', 'limit=', 'limit=1&limit=2', 'cursor=&cursor=', '%', '%zz=1', 'limit=%ff', '?', 'a=1;b=2'),
);

// ---------------------------------------------------------------------------------------------
// API-key headers.

/** Shaped like a key, its checksum almost surely wrong. */
const randomKeyish = fc.stringMatching(/^[0-9A-Za-z]{36}$/).map((s) => `aisle_sk_${s}`);
/**
 * API-key headers and what `route` must make of them: none, blank, malformed, key-shaped, unknown,
 * broken or valid Bearer, padded, a typo of the valid key, disabled, revoked, expired, search-only.
 */
export const apiKeyVariant = (route: RouteEntry, keys: FuzzKeys): fc.Arbitrary<KeyVariant> =>
  fc.oneof(
    fc.constant<KeyVariant>({ label: 'no key', headers: {}, expect: 'missing_api_key' }),
    fc.constantFrom('', '   ').map<KeyVariant>((v) => ({ label: 'blank x-api-key', headers: { 'x-api-key': v }, expect: 'missing_api_key' })),
    fc
      .string({ unit: 'binary-ascii', minLength: 1, maxLength: 80 })
      .filter((s) => s.trim() !== '')
      .map<KeyVariant>((v) => ({ label: 'malformed key', headers: { 'x-api-key': v }, expect: 'invalid_api_key' })),
    randomKeyish.map<KeyVariant>((v) => ({ label: 'key-shaped, checksum almost surely wrong', headers: { 'x-api-key': v }, expect: 'invalid_api_key' })),
    fc.constant(null).map<KeyVariant>(() => ({ label: 'well-formed unknown key', headers: { 'x-api-key': generateKeySecret() }, expect: 'invalid_api_key' })),
    fc
      .constantFrom('Bearer', 'Bearer ', 'Basic YWRtaW46YWRtaW4=', 'Token K', 'Bearer a b', 'Bearer\n')
      .map<KeyVariant>((v) => ({ label: 'broken Authorization', headers: { authorization: v.replace('K', keys.fuzzKey) }, expect: 'missing_api_key' })),
    fc
      .constantFrom('Bearer K', 'bearer K', 'BEARER   K  ', 'Bearer\tK')
      .map<KeyVariant>((v) => ({ label: 'Bearer with the valid key', headers: { authorization: v.replace('K', keys.fuzzKey) }, expect: 'ok' })),
    fc
      .constantFrom(' K', 'K ', '\tK\t')
      .map<KeyVariant>((v) => ({ label: 'valid key with whitespace', headers: { 'x-api-key': v.replace('K', keys.fuzzKey) }, expect: 'ok' })),
    fc.constant<KeyVariant>({
      label: 'bad x-api-key wins over a valid Bearer',
      headers: { 'x-api-key': 'nope', authorization: `Bearer ${keys.fuzzKey}` },
      expect: 'invalid_api_key',
    }),
    fc.constant<KeyVariant>({
      label: 'x-api-key with a one-character typo',
      headers: { 'x-api-key': `${keys.fuzzKey.slice(0, -1)}${keys.fuzzKey.endsWith('A') ? 'B' : 'A'}` },
      expect: 'invalid_api_key',
    }),
    fc.constant<KeyVariant>({ label: 'disabled key', headers: { 'x-api-key': keys.disabledKey }, expect: 'api_key_disabled' }),
    fc.constant<KeyVariant>({ label: 'revoked key', headers: { 'x-api-key': keys.revokedKey }, expect: 'api_key_revoked' }),
    fc.constant<KeyVariant>({ label: 'expired key', headers: { 'x-api-key': keys.expiredKey }, expect: 'api_key_expired' }),
    fc.constant<KeyVariant>({
      label: 'search-only key',
      headers: { 'x-api-key': keys.searchOnlyKey },
      expect: route.scope === 'search' || route.scope === 'any' ? 'ok' : 'insufficient_scope',
    }),
  );

// ---------------------------------------------------------------------------------------------
// Unknown routes and malformed URLs.

const strayPrefix = fc.constantFrom(
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
// Malformed percent-encoding is left to malformedUrl.
const straySegment = fc.oneof(
  anyString(20).map(pctEncode),
  fc.uuid(),
  fc.constantFrom('', '.', '..', '%2e%2e', 'rotate', 'keys', 'index.html', ';', ':key_id', '*', '%2F', '%00'),
);
/** Paths near and far from the routes: known prefixes, random and odd segments, a trailing slash or not. */
export const strayPath: fc.Arbitrary<string> = fc
  .tuple(strayPrefix, fc.array(straySegment, { maxLength: 4 }), fc.boolean())
  .map(([p, segs, slash]) => `${p}/${segs.join('/')}${slash ? '/' : ''}`.replace(/^(?!\/)/, '/'));

/**
 * Requests whose URL is invalid or unroutable (malformed percent-encoding, over-long params, dot
 * segments): mostly on `routes` with a path param (named params only: a wildcard has no length
 * limit), the rest under a few prefixes.
 */
export function malformedUrl(routes: readonly RouteEntry[]): fc.Arbitrary<{ method: InjectMethod; url: string }> {
  const paramRoutes = routes.filter((r) => /:[A-Za-z_]/.test(r.url));
  const routed = fc.constantFrom(...paramRoutes).chain((route) => pathArb(route, malformedParam).map((url) => ({ method: route.method as InjectMethod, url })));
  const anywhere = fc
    .tuple(fc.constantFrom('GET', 'POST', 'DELETE') as fc.Arbitrary<InjectMethod>, fc.constantFrom('', '/v1', '/v1/keys', '/docs', '/nope'), malformedParam)
    .map(([method, prefix, seg]) => ({ method, url: `${prefix}/${seg}` }));
  return fc.oneof({ weight: 3, arbitrary: routed }, anywhere);
}
