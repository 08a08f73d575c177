/**
 * Aisle's MCP Apps view for search_products: one card per result with the disclosure on it, a
 * "View at <merchant>" button that asks the host to open the signed click_url, and display
 * receipts (record_display) for cards a person has actually had on screen. Bundled with esbuild
 * into one self-contained HTML document (src/mcp/app-view.ts); it loads nothing at run time but
 * the product images the resource's CSP declares.
 */
import { App, applyDocumentTheme, applyHostFonts, applyHostStyleVariables } from '@modelcontextprotocol/ext-apps/app-with-deps';
import { AVAILABILITY, type Availability, freshness, PLACEHOLDER_PATH } from './card-text.js';
import { DisplayReceipts } from './display-receipts.js';

/** The members of an AdResponse the cards show (the SearchResponse is the tool's structuredContent). */
interface Result {
  impression_id: string;
  title: string;
  price: string;
  merchant: string;
  availability: Availability;
  last_updated_at: string | null;
  relevance_explanation: string;
  image_url: string;
  disclosure_text: string;
  click_url: string;
}

const app = new App({ name: 'Aisle product cards', version: '0.1.0' }, {}, { autoResize: true });
const receipts = new DisplayReceipts(async (ids) => {
  const result = await app.callServerTool({ name: 'record_display', arguments: { impression_ids: ids } });
  if (result.isError) void app.sendLog({ level: 'warning', logger: 'aisle', data: result.content });
});
const status = document.getElementById('status')!;
const cards = document.getElementById('cards')!;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A neutral picture-frame icon, inline: nothing to load. */
function placeholder(): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('class', 'placeholder');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('fill', 'currentColor');
  path.setAttribute('d', PLACEHOLDER_PATH);
  svg.append(path);
  return svg;
}

function media(r: Result): HTMLElement {
  const box = el('div', 'media');
  if (!/^https:\/\//i.test(r.image_url)) {
    box.append(placeholder());
    return box;
  }
  const img = el('img', '');
  img.alt = r.title;
  img.loading = 'lazy';
  img.referrerPolicy = 'no-referrer';
  // A broken image, or one the host's CSP does not allow, becomes the placeholder.
  img.addEventListener('error', () => img.replaceWith(placeholder()), { once: true });
  img.src = r.image_url;
  box.append(img);
  return box;
}

function card(r: Result): HTMLElement {
  const node = el('article', 'card');
  node.dataset.impressionId = r.impression_id;
  const merchant = r.merchant.trim() || 'the merchant';
  const meta = `${merchant} · ${AVAILABILITY[r.availability] ?? AVAILABILITY.unknown} · ${freshness(r.last_updated_at)}`;
  const disclosure = el('p', 'disclosure');
  disclosure.append(el('strong', '', 'Disclosure: '), document.createTextNode(r.disclosure_text));
  const button = el('button', 'view', `View at ${merchant}`);
  button.type = 'button';
  button.addEventListener('click', () => void app.openLink({ url: r.click_url }));
  node.append(media(r), el('h3', 'title', r.title), el('div', 'price', r.price === '' ? 'No price listed' : r.price), el('p', 'meta', meta));
  if (r.relevance_explanation.trim()) node.append(el('p', 'reason', r.relevance_explanation));
  node.append(disclosure, button);
  return node;
}

function render(results: readonly Result[]): void {
  receipts.reset();
  cards.replaceChildren(...results.map(card));
  status.textContent = results.length === 0 ? 'No matching products in the catalog for this request.' : '';
  status.hidden = results.length > 0;
  for (const node of cards.children) receipts.watch(node as HTMLElement);
  // Two frames: the first lays the cards out, the second has painted them (read by the test host).
  requestAnimationFrame(() => requestAnimationFrame(() => performance.mark('aisle:cards-painted')));
}

function applyContext(ctx: ReturnType<App['getHostContext']>): void {
  if (ctx?.theme) applyDocumentTheme(ctx.theme);
  if (ctx?.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
  if (ctx?.styles?.css?.fonts) applyHostFonts(ctx.styles.css.fonts);
}

app.ontoolresult = (result) => {
  const body = result.structuredContent as { results?: Result[] } | undefined;
  if (result.isError || !Array.isArray(body?.results)) {
    cards.replaceChildren();
    status.hidden = false;
    status.textContent = 'Aisle could not find products for this request.';
    return;
  }
  render(body.results);
};
app.onhostcontextchanged = applyContext;

void app.connect().then(() => applyContext(app.getHostContext()));
