/**
 * Aisle as the OAuth 2.1 authorization server of its own API (docs/oauth.md), over real HTTP on
 * 127.0.0.1 and a real database: discovery from a 401, dynamic registration, the authorization
 * endpoint, consent through the console's JSON routes with a real session cookie, PKCE, tokens
 * on /mcp and /v1, refresh rotation, revocation, and every refusal on the way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/core/oauth/secrets.js';
import { TOOL_SCOPES } from '../../src/mcp/tool-scopes.js';
import { createKey, createTestApp, ManualClock, type TestApp } from '../helpers/app.js';
import {
  authorizeClient,
  authorizePage,
  type ConsoleBrowser,
  consent,
  expectHttp,
  freePort,
  json,
  mcpRequest,
  mcpToolsList,
  pkcePair,
  postForm,
  register,
  registerFrom,
  signIn,
  startOAuthApp,
  type Tokens,
} from '../helpers/oauth.js';

const HOUR = 3_600_000;
const clock = new ManualClock(new Date().toISOString());
let t: TestApp;
let base: string;
let admin: ConsoleBrowser;
const REDIRECT = 'http://127.0.0.1:33418/callback';

beforeAll(async () => {
  // Registrations come from 127.0.0.1 throughout: the per-address limit has its own test below.
  ({ t, base } = await startOAuthApp({ clock, oauth: { registrationsPerMinute: 100_000 } }));
  admin = await signIn(base, t.adminKey);
});
afterAll(async () => t?.close());

const bearer = (token: string, path = '/v1/analytics', method = 'GET') => fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
const challenge = (res: Response) => res.headers.get('www-authenticate') ?? '';
/** The error page's link back to the client, as the browser would follow it. */
const returnLink = (html: string) => new URL(/<a id="return" href="([^"]+)"/.exec(html)![1]!.replaceAll('&#38;', '&'));
const refresh = (clientId: string, refreshToken: string, extra: Record<string, string> = {}) =>
  postForm(base, '/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, ...extra });

describe('OAuth discovery', () => {
  it('answers /mcp without a credential 401 with a challenge that leads to the authorization server metadata', async () => {
    const res = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect((await json(res, 401)).code).toBe('missing_api_key');
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const header = challenge(res);
    expect(header).toBe(`Bearer scope="search events:write", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
    const prm = await json<{ resource: string; authorization_servers: string[]; scopes_supported: string[] }>(
      await fetch(/resource_metadata="([^"]+)"/.exec(header)![1]!),
      200,
    );
    expect(prm).toMatchObject({ resource: `${base}/mcp`, authorization_servers: [base], bearer_methods_supported: ['header'] });
    expect(prm.scopes_supported).toEqual(['search', 'events:write', 'analytics:read']);
    expect(await json(await fetch(`${base}/.well-known/oauth-protected-resource`), 200)).toEqual(prm);
    const issuer = prm.authorization_servers[0]!;
    const as = await json<Record<string, unknown>>(await fetch(`${issuer}/.well-known/oauth-authorization-server`), 200);
    expect(as).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      authorization_response_iss_parameter_supported: true,
      // No metadata fetcher in this app: client ids that are URLs are refused, and the metadata says so.
      client_id_metadata_document_supported: false,
    });
    expect(as.scopes_supported).toEqual(['search', 'events:write', 'conversions:write', 'analytics:read', 'webhooks:manage']);
  });

  it('describes /v1 as a second resource, and names the route scope in its 401 challenge', async () => {
    const res = await fetch(`${base}/v1/analytics`);
    await expectHttp(res, 401);
    expect(challenge(res)).toBe(`Bearer scope="analytics:read", resource_metadata="${base}/.well-known/oauth-protected-resource/v1"`);
    const prm = await json(await fetch(`${base}/.well-known/oauth-protected-resource/v1`), 200);
    expect(prm).toMatchObject({ resource: `${base}/v1`, authorization_servers: [base] });
    const bad = await fetch(`${base}/v1/analytics`, { headers: { 'x-api-key': 'aisle_sk_wrong' } });
    expect((await json(bad, 401)).code).toBe('invalid_api_key');
    expect(challenge(bad)).toContain('error="invalid_token"');
  });

  it('lets a browser-based client read the metadata and call the endpoints from another origin', async () => {
    const preflight = await fetch(`${base}/.well-known/oauth-authorization-server`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'GET' },
    });
    await expectHttp(preflight, 204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version');
    const token = await postForm(base, '/oauth/token', {});
    expect(token.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('POST /oauth/register', () => {
  it('registers a public client and answers its metadata, never a secret', async () => {
    const body = await json<Record<string, unknown>>(
      await register(base, {
        client_name: 'Claude',
        redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
        token_endpoint_auth_method: 'client_secret_post',
        logo_uri: 'https://x/y.png',
      }),
      201,
    );
    expect(body).toMatchObject({
      client_name: 'Claude',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    expect(body.client_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body).not.toHaveProperty('client_secret');
  });

  it.each([
    ['no redirect URI', { client_name: 'x' }, 'invalid_redirect_uri'],
    ['an empty list', { redirect_uris: [] }, 'invalid_redirect_uri'],
    ['plain http off loopback', { redirect_uris: ['http://evil.example/cb'] }, 'invalid_redirect_uri'],
    ['a fragment', { redirect_uris: ['https://app.example/cb#x'] }, 'invalid_redirect_uri'],
    ['a custom scheme', { redirect_uris: ['cursor://callback'] }, 'invalid_redirect_uri'],
    ['an implicit-grant client', { redirect_uris: ['https://app.example/cb'], grant_types: ['implicit'] }, 'invalid_client_metadata'],
    ['a name with a bidirectional override', { redirect_uris: ['https://app.example/cb'], client_name: 'Cla\u202eude' }, 'invalid_client_metadata'],
  ])('refuses %s with an RFC 7591 error', async (_what, body, error) => {
    const res = await register(base, body);
    expect(await json(res, 400)).toMatchObject({ error });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a form body with 415, whatever its size, without reading it', async () => {
    for (const size of [20, 20_000]) {
      const res = await fetch(`${base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `redirect_uris=${'a'.repeat(size)}`,
      });
      expect(await json(res, 415), String(size)).toMatchObject({ error: 'invalid_request' });
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('answers malformed JSON in OAuth form, not problem+json', async () => {
    const res = await fetch(`${base}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"redirect_uris":' });
    expect(await json(res, 400)).toMatchObject({ error: 'invalid_request' });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });
});

describe('GET /oauth/authorize', () => {
  let clientId: string;
  const { challenge: codeChallenge } = pkcePair();
  beforeAll(async () => {
    clientId = (
      await json<{ client_id: string }>(
        await register(base, { client_name: 'Authorize test', redirect_uris: [REDIRECT, 'https://app.example/cb?tenant=7'] }),
        201,
      )
    ).client_id;
  });

  it('serves the console page for a valid request, uncached and under the console policy', async () => {
    const res = await authorizePage(base, { client_id: clientId, redirect_uri: REDIRECT, code_challenge: codeChallenge, state: 'xyz' });
    const html = await expectHttp(res, 200);
    expect(html).toMatch(/<script src="\/console\/assets\/app\.[0-9a-f]{12}\.js"/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it.each([
    ['an unknown client', (id: string) => ({ client_id: `${id.slice(0, -4)}0000`, redirect_uri: REDIRECT }), 'No client is registered'],
    ['a malformed client id', () => ({ client_id: 'nope', redirect_uri: REDIRECT }), 'No client is registered'],
    [
      'a redirect URI it did not register',
      (id: string) => ({ client_id: id, redirect_uri: 'http://127.0.0.1:33419/callback' }),
      'not one this client registered',
    ],
    ['a redirect URI that only starts the same', (id: string) => ({ client_id: id, redirect_uri: `${REDIRECT}/x` }), 'not one this client registered'],
    ['no redirect URI', (id: string) => ({ client_id: id, redirect_uri: '' }), 'redirect_uri'],
  ])('answers %s with a 400 error page, never a redirect', async (_what, params, reason) => {
    const res = await authorizePage(base, { ...params(clientId), code_challenge: codeChallenge, state: 'xyz' });
    const html = await expectHttp(res, 400);
    expect(res.headers.get('location')).toBeNull();
    expect(html).toContain(reason);
    expect(html).not.toContain('<script');
  });

  it.each([
    ['no PKCE', { code_challenge: '' }, 'invalid_request'],
    ['PKCE plain', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['a malformed challenge', { code_challenge: 'short' }, 'invalid_request'],
    ['another response type', { response_type: 'token' }, 'unsupported_response_type'],
    ['an unknown scope', { scope: 'search admin' }, 'invalid_scope'],
    ['another resource', { resource: 'https://elsewhere.example/mcp' }, 'invalid_target'],
  ])('answers %s with an error page whose link (not a redirect) returns error, state and iss to the client', async (_what, override, error) => {
    const res = await authorizePage(base, {
      client_id: clientId,
      redirect_uri: 'https://app.example/cb?tenant=7',
      code_challenge: codeChallenge,
      state: 'st 8',
      ...override,
    });
    const back = returnLink(await expectHttp(res, 400));
    expect(res.headers.get('location')).toBeNull();
    expect(`${back.origin}${back.pathname}`).toBe('https://app.example/cb');
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ tenant: '7', error, state: 'st 8', iss: base });
  });

  it('refuses a parameter sent twice', async () => {
    const query = `client_id=${clientId}&client_id=${clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&response_type=code&code_challenge=${codeChallenge}&code_challenge_method=S256`;
    expect(await expectHttp(await authorizePage(base, query), 400)).not.toContain('id="return"');
    const twice = `client_id=${clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&response_type=code&code_challenge=${codeChallenge}&code_challenge_method=S256&scope=search&scope=search`;
    const back = returnLink(await expectHttp(await authorizePage(base, twice), 400));
    expect(back.searchParams.get('error')).toBe('invalid_request');
  });
});

describe('consent (the console JSON routes)', () => {
  let clientId: string;
  const { challenge: codeChallenge } = pkcePair();
  beforeAll(async () => {
    clientId = (await json<{ client_id: string }>(await register(base, { client_name: 'Consent test', redirect_uris: [REDIRECT] }), 201)).client_id;
  });
  const params = (scope?: string) => ({
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: codeChallenge,
    state: 'abc',
    ...(scope ? { scope } : {}),
  });
  const query = (scope?: string) => new URLSearchParams({ response_type: 'code', code_challenge_method: 'S256', ...params(scope) }).toString();

  it('describes the request to the signed-in owner: the client, its redirect host, the default scopes', async () => {
    const described = await json(await admin.get(`/console/oauth/authorize?${query()}`), 200);
    expect(described).toEqual({
      client: { client_id: clientId, name: 'Consent test', kind: 'registered', redirect_uri: REDIRECT, redirect_host: '127.0.0.1:33418' },
      resource: `${base}/mcp`,
      scopes: [
        { scope: 'search', grantable: true },
        { scope: 'events:write', grantable: true },
      ],
      granted: ['search', 'events:write'],
    });
  });

  it('needs a console session, and the decision needs its CSRF token', async () => {
    expect((await json(await fetch(`${base}/console/oauth/authorize?${query()}`), 401)).code).toBe('session_expired');
    const withKey = await fetch(`${base}/console/oauth/authorize?${query()}`, { headers: { 'x-api-key': t.adminKey } });
    expect((await json(withKey, 401)).code).toBe('session_expired');
    await expectHttp(await admin.get(`/console/oauth/authorize?${query()}`), 200);
    const noCsrf = await fetch(`${base}/console/oauth/authorize?${query()}`, {
      method: 'POST',
      headers: { cookie: admin.cookie, 'content-type': 'application/json' },
      body: '{"decision":"approve"}',
    });
    expect((await json(noCsrf, 403)).code).toBe('csrf_failed');
  });

  it('grants only what the key holds, shows the rest as not grantable, and never grants keys:manage', async () => {
    const { key } = await createKey(t.app, t.adminKey, { name: 'search only', scopes: ['search', 'keys:manage'] });
    const owner = await signIn(base, key);
    const described = await json<{ scopes: unknown; granted: unknown }>(
      await owner.get(`/console/oauth/authorize?${query('search analytics:read keys:manage')}`),
      200,
    );
    expect(described.scopes).toEqual([
      { scope: 'search', grantable: true },
      { scope: 'analytics:read', grantable: false },
      { scope: 'keys:manage', grantable: false },
    ]);
    expect(described.granted).toEqual(['search']);
    const refused = await owner.post(`/console/oauth/authorize?${query('analytics:read keys:manage')}`, { decision: 'approve' });
    expect((await json(refused, 403)).code).toBe('insufficient_scope');
  });

  it('answers a denial as access_denied with state and iss', async () => {
    const back = await consent(admin, params(), 'deny');
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'access_denied', state: 'abc', iss: base });
    expect(back.searchParams.has('code')).toBe(false);
  });

  it('refuses to describe a request that is not valid', async () => {
    const evil = new URLSearchParams({ response_type: 'code', code_challenge_method: 'S256', ...params(), redirect_uri: 'https://evil.example/' }).toString();
    const body = await json(await admin.get(`/console/oauth/authorize?${evil}`), 400);
    expect(body).toMatchObject({ code: 'invalid_authorization_request' });
  });
});

describe('POST /oauth/token', () => {
  it('exchanges a code with its verifier for tokens bound to /mcp, which list the MCP tools', async () => {
    const client = await json<{ client_id: string }>(await register(base, { client_name: 'Flow', redirect_uris: [REDIRECT] }), 201);
    const { verifier, challenge: codeChallenge } = pkcePair();
    const back = await consent(admin, { client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: codeChallenge, state: 'flow' });
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ state: 'flow', iss: base });
    const code = back.searchParams.get('code')!;
    expect(code).toMatch(/^aisle_ac_[0-9A-Za-z]{36}$/);
    const res = await postForm(base, '/oauth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      code_verifier: verifier,
      resource: `${base}/mcp`,
    });
    const tokens = await json<Tokens>(res, 200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'search events:write' });
    expect(tokens.access_token).toMatch(/^aisle_ot_[0-9A-Za-z]{36}$/);
    expect(tokens.refresh_token).toMatch(/^aisle_rt_[0-9A-Za-z]{36}$/);

    const listed = await mcpToolsList(base, tokens.access_token);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    const tools = (listed.body.result as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    expect(tools).toContain('search_products');
    expect(listed.headers.get('ratelimit-policy')).toBe('"default";q=600;w=60');

    // Bound to /mcp: not accepted by /v1.
    const elsewhere = await bearer(tokens.access_token);
    expect(await json(elsewhere, 401)).toMatchObject({ code: 'invalid_token', detail: expect.stringContaining(`${base}/mcp`) });
    expect(challenge(elsewhere)).toBe(`Bearer error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource/v1"`);
  });

  it('stores codes and tokens only as hashes', async () => {
    const { tokens } = await authorizeClient(base, admin);
    const rows = await t.db.query<{ token_hash: string }>('SELECT token_hash FROM oauth_tokens');
    const hashes = rows.map((r) => r.token_hash);
    expect(hashes).toContain(hashSecret(tokens.access_token));
    expect(hashes).toContain(hashSecret(tokens.refresh_token));
    const dump = JSON.stringify(await t.db.query('SELECT * FROM oauth_tokens')) + JSON.stringify(await t.db.query('SELECT * FROM oauth_codes'));
    expect(dump).not.toContain(tokens.access_token.slice(9));
    expect(dump).not.toContain(tokens.refresh_token.slice(9));
  });

  it('refuses a wrong verifier, and the code is spent by the attempt', async () => {
    const client = await json<{ client_id: string }>(await register(base, { redirect_uris: [REDIRECT] }), 201);
    const { verifier, challenge: codeChallenge } = pkcePair();
    const code = (await consent(admin, { client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: codeChallenge })).searchParams.get('code')!;
    const form = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: client.client_id };
    const wrong = await json(await postForm(base, '/oauth/token', { ...form, code_verifier: pkcePair().verifier }), 400);
    expect(wrong).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('code_verifier') });
    expect(await json(await postForm(base, '/oauth/token', { ...form, code_verifier: verifier }), 400)).toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a reused code and revokes the tokens it produced', async () => {
    const client = await json<{ client_id: string }>(await register(base, { redirect_uris: [REDIRECT] }), 201);
    const { verifier, challenge: codeChallenge } = pkcePair();
    const code = (
      await consent(admin, {
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        code_challenge: codeChallenge,
        resource: `${base}/v1`,
        scope: 'analytics:read',
      })
    ).searchParams.get('code')!;
    const form = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: client.client_id, code_verifier: verifier };
    const tokens = await json<Tokens>(await postForm(base, '/oauth/token', form), 200);
    await expectHttp(await bearer(tokens.access_token), 200);
    expect(await json(await postForm(base, '/oauth/token', form), 400)).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringContaining('already used'),
    });
    expect(await json(await bearer(tokens.access_token), 401)).toMatchObject({ code: 'invalid_token' });
    expect(await json(await refresh(client.client_id, tokens.refresh_token), 400)).toMatchObject({ error: 'invalid_grant' });
  });

  it.each<[string, Record<string, string> | 'other-client', number, string]>([
    ['another redirect URI', { redirect_uri: 'http://127.0.0.1:33418/other' }, 400, 'invalid_grant'],
    ['another resource', { resource: `${base}/v1` }, 400, 'invalid_target'],
    ['another registered client', 'other-client', 400, 'invalid_grant'],
    ['an unknown client', { client_id: '6f0c2d0e-0000-4000-8000-000000000000' }, 401, 'invalid_client'],
    ['no client', { client_id: '' }, 401, 'invalid_client'],
    ['no verifier', { code_verifier: '' }, 400, 'invalid_request'],
  ])('refuses a code exchange with %s', async (_what, override, status, error) => {
    const client = await json<{ client_id: string }>(await register(base, { redirect_uris: [REDIRECT, 'http://127.0.0.1:33418/other'] }), 201);
    const { verifier, challenge: codeChallenge } = pkcePair();
    const code = (await consent(admin, { client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: codeChallenge })).searchParams.get('code')!;
    const changes: Record<string, string> =
      override === 'other-client'
        ? { client_id: (await json<{ client_id: string }>(await register(base, { redirect_uris: [REDIRECT] }), 201)).client_id }
        : override;
    const res = await postForm(base, '/oauth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      code_verifier: verifier,
      ...changes,
    });
    expect(await json(res, status)).toMatchObject({ error });
  });

  it('refuses a code past its five minutes', async () => {
    const client = await json<{ client_id: string }>(await register(base, { redirect_uris: [REDIRECT] }), 201);
    const { verifier, challenge: codeChallenge } = pkcePair();
    const code = (await consent(admin, { client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: codeChallenge })).searchParams.get('code')!;
    clock.advance(5 * 60_000 + 1);
    const res = await postForm(base, '/oauth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      code_verifier: verifier,
    });
    expect(await json(res, 400)).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('expired') });
  });

  it('answers malformed requests in RFC 6749 form', async () => {
    expect(await json(await postForm(base, '/oauth/token', {}), 400)).toMatchObject({ error: 'invalid_request' });
    expect(await json(await postForm(base, '/oauth/token', { grant_type: 'password' }), 400)).toMatchObject({ error: 'unsupported_grant_type' });
    const asJson = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"grant_type":"refresh_token"}',
    });
    expect(await json(asJson, 415)).toMatchObject({ error: 'invalid_request' });
    const twice = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&grant_type=refresh_token',
    });
    expect(await json(twice, 400)).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('more than once') });
  });
});

