/**
 * The product-card view (MCP Apps) in real headless Chromium, hosted the way a chat client hosts
 * it: the ext-apps AppBridge and PostMessageTransport, a sandboxed iframe under the resource's
 * CSP, an MCP client over Streamable HTTP to the real server (Fastify on 127.0.0.1, PGlite or
 * PostgreSQL, LanceDB, the real embedder). Set AISLE_SCREENSHOT_DIR to keep the screenshots
 * (README's come from `AISLE_SCREENSHOT_DIR=docs/mcp-apps`).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SearchResponse, SearchResponseSchema } from '../../src/core/schemas/search.js';
import { call, createTestApp, expectStatus, type TestApp } from '../helpers/app.js';
import { bundleForBrowser, CHROMIUM, chromiumAvailable, launchChromium, startHostOrigin } from '../helpers/browser.js';
import { type CallToolResult, type ClientEra, connectHttp, hostCallTool, problem } from '../helpers/mcp.js';
import { openSampleCatalog, type SampleCatalog } from '../helpers/search.js';

const HOST_ENTRY = fileURLToPath(new URL('./app-host/host.ts', import.meta.url));
const SCREENSHOTS = process.env.AISLE_SCREENSHOT_DIR;
const CHROME_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

const THEMES = {
  light: {
    '--color-background-primary': '#ffffff',
    '--color-background-secondary': '#f4f4f5',
    '--color-text-primary': '#18181b',
    '--color-text-secondary': '#52525b',
    '--color-border-primary': '#d4d4d8',
  },
  dark: {
    '--color-background-primary': '#1c1c1f',
    '--color-background-secondary': '#2a2a2e',
    '--color-text-primary': '#f2f2f3',
    '--color-text-secondary': '#b4b4bb',
    '--color-border-primary': '#46464d',
  },
} as const;
type Theme = keyof typeof THEMES;

interface HostState {
  result: CallToolResult | null;
  opened: string[];
  toolCalls: { name: string; arguments: { impression_ids?: string[] } | undefined; result: CallToolResult }[];
  resultSentAt: number;
  resourceBytes: number;
}

/** Runs in the view's frame: how each disclosure and the body text are drawn (WCAG 2 contrast). */
const MEASURE = `(() => {
  const rgba = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) { const c = rgba(getComputedStyle(e).backgroundColor); if (c.length === 3 || c[3] > 0) return c; }
    return [255, 255, 255];
  };
  const lum = (c) => { const [r, g, b] = c.slice(0, 3).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const contrast = (el) => { const a = lum(rgba(getComputedStyle(el).color)), b = lum(background(el)); return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); };
  return {
    body: contrast(document.body),
    disclosures: [...document.querySelectorAll('.card')].map((card) => {
      const d = card.querySelector('.disclosure'); const s = getComputedStyle(d); const box = d.getBoundingClientRect();
      return { text: d.textContent, fontPx: parseFloat(s.fontSize), contrast: contrast(d), visible: s.visibility === 'visible' && s.display !== 'none' && Number(s.opacity) === 1 && box.width > 0 && box.height > 0 };
    }),
  };
})()`;

let sample: SampleCatalog;
let t: TestApp;
let browser: Browser;
let host: { url: string; close(): Promise<void> };
let aisleBase: string;

if (!chromiumAvailable) console.warn(`SKIPPED: MCP Apps browser tests need Chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`);

