/**
 * The OAuth consent view and Connected apps in real headless Chromium against the real server:
 * a person follows an app's authorization link, signs in with a key, allows (or denies), and the
 * browser lands on the app's redirect URI (a real HTTP server on 127.0.0.1) with the code, state
 * and iss; later the owner revokes the app in the console. Set AISLE_SCREENSHOT_DIR to keep the
 * screenshots.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, type TestApp } from '../helpers/app.js';
import { CHROMIUM, chromiumAvailable, launchChromium } from '../helpers/browser.js';
import { authorizeQuery, json, mcpToolsList, pkcePair, postForm, register, startOAuthApp, type Tokens } from '../helpers/oauth.js';

const SCREENSHOTS = process.env.AISLE_SCREENSHOT_DIR;
let t: TestApp;
let base: string;
let browser: Browser;
let callback: Server;
let redirectUri: string;
/** Query strings the app's redirect URI received. */
const arrivals: URLSearchParams[] = [];
const cspViolations: string[] = [];

async function newPage(width = 1280): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'en-US', timezoneId: 'UTC' });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) cspViolations.push(m.text());
  });
  return page;
}

async function shot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

async function signIn(page: Page, key: string): Promise<void> {
  await page.getByLabel('API key', { exact: true }).fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A registered client and a fresh PKCE pair: the authorization URL an app would open. */
async function authorizationUrl(options: { scope?: string; name?: string } = {}) {
  const client = await json<{ client_id: string }>(await register(base, { client_name: options.name ?? 'Claude', redirect_uris: [redirectUri] }), 201);
  const { verifier, challenge } = pkcePair();
  const state = `state-${Math.random()}`;
  const query = authorizeQuery({
    client_id: client.client_id,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    state,
    ...(options.scope ? { scope: options.scope } : {}),
  });
  return { url: `${base}/oauth/authorize?${query}`, clientId: client.client_id, verifier, state };
}

/** Waits until the app's redirect URI has been reached `n` times, and answers the last query. */
async function arrival(page: Page, n: number): Promise<URLSearchParams> {
  await page.waitForURL((u) => u.href.startsWith(redirectUri));
  expect(arrivals.length).toBe(n);
  return arrivals.at(-1)!;
}

if (!chromiumAvailable) console.warn(`SKIPPED: consent browser tests need Chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`);

describe.skipIf(!chromiumAvailable)('the OAuth consent view in Chromium', () => {
  beforeAll(async () => {
    ({ t, base } = await startOAuthApp({ oauth: { registrationsPerMinute: 1_000 } }));
    callback = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      // The browser asks for /favicon.ico too.
      if (url.pathname === '/callback') arrivals.push(url.searchParams);
      // The app's own page with a link to the authorization URL, as a chat client shows one.
      if (url.pathname === '/start') {
        const to = (url.searchParams.get('to') ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>App</title><a id="connect" href="${to}">Connect Aisle</a>`);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Back in the app</title><p>Connected.</p>');
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => callback?.close(resolve));
    await t?.close();
  });

  it('signs in, shows who asks, where it returns and what it may do, and returns with code, state and iss on Allow', async () => {
    const { url, clientId, verifier, state } = await authorizationUrl();
    const page = await newPage();
    await page.goto(url);
    await page.getByRole('heading', { name: 'Connect an app to Aisle' }).waitFor();
    await shot(page, 'consent-signin');
    await signIn(page, t.adminKey);
    await page.getByRole('heading', { name: 'Connect Claude to Aisle?' }).waitFor();
    expect(await page.locator('[data-redirect-host]').textContent()).toBe(new URL(redirectUri).host);
    const granted = await page.locator('[data-granted] li').allTextContents();
    expect(granted).toEqual(['Search products and see recommendations search', 'Report clicks, displayed cards and relevance feedback events:write']);
    expect(await page.locator('main').textContent()).toContain('its name is not verified');
    await shot(page, 'consent');
    await page.getByRole('button', { name: 'Allow' }).click();
    const back = await arrival(page, 1);
    expect(back.get('state')).toBe(state);
    expect(back.get('iss')).toBe(base);
    const tokens = await json<Tokens>(
      await postForm(base, '/oauth/token', {
        grant_type: 'authorization_code',
        code: back.get('code')!,
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: verifier,
      }),
      200,
    );
    expect((await mcpToolsList(base, tokens.access_token)).status).toBe(200);
    await page.context().close();
  });

  it('returns access_denied on Deny, and says which scopes the key cannot grant', async () => {
    const { key } = await createKey(t.app, t.adminKey, { name: 'search-only key', scopes: ['search'] });
    const { url, state } = await authorizationUrl({ scope: 'search analytics:read', name: 'Analytics helper' });
    const page = await newPage(360);
    await page.goto(url);
    await signIn(page, key);
    await page.getByRole('heading', { name: 'Connect Analytics helper to Aisle?' }).waitFor();
    expect(await page.locator('[data-refused]').textContent()).toContain('analytics:read');
    expect(await page.locator('[data-granted] li').allTextContents()).toEqual(['Search products and see recommendations search']);
    // Usable at 360 px: nothing scrolls sideways.
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await shot(page, 'consent-partial-360');
    await page.getByRole('button', { name: 'Deny' }).click();
    const back = await arrival(page, 2);
    expect(Object.fromEntries(back)).toMatchObject({ error: 'access_denied', state, iss: base });
    await page.context().close();
  });

  it('shows the apps in Connected apps and revokes one, ending its tokens', async () => {
    const { url, clientId, verifier } = await authorizationUrl({ name: 'Revocable app' });
    const page = await newPage();
    await page.goto(url);
    await signIn(page, t.adminKey);
    await page.getByRole('button', { name: 'Allow' }).click();
    const back = await arrival(page, 3);
    const tokens = await json<Tokens>(
      await postForm(base, '/oauth/token', {
        grant_type: 'authorization_code',
        code: back.get('code')!,
        redirect_uri: redirectUri,
        client_id: clientId,
        code_verifier: verifier,
      }),
      200,
    );

    // The same browser, now in the console: the session from the consent step is still there.
    await page.goto(`${base}/#/apps`);
    await page.getByRole('heading', { name: 'Connected apps' }).waitFor();
    const row = page.locator('table[data-table="apps"] tr', { hasText: 'Revocable app' });
    await row.waitFor();
    expect(await row.textContent()).toContain(new URL(redirectUri).host);
    await shot(page, 'connected-apps');
    await row.getByRole('button', { name: 'Revoke Revocable app' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke access' }).click();
    await page.getByRole('status').filter({ hasText: 'can no longer use Aisle' }).waitFor();
    // The list is read again after the revocation: its row goes once the new list has arrived.
    await row.waitFor({ state: 'detached' });
    expect((await mcpToolsList(base, tokens.access_token)).status).toBe(401);
    await page.context().close();
  });

  it('needs no second sign-in for an owner already signed in who arrives from the app’s own site', async () => {
    const page = await newPage();
    await page.goto(`${base}/`);
    await signIn(page, t.adminKey);
    await page.getByRole('navigation', { name: 'Sections' }).waitFor();
    // localhost and 127.0.0.1 are different sites: the navigation to Aisle is cross-site, so the
    // SameSite=Strict cookie stays behind on it, and the page's own requests carry it.
    const { url } = await authorizationUrl({ name: 'Cross-site app' });
    await page.goto(`${redirectUri.replace('127.0.0.1', 'localhost').replace('/callback', '/start')}?to=${encodeURIComponent(url)}`);
    await page.locator('#connect').click();
    await page.getByRole('heading', { name: 'Connect Cross-site app to Aisle?' }).waitFor();
    expect(await page.getByLabel('API key', { exact: true }).count()).toBe(0);
    await page.context().close();
  });

  it('shows an error page for an unknown client, a link back for a request the client got wrong, and no CSP violation anywhere', async () => {
    const page = await newPage();
    const res = await page.goto(
      `${base}/oauth/authorize?${authorizeQuery({ client_id: 'nope', redirect_uri: redirectUri, code_challenge: pkcePair().challenge })}`,
    );
    expect(res?.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toContain('No client is registered');
    expect(page.url()).toContain('/oauth/authorize');
    // A request the client got wrong is not redirected by itself: the person follows the link back.
    const { url, state } = await authorizationUrl({ scope: 'search nonsense' });
    await page.goto(url);
    expect(await page.getByRole('alert').textContent()).toContain('invalid_scope');
    const before = arrivals.length;
    await page.getByRole('link', { name: `Return to ${new URL(redirectUri).host}` }).click();
    const back = await arrival(page, before + 1);
    expect(Object.fromEntries(back)).toMatchObject({ error: 'invalid_scope', state, iss: base });
    await page.context().close();
    expect(cspViolations).toEqual([]);
  });
});