describe('tokens at the resource', () => {
  it('act on /v1 with the granted scopes and the key’s rate limit; a missing scope is a 403 challenge', async () => {
    const { key } = await createKey(t.app, t.adminKey, { name: 'limited', scopes: ['analytics:read', 'events:write'], rate_limit_per_minute: 77 });
    const { tokens } = await authorizeClient(base, await signIn(base, key), { resource: `${base}/v1`, scope: 'analytics:read' });
    expect(tokens.scope).toBe('analytics:read');
    const ok = await bearer(tokens.access_token);
    await expectHttp(ok, 200);
    expect(ok.headers.get('ratelimit-policy')).toBe('"default";q=77;w=60');
    const refused = await bearer(tokens.access_token, '/v1/clicks/6f0c2d0e-0000-4000-8000-000000000000', 'POST');
    expect(await json(refused, 403)).toMatchObject({ code: 'insufficient_scope', required_scope: 'events:write' });
    expect(challenge(refused)).toBe(
      `Bearer error="insufficient_scope", scope="events:write", resource_metadata="${base}/.well-known/oauth-protected-resource/v1"`,
    );
    // Tokens never open the console's own routes.
    expect((await json(await bearer(tokens.access_token, '/console/session'), 401)).code).toBe('session_expired');
  });

  it('refuses a malformed token without a database read, and an unknown one', async () => {
    const before = t.db.queryCount;
    const malformed = await bearer('aisle_ot_notatoken');
    expect(await json(malformed, 401)).toMatchObject({ code: 'invalid_token' });
    expect(t.db.queryCount).toBe(before);
    expect(await json(await bearer(`aisle_ot_${'A'.repeat(36)}`), 401)).toMatchObject({ code: 'invalid_token' });
  });

  it('expires an access token after an hour; the refresh token rotates and the old one revokes the grant when reused', async () => {
    const { clientId, tokens } = await authorizeClient(base, admin, { resource: `${base}/v1`, scope: 'analytics:read' });
    clock.advance(HOUR);
    const expired = await bearer(tokens.access_token);
    expect(await json(expired, 401)).toMatchObject({ code: 'invalid_token', detail: expect.stringContaining('expired') });
    expect(challenge(expired)).toContain('error="invalid_token"');

    const next = await json<Tokens>(await refresh(clientId, tokens.refresh_token), 200);
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect(next.scope).toBe('analytics:read');
    await expectHttp(await bearer(next.access_token), 200);

    const reused = await json(await refresh(clientId, tokens.refresh_token), 400);
    expect(reused).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('already used') });
    expect(await json(await bearer(next.access_token), 401)).toMatchObject({ code: 'invalid_token', detail: expect.stringContaining('revoked') });
    expect(await json(await refresh(clientId, next.refresh_token), 400)).toMatchObject({ error: 'invalid_grant' });
  });

  it('refreshes only for the client it was issued to, and narrows scopes but never widens them', async () => {
    const { clientId, tokens } = await authorizeClient(base, admin, { resource: `${base}/v1`, scope: 'analytics:read events:write' });
    const other = await json<{ client_id: string }>(await register(base, { redirect_uris: [REDIRECT] }), 201);
    expect(await json(await refresh(other.client_id, tokens.refresh_token), 400)).toMatchObject({ error: 'invalid_grant' });
    expect(await json(await refresh(clientId, tokens.refresh_token, { scope: 'analytics:read search' }), 400)).toMatchObject({ error: 'invalid_scope' });
    const narrowed = await json<Tokens>(await refresh(clientId, tokens.refresh_token, { scope: 'analytics:read' }), 200);
    expect(narrowed.scope).toBe('analytics:read');
    const wider = await json<Tokens>(await refresh(clientId, narrowed.refresh_token), 200);
    expect(wider.scope).toBe('analytics:read events:write');
  });

  it('ends every token of a key that is disabled, rotated away or deleted', async () => {
    for (const end of ['disable', 'rotate', 'delete'] as const) {
      const { key, id } = await createKey(t.app, t.adminKey, { name: `ends by ${end}`, scopes: ['analytics:read'] });
      const { clientId, tokens } = await authorizeClient(base, await signIn(base, key), { resource: `${base}/v1`, scope: 'analytics:read' });
      await expectHttp(await bearer(tokens.access_token), 200);
      const admin = { 'x-api-key': t.adminKey };
      if (end === 'disable') await expectHttp(await fetch(`${base}/v1/keys/${id}`, { method: 'POST', headers: admin }), 200);
      if (end === 'rotate') await expectHttp(await fetch(`${base}/v1/keys/${id}/rotate`, { method: 'POST', headers: admin }), 201);
      if (end === 'delete') await expectHttp(await fetch(`${base}/v1/keys/${id}`, { method: 'DELETE', headers: admin }), 204);
      expect(await json(await bearer(tokens.access_token), 401), end).toMatchObject({ code: 'invalid_token' });
      expect(await json(await refresh(clientId, tokens.refresh_token), 400), end).toMatchObject({ error: 'invalid_grant' });
      if (end === 'disable') {
        // Enabling the key again does not bring the app back.
        await expectHttp(
          await fetch(`${base}/v1/keys/${id}`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: '{"status":"active"}' }),
          200,
        );
        expect(await json(await bearer(tokens.access_token), 401)).toMatchObject({ code: 'invalid_token' });
      }
    }
  });
});

