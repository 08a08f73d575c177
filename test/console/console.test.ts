/**
 * The console in real headless Chromium against the real server (Fastify on 127.0.0.1, PGlite or
 * PostgreSQL, LanceDB, the real embedder, the webhook delivery worker): what an account owner
 * does in the first ten minutes, checked the way a person would check it. Set
 * AISLE_SCREENSHOT_DIR to keep the screenshots (docs/console.md's come from
 * `AISLE_SCREENSHOT_DIR=docs/console`).
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpFeedDownloader } from '../../src/catalog/files/download.js';
import { call, createKey, createTestApp, expectStatus, type TestApp } from '../helpers/app.js';
import { CHROMIUM, chromiumAvailable, launchChromium } from '../helpers/browser.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';
import { createTestWorker, Receiver, type TestWorker } from '../helpers/webhooks.js';

const SCREENSHOTS = process.env.AISLE_SCREENSHOT_DIR;

/** A merchant's feed on 127.0.0.1, for the Catalog page. */
let feedBody = `${[
  { sku: 'Q-1', title: 'Quokka Night Binoculars', price: 120, category: 'Outdoor > Optics' },
  { sku: 'Q-2', title: 'Quokka Star Map', price: 15, category: 'Outdoor > Optics' },
]
  .map((p) => JSON.stringify(p))
  .join('\n')}\n`;
const feedServer: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end(feedBody));

/** Runs in the page: WCAG 2 contrast of an element's text against the first opaque background behind it. */
const CONTRAST = `(el) => {
  const rgba = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const background = (e) => {
    for (; e; e = e.parentElement) { const c = rgba(getComputedStyle(e).backgroundColor); if (c.length === 3 || c[3] > 0) return c; }
    return [255, 255, 255];
  };
  const lum = (c) => { const [r, g, b] = c.slice(0, 3).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const a = lum(rgba(getComputedStyle(el).color)), b = lum(background(el));
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}`;

let sample: SampleCatalog;
let t: TestApp;
let base: string;
let browser: Browser;
let receiver: Receiver;
let worker: TestWorker;
const cspViolations: string[] = [];
/** Every URL the console's pages requested or showed, and everything they stored: no API key may be in any of it. */
const seenUrls: string[] = [];

async function newPage(width = 1440, height = 900): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height }, locale: 'en-US', timezoneId: 'UTC' });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) cspViolations.push(m.text());
  });
  page.on('request', (r) => seenUrls.push(r.url()));
  page.on('framenavigated', (f) => seenUrls.push(f.url()));
  return { context, page };
}

async function signIn(page: Page, key: string): Promise<void> {
  await page.goto(`${base}/`);
  await page.getByLabel('API key', { exact: true }).fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Sections' }).waitFor();
}

async function shot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

const contrastOf = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    // biome-ignore lint/security/noGlobalEval: CONTRAST is source text (so tsx adds no helpers to it) evaluated inside the test page.
    .evaluate((el, fn) => eval(fn)(el) as number, CONTRAST);

/** What a storage inspection of the page finds: cookies readable by script, local and session storage. */
const pageSecrets = (page: Page) =>
  page.evaluate(
    '({ cookie: document.cookie, local: JSON.stringify({ ...localStorage }), session: JSON.stringify({ ...sessionStorage }), url: location.href })',
  ) as Promise<Record<string, string>>;

/** Scripted traffic with the first-start key: searches, clicks and one conversion. */
async function traffic(): Promise<void> {
  for (const [i, query] of ['espresso machine', 'trail running shoes', 'cordless drill', 'espresso machine'].entries()) {
    const res = await call(t.app, t.adminKey, 'POST', '/v1/search', { query, limit: 3 });
    expectStatus(res, 200);
    const results = res.json().results as { impression_id: string }[];
    if (i === 3) continue;
    const click = await call(t.app, t.adminKey, 'POST', `/v1/clicks/${results[0]!.impression_id}`);
    expectStatus(click, 201);
    if (i === 1)
      expectStatus(
        await call(t.app, t.adminKey, 'POST', '/v1/conversions', {
          click_id: click.json().click_id,
          order_id: 'order-42',
          sale_amount: 129.5,
          commission_amount: 12.75,
          currency: 'USD',
        }),
        201,
      );
  }
  // Analytics ranges are half-open and end now: let the traffic be in the past.
  await new Promise((r) => setTimeout(r, 20));
}

