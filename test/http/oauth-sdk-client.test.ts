/**
 * The official MCP SDK 2 client's OAuth support against a running Aisle (docs/oauth.md), over real
 * HTTP on 127.0.0.1: the client starts with no credential, gets the 401, discovers the servers from
 * its `resource_metadata`, identifies itself (by Dynamic Client Registration, or by a Client ID
 * Metadata Document served from a real https server with the test-only certificate), sends the
 * browser to the authorization endpoint with PKCE, where headless Chromium signs in with a key and
 * clicks Allow; the redirect lands on the client's loopback callback, the SDK exchanges the code,
 * calls search_products, refreshes when the access token has expired, and after the owner revokes
 * the grant is refused with 401 and sent back to authorization.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Client,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClientMetadataFetcher } from '../../src/outbound/client-metadata.js';
import { ManualClock, type TestApp } from '../helpers/app.js';
import { CHROMIUM, chromiumAvailable, launchChromium } from '../helpers/browser.js';
import { json, startOAuthApp } from '../helpers/oauth.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';
import { HttpsDocuments, jsonDocument, TEST_CA } from '../helpers/tls.js';

const CIMD_PATH = '/oauth/sdk-client.json';
let sample: SampleCatalog;
let fetcher: HttpClientMetadataFetcher;
let docs: HttpsDocuments;
let t: TestApp;
let base: string;
let browser: Browser;
let callback: Server;
let redirectUri: string;
// Starts at the real time: the browser judges the console's session cookie by its own clock.
const clock = new ManualClock(Date.now());
/** Resolves the next arrival at the client's redirect URI with its query. */
let nextArrival: (query: URLSearchParams) => void = () => undefined;

/** One HTTP exchange the client made: what it called and the status it got. */
interface Exchange {
  method: string;
  path: string;
  status: number;
}

/**
 * The app's side of OAuth, as an MCP host keeps it: client information and tokens in memory, the
 * PKCE verifier, and a "browser" that is real headless Chromium signing in and clicking Allow.
 */
class BrowserProvider implements OAuthClientProvider {
  readonly clientMetadata: OAuthClientMetadata;
  readonly clientMetadataUrl?: string;
  readonly registrations: StoredOAuthClientInformation[] = [];
  readonly savedTokens: StoredOAuthTokens[] = [];
  readonly authorizationUrls: URL[] = [];
  /** Whether redirectToAuthorization has the person allow (else it only records the URL). */
  consents = true;
  lastState = '';
  arrival: Promise<URLSearchParams> | null = null;
  private client: StoredOAuthClientInformation | undefined;
  private current: StoredOAuthTokens | undefined;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;

  constructor(clientMetadataUrl?: string) {
    this.clientMetadata = {
      client_name: 'SDK client',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
    };
    if (clientMetadataUrl !== undefined) this.clientMetadataUrl = clientMetadataUrl;
  }

  get redirectUrl(): string {
    return redirectUri;
  }
  state(): string {
    this.lastState = `state-${Math.random()}`;
    return this.lastState;
  }
  clientInformation(_ctx?: OAuthClientInformationContext) {
    return this.client;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.registrations.push(info);
    this.client = info;
  }
  tokens() {
    return this.current;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.savedTokens.push(tokens);
    this.current = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no PKCE verifier saved');
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'client') this.client = undefined;
    if (scope === 'all' || scope === 'tokens') this.current = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrls.push(url);
    if (!this.consents) return;
    this.arrival = new Promise((resolve) => {
      nextArrival = resolve;
    });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(url.href);
      await page.getByLabel('API key', { exact: true }).fill(t.adminKey);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((u) => u.href.startsWith(redirectUri));
    } finally {
      await context.close();
    }
  }
}

/** An SDK client on one revision: its transport records every exchange it makes. */
function sdkClient(provider: BrowserProvider, era: '2025-11-25' | '2026-07-28', exchanges: Exchange[]) {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    authProvider: provider,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      exchanges.push({ method: init?.method ?? 'GET', path: new URL(input instanceof Request ? input.url : String(input)).pathname, status: res.status });
      return res;
    },
  });
  const client = new Client({ name: 'oauth sdk test', version: '1.0.0' }, era === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  return { client, transport };
}

/** Connects; on the first run the SDK sends the browser to consent, and the callback's query finishes the flow. */
async function connectWithConsent(provider: BrowserProvider, era: '2025-11-25' | '2026-07-28', exchanges: Exchange[]): Promise<Client> {
  const first = sdkClient(provider, era, exchanges);
  const failure = await first.client.connect(first.transport).then(
    () => null,
    (err: unknown) => err,
  );
  expect(failure, 'the first connect must need authorization').toBeInstanceOf(UnauthorizedError);
  const query = await provider.arrival!;
  expect(query.get('state')).toBe(provider.lastState);
  expect(query.get('iss')).toBe(base);
  await first.transport.finishAuth(query);
  const second = sdkClient(provider, era, exchanges);
  await second.client.connect(second.transport);
  return second.client;
}

async function searchOk(client: Client): Promise<void> {
  const result = await client.callTool({ name: 'search_products', arguments: { query: 'waterproof hiking boots', limit: 3, min_relevance_score: 0 } });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  const structured = result.structuredContent as { results: unknown[] };
  expect(structured.results.length).toBeGreaterThan(0);
}

if (!chromiumAvailable) console.warn(`SKIPPED: the SDK OAuth flow needs Chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`);

