import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { expect } from 'vitest';
import { createTestApp, type TestApp, type TestAppOptions } from './app.js';

/** A port nothing listens on now: the public URL (the OAuth issuer) must name the port before the app is built. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A test app listening on 127.0.0.1 whose public URL (issuer) is its own address. */
export async function startOAuthApp(options: TestAppOptions = {}): Promise<{ t: TestApp; base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ ...options, oauth: { ...options.oauth, publicBaseUrl: base } });
  await t.app.listen({ host: '127.0.0.1', port });
  return { t, base };
}

/** A PKCE S256 pair (RFC 7636). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Prints the body when the status differs. */
export async function expectHttp(res: Response, status: number): Promise<string> {
  const body = await res.text();
  expect(res.status, `${res.status} ${body}`).toBe(status);
  return body;
}

export async function json<T = Record<string, unknown>>(res: Response, status: number): Promise<T> {
  return JSON.parse(await expectHttp(res, status)) as T;
}

/** A signed-in console session over real HTTP: the HttpOnly cookie and the CSRF token, as the page holds them. */
export interface ConsoleBrowser {
  /** `aisle_session=…`, for requests the helpers do not make (one without the CSRF token). */
  cookie: string;
  get(path: string): Promise<Response>;
  post(path: string, body: unknown): Promise<Response>;
}

export async function signIn(base: string, apiKey: string): Promise<ConsoleBrowser> {
  const res = await fetch(`${base}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: apiKey }),
  });
  const session = await json<{ csrf_token: string }>(res, 201);
  const cookie = /aisle_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')![0];
  return {
    cookie,
    get: (path) => fetch(`${base}${path}`, { headers: { cookie, accept: 'application/json' } }),
    post: (path, body) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { cookie, 'x-csrf-token': session.csrf_token, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
  };
}

/** POST /oauth/register (RFC 7591). */
export function register(base: string, body: unknown): Promise<Response> {
  return fetch(`${base}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/**
 * POST /oauth/register over a socket bound to another loopback source address (127.0.0.2, …):
 * the server sees a second client address without a proxy in between.
 */
export function registerFrom(base: string, localAddress: string, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/oauth/register`, { method: 'POST', localAddress, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res
        .setEncoding('utf8')
        .on('data', (chunk: string) => (text += chunk))
        .on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject).end(JSON.stringify(body));
  });
}

/** A form POST to the token or revocation endpoint. */
export function postForm(base: string, path: string, form: Record<string, string>): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}

export interface AuthorizeParams {
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  state?: string;
  scope?: string;
  resource?: string;
  code_challenge_method?: string;
  response_type?: string;
}

export const authorizeQuery = (p: AuthorizeParams): string =>
  new URLSearchParams({ response_type: 'code', code_challenge_method: 'S256', ...p } as Record<string, string>).toString();

/** GET /oauth/authorize without following a redirect. */
export function authorizePage(base: string, p: AuthorizeParams | string): Promise<Response> {
  const query = typeof p === 'string' ? p : authorizeQuery(p);
  return fetch(`${base}/oauth/authorize?${query}`, { redirect: 'manual' });
}

/** The consent step as the console page does it: describe, then decide; answers the URL the browser goes to. */
export async function consent(browser: ConsoleBrowser, p: AuthorizeParams, decision: 'approve' | 'deny' = 'approve'): Promise<URL> {
  const query = authorizeQuery(p);
  await json(await browser.get(`/console/oauth/authorize?${query}`), 200);
  const { redirect_to } = await json<{ redirect_to: string }>(await browser.post(`/console/oauth/authorize?${query}`, { decision }), 200);
  return new URL(redirect_to);
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

/** Registers a client, approves it as `apiKey`, and exchanges the code: a working token pair. */
export async function authorizeClient(base: string, browser: ConsoleBrowser, options: { scope?: string; resource?: string; name?: string } = {}) {
  const redirectUri = 'http://127.0.0.1:33418/callback';
  const client = await json<{ client_id: string }>(await register(base, { client_name: options.name ?? 'Test connector', redirect_uris: [redirectUri] }), 201);
  const { verifier, challenge } = pkcePair();
  const params: AuthorizeParams = { client_id: client.client_id, redirect_uri: redirectUri, code_challenge: challenge, state: 's1' };
  if (options.scope !== undefined) params.scope = options.scope;
  if (options.resource !== undefined) params.resource = options.resource;
  const back = await consent(browser, params);
  const code = back.searchParams.get('code')!;
  const tokens = await json<Tokens>(
    await postForm(base, '/oauth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: client.client_id,
      code_verifier: verifier,
    }),
    200,
  );
  return { clientId: client.client_id, redirectUri, tokens };
}

/** One JSON-RPC request over POST /mcp with a bearer token, as a 2025-11-25 client sends it (answered as JSON or one SSE event). */
export async function mcpRequest(
  base: string,
  token: string,
  method: string,
  params: Record<string, unknown> = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await res.text();
  const payload = res.headers.get('content-type')?.startsWith('text/event-stream') ? (/^data: (.*)$/m.exec(text)?.[1] ?? '{}') : text;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(payload) as Record<string, unknown>;
  } catch {
    body = { unparsed: text };
  }
  return { status: res.status, headers: res.headers, body };
}

/** tools/list over POST /mcp with a bearer token. */
export const mcpToolsList = (base: string, token: string) => mcpRequest(base, token, 'tools/list');
