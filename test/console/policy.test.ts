/**
 * The console's Policy page in real headless Chromium against the real server (Fastify on
 * 127.0.0.1, PGlite or PostgreSQL, the sample catalog in LanceDB, the real embedder): an account
 * owner sets where products may appear, for the account and for one key, and checks it the way a
 * person would, then through the API. Also the playground's cards, which say where each product
 * sits in the taxonomy. Set AISLE_SCREENSHOT_DIR to keep the screenshots (docs/console.md's come
 * from `AISLE_SCREENSHOT_DIR=docs/console`).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, expectStatus, type TestApp } from '../helpers/app.js';
import { CHROMIUM, chromiumAvailable, launchChromium } from '../helpers/browser.js';
import { startOAuthApp } from '../helpers/oauth.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

const SCREENSHOTS = process.env.AISLE_SCREENSHOT_DIR;

/** The subtrees the alcohol and tobacco presets stand for (docs/policy.md). */
const ALCOHOL_AND_TOBACCO = [
  'Food, Beverages & Tobacco > Beverages > Alcoholic Beverages',
  'Arts & Entertainment > Hobbies & Creative Arts > Homebrewing & Winemaking Supplies',
  'Food, Beverages & Tobacco > Tobacco Products',
  'Home & Garden > Smoking Accessories',
];

let sample: SampleCatalog;
let t: TestApp;
let base: string;
let browser: Browser;
const cspViolations: string[] = [];

async function newPage(width = 1440, height = 900): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height }, locale: 'en-US', timezoneId: 'UTC' });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) cspViolations.push(m.text());
  });
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

/** Signs in and opens Policy; answers the account's form once it shows the stored policy. */
async function openPolicy(page: Page, key = t.adminKey): Promise<Locator> {
  await signIn(page, key);
  await page.getByRole('link', { name: 'Policy', exact: true }).click();
  const form = page.getByRole('form', { name: 'Account policy' });
  await form.waitFor();
  return form;
}

const getJson = async (path: string) => {
  const res = await call(t.app, t.adminKey, 'GET', path);
  expectStatus(res, 200);
  return res.json() as Record<string, unknown>;
};
/** The text of the page's live status line that says `what`. */
const statusSaying = async (page: Page, what: string) => {
  const status = page.getByRole('status').filter({ hasText: what });
  await status.waitFor();
  return (await status.textContent())!;
};

if (!chromiumAvailable) console.warn(`SKIPPED: the Policy page's browser tests need Chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`);

