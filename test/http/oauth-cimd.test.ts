/**
 * Clients known by a Client ID Metadata Document (docs/oauth.md): the client_id is the https URL
 * of the client's own metadata, fetched through the SSRF guard from a real https server on
 * 127.0.0.1 (test-only certificate, trusted as an extra authority).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClientMetadataFetcher } from '../../src/outbound/client-metadata.js';
import type { TestApp } from '../helpers/app.js';
import { authorizePage, consent, expectHttp, json, mcpToolsList, pkcePair, postForm, signIn, startOAuthApp, type Tokens } from '../helpers/oauth.js';
import { type Handler, HttpsDocuments, jsonDocument, TEST_CA } from '../helpers/tls.js';

const REDIRECT = 'http://127.0.0.1:33418/callback';
let docs: HttpsDocuments;
let t: TestApp;
let base: string;
let guarded: TestApp;
let guardedBase: string;
const fetchers: HttpClientMetadataFetcher[] = [];

/** The document at `path`, naming itself unless told otherwise. */
const selfNamed =
  (path: string, extra: Record<string, unknown> = {}): Handler =>
  (req, res) =>
    jsonDocument({ client_id: docs.url(path), client_name: 'Metadata Client', redirect_uris: [REDIRECT], ...extra })(req, res);

beforeAll(async () => {
  docs = await HttpsDocuments.start({
    '/oauth/client.json': selfNamed('/oauth/client.json'),
    '/oauth/impostor.json': selfNamed('/oauth/impostor.json', { client_id: 'https://claude.ai/oauth/client.json' }),
    '/oauth/secret.json': selfNamed('/oauth/secret.json', { client_secret: 'shh', token_endpoint_auth_method: 'client_secret_post' }),
    '/oauth/jwt.json': selfNamed('/oauth/jwt.json', { token_endpoint_auth_method: 'private_key_jwt' }),
    '/oauth/no-redirects.json': selfNamed('/oauth/no-redirects.json', { redirect_uris: [] }),
  });
  const make = (allowPrivate: boolean) => {
    const f = new HttpClientMetadataFetcher({ allowPrivate, extraCa: TEST_CA });
    fetchers.push(f);
    return f;
  };
  ({ t, base } = await startOAuthApp({ oauth: { clientMetadata: make(true) } }));
  ({ t: guarded, base: guardedBase } = await startOAuthApp({ oauth: { clientMetadata: make(false) } }));
});
afterAll(async () => {
  await t?.close();
  await guarded?.close();
  for (const f of fetchers) await f.close();
  await docs.close();
});

describe('Client ID Metadata Documents', () => {
  it('are advertised in the authorization server metadata', async () => {
    expect(await json(await fetch(`${base}/.well-known/oauth-authorization-server`), 200)).toMatchObject({ client_id_metadata_document_supported: true });
  });

  it('authorize a client by its metadata URL, with no registration, through to a token that works', async () => {
    const clientId = docs.url('/oauth/client.json');
    const { verifier, challenge } = pkcePair();
    const params = { client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, state: 'c1' };
    await expectHttp(await authorizePage(base, params), 200);
    const browser = await signIn(base, t.adminKey);
    const query = new URLSearchParams({ response_type: 'code', code_challenge_method: 'S256', ...params }).toString();
    const described = await json<{ client: Record<string, unknown> }>(await browser.get(`/console/oauth/authorize?${query}`), 200);
    expect(described.client).toEqual({
      client_id: clientId,
      name: 'Metadata Client',
      kind: 'metadata_document',
      redirect_uri: REDIRECT,
      redirect_host: '127.0.0.1:33418',
    });
    const code = (await consent(browser, params)).searchParams.get('code')!;
    const tokens = await json<Tokens>(
      await postForm(base, '/oauth/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier }),
      200,
    );
    expect((await mcpToolsList(base, tokens.access_token)).status).toBe(200);
    const refreshed = await postForm(base, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    await expectHttp(refreshed, 200);
    expect(await t.db.query('SELECT 1 FROM oauth_clients')).toHaveLength(0);
    const grants = await json<{ data: { client_id: string; client_name: string }[] }>(
      await fetch(`${base}/v1/oauth/grants`, { headers: { 'x-api-key': t.adminKey } }),
      200,
    );
    expect(grants.data).toEqual([expect.objectContaining({ client_id: clientId, client_name: 'Metadata Client' })]);
  });

  it.each([
    ['names another client_id', '/oauth/impostor.json', 'names another client_id (https://claude.ai/oauth/client.json)'],
    ['holds a client secret', '/oauth/secret.json', 'must not contain a client_secret'],
    ['authenticates with a private key', '/oauth/jwt.json', 'private_key_jwt is not supported'],
    ['lists no redirect URI', '/oauth/no-redirects.json', 'at least one redirect URI'],
    ['is not there', '/oauth/missing.json', 'HTTP 404'],
  ])('refuse a document that %s, with an error page', async (_what, path, reason) => {
    const res = await authorizePage(base, { client_id: docs.url(path), redirect_uri: REDIRECT, code_challenge: pkcePair().challenge, state: 's' });
    const html = await expectHttp(res, 400);
    expect(res.headers.get('location')).toBeNull();
    expect(html).toContain(reason);
  });

  it('refuse a redirect URI the document does not list', async () => {
    const res = await authorizePage(base, {
      client_id: docs.url('/oauth/client.json'),
      redirect_uri: 'https://evil.example/cb',
      code_challenge: pkcePair().challenge,
    });
    expect(await expectHttp(res, 400)).toContain('not one this client registered');
  });

  it.each([
    ['plain http', (u: string) => u.replace('https:', 'http:')],
    ['no path', (u: string) => new URL(u).origin],
    ['a fragment', (u: string) => `${u}#x`],
    ['a dot segment', (u: string) => u.replace('/oauth/', '/oauth/./')],
  ])('refuse a client id URL with %s before fetching anything', async (_what, change) => {
    const before = docs.connections;
    const res = await authorizePage(base, { client_id: change(docs.url('/oauth/client.json')), redirect_uri: REDIRECT, code_challenge: pkcePair().challenge });
    expect(await expectHttp(res, 400)).toContain('client_id');
    expect(docs.connections).toBe(before);
  });

  it('refuse a document on a loopback or private address unless the operator allows it', async () => {
    const before = docs.connections;
    const res = await authorizePage(guardedBase, { client_id: docs.url('/oauth/client.json'), redirect_uri: REDIRECT, code_challenge: pkcePair().challenge });
    expect(await expectHttp(res, 400)).toContain('loopback address (127.0.0.1)');
    expect(docs.connections).toBe(before);
    // Nor can the token endpoint be reached with it: nothing was authorized.
    const token = await postForm(guardedBase, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: 'aisle_rt_x',
      client_id: docs.url('/oauth/client.json'),
    });
    expect(await json(token, 400)).toMatchObject({ error: 'invalid_grant' });
  });
});