describe('tokens of a key that ends later', () => {
  it('work while a rotated key’s grace lasts and stop when it runs out, as for a key that expires', async () => {
    const admin = { 'x-api-key': t.adminKey, 'content-type': 'application/json' };
    const rotated = await createKey(t.app, t.adminKey, { name: 'rotated with grace', scopes: ['analytics:read'] });
    const expiring = await createKey(t.app, t.adminKey, {
      name: 'expiring',
      scopes: ['analytics:read'],
      expires_at: new Date(clock.now().getTime() + 120_000).toISOString(),
    });
    const apps = [];
    for (const { key } of [rotated, expiring])
      apps.push(await authorizeClient(base, await signIn(base, key), { resource: `${base}/v1`, scope: 'analytics:read' }));
    await expectHttp(await fetch(`${base}/v1/keys/${rotated.id}/rotate`, { method: 'POST', headers: admin, body: '{"grace_period_seconds":60}' }), 201);
    for (const app of apps) await expectHttp(await bearer(app.tokens.access_token), 200);
    const during = await json<Tokens>(await refresh(apps[0]!.clientId, apps[0]!.tokens.refresh_token), 200);

    clock.advance(61_000);
    expect(await json(await bearer(during.access_token), 401)).toMatchObject({ code: 'invalid_token', detail: expect.stringContaining('no longer works') });
    expect(await json(await refresh(apps[0]!.clientId, during.refresh_token), 400)).toMatchObject({ error: 'invalid_grant' });
    await expectHttp(await bearer(apps[1]!.tokens.access_token), 200);

    clock.advance(60_000);
    expect(await json(await bearer(apps[1]!.tokens.access_token), 401)).toMatchObject({
      code: 'invalid_token',
      detail: expect.stringContaining('no longer works'),
    });
    expect(await json(await refresh(apps[1]!.clientId, apps[1]!.tokens.refresh_token), 400)).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('tokens at /mcp', () => {
  const mcpChallenge = (params: string) => `Bearer ${params}, resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`;
  const callTool = (token: string, name: string, args: Record<string, unknown> = {}) => mcpRequest(base, token, 'tools/call', { name, arguments: args });

  it('refuse a token minted for /v1 with a 401 invalid_token challenge', async () => {
    const { tokens } = await authorizeClient(base, admin, { resource: `${base}/v1`, scope: 'analytics:read' });
    await expectHttp(await bearer(tokens.access_token), 200);
    const refused = await mcpToolsList(base, tokens.access_token);
    expect(refused.status, JSON.stringify(refused.body)).toBe(401);
    expect(refused.body).toMatchObject({ code: 'invalid_token', detail: expect.stringContaining(`${base}/v1`) });
    expect(refused.headers.get('www-authenticate')).toBe(mcpChallenge('error="invalid_token"'));
  });

  it('refuse an expired token and a revoked one with a 401 invalid_token challenge', async () => {
    const { clientId, tokens } = await authorizeClient(base, admin);
    expect((await mcpToolsList(base, tokens.access_token)).status).toBe(200);
    clock.advance(HOUR);
    const expired = await mcpToolsList(base, tokens.access_token);
    expect(expired.status, JSON.stringify(expired.body)).toBe(401);
    expect(expired.body).toMatchObject({ code: 'invalid_token', detail: expect.stringContaining('expired') });
    expect(expired.headers.get('www-authenticate')).toBe(mcpChallenge('error="invalid_token"'));

    const next = await json<Tokens>(await refresh(clientId, tokens.refresh_token), 200);
    expect((await mcpToolsList(base, next.access_token)).status).toBe(200);
    await expectHttp(await postForm(base, '/oauth/revoke', { token: next.access_token, client_id: clientId }), 200);
    const revoked = await mcpToolsList(base, next.access_token);
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(401);
    expect(revoked.body).toMatchObject({ code: 'invalid_token' });
    expect(revoked.headers.get('www-authenticate')).toBe(mcpChallenge('error="invalid_token"'));
  });

  it('answer a tool outside the grant with a 403 insufficient_scope challenge before it runs, and the tools inside it as usual', async () => {
    const { tokens } = await authorizeClient(base, admin, { scope: 'search analytics:read' });
    expect(tokens.scope).toBe('search analytics:read');
    const allowed = await callTool(tokens.access_token, 'get_analytics');
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect(allowed.body.result).toMatchObject({ structuredContent: expect.any(Object) });
    expect(allowed.body.result).not.toHaveProperty('isError');

    const refused = await callTool(tokens.access_token, 'record_click', { impression_id: 'imp_4c2001a5-7fd8-4ff6-b77e-0a5a298afc84' });
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(refused.body).toMatchObject({ code: 'insufficient_scope', required_scope: 'events:write' });
    expect(refused.headers.get('www-authenticate')).toBe(mcpChallenge('error="insufficient_scope", scope="events:write"'));
    // An unknown tool needs no scope: the MCP error says it does not exist.
    const unknown = await callTool(tokens.access_token, 'drop_tables');
    expect(unknown.status, JSON.stringify(unknown.body)).toBe(200);
    expect(unknown.body.error).toMatchObject({ code: -32602 });
  });

  it('leave an API key without the scope the tool result it always had', async () => {
    const { key } = await createKey(t.app, t.adminKey, { name: 'search key', scopes: ['search'] });
    const res = await callTool(key, 'get_analytics');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const result = res.body.result as { isError: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[1]!.text)).toMatchObject({ code: 'insufficient_scope', status: 403 });
  });

  it('know the scope of every tool the server lists', async () => {
    const { tokens } = await authorizeClient(base, admin);
    const listed = await mcpToolsList(base, tokens.access_token);
    const names = (listed.body.result as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    expect(names.length).toBeGreaterThan(0);
    expect([...names].sort()).toEqual(Object.keys(TOOL_SCOPES).sort());
  });
});

describe('POST /oauth/revoke', () => {
  it('revokes an access token alone, and a refresh token with its whole grant', async () => {
    const { clientId, tokens } = await authorizeClient(base, admin, { resource: `${base}/v1`, scope: 'analytics:read' });
    const second = await json<Tokens>(await refresh(clientId, tokens.refresh_token), 200);
    await expectHttp(await postForm(base, '/oauth/revoke', { token: second.access_token, client_id: clientId }), 200);
    expect(await json(await bearer(second.access_token), 401)).toMatchObject({ code: 'invalid_token' });
    const third = await json<Tokens>(await refresh(clientId, second.refresh_token), 200);
    await expectHttp(await bearer(third.access_token), 200);
    await expectHttp(await postForm(base, '/oauth/revoke', { token: third.refresh_token, token_type_hint: 'refresh_token' }), 200);
    expect(await json(await bearer(third.access_token), 401)).toMatchObject({ code: 'invalid_token', detail: expect.stringContaining('revoked') });
  });

  it('answers 200 for a token it does not know or that another client holds, and revokes nothing', async () => {
    const { tokens } = await authorizeClient(base, admin, { resource: `${base}/v1`, scope: 'analytics:read' });
    const other = await json<{ client_id: string }>(await register(base, { redirect_uris: [REDIRECT] }), 201);
    await expectHttp(await postForm(base, '/oauth/revoke', { token: tokens.refresh_token, client_id: other.client_id }), 200);
    await expectHttp(await postForm(base, '/oauth/revoke', { token: 'whatever' }), 200);
    await expectHttp(await bearer(tokens.access_token), 200);
    expect(await json(await postForm(base, '/oauth/revoke', {}), 400)).toMatchObject({ error: 'invalid_request' });
  });
});

describe('GET and DELETE /v1/oauth/grants', () => {
  it('lists connected apps newest first and revokes one, ending its tokens', async () => {
    const account = await t.core.accounts.create('grants account');
    const owner = await signIn(base, account.firstKey.key);
    const first = await authorizeClient(base, owner, { name: 'First app' });
    clock.advance(1000);
    const second = await authorizeClient(base, owner, { name: 'Second app', resource: `${base}/v1`, scope: 'analytics:read' });
    const key = { 'x-api-key': account.firstKey.key };
    const page = await json<{
      data: { id: string; client_name: string; redirect_host: string; scopes: string[]; resource: string }[];
      has_more: boolean;
      next_cursor: string | null;
    }>(await fetch(`${base}/v1/oauth/grants?limit=1`, { headers: key }), 200);
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).toMatchObject({
      client_name: 'Second app',
      redirect_host: '127.0.0.1:33418',
      scopes: ['analytics:read'],
      resource: `${base}/v1`,
      key_id: account.firstKey.metadata.id,
    });
    expect(page.has_more).toBe(true);
    const rest = await json<{ data: { id: string; client_name: string }[] }>(
      await fetch(`${base}/v1/oauth/grants?limit=1&cursor=${page.next_cursor}`, { headers: key }),
      200,
    );
    expect(rest.data.map((g) => g.client_name)).toEqual(['First app']);

    // The console lists them with its session too; another account sees none of them.
    expect((await json<{ data: unknown[] }>(await owner.get('/v1/oauth/grants'), 200)).data).toHaveLength(2);
    await expectHttp(await fetch(`${base}/v1/oauth/grants/${rest.data[0]!.id}`, { method: 'DELETE', headers: { 'x-api-key': t.adminKey } }), 404);

    await expectHttp(await fetch(`${base}/v1/oauth/grants/grt_${rest.data[0]!.id}`, { method: 'DELETE', headers: key }), 204);
    expect((await mcpToolsList(base, first.tokens.access_token)).status).toBe(401);
    expect(await json(await refresh(first.clientId, first.tokens.refresh_token), 400)).toMatchObject({ error: 'invalid_grant' });
    await expectHttp(await bearer(second.tokens.access_token), 200);
    await expectHttp(await fetch(`${base}/v1/oauth/grants/${rest.data[0]!.id}`, { method: 'DELETE', headers: key }), 404);
    expect((await json<{ data: unknown[] }>(await fetch(`${base}/v1/oauth/grants`, { headers: key }), 200)).data).toHaveLength(1);
  });

  it('needs keys:manage, which no OAuth token can hold', async () => {
    const { tokens } = await authorizeClient(base, admin, { resource: `${base}/v1`, scope: 'analytics:read' });
    expect(await json(await bearer(tokens.access_token, '/v1/oauth/grants'), 403)).toMatchObject({ code: 'insufficient_scope' });
  });
});

describe('OAuth retention', () => {
  it('forgets registrations never used after a day, and expired codes, tokens and ended grants a day after they end', async () => {
    const unused = await json<{ client_id: string }>(await register(base, { redirect_uris: [REDIRECT] }), 201);
    const { clientId, tokens } = await authorizeClient(base, admin, { resource: `${base}/v1`, scope: 'analytics:read' });
    await t.core.retention.prune();
    const count = async (sql: string, params: unknown[]) => (await t.db.query<{ n: number }>(sql, params))[0]!.n;
    expect(await count('SELECT count(*)::int AS n FROM oauth_clients WHERE client_id = $1', [unused.client_id])).toBe(1);

    clock.advance(25 * HOUR);
    // Expired unused registrations are unknown before retention even runs.
    const page = await authorizePage(base, { client_id: unused.client_id, redirect_uri: REDIRECT, code_challenge: pkcePair().challenge });
    expect(await expectHttp(page, 400)).toContain('expires after 24 hours');
    const pruned = await t.core.retention.prune();
    expect(pruned.oauthClients).toBeGreaterThanOrEqual(1);
    expect(await count('SELECT count(*)::int AS n FROM oauth_clients WHERE client_id = $1', [unused.client_id])).toBe(0);
    // The authorized client stays; its expired access token went, its live refresh token stays.
    expect(await count('SELECT count(*)::int AS n FROM oauth_clients WHERE client_id = $1', [clientId])).toBe(1);
    expect(await count('SELECT count(*)::int AS n FROM oauth_tokens WHERE token_hash = $1', [hashSecret(tokens.access_token)])).toBe(0);
    expect(await count('SELECT count(*)::int AS n FROM oauth_tokens WHERE token_hash = $1', [hashSecret(tokens.refresh_token)])).toBe(1);
    expect(pruned.oauthCodes).toBeGreaterThanOrEqual(1);

    const next = await json<Tokens>(await refresh(clientId, tokens.refresh_token), 200);
    await expectHttp(await postForm(base, '/oauth/revoke', { token: next.refresh_token }), 200);
    clock.advance(24 * HOUR + 1000);
    expect((await t.core.retention.prune()).oauthGrants).toBeGreaterThanOrEqual(1);
    expect(await count('SELECT count(*)::int AS n FROM oauth_tokens WHERE token_hash = $1', [hashSecret(next.refresh_token)])).toBe(0);
  });
});

describe('OAuth behind a proxy that serves Aisle under an https path', () => {
  const PUBLIC = 'https://aisle.example.com/shop';
  let proxied: TestApp;
  let local: string;
  beforeAll(async () => {
    const port = await freePort();
    local = `http://127.0.0.1:${port}`;
    proxied = await createTestApp({ clock, oauth: { publicBaseUrl: `${PUBLIC}/` } });
    await proxied.app.listen({ host: '127.0.0.1', port });
  });
  afterAll(async () => proxied?.close());

  it('derives the issuer, endpoints, resources and metadata URLs from the public URL, and its tokens work', async () => {
    // The proxy forwards /shop/* without the prefix, and the well-known paths unchanged.
    const unauthorized = await fetch(`${local}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    await expectHttp(unauthorized, 401);
    expect(challenge(unauthorized)).toBe(
      'Bearer scope="search events:write", resource_metadata="https://aisle.example.com/.well-known/oauth-protected-resource/shop/mcp"',
    );
    const prm = await json(await fetch(`${local}/.well-known/oauth-protected-resource/shop/mcp`), 200);
    expect(prm).toMatchObject({ resource: `${PUBLIC}/mcp`, authorization_servers: [PUBLIC] });
    expect(await json(await fetch(`${local}/.well-known/oauth-protected-resource/shop/v1`), 200)).toMatchObject({ resource: `${PUBLIC}/v1` });
    const as = await json(await fetch(`${local}/.well-known/oauth-authorization-server/shop`), 200);
    expect(as).toMatchObject({
      issuer: PUBLIC,
      authorization_endpoint: `${PUBLIC}/oauth/authorize`,
      token_endpoint: `${PUBLIC}/oauth/token`,
      registration_endpoint: `${PUBLIC}/oauth/register`,
    });
    await expectHttp(await fetch(`${local}/.well-known/oauth-authorization-server`), 404);

    const redirectUri = 'https://app.example/callback';
    const client = await json<{ client_id: string }>(await register(local, { redirect_uris: [redirectUri] }), 201);
    const { verifier, challenge: codeChallenge } = pkcePair();
    const owner = await signIn(local, proxied.adminKey);
    const params = { client_id: client.client_id, redirect_uri: redirectUri, code_challenge: codeChallenge, state: 'p', resource: `${PUBLIC}/mcp` };
    await expectHttp(await authorizePage(local, params), 200);
    const back = await consent(owner, params);
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ state: 'p', iss: PUBLIC });
    const form = {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: redirectUri,
      client_id: client.client_id,
      code_verifier: verifier,
      resource: `${PUBLIC}/mcp/`,
    };
    const tokens = await json<Tokens>(await postForm(local, '/oauth/token', form), 200);
    expect((await mcpToolsList(local, tokens.access_token)).status).toBe(200);
    // The resource as the server sees it locally is not the public one.
    const page = await authorizePage(local, { ...params, resource: `${local}/mcp` });
    expect(returnLink(await expectHttp(page, 400)).searchParams.get('error')).toBe('invalid_target');
  });
});

describe('POST /oauth/register rate limit', () => {
  let limited: TestApp;
  let limitedBase: string;
  beforeAll(async () => {
    ({ t: limited, base: limitedBase } = await startOAuthApp({ clock, oauth: { registrationsPerMinute: 3 } }));
  });
  afterAll(async () => limited?.close());

  it('answers 429 with Retry-After past the limit of one address, not of another, and registers again once it recovers', async () => {
    for (let i = 0; i < 3; i++) await expectHttp(await register(limitedBase, { redirect_uris: [REDIRECT] }), 201);
    const refused = await register(limitedBase, { redirect_uris: [REDIRECT] });
    expect(await json(refused, 429)).toMatchObject({ error: 'rate_limited' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await limited.db.query('SELECT 1 FROM oauth_clients')).toHaveLength(3);
    // Another address has its own budget, and spends it alone.
    for (let i = 0; i < 3; i++) {
      const other = await registerFrom(limitedBase, '127.0.0.2', { redirect_uris: [REDIRECT] });
      expect(other.status, other.body).toBe(201);
    }
    const otherRefused = await registerFrom(limitedBase, '127.0.0.2', { redirect_uris: [REDIRECT] });
    expect(otherRefused.status, otherRefused.body).toBe(429);
    expect(JSON.parse(otherRefused.body)).toMatchObject({ error: 'rate_limited' });
    expect(await limited.db.query('SELECT 1 FROM oauth_clients')).toHaveLength(6);
    clock.advance(20_000);
    await expectHttp(await register(limitedBase, { redirect_uris: [REDIRECT] }), 201);
    // A recovered bucket is as good as none: retention drops it.
    expect((await limited.core.retention.prune()).registrationLimits).toBe(0);
    clock.advance(61_000);
    expect((await limited.core.retention.prune()).registrationLimits).toBe(2);
    expect(await limited.db.query(`SELECT 1 FROM rate_limits WHERE bucket LIKE 'oauth-register:%'`)).toHaveLength(0);
  });
});
