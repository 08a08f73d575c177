/**
 * What every recipe shares: the instructions and the request a real model would get, and the
 * stand-in that plays the model's part when there is none (the recipes' tests, or a script run
 * without a model key). The stand-in is the only thing here that is not real: it decides each turn
 * from Aisle's tool results as the framework hands them to its model, so the products and
 * disclosures in its answer are the ones Aisle sent.
 */

/** The system prompt: what any model needs told to use Aisle's tools well. */
export const INSTRUCTIONS =
  'You help people shop. When they want to buy, compare or find a product, call search_products. ' +
  'Show every product you mention with its price, merchant, link and the disclosure that came with it, word for word. ' +
  'When the user picks a product, call record_click with its impression_id.';

/** The user's message. "Pick the first" stands in for a user choosing after seeing the list. */
export const REQUEST = 'I need waterproof trail running shoes. Show me a few, and pick the first one for me.';

/** One turn of the stand-in model: call a tool, or answer in text. */
export type Turn = { tool: 'search_products' | 'record_click'; args: Record<string, unknown> } | { text: string };

export interface ShownProduct {
  title: string;
  price: string;
  merchant: string;
  disclosure: string;
  link: string;
  impressionId: string;
}

/**
 * The stand-in model's next turn, from the tool results so far (in whatever form the framework
 * gives its model: see readProducts): search first, then record a click on the first product (the
 * user's pick), then answer with every product and its disclosure. A search that found nothing is
 * answered as such.
 */
export function nextTurn(toolResults: readonly unknown[]): Turn {
  const [search, click] = toolResults;
  if (search === undefined) return { tool: 'search_products', args: { query: 'waterproof trail running shoes', limit: 3 } };
  const products = readProducts(search);
  const pick = products[0];
  if (pick === undefined) return { text: `Aisle found nothing that fits: ${textOf(search)}` };
  if (click === undefined) return { tool: 'record_click', args: { impression_id: pick.impressionId } };
  const lines = products.map((p, i) => `${i + 1}. ${p.title}, ${p.price} at ${p.merchant}: ${p.link}\n   ${p.disclosure}`);
  return { text: ['Here is what I found:', ...lines, `You picked ${pick.title}; I let the shop know.`].join('\n') };
}

/**
 * The products in a search_products result. Frameworks hand their model either the text block,
 * which gives each product as `1. Title — price at merchant (…)` followed by indented Why,
 * Disclosure, Link and id lines (src/mcp/tools/search-products.ts), or the structured content
 * (the search response's `results`), as Mastra does.
 */
export function readProducts(output: unknown): ShownProduct[] {
  const results = structuredResults(output);
  if (results !== undefined) {
    return results.map((r) => ({
      title: r.title,
      price: r.price,
      merchant: r.merchant,
      disclosure: r.disclosure_text,
      link: r.click_url,
      impressionId: r.impression_id,
    }));
  }
  const block = /^\d+\. (.+?) — (.+?) at (.+) \(.*\)\n\s+Why: .*\n\s+Disclosure: (.*)\n\s+Link: (\S+)\n\s+impression_id (\S+) · /gm;
  return [...textOf(output).matchAll(block)].map(([, title, price, merchant, disclosure, link, impressionId]) => ({
    title: title!,
    price: price!,
    merchant: merchant!,
    disclosure: disclosure!,
    link: link!,
    impressionId: impressionId!,
  }));
}

interface SearchResult {
  title: string;
  price: string;
  merchant: string;
  disclosure_text: string;
  click_url: string;
  impression_id: string;
}

/** The `results` of a search response, found in a tool output shaped `{ results }` or wrapped in `{ value }`. */
function structuredResults(output: unknown): SearchResult[] | undefined {
  if (output === null || typeof output !== 'object') return undefined;
  if ('results' in output && Array.isArray(output.results)) return output.results as SearchResult[];
  if ('value' in output) return structuredResults(output.value);
  return undefined;
}

/**
 * The text in a tool result or message as a framework hands it to its model: a string, a JSON
 * string, an MCP CallToolResult (`{ content: [{ type: 'text', text }] }`) or a content array.
 */
export function textOf(output: unknown): string {
  if (typeof output === 'string') {
    if (!/^\s*[[{"]/.test(output)) return output;
    try {
      return textOf(JSON.parse(output));
    } catch {
      return output;
    }
  }
  if (Array.isArray(output)) return output.map(textOf).join('\n');
  if (output !== null && typeof output === 'object') {
    if ('text' in output && typeof output.text === 'string') return output.text;
    if ('content' in output) return textOf(output.content);
    if ('value' in output) return textOf(output.value);
  }
  return '';
}
