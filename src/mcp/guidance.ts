import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

export const INTEGRATOR_RULES_URI = 'aisle://rules/integrator';

/** The spec's rules for integrators, worded for an agent that shows Aisle's results to a person. */
const INTEGRATOR_RULES = `# Rules for showing Aisle recommendations

1. **Disclosure.** Every result carries \`disclosure_text\`. Show it with that product, every time the
   product is shown, in words the user can read (not hidden in a footnote they cannot see).
2. **Click reporting.** Attribution is required by the affiliate programs that pay for these results.
   Give the user the result's \`click_url\`: opening it records the click and forwards to the merchant.
   If the user picks a product some other way (asks you to open it, to buy it, or you use \`url\`),
   call \`record_click\` with its \`impression_id\`. Reporting twice is harmless; not reporting loses the attribution.
3. **Freshness.** Prices and availability change. Each result has \`last_updated_at\`, when price and
   availability were last confirmed. Say how old it is when it is more than a day old, and do not
   promise a price or stock from an old or missing \`last_updated_at\`.
4. **No personal data in queries.** Describe the need, not the person: no names, emails, phone
   numbers, addresses, card or account numbers. Aisle redacts what it detects (and may refuse the
   request), but the query should never contain it in the first place.
5. **No fill beats a bad fit.** An empty result list means nothing in the catalog fits well enough.
   Say so; do not present unrelated products. \`relevance_score\` is a calibrated probability of fit.
6. **Feedback.** When the user says a recommendation is wrong or right, call \`submit_feedback\` with the
   search's \`request_id\` and the product's \`product_id\`; poor fits then rank lower for similar requests.
7. **Conversations.** Put the user's latest message (or your own short summary of what they want to
   buy) in \`query\` and the turns before it, oldest first, in \`conversation_context\`: the user's words as
   role \`user\`, yours as \`assistant\`. Aisle reads the need from the whole conversation, the user's latest
   words weighing most ("my nonstick pan won't get hot enough for a crust" after "I want to cook steak
   like a restaurant" finds cast iron). Or pass \`metadata.session_id\` from the previous answer as
   \`session_id\`: the session's earlier searches count as earlier turns, so follow-ups ("cheaper", "in
   blue") are understood.
8. **What Aisle understood.** \`metadata.interpreted_query\` is the product need Aisle searched for. If it
   is not what the user wants, search again with a better \`query\`. When \`metadata.no_fill_reason\` is
   \`no_shopping_need\` nobody asked for a product, and when it is \`sensitive_topic\` the conversation is
   about grief, self-harm, a medical emergency, politics, a child at risk or violence: bring up no
   products then.
`;

const RECOMMEND_PROMPT = (request: string, budget?: string) => `Help me find products for this: ${request}${budget ? ` (budget: ${budget})` : ''}

How to do it with Aisle:
- Call search_products with my latest message (or a short description of what I want to buy) as query, the earlier turns of our conversation as conversation_context (no personal data), filters for hard constraints such as a price range, and the session_id of any earlier search in this conversation.
- Check metadata.interpreted_query: if Aisle understood something else than what I want, search again with a clearer query.
- Present at most three to five products. For each: the title, the price and merchant, one line on why it fits (from relevance_explanation), the disclosure_text verbatim, and the click_url as the link to follow.
- If last_updated_at is more than a day old or missing, say that the price and availability may have changed.
- If there are no results, say that nothing in the catalog fits and ask what to change; never fill in with unrelated products. If metadata.no_fill_reason is no_shopping_need or sensitive_topic, do not bring up products at all.
- When I pick a product without following its link, call record_click with its impression_id. When I say a product is not what I meant, call submit_feedback with relevant: false.
The full rules are in the resource ${INTEGRATOR_RULES_URI}.`;

export function registerGuidance(server: McpServer): void {
  server.registerResource(
    'integrator_rules',
    INTEGRATOR_RULES_URI,
    {
      title: 'Rules for presenting Aisle recommendations',
      description: 'Disclosure, click reporting, freshness via last_updated_at, no personal data in queries. Read before showing results.',
      mimeType: 'text/markdown',
    },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: INTEGRATOR_RULES }] }),
  );
  server.registerPrompt(
    'recommend_products',
    {
      title: 'Recommend products',
      description: 'Find products for a need with Aisle and present them correctly: disclosure, click link, freshness.',
      argsSchema: z.object({
        request: z.string().min(1).max(2000).describe('What the user is looking for, in their words (without personal data)'),
        budget: z.string().max(100).optional().describe('Optional price limit, e.g. "under $100"'),
      }),
    },
    ({ request, budget }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: RECOMMEND_PROMPT(request, budget) } }],
    }),
  );
}