describe.skipIf(!chromiumAvailable)('the MCP SDK 2 client OAuth flow against /mcp', () => {
  beforeAll(async () => {
    callback = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/callback') nextArrival(url.searchParams);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Back in the app</title><p>Connected.</p>');
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    docs = await HttpsDocuments.start({
      [CIMD_PATH]: (req, res) =>
        jsonDocument({
          client_id: docs.url(CIMD_PATH),
          client_name: 'SDK client by metadata',
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          token_endpoint_auth_method: 'none',
        })(req, res),
    });
    sample = await openSampleCatalog();
    fetcher = new HttpClientMetadataFetcher({ allowPrivate: true, extraCa: TEST_CA });
    ({ t, base } = await startOAuthApp({ clock, search: sample, oauth: { clientMetadata: fetcher, registrationsPerMinute: 100 } }));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await fetcher?.close();
    await sample?.close();
    await docs?.close();
    await new Promise((resolve) => callback?.close(resolve));
  });

  it.each([
    ['Dynamic Client Registration', '2026-07-28', false],
    ['a Client ID Metadata Document', '2025-11-25', true],
  ] as const)('completes the whole flow with %s on %s: 401, discovery, PKCE, consent, token, call, refresh, revocation', async (_how, era, byDocument) => {
    const provider = new BrowserProvider(byDocument ? docs.url(CIMD_PATH) : undefined);
    const exchanges: Exchange[] = [];
    const documentFetches = docs.count(CIMD_PATH);
    const client = await connectWithConsent(provider, era, exchanges);
    expect(client.getNegotiatedProtocolVersion()).toBe(era);

    // The discovery and authorization the SDK went through, in order: the 401, the two metadata
    // documents, a registration only without a metadata document, then the code exchange.
    const paths = exchanges.map((e) => `${e.method} ${e.path} ${e.status}`);
    expect(paths.slice(0, 3), paths.join('\n')).toEqual([
      'POST /mcp 401',
      'GET /.well-known/oauth-protected-resource/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
    ]);
    expect(paths.includes('POST /oauth/register 201'), paths.join('\n')).toBe(!byDocument);
    expect(paths, paths.join('\n')).toContain('POST /oauth/token 200');
    const authorization = provider.authorizationUrls[0]!;
    expect(`${authorization.origin}${authorization.pathname}`).toBe(`${base}/oauth/authorize`);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('resource')).toBe(`${base}/mcp`);
    // The SDK keeps the client id either way; by document it is the document's URL, never registered.
    expect(provider.registrations).toHaveLength(1);
    if (byDocument) {
      expect(provider.registrations[0]!.client_id).toBe(docs.url(CIMD_PATH));
      expect(
        paths.filter((p) => p.includes('/oauth/register')),
        paths.join('\n'),
      ).toEqual([]);
      expect(authorization.searchParams.get('client_id')).toBe(docs.url(CIMD_PATH));
      expect(docs.count(CIMD_PATH)).toBeGreaterThan(documentFetches);
    } else {
      expect(authorization.searchParams.get('client_id')).toBe(provider.registrations[0]!.client_id);
    }
    expect(provider.savedTokens).toHaveLength(1);
    const first = provider.savedTokens[0]!;
    expect(first.access_token).toMatch(/^aisle_ot_/);
    expect(first.refresh_token).toMatch(/^aisle_rt_/);

    await searchOk(client);

    // An hour later the access token has expired: the next call gets 401, the SDK refreshes
    // (a new pair: the refresh token rotates) and retries.
    clock.advance(61 * 60 * 1000);
    const before = exchanges.length;
    await searchOk(client);
    const refresh = exchanges.slice(before).map((e) => `${e.method} ${e.path} ${e.status}`);
    expect(refresh, refresh.join('\n')).toEqual(expect.arrayContaining(['POST /mcp 401', 'POST /oauth/token 200', 'POST /mcp 200']));
    expect(provider.savedTokens).toHaveLength(2);
    expect(provider.savedTokens[1]!.access_token).not.toBe(first.access_token);
    expect(provider.savedTokens[1]!.refresh_token).not.toBe(first.refresh_token);
    expect(provider.authorizationUrls).toHaveLength(1);

    // The owner revokes the grant: the next call is refused with 401, the refresh token too, and
    // the SDK sends the person back to authorization instead of calling the tool.
    const grants = await json<{ data: { id: string; client_id: string }[] }>(
      await fetch(`${base}/v1/oauth/grants`, { headers: { 'x-api-key': t.adminKey } }),
      200,
    );
    const clientId = provider.registrations[0]!.client_id;
    const grant = grants.data.find((g) => g.client_id === clientId);
    expect(grant, JSON.stringify(grants)).toBeDefined();
    const revoked = await fetch(`${base}/v1/oauth/grants/${grant!.id}`, { method: 'DELETE', headers: { 'x-api-key': t.adminKey } });
    expect(revoked.status).toBe(204);
    provider.consents = false;
    const afterRevoke = exchanges.length;
    const refused = await client.callTool({ name: 'search_products', arguments: { query: 'boots' } }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(UnauthorizedError);
    const end = exchanges.slice(afterRevoke).map((e) => `${e.method} ${e.path} ${e.status}`);
    expect(end[0], end.join('\n')).toBe('POST /mcp 401');
    expect(end, end.join('\n')).toContain('POST /oauth/token 400');
    expect(end, end.join('\n')).not.toContain('POST /mcp 200');
    expect(provider.authorizationUrls).toHaveLength(2);
    await client.close();
  });
});
