import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { RESOURCE_MIME_TYPE, registerAppResource } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/server';
import { bundle, onFirstUse } from '../bundle.js';
import type { AisleApi } from './api.js';

/** The MCP Apps view search_products links to (`_meta.ui.resourceUri`). */
export const PRODUCT_CARDS_URI = 'ui://aisle/product-cards.html';

const TEMPLATE = fileURLToPath(new URL('./view/product-cards.html', import.meta.url));
const ENTRY = fileURLToPath(new URL('./view/product-cards.ts', import.meta.url));
const STYLE = fileURLToPath(new URL('./view/cards.css', import.meta.url));

/**
 * The view as one self-contained HTML document: the template with the card styles and the view's
 * script (and the ext-apps App class it uses) bundled in by esbuild, built once per process on
 * first use (src/bundle.ts).
 */
const productCardsHtml: () => Promise<string> = onFirstUse(build);

async function build(): Promise<string> {
  const [template, style, outputFiles] = await Promise.all([
    readFile(TEMPLATE, 'utf8'),
    readFile(STYLE, 'utf8'),
    bundle(ENTRY, { minify: true, format: 'iife', platform: 'browser', target: 'es2022', legalComments: 'none' }),
  ]);
  const script = outputFiles[0]?.text;
  if (script === undefined) throw new Error('esbuild produced no output for the product-card view');
  // Inline script: "</script" inside a string literal would end the element early.
  const safe = script.replace(/<\/(script)/gi, '<\\/$1');
  return template.replace('<!--AISLE_VIEW_STYLE-->', () => `<style>\n${style}</style>`).replace('<!--AISLE_VIEW_SCRIPT-->', () => `<script>${safe}</script>`);
}

/**
 * Registers the product-card view as a `ui://` resource (MIME `text/html;profile=mcp-app`). Its
 * CSP declares the catalog's image origins, so hosts let product images load; nothing else.
 */
export function registerProductCardsView(server: McpServer, api: AisleApi): void {
  registerAppResource(
    server,
    'product_cards',
    PRODUCT_CARDS_URI,
    {
      title: 'Aisle product cards',
      description: 'search_products results as cards: image, price, merchant, freshness, why it fits, the affiliate disclosure, and a button to the merchant.',
    },
    async (uri) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: RESOURCE_MIME_TYPE,
          text: await productCardsHtml(),
          _meta: { ui: { csp: { resourceDomains: await api.imageOrigins(), connectDomains: [] }, prefersBorder: false } },
        },
      ],
    }),
  );
}