// One account through the file: each test starts from what the one before it saved.
describe.skipIf(!chromiumAvailable)('the Policy page in Chromium', () => {
  beforeAll(async () => {
    sample = await openSampleCatalog();
    ({ t, base } = await startOAuthApp({ search: sample }));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await sample?.close();
  });

  // First, while no policy silences a first turn: the playground follows the key's policy like any search.
  it('shows on each playground card where the product sits in the taxonomy', async () => {
    const { context, page } = await newPage();
    await signIn(page, t.adminKey);
    await page.getByRole('link', { name: 'Playground' }).click();
    await page.getByLabel('What the user said').fill('espresso machine');
    await page.getByRole('button', { name: 'Search' }).click();
    const cards = page.locator('.playground .card');
    await cards.first().waitFor();
    const paths = await page.locator('.playground .card .category-path').allTextContents();
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) expect(path).toMatch(/^Category: \S.* > \S/);
    // The same place the API gives the product.
    const first = cards.filter({ has: page.locator('.category-path') }).first();
    const id = (await first.getAttribute('data-product-id'))!;
    const res = await call(t.app, t.adminKey, 'POST', '/v1/search', { query: 'espresso machine', limit: 10, min_relevance_score: 0 });
    expectStatus(res, 200);
    const result = (res.json().results as { product_id: string; category_path: string | null }[]).find((r) => r.product_id === id);
    expect(result?.category_path).toMatch(/ > /);
    expect(await first.locator('.category-path').textContent()).toBe(`Category: ${result!.category_path}`);
    expect(await first.locator('.category-path').isVisible()).toBe(true);
    await context.close();
  });

  it("saves the account's policy and shows what search leaves out, the same after a reload", async () => {
    const { context, page } = await newPage();
    const form = await openPolicy(page);
    expect(await page.locator('main h1').textContent()).toBe('Policy');
    expect(await page.evaluate('document.activeElement?.tagName')).toBe('H1');
    await form.getByLabel('Alcohol').check();
    await form.getByLabel('Tobacco').check();
    await form.getByLabel('Excluded brands (one per line)').fill('Acme');
    await form.getByLabel('Excluded merchants (one per line)').fill('Cellar Door');
    await form.getByLabel('Minimum turns').fill('2');
    await form.getByRole('button', { name: 'Save policy' }).click();
    expect(await statusSaying(page, 'Policy saved.')).toMatch(/^Policy saved\. Updated \w{3} \d{1,2}, \d{4}, \d{1,2}:\d\d\s[AP]M\.$/);

    const stored = await getJson('/v1/policy');
    expect(stored).toMatchObject({
      excluded_categories: ['alcohol', 'tobacco'],
      excluded_brands: ['Acme'],
      excluded_merchants: ['Cellar Door'],
      min_turns: 2,
      max_product_answers_per_session: null,
      min_relevance_score: null,
      excluded_category_paths: ALCOHOL_AND_TOBACCO,
    });
    const leftOut = page.getByRole('region', { name: 'What search leaves out', exact: true });
    expect(await leftOut.getByRole('listitem').allTextContents()).toEqual(ALCOHOL_AND_TOBACCO);

    await page.reload();
    await form.waitFor();
    expect(await form.getByLabel('Alcohol').isChecked()).toBe(true);
    expect(await form.getByLabel('Tobacco').isChecked()).toBe(true);
    expect(await form.getByLabel('Weapons').isChecked()).toBe(false);
    expect(await form.getByLabel('Other taxonomy ids (comma-separated)').inputValue()).toBe('');
    expect(await form.getByLabel('Excluded brands (one per line)').inputValue()).toBe('Acme');
    expect(await form.getByLabel('Excluded merchants (one per line)').inputValue()).toBe('Cellar Door');
    expect(await form.getByLabel('Minimum turns').inputValue()).toBe('2');
    expect(await form.getByLabel('Max product answers per session').inputValue()).toBe('');
    expect(await form.getByLabel('Minimum relevance score').inputValue()).toBe('');
    expect(await leftOut.getByRole('listitem').allTextContents()).toEqual(ALCOHOL_AND_TOBACCO);
    await context.close();
  });

  it('shows a taxonomy id the server refuses at its field, and keeps the stored policy', async () => {
    const before = await getJson('/v1/policy');
    const { context, page } = await newPage();
    const form = await openPolicy(page);
    const ids = form.getByLabel('Other taxonomy ids (comma-separated)');
    await ids.fill('413, 99999999');
    await form.getByLabel('Minimum turns').fill('3');
    await form.getByRole('button', { name: 'Save policy' }).click();

    // The error sits in the categories' own group, describes the field, and the field takes the focus.
    const error = form.getByRole('group', { name: 'Excluded categories' }).locator('[data-field-error="excluded_categories"]');
    await error.waitFor();
    expect(await error.textContent()).toBe('99999999 is not a Google product taxonomy id');
    expect(await ids.getAttribute('aria-invalid')).toBe('true');
    expect((await ids.getAttribute('aria-describedby'))!.split(' ')).toContain(await error.getAttribute('id'));
    expect(await page.evaluate('document.activeElement?.id')).toBe(await ids.getAttribute('id'));
    expect(await page.getByRole('alert').textContent()).toContain('The policy was not saved');
    expect(await form.locator('[data-field-error]').count()).toBe(1);
    expect(await page.getByText('Policy saved.').count()).toBe(0);
    // What was typed stays, to be corrected.
    expect(await ids.inputValue()).toBe('413, 99999999');

    expect(await getJson('/v1/policy')).toEqual(before);
    await context.close();
  });

  it("sets a key's fields over the account's and shows what its searches get", async () => {
    const agent = await createKey(t.app, t.adminKey, { name: 'support agent', scopes: ['search'] });
    const { context, page } = await newPage();
    await openPolicy(page);
    await page.getByLabel('Key', { exact: true }).selectOption(agent.id);
    const form = page.getByRole('form', { name: "The key's policy" });
    await form.waitFor();
    const effective = (field: string) => page.locator(`[data-effective="${field}"]`).textContent();
    // Nothing set yet: every field is the account's, shown but not editable.
    expect(await effective('min_turns')).toBe('2 (as the account)');
    const turns = form.getByRole('group', { name: 'Minimum turns' });
    expect(await turns.getByLabel('As the account').isChecked()).toBe(true);
    const turnsField = turns.getByLabel('Minimum turns for this key');
    expect(await turnsField.isDisabled()).toBe(true);
    expect(await turnsField.inputValue()).toBe('2');

    // Min turns set for this key to empty: the account's limit lifted. And a merchant list of its own.
    await turns.getByLabel('Set for this key').check();
    expect(await turnsField.isEnabled()).toBe(true);
    await turnsField.fill('');
    const merchants = form.getByRole('group', { name: 'Excluded merchants' });
    await merchants.getByLabel('Set for this key').check();
    await merchants.getByLabel('Excluded merchants (one per line) for this key').fill('Corner Shop\nOutdoor Outlet');
    await form.getByRole('button', { name: "Save the key's policy" }).click();
    expect(await statusSaying(page, 'Policy of “support agent” saved.')).toMatch(/^Policy of “support agent” saved\. Updated .+\.$/);

    expect(await effective('min_turns')).toBe('No restriction (set for this key)');
    expect(await effective('excluded_merchants')).toBe('Corner Shop, Outdoor Outlet (set for this key)');
    expect(await effective('excluded_brands')).toBe('Acme (as the account)');
    expect(await effective('excluded_categories')).toBe('Alcohol, Tobacco (as the account)');
    const leftOut = page.getByRole('region', { name: 'What search leaves out for “support agent”' });
    expect(await leftOut.getByRole('listitem').allTextContents()).toEqual(ALCOHOL_AND_TOBACCO);

    // The API holds what the page saved, for the key and (unchanged) for the account.
    const keyPolicy = await getJson(`/v1/keys/${agent.id}/policy`);
    expect(keyPolicy.overrides).toEqual({ min_turns: null, excluded_merchants: ['Corner Shop', 'Outdoor Outlet'] });
    expect(keyPolicy.effective).toMatchObject({
      excluded_categories: ['alcohol', 'tobacco'],
      excluded_brands: ['Acme'],
      excluded_merchants: ['Corner Shop', 'Outdoor Outlet'],
      min_turns: null,
      excluded_category_paths: ALCOHOL_AND_TOBACCO,
    });
    expect(await getJson('/v1/policy')).toMatchObject({ excluded_categories: ['alcohol', 'tobacco'], excluded_merchants: ['Cellar Door'], min_turns: 2 });
    // And search follows it: the key's first turn answers, the admin key's (the account's policy) does not.
    const first = async (key: string) => {
      const res = await call(t.app, key, 'POST', '/v1/search', { query: 'espresso machine', limit: 3 });
      expectStatus(res, 200);
      return res.json() as { results: unknown[]; metadata: { no_fill_reason: string | null } };
    };
    expect((await first(agent.key)).results.length).toBeGreaterThan(0);
    expect((await first(t.adminKey)).metadata.no_fill_reason).toBe('publisher_policy');
    await shot(page, 'policy');

    // Chosen again after a reload, the key's choices are as saved.
    await page.reload();
    await page.getByRole('form', { name: 'Account policy' }).waitFor();
    await page.getByLabel('Key', { exact: true }).selectOption(agent.id);
    await form.waitFor();
    expect(await turns.getByLabel('Set for this key').isChecked()).toBe(true);
    expect(await turnsField.inputValue()).toBe('');
    expect(await form.getByRole('group', { name: 'Excluded brands' }).getByLabel('As the account').isChecked()).toBe(true);
    const merchantsField = merchants.getByLabel('Excluded merchants (one per line) for this key');
    expect(await merchantsField.inputValue()).toBe('Corner Shop\nOutdoor Outlet');
    // Back to the account's: its value shows, greyed out, and the choice keeps the focus; and back again.
    await merchants.getByLabel('As the account').check();
    expect(await merchantsField.isDisabled()).toBe(true);
    expect(await merchantsField.inputValue()).toBe('Cellar Door');
    expect(await page.evaluate('document.activeElement?.closest("fieldset")?.dataset.field')).toBe('excluded_merchants');
    await merchants.getByLabel('Set for this key').check();
    expect(await merchantsField.inputValue()).toBe('Corner Shop\nOutdoor Outlet');
    await context.close();
  });

  it('is usable at 360 px: no sideways scrolling', async () => {
    const { context, page } = await newPage(360, 780);
    await openPolicy(page);
    await page.getByLabel('Key', { exact: true }).selectOption({ index: 1 });
    await page.getByRole('form', { name: "The key's policy" }).waitFor();
    expect((await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number).toBeLessThanOrEqual(0);
    await context.close();
  });

  it('tells a key without keys:manage that it cannot manage the policy, and has no CSP violation', async () => {
    const reader = await createKey(t.app, t.adminKey, { name: 'read only', scopes: ['analytics:read', 'search'] });
    const { context, page } = await newPage();
    await signIn(page, reader.key);
    await page.getByRole('link', { name: 'Policy', exact: true }).click();
    const notice = page.locator('[data-missing-scope="keys:manage"]');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('cannot manage the publisher policy');
    expect(await page.getByRole('button', { name: 'Save policy' }).count()).toBe(0);
    expect(cspViolations).toEqual([]);
    await context.close();
  });
});
