import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { type AdResponse, type NoFillReason, SearchRequestSchema, type SearchResponse, SearchResponseSchema } from '../../core/schemas/search.js';
import { PRODUCT_CARDS_URI } from '../app-view.js';
import { registerAisleTool, type ToolContext } from '../tool.js';

/**
 * A compact answer (its structured content and text, as JSON) fits in this many characters, so
 * that with what the protocol adds around it (about 100 on 2026-07-28) a result at limit 10 stays
 * under 24,000, about 6,000 tokens (docs/mcp.md, "Tools"). Each result's affiliate_attribution
 * (about 280 characters) is part of it and is never cut: it is what credits the publisher; so is
 * its place in the taxonomy (category_id, category_path, category_confidence: about 100).
 */
const COMPACT_ANSWER_BUDGET_CHARS = 23_500;

/**
 * What a compact answer cuts titles and descriptions to, tried in order until it fits the budget.
 * The first step is all a typical catalog ever needs (150 is Google Merchant Center's title
 * limit; 160 characters of description tell products apart). The later ones only bite when
 * titles come near the catalog's 500-character limit. Disclosures, links and ids are never cut.
 */
const COMPACT_STEPS = [
  { title: 150, description: 160 },
  { title: 120, description: 120 },
  { title: 100, description: 80 },
  { title: 80, description: 60 },
  { title: 60, description: 40 },
] as const;

/** Compact results keep at most this much of each description. */
export const COMPACT_DESCRIPTION_CHARS = COMPACT_STEPS[0].description;

const SearchProductsInputSchema = SearchRequestSchema.omit({ stream: true }).extend({
  detail: z
    .enum(['compact', 'full'])
    .default('compact')
    .describe('compact (default) shortens descriptions, and titles when very long, so ten results stay under about 6,000 tokens; full returns them whole'),
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

/** What an empty answer tells the agent to do, by metadata.no_fill_reason. */
const NO_RESULTS: Record<NoFillReason, (requestId: string) => string> = {
  no_relevant_products: (id) => `No product fits this request well enough (request_id ${id}). Tell the user so rather than suggesting something unrelated.`,
  no_shopping_need: (id) =>
    `Nothing in this conversation asks for a product (request_id ${id}), so there is nothing to recommend. Do not bring up products; if the user does want something, search again with what they want to buy as the query.`,
  sensitive_topic: (id) =>
    `This conversation touches a sensitive topic, so Aisle shows no products beside it (request_id ${id}). Do not bring up products here.`,
  publisher_policy: (id) =>
    `This app's publisher policy shows no products here (request_id ${id}): too early in the conversation, or the conversation has had its share of product answers. Do not bring up products; carry on with the conversation.`,
};

/** The text block for clients that drop structured content: every product with its disclosure and link. */
function renderSearchText(response: SearchResponse): string {
  const { results, metadata } = response;
  if (results.length === 0) return NO_RESULTS[metadata.no_fill_reason ?? 'no_relevant_products'](response.request_id);
  const understood = metadata.interpreted_query ? ` Understood as: "${metadata.interpreted_query}".` : '';
  const head =
    `${results.length} product${results.length === 1 ? '' : 's'} (of ${metadata.total_matches} matching; request_id ${response.request_id}, session_id ${metadata.session_id}).${understood} ` +
    "Show each product's disclosure with it. Give the user the Link (opening it records the click), or call record_click with the impression_id when they pick a product another way.";
  return [head, ...results.map((r, i) => renderProduct(r, i + 1))].join('\n');
}

const answerSize = (answer: { structured: SearchResponse; text: string }) =>
  JSON.stringify({ content: [{ type: 'text', text: answer.text }], structuredContent: answer.structured }).length;

/**
 * The default answer: titles and descriptions shortened by the first of COMPACT_STEPS that brings
 * structured content and text together within COMPACT_ANSWER_BUDGET_CHARS (the last step when
 * none does: only very long disclosures or URLs get there).
 */
function compactAnswer(response: SearchResponse): { structured: SearchResponse; text: string } {
  let answer = { structured: response, text: '' };
  for (const step of COMPACT_STEPS) {
    const results = response.results.map((r) => ({ ...r, title: shorten(r.title, step.title), description: shorten(r.description, step.description) }));
    answer = { structured: { ...response, results }, text: renderSearchText({ ...response, results }) };
    if (answerSize(answer) <= COMPACT_ANSWER_BUDGET_CHARS) break;
  }
  return answer;
}

/** search_products: POST /v1/search as a tool, with a compact text rendering for text-only clients. */
export function registerSearchProductsTool(server: McpServer, ctx: ToolContext): void {
  registerAisleTool(server, ctx, {
    name: 'search_products',
    title: 'Search products',
    description:
      "Find products that fit what the user is looking for. Put the user's latest message (or your own short summary of what they want to buy) in `query`, " +
      'and the turns before it, oldest first, in `conversation_context` (their words as role "user", yours as "assistant"): Aisle reads the need from the whole conversation, ' +
      "weighing the user's latest words most, and returns nothing when there is no shopping need. Call it when the user wants to buy, compare or find a product. " +
      'Returns up to `limit` products ranked by fit, each with title, price, merchant, why it fits, an affiliate disclosure you must show with it, and a click link to give the user; ' +
      'metadata.interpreted_query says what Aisle understood the need to be (if it is wrong, search again with a better query). No results means nothing fits: say so. ' +
      'filters.category narrows to a category and everything under it: a Google product taxonomy id ("638"), a path ("Home & Garden > Kitchen & Dining") or a word ("kitchen"); each result names its category_id and category_path. ' +
      "An empty answer with no_fill_reason publisher_policy is the app publisher's choice: do not bring up products then. " +
      'Never put personal data (names, emails, phone numbers, addresses) in the query. Reuse metadata.session_id across turns of one conversation. ' +
      'Each call records the products shown (impressions) for click attribution.',
    input: SearchProductsInputSchema,
    output: SearchResponseSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    // Hosts with MCP Apps show the results as cards (disclosure on each); the text block stays for the others.
    ui: { resourceUri: PRODUCT_CARDS_URI },
    run: async ({ detail, ...request }) => {
      const response = await ctx.api.search(request);
      return detail === 'full' ? { structured: response, text: renderSearchText(response) } : compactAnswer(response);
    },
  });
}