describe.skipIf(!chromiumAvailable)('MCP Apps product cards in Chromium', () => {
  beforeAll(async () => {
    sample = await openSampleCatalog();
    t = await createTestApp({ search: sample });
    aisleBase = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const script = await bundleForBrowser(HOST_ENTRY);
    host = await startHostOrigin(
      `<!doctype html><html><head><meta charset="utf-8"><title>test host</title></head><body style="margin:0"><div id="chat"></div><script>${script}</script></body></html>`,
      aisleBase,
    );
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await t?.close();
    await sample?.close();
  });

  /** The host's MCP client speaks 2025-11-25 (SDK 1.x) or 2026-07-28 (SDK 2): the view must not notice. */
  describe.each([
    ['2025-11-25', '2025-11-25 (SDK 1.x)'],
    ['2026-07-28', '2026-07-28 (SDK 2)'],
  ] as const)('with a %s host', (era, clientEra: ClientEra) => {
    async function openView(
      args: Record<string, unknown>,
      options: { width: number; height?: number; theme?: Theme; key?: string },
    ): Promise<{ page: Page; frame: Frame; state: () => Promise<HostState> }> {
      const theme = options.theme ?? 'light';
      const page = await browser.newPage({ viewport: { width: options.width, height: options.height ?? 800 } });
      page.on('pageerror', (err) => console.error('host page error:', String(err.message), String(err.stack).slice(0, 800)));
      await page.goto(host.url);
      await page.evaluate(`document.body.style.background = ${JSON.stringify(THEMES[theme]['--color-background-primary'])}`);
      // A failure in the page comes back with a browser stack vitest cannot map: keep its message only.
      await page
        .evaluate(`window.aisleHost.run(${JSON.stringify({ era, apiKey: options.key ?? t.adminKey, arguments: args, theme, variables: THEMES[theme] })})`)
        .catch((err: unknown) => {
          throw new Error(`the test host failed: ${(err as Error).message}`);
        });
      const frame = page.frames().find((f) => f !== page.mainFrame());
      if (!frame) throw new Error('the host page has no view frame');
      await frame.waitForSelector('.card, .status:not([hidden]):not(:empty)');
      // Polled from here: waitForFunction polls in the page with eval after its first check, which
      // the view's CSP (no 'unsafe-eval') refuses whenever the cards are not painted at once.
      await expect.poll(() => frame.evaluate('performance.getEntriesByName("aisle:cards-painted").length > 0 || !document.querySelector(".card")')).toBe(true);
      return { page, frame, state: () => page.evaluate('window.aisleHost.state') as Promise<HostState> };
    }

    const searchOf = (s: HostState): SearchResponse => SearchResponseSchema.parse(s.result?.structuredContent);
    const receiptsOf = (s: HostState) => s.toolCalls.filter((c) => c.name === 'record_display');

    describe.each([
      [360, 'light'],
      [360, 'dark'],
      [1024, 'light'],
      [1024, 'dark'],
    ] as const)('at %i px, %s theme', (width, theme) => {
      it('shows the real result: titles, prices and a legible disclosure on every card', async () => {
        const { page, frame, state } = await openView({ query: 'waterproof trail running shoes', limit: 4, min_relevance_score: 0 }, { width, theme });
        const s = await state();
        const { results } = searchOf(s);
        expect(results).toHaveLength(4);
        const cards = await frame.$$eval('.card', (nodes) =>
          nodes.map((n) => ({ title: n.querySelector('.title')?.textContent, price: n.querySelector('.price')?.textContent, text: n.textContent })),
        );
        expect(cards.map((c) => c.title)).toEqual(results.map((r) => r.title));
        expect(cards.map((c) => c.price)).toEqual(results.map((r) => r.price || 'No price listed'));
        for (const [i, r] of results.entries()) expect(cards[i]!.text).toContain(`View at ${r.merchant}`);

        const measured = (await frame.evaluate(MEASURE)) as {
          body: number;
          disclosures: { text: string; fontPx: number; contrast: number; visible: boolean }[];
        };
        expect(measured.disclosures.map((d) => d.text)).toEqual(results.map((r) => `Disclosure: ${r.disclosure_text}`));
        for (const d of measured.disclosures) {
          expect(d.visible).toBe(true);
          expect(d.fontPx).toBeGreaterThanOrEqual(12);
          expect(d.contrast).toBeGreaterThanOrEqual(4.5);
          expect(d.contrast).toBeGreaterThanOrEqual(measured.body - 1e-9);
        }

        const painted = (await frame.evaluate('performance.timeOrigin + performance.getEntriesByName("aisle:cards-painted")[0].startTime')) as number;
        console.log(
          `[measure] ${width}px ${theme}: HTML resource ${s.resourceBytes} bytes; tool result to cards painted ${(painted - s.resultSentAt).toFixed(1)} ms`,
        );
        if (SCREENSHOTS && era === '2026-07-28') {
          mkdirSync(SCREENSHOTS, { recursive: true });
          // The whole view in the viewport: a fullPage capture leaves a sandboxed frame below the fold unpainted.
          const height = Math.ceil((await page.evaluate('document.querySelector("iframe").getBoundingClientRect().height')) as number);
          await page.setViewportSize({ width, height: Math.min(Math.max(height, 200), 3000) });
          await page.waitForTimeout(300);
          await page.screenshot({ path: join(SCREENSHOTS, `cards-${theme}-${width}.png`) });
        }
        await page.close();
      });
    });

    it('sends one receipt per impression once its card is on screen, and GET /v1/analytics counts them', async () => {
      const before = (await call(t.app, t.adminKey, 'GET', '/v1/analytics')).json().metrics.displayed_impressions as number;
      const { page, frame, state } = await openView({ query: 'camping tent', limit: 5, min_relevance_score: 0 }, { width: 360, height: 640 });
      const ids = searchOf(await state()).results.map((r) => r.impression_id);
      expect(ids).toHaveLength(5);

      await page.waitForFunction('window.aisleHost.state.toolCalls.some((c) => c.name === "record_display")');
      const onScreen = (await frame.evaluate(
        '[...document.querySelectorAll(".card")].filter((c) => { const r = c.getBoundingClientRect(); return r.top < 640 && r.bottom > 0; }).map((c) => c.dataset.impressionId)',
      )) as string[];
      const early = receiptsOf(await state()).flatMap((c) => c.arguments?.impression_ids ?? []);
      expect(early.length).toBeGreaterThan(0);
      for (const id of early) expect(onScreen).toContain(id);
      expect(early).not.toContain(ids[4]); // the last card is below the fold: not shown, not reported

      await page.evaluate('window.scrollTo(0, document.body.scrollHeight)');
      await page.waitForFunction(
        `window.aisleHost.state.toolCalls.filter((c) => c.name === "record_display").flatMap((c) => c.arguments.impression_ids).includes(${JSON.stringify(ids[4])})`,
      );
      await page.evaluate('window.scrollTo(0, 0)');
      await page.waitForTimeout(1500); // back to the top: the first cards are visible again, and must not be reported twice
      const receipts = receiptsOf(await state());
      const reported = receipts.flatMap((c) => c.arguments?.impression_ids ?? []);
      expect([...reported].sort()).toEqual([...new Set(reported)].sort());
      expect(new Set(reported)).toEqual(new Set(ids.filter((id) => reported.includes(id))));
      for (const c of receipts) {
        expect(c.result.isError ?? false, JSON.stringify(c.result)).toBe(false);
        for (const d of (c.result.structuredContent as { displays: { first_receipt: boolean }[] }).displays) expect(d.first_receipt).toBe(true);
      }
      const after = (await call(t.app, t.adminKey, 'GET', '/v1/analytics')).json().metrics.displayed_impressions as number;
      expect(after - before).toBe(reported.length);
      expect(reported).toContain(ids[0]);
      await page.close();
    });

    it('asks the host to open exactly the click_url, and following it records the click as displayed first', async () => {
      const { page, frame, state } = await openView({ query: 'espresso machine', limit: 2, min_relevance_score: 0 }, { width: 1024 });
      const [first] = searchOf(await state()).results;
      await page.waitForFunction(
        `window.aisleHost.state.toolCalls.some((c) => c.name === "record_display" && c.arguments.impression_ids.includes(${JSON.stringify(first!.impression_id)}))`,
      );
      await frame.click('.card:first-child .view');
      await page.waitForFunction('window.aisleHost.state.opened.length > 0');
      expect((await state()).opened).toEqual([first!.click_url]);

      // The test core signs links for its default public URL; this server listens on another port.
      const link = new URL((await state()).opened[0]!);
      const followed = await fetch(new URL(`${link.pathname}${link.search}`, aisleBase), { redirect: 'manual', headers: { 'user-agent': CHROME_UA } });
      expect(followed.status).toBe(302);
      expect(followed.headers.get('aisle-click')).toBe('billable');
      const click = await call(t.app, t.adminKey, 'POST', `/v1/clicks/${first!.impression_id}`);
      expectStatus(click, 200);
      expect(click.json()).toMatchObject({ duplicate: true, impression_displayed: true });
      await page.close();
    });

    it("refuses a receipt for another account's impression", async () => {
      const { page, state } = await openView({ query: 'desk lamp', limit: 1, min_relevance_score: 0 }, { width: 1024 });
      const [shown] = searchOf(await state()).results;
      await page.close();
      const other = await t.core.accounts.create('someone else');
      const client = await connectHttp(clientEra, `${aisleBase}/mcp`, { headers: { 'x-api-key': other.firstKey.key }, name: 'other account' });
      const refused = await hostCallTool(client, 'record_display', { impression_ids: [shown!.impression_id] });
      expect(problem(refused)).toMatchObject({ status: 404, code: 'not_found' });
      await client.close();
    });

    it('says there are no matching products instead of showing an empty frame', async () => {
      const { page, frame, state } = await openView({ query: 'who won the 1998 world cup' }, { width: 360 });
      expect(searchOf(await state()).results).toEqual([]);
      expect(await frame.locator('.card').count()).toBe(0);
      expect(await frame.locator('#status').textContent()).toMatch(/No matching products/);
      await page.close();
    });
  });
});