if (!chromiumAvailable) console.warn(`SKIPPED: console browser tests need Chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`);

describe.skipIf(!chromiumAvailable)('the console in Chromium', () => {
  beforeAll(async () => {
    // A copy: the Catalog page's pulls write into it.
    sample = await openSampleCatalog({ copy: true });
    t = await createTestApp({
      search: sample,
      webhooks: { allowPrivate: true },
      feedDownloader: new HttpFeedDownloader({ allowPrivate: true, maxBytes: 1024 * 1024, idleTimeoutMs: 2_000 }),
    });
    await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    receiver = await Receiver.start();
    worker = createTestWorker(t.db, { clock: { now: () => new Date() }, allowPrivate: true });
    worker.worker.start();
    browser = await launchChromium();
    await traffic();
  });
  afterAll(async () => {
    feedServer.closeAllConnections();
    feedServer.close();
    await browser?.close();
    await worker?.close();
    await receiver?.close();
    await t?.close();
    await sample?.close();
  });

  it('refuses a wrong key with a clear message, by keyboard alone', async () => {
    const { context, page } = await newPage();
    await page.goto(`${base}/`);
    await page.getByLabel('API key', { exact: true }).waitFor();
    await shot(page, 'signin');
    // The first Tab lands in the key field; Enter submits.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.id')).toBe('api-key');
    await page.keyboard.type(`${t.adminKey.slice(0, -3)}xyz`);
    await page.keyboard.press('Enter');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('That API key was not accepted');
    expect(await page.getByLabel('API key', { exact: true }).inputValue()).not.toBe('');
    expect((await context.cookies()).filter((c) => c.name === 'aisle_session')).toEqual([]);
    await context.close();
  });

  it('signs in with the first-start key and shows the figures the API gives, as tiles and charts', async () => {
    const { context, page } = await newPage();
    await signIn(page, t.adminKey);
    expect(await page.getByLabel('API key', { exact: true }).count()).toBe(0);
    const totals = page.locator('[data-section="range-totals"]');
    await totals.waitFor();
    await page.locator('.uplot canvas').first().waitFor();

    const rangeEl = page.locator('[data-range-start]');
    const start = (await rangeEl.getAttribute('data-range-start'))!;
    const end = (await rangeEl.getAttribute('data-range-end'))!;
    const q = `start_date=${encodeURIComponent(start)}&end_date=${encodeURIComponent(end)}`;
    const analytics = (await call(t.app, t.adminKey, 'GET', `/v1/analytics?${q}`)).json();
    const usage = (await call(t.app, t.adminKey, 'GET', `/v1/usage?${q}`)).json();
    const stats = (await call(t.app, t.adminKey, 'GET', '/v1/dashboard/stats')).json();
    const tile = async (metric: string) => {
      const el = page.locator(`[data-metric="${metric}"]`).first();
      return { raw: Number(await el.getAttribute('data-value')), text: (await el.locator('.tile-value').textContent())!, visible: await el.isVisible() };
    };
    const expected: Record<string, number> = {
      searches: usage.totals.searches,
      impressions: analytics.metrics.impressions,
      clicks: analytics.metrics.clicks,
      ctr: analytics.metrics.ctr,
      conversions: analytics.metrics.conversions,
      revenue: analytics.metrics.revenue,
    };
    expect(expected).toMatchObject({ searches: 4, clicks: 3, conversions: 1, revenue: 12.75 });
    for (const [metric, value] of Object.entries(expected)) {
      const shown = await tile(metric);
      expect(shown.visible, metric).toBe(true);
      expect(shown.raw, metric).toBe(value);
    }
    expect((await tile('searches')).text).toBe('4');
    expect((await tile('clicks')).text).toBe('3');
    expect((await tile('revenue')).text).toBe('$12.75');
    expect((await tile('ctr')).text).toBe(
      new Intl.NumberFormat('en-US', { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 2 }).format(analytics.metrics.ctr),
    );
    expect((await tile('total_revenue')).raw).toBe(stats.total_revenue);
    expect((await tile('ad_requests_24h')).raw).toBe(stats.ad_requests_24h);
    expect((await tile('active_api_keys')).raw).toBe(stats.active_api_keys);

    // Top queries: the same rows as the API, in its order.
    const queries = await page.locator('[data-table="top-queries"] tbody tr td:first-child').allTextContents();
    expect(queries).toEqual(analytics.top_queries.map((r: { query: string }) => r.query));
    expect(queries[0]).toBe('espresso machine');
    const products = await page.locator('[data-table="top-products"] tbody tr').count();
    expect(products).toBe(analytics.top_products.length);

    // Top categories: where a person would file these searches, two taxonomy levels deep, with the API's figures for the range.
    const categories = (await call(t.app, t.adminKey, 'GET', `/v1/analytics?metric=top_categories&${q}`)).json();
    const categoryRows = page.locator('[data-table="top-categories"] tbody tr');
    const categoryCells = async (i: number) => categoryRows.nth(i).locator('td').allTextContents();
    expect(await page.locator('[data-table="top-categories"] tbody tr td:first-child').allTextContents()).toEqual([
      'Home & Garden > Kitchen & Dining',
      'Apparel & Accessories > Shoes',
      'Hardware > Tools',
    ]);
    expect(await categoryRows.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-category-id')))).toEqual(['638', '187', '1167']);
    const percent = new Intl.NumberFormat('en-US', { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 2 });
    for (const [i, c] of (categories.items as { category_path: string; impressions: number; clicks: number; ctr: number; revenue: number }[]).entries()) {
      const money = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(c.revenue);
      expect(await categoryCells(i), c.category_path).toEqual([c.category_path, String(c.impressions), String(c.clicks), percent.format(c.ctr), money]);
    }
    // Six espresso machines shown over two searches, one clicked; the trail shoes carry the conversion.
    expect(await categoryCells(0)).toEqual(['Home & Garden > Kitchen & Dining', '6', '1', percent.format(1 / 6), '$0.00']);
    expect((await categoryCells(1))[4]).toBe('$12.75');

    // Four charts for the range and one for latency, each drawn and labelled.
    expect(await page.locator('.chart .uplot canvas').count()).toBe(5);
    expect(await page.locator('.chart [role="img"]').first().getAttribute('aria-label')).toMatch(/^Searches, impressions and clicks: 4 searches/);

    // Performance: the API's own requests (the traffic above), by status code.
    const perf = (await call(t.app, t.adminKey, 'GET', '/v1/analytics/performance?timeframe=7d')).json();
    const statusRows = await page.locator('[data-table="status-codes"] tbody tr td:first-child').allTextContents();
    expect(statusRows.length).toBeGreaterThan(0);
    for (const s of statusRows) expect(Object.keys(perf.status_codes)).toContain(s);

    // Switching the range asks again and redraws.
    await page.getByText('24 hours', { exact: true }).click();
    // Polled from here: waitForFunction's in-page polling needs 'unsafe-eval', which the console's CSP refuses.
    const span = async () => Date.parse((await rangeEl.getAttribute('data-range-end'))!) - Date.parse((await rangeEl.getAttribute('data-range-start'))!);
    await expect.poll(span).toBe(86_400_000);
    expect((await tile('searches')).raw).toBe(4);

    // Readable: body text, tiles and the navigation reach WCAG AA (4.5:1).
    for (const selector of ['.tile-label', '.tile-value', '.top nav a', '.muted', 'th'])
      expect(await contrastOf(page, selector), selector).toBeGreaterThanOrEqual(4.5);
    await shot(page, 'overview');
    await context.close();
  });

  it('switches between live and test data: test-key traffic shows only with "Test data" on, under a banner', async () => {
    const created = await call(t.app, t.adminKey, 'POST', '/v1/keys', { name: 'sandbox', mode: 'test' });
    expectStatus(created, 201);
    const testKey = created.json().key as string;
    for (const query of ['camping tent', 'rain jacket']) expectStatus(await call(t.app, testKey, 'POST', '/v1/search', { query, limit: 2 }), 200);
    await new Promise((r) => setTimeout(r, 20));
    const { context, page } = await newPage();
    await signIn(page, t.adminKey);
    const tile = (metric: string) => page.locator(`[data-section="range-totals"] [data-metric="${metric}"]`);
    await tile('searches').waitFor();
    const liveSearches = Number(await tile('searches').getAttribute('data-value'));
    expect(await page.locator('[data-mode="test"]').count()).toBe(0);

    await page.getByLabel('Test data').check();
    await page.locator('[data-mode="test"]').waitFor();
    expect(await page.locator('[data-mode="test"]').textContent()).toContain('Showing test data');
    await expect.poll(async () => Number(await tile('searches').getAttribute('data-value'))).toBe(2);
    expect(Number(await tile('conversions').getAttribute('data-value'))).toBe(0);
    // The test searches' categories, and none of the live ones.
    await expect
      .poll(() => page.locator('[data-table="top-categories"] tbody tr td:first-child').allTextContents())
      .toEqual(['Apparel & Accessories > Clothing', 'Sporting Goods > Outdoor Recreation']);
    expect(await contrastOf(page, '.test-banner')).toBeGreaterThanOrEqual(4.5);
    await shot(page, 'overview-test-data');

    await page.getByLabel('Test data').uncheck();
    await expect.poll(async () => Number(await tile('searches').getAttribute('data-value'))).toBe(liveSearches);
    expect(await page.locator('[data-mode="test"]').count()).toBe(0);
    await context.close();
  });

  it('creates a key (shown once, copyable), which then authenticates; rotates, disables and deletes it', async () => {
    const { context, page } = await newPage();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await signIn(page, t.adminKey);
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByLabel('Key name').fill('ci agent');
    // Default scopes: search and events:write. Add analytics:read.
    await page.getByLabel('analytics:read').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const panel = page.getByRole('region', { name: 'New API key “ci agent”' });
    await panel.waitFor();
    expect(await panel.textContent()).toContain('you will not see this again');
    const secret = await page.getByRole('textbox', { name: 'New API key “ci agent”' }).inputValue();
    expect(secret).toMatch(/^aisle_sk_[0-9A-Za-z]{36}$/);
    await panel.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    await shot(page, 'keys-created');

    // The new key works against the API, with the scopes chosen in the form.
    const search = await call(t.app, secret, 'POST', '/v1/search', { query: 'espresso machine', limit: 1 });
    expectStatus(search, 200);
    expectStatus(await call(t.app, secret, 'GET', '/v1/analytics'), 200);
    expect((await call(t.app, secret, 'GET', '/v1/keys')).statusCode).toBe(403);
    await panel.getByRole('button', { name: 'Done, I have stored it' }).click();
    expect(await page.getByRole('textbox', { name: 'New API key “ci agent”' }).count()).toBe(0);

    // Rotate with no grace: the old secret stops at once, the new one works.
    await page.getByRole('button', { name: 'Rotate ci agent' }).click();
    await page.getByLabel('The old key stops working').selectOption({ label: 'Immediately' });
    await page.getByRole('button', { name: 'Rotate key' }).click();
    const rotated = await page.getByRole('textbox', { name: 'New API key “ci agent”' }).inputValue();
    expect(rotated).not.toBe(secret);
    expect((await call(t.app, secret, 'POST', '/v1/search', { query: 'espresso', limit: 1 })).json().code).toBe('api_key_revoked');
    expectStatus(await call(t.app, rotated, 'POST', '/v1/search', { query: 'espresso', limit: 1 }), 200);
    await page.getByRole('button', { name: 'Done, I have stored it' }).click();

    // Disable, then enable again.
    const row = page.locator('tr[data-key-name="ci agent"]').filter({ has: page.locator('.status-active') });
    await row.getByRole('button', { name: 'Disable ci agent' }).click();
    await page.locator('tr[data-key-name="ci agent"] .status-disabled').waitFor();
    expect((await call(t.app, rotated, 'POST', '/v1/search', { query: 'espresso', limit: 1 })).json().code).toBe('api_key_disabled');
    await page.getByRole('button', { name: 'Enable ci agent' }).click();
    await page.locator('tr[data-key-name="ci agent"] .status-active').waitFor();
    expectStatus(await call(t.app, rotated, 'POST', '/v1/search', { query: 'espresso', limit: 1 }), 200);
    await shot(page, 'keys');

    // Delete asks first; Cancel keeps the key, Delete removes it.
    const activeRow = page.locator('tr[data-key-name="ci agent"]').filter({ has: page.locator('.status-active') });
    await activeRow.getByRole('button', { name: 'Delete ci agent' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toContain('stop working at once');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expectStatus(await call(t.app, rotated, 'POST', '/v1/search', { query: 'espresso', limit: 1 }), 200);
    await activeRow.getByRole('button', { name: 'Delete ci agent' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete key' }).click();
    await page.getByText('Key “ci agent” deleted.').waitFor();
    expect((await call(t.app, rotated, 'POST', '/v1/search', { query: 'espresso', limit: 1 })).json().code).toBe('invalid_api_key');

    // The account's last admin key cannot go: the API's rule, said in words.
    await page.getByRole('button', { name: 'Delete test account admin' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete key' }).click();
    expect(await page.getByRole('alert').textContent()).toMatch(/last/i);
    await context.close();
  });

  it('rotating the key you are signed in with keeps its new secret on screen after the console signs you out', async () => {
    const own = await createKey(t.app, t.adminKey, { name: 'own admin', scopes: ['keys:manage', 'analytics:read'] });
    const { context, page } = await newPage();
    await signIn(page, own.key);
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('button', { name: 'Rotate own admin' }).click();
    expect(await page.getByRole('form', { name: 'Rotate own admin' }).textContent()).toContain('the key you are signed in with');
    // The rotate form takes the focus when it opens: in an effect after the form renders, so poll.
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('grace');
    await page.getByLabel('The old key stops working').selectOption({ label: 'Immediately' });
    await page.getByRole('button', { name: 'Rotate key' }).click();
    // The old key is revoked, so the session ends: the sign-in form, with the new secret above it.
    await page.getByLabel('API key', { exact: true }).waitFor();
    const rotated = await page.getByRole('textbox', { name: 'New API key “own admin”' }).inputValue();
    expect(rotated).toMatch(/^aisle_sk_/);
    expect(rotated).not.toBe(own.key);
    await page.getByLabel('API key', { exact: true }).fill(rotated);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Sections' }).waitFor();
    await context.close();
  });

  it('creates a webhook, sends a test event that arrives signed at a receiver on 127.0.0.1, and shows the delivery', async () => {
    const { context, page } = await newPage();
    await signIn(page, t.adminKey);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('Endpoint URL').fill(receiver.url('/aisle'));
    await page.getByLabel('Description (optional)').fill('console test');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await page.getByRole('textbox', { name: `Signing secret for ${receiver.url('/aisle')}` }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Done, I have stored it' }).click();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.locator('tr[data-delivery-status="succeeded"]').waitFor({ timeout: 20_000 });
    const got = receiver.received.find((r) => r.path === '/aisle');
    expect(got).toBeDefined();
    expect(got!.headers['webhook-signature']).toMatch(/^v1,/);
    expect(JSON.parse(got!.body)).toMatchObject({ test: true });
    expect(await page.locator('tr[data-delivery-status="succeeded"] td').nth(2).textContent()).toBe('1');
    await shot(page, 'webhooks');
    await context.close();
  });

  // A pull imports into the sample catalog and fits its cold-start model again (about 20 s).
  it('adds a feed, pulls it now and shows what it brought; a feed that turns bad shows why while the catalog keeps serving', { timeout: 180_000 }, async () => {
    const { context, page } = await newPage();
    await signIn(page, t.adminKey);
    await page.getByRole('link', { name: 'Catalog' }).click();
    const url = `http://127.0.0.1:${(feedServer.address() as { port: number }).port}/feed.jsonl`;
    await page.getByLabel('Feed URL').fill(url);
    await page.getByLabel('Format').selectOption('jsonl');
    await page.getByLabel('Merchant (optional)').fill('Quokka Optics');
    await page.getByLabel('Pull every (minutes, at least 15)').fill('60');
    await page.getByRole('button', { name: 'Add feed' }).click();
    const row = page.locator('tr[data-source-id]');
    await row.waitFor();
    expect(await row.textContent()).toContain('not pulled yet');
    expect(await row.textContent()).toContain('every 60 min · Quokka Optics');
    await page.getByRole('button', { name: 'Pull now' }).click();
    await page.locator('tr[data-pull-status="ok"]').waitFor({ timeout: 60_000 });
    expect(await row.textContent()).toContain('2 new · 0 updated · 0 price/stock · 0 same · 0 skipped');
    expect(await page.locator('p.live[role="status"]').textContent()).toBe(`Pulled ${url}: 2 new · 0 updated · 0 price/stock · 0 same · 0 skipped.`);
    await shot(page, 'catalog');

    feedBody = '<html>a login page</html>\n';
    await page.getByRole('button', { name: 'Pull now' }).click();
    await page.locator('tr[data-pull-status="failed"]').waitFor({ timeout: 60_000 });
    expect(await page.locator('[data-pull-error]').textContent()).toBe(
      'no valid product in 1 rows (skipped: invalid_json 1) — the catalog keeps serving what it had.',
    );
    expect(await page.locator('p.live[role="status"]').textContent()).toBe(
      `The pull of ${url} failed: no valid product in 1 rows (skipped: invalid_json 1). The catalog keeps serving what it had.`,
    );
    const found = await call(t.app, t.adminKey, 'POST', '/v1/search', { query: 'quokka night binoculars', limit: 3, min_relevance_score: 0 });
    expect((found.json() as { results: { title: string }[] }).results.map((r) => r.title)).toContain('Quokka Night Binoculars');

    await page.getByRole('button', { name: `Remove feed ${url}` }).click();
    await page.getByRole('button', { name: 'Remove feed', exact: true }).click();
    await page.getByText('No feeds yet').waitFor();
    await context.close();
  });

  it('runs a playground search as cards with the disclosure on them, recording nothing', async () => {
    const { context, page } = await newPage();
    await signIn(page, t.adminKey);
    const before = (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM search_requests'))[0]!.n;
    await page.getByRole('link', { name: 'Playground' }).click();
    await page.getByLabel('What the user said').fill('I need an espresso machine for a small kitchen');
    await page.getByRole('button', { name: 'Search' }).click();
    const cards = page.locator('.playground .card');
    await cards.first().waitFor();
    const n = await cards.count();
    expect(n).toBeGreaterThan(0);
    for (let i = 0; i < n; i++) {
      const disclosure = cards.nth(i).locator('.disclosure');
      expect(await disclosure.isVisible()).toBe(true);
      expect(await disclosure.textContent()).toMatch(/^Disclosure: \S/);
      expect(await contrastOf(page, `.playground .card:nth-child(${i + 1}) .disclosure`)).toBeGreaterThanOrEqual(4.5);
      expect(await cards.nth(i).locator('.score').textContent()).toMatch(/^Relevance 0\.\d\d$/);
    }
    expect(await cards.first().locator('.title').textContent()).toMatch(/espresso/i);
    // The button goes straight to the product page: no tracked click link.
    const href = (await cards.first().getByRole('link').getAttribute('href'))!;
    expect(href).toMatch(/^https:\/\//);
    expect(href).not.toContain('/r/');
    expect((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM search_requests'))[0]!.n).toBe(before);
    await shot(page, 'playground');
    await context.close();
  });

  it('shows a read-only key what it may see, and says what it cannot do instead of failing', async () => {
    const reader = await createKey(t.app, t.adminKey, { name: 'read only', scopes: ['analytics:read'] });
    const { context, page } = await newPage();
    await signIn(page, reader.key);
    await page.locator('[data-section="range-totals"]').waitFor();
    await page.getByRole('link', { name: 'Keys' }).click();
    const notice = page.locator('[data-missing-scope="keys:manage"]');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('cannot manage API keys');
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^(Rotate|Disable|Delete)/ }).count()).toBe(0);
    await page.getByRole('link', { name: 'Playground' }).click();
    await page.locator('[data-missing-scope="search"]').waitFor();
    await shot(page, 'read-only');
    await context.close();
  });

  it('is usable at 360 px: no sideways scrolling, navigation reachable', async () => {
    const { context, page } = await newPage(360, 780);
    await signIn(page, t.adminKey);
    for (const section of ['overview', 'keys', 'webhooks', 'playground']) {
      await page.getByRole('link', { name: section[0]!.toUpperCase() + section.slice(1) }).click();
      await page
        .locator('main h1')
        .filter({ hasText: new RegExp(section, 'i') })
        .waitFor();
      if (section === 'overview') await page.locator('.uplot canvas').first().waitFor();
      const overflow = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
      expect(overflow, section).toBeLessThanOrEqual(0);
      const links = await page.getByRole('navigation', { name: 'Sections' }).getByRole('link').all();
      expect(links.length, section).toBeGreaterThanOrEqual(4);
      for (const link of links) expect(await link.isVisible()).toBe(true);
      if (section === 'overview') await shot(page, 'overview-360');
    }
    await context.close();
  });

  it('signs out on the server: the old session cookie is refused afterwards; no key was ever stored or put in a URL', async () => {
    const { context, page } = await newPage();
    await signIn(page, t.adminKey);
    const stored = await pageSecrets(page);
    for (const where of Object.values(stored)) expect(where).not.toContain(t.adminKey);
    expect(stored.cookie).not.toContain('aisle_session');
    const cookie = (await context.cookies()).find((c) => c.name === 'aisle_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(cookie.value).not.toContain(t.adminKey);
    expectStatus(await t.app.inject({ method: 'GET', url: '/console/session', headers: { cookie: `aisle_session=${cookie.value}` } }), 200);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key', { exact: true }).waitFor();
    expect(await page.getByRole('status').first().textContent()).toContain('signed out');
    const after = await t.app.inject({ method: 'GET', url: '/v1/keys', headers: { cookie: `aisle_session=${cookie.value}` } });
    expect(after.statusCode).toBe(401);
    expect(after.json().code).toBe('session_expired');

    expect(seenUrls.length).toBeGreaterThan(0);
    for (const url of seenUrls) expect(url).not.toContain(t.adminKey);
    expect(cspViolations).toEqual([]);
    await context.close();
  });
});
