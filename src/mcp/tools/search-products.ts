import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { SearchRequestSchema, SearchResponseSchema, type AdResponse, type SearchResponse } from '../../core/schemas/search.js';
import { PRODUCT_CARDS_URI } from '../app-view.js';
import { registerAisleTool, type ToolContext } from '../tool.js';

/** Compact results keep this much of each description: enough to tell products apart. */
export const COMPACT_DESCRIPTION_CHARS = 160;

export const SearchProductsInputSchema = SearchRequestSchema.omit({ stream: true }).extend({
  detail: z
    .enum(['compact', 'full'])
    .default('compact')
    .describe('compact (default) shortens each description so ten results stay small; full returns descriptions whole'),
});

const AVAILABILITY_TEXT: Record<AdResponse['availability'], string> = {
  in_stock: 'in stock',
  out_of_stock: 'out of stock',
  preorder: 'preorder',
  unknown: 'availability unknown',
};

const shorten = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

function renderProduct(r: AdResponse, rank: number): string {
  const price = r.price === '' ? 'no price listed' : r.price;
  const checked = r.last_updated_at === null ? 'freshness unknown' : `checked ${r.last_updated_at.slice(0, 10)}`;
  return [
    `${rank}. ${oneLine(r.title)} — ${price} at ${oneLine(r.merchant) || 'unknown merchant'} (${AVAILABILITY_TEXT[r.availability]}; price ${checked})`,
    `   Why: ${oneLine(r.relevance_explanation)}`,
    `   Disclosure: ${oneLine(r.disclosure_text)}`,
    `   Link: ${r.click_url}`,
    `   impression_id ${r.impression_id} · product_id ${r.product_id}`,
  ].join('\n');
}

/** The text block for clients that drop structured content: every product with its disclosure and link. */
export function renderSearchText(response: SearchResponse): string {
  const { results, metadata } = response;
  if (results.length === 0) {
    return `No product fits this request well enough (request_id ${response.request_id}). Tell the user so rather than suggesting something unrelated.`;
  }
  const head =
    `${results.length} product${results.length === 1 ? '' : 's'} (of ${metadata.total_matches} matching; request_id ${response.request_id}, session_id ${metadata.session_id}). ` +
    "Show each product's disclosure with it. Give the user the Link (opening it records the click), or call record_click with the impression_id when they pick a product another way.";
  return [head, ...results.map((r, i) => renderProduct(r, i + 1))].join('\n');
}

/** search_products: POST /v1/search as a tool, with a compact text rendering for text-only clients. */
export function registerSearchProductsTool(server: McpServer, ctx: ToolContext): void {
  registerAisleTool(server, ctx, {
    name: 'search_products',
    title: 'Search products',
    description:
      'Find products that fit what the user is looking for, from a natural-language request (and optionally the recent conversation). ' +
      'Call it when the user wants to buy, compare or find a product. Returns up to `limit` products ranked by fit, each with title, price, merchant, ' +
      'why it fits, an affiliate disclosure you must show with it, and a click link to give the user. No results means nothing fits: say so. ' +
      'Never put personal data (names, emails, phone numbers, addresses) in the query. Reuse metadata.session_id across turns of one conversation. ' +
      'Each call records the products shown (impressions) for click attribution.',
    input: SearchProductsInputSchema,
    output: SearchResponseSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    // Hosts with MCP Apps show the results as cards (disclosure on each); the text block stays for the others.
    ui: { resourceUri: PRODUCT_CARDS_URI },
    run: async ({ detail, ...request }) => {
      const response = await ctx.api.search(request);
      const structured =
        detail === 'full'
          ? response
          : { ...response, results: response.results.map((r) => ({ ...r, description: shorten(r.description, COMPACT_DESCRIPTION_CHARS) })) };
      return { structured, text: renderSearchText(response) };
    },
  });
}
