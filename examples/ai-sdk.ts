/**
 * Aisle from the Vercel AI SDK: Aisle's MCP tools over Streamable HTTP (`@ai-sdk/mcp`), driven by
 * `generateText` for a few steps. Run it: `AISLE_API_KEY=aisle_sk_… npx tsx examples/ai-sdk.ts`.
 */
import { pathToFileURL } from 'node:url';
import { createMCPClient } from '@ai-sdk/mcp';
import { generateText, type LanguageModel, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { INSTRUCTIONS, nextTurn, REQUEST } from './scripted-shopper.js';

export interface AgentOptions {
  url: string;
  apiKey: string;
  model?: LanguageModel;
}

/** Asks the model to find products with Aisle's tools; returns its final answer. */
export async function runAgent({ url, apiKey, model = scriptedModel() }: AgentOptions): Promise<string> {
  const aisle = await createMCPClient({ transport: { type: 'http', url: `${url}/mcp`, headers: { Authorization: `Bearer ${apiKey}` } } });
  try {
    const tools = await aisle.tools();
    const result = await generateText({
      model,
      system: INSTRUCTIONS,
      prompt: REQUEST,
      // Only the two tools this agent needs: fewer tools, fewer wrong calls.
      tools: { search_products: tools.search_products!, record_click: tools.record_click! },
      // Search, click, answer: three model calls; a real model may need a retry or two.
      stopWhen: stepCountIs(6),
    });
    return result.text;
  } finally {
    await aisle.close();
  }
}

/**
 * The AI SDK's own test model, scripted (scripted-shopper.ts): it reads the tool results in its
 * prompt and answers as a model would. Replace it with a real one, e.g. `model: 'openai/gpt-5-mini'`
 * (through the AI Gateway, with AI_GATEWAY_API_KEY) or a provider package's model.
 */
export function scriptedModel(): MockLanguageModelV3 {
  const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const results = prompt.flatMap((m) => (m.role === 'tool' ? m.content.flatMap((part) => (part.type === 'tool-result' ? [part.output] : [])) : []));
      const turn = nextTurn(results);
      if ('text' in turn) return { content: [{ type: 'text', text: turn.text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
      const call = { type: 'tool-call' as const, toolCallId: `call_${results.length}`, toolName: turn.tool, input: JSON.stringify(turn.args) };
      return { content: [call], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] };
    },
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const model = process.env.AI_GATEWAY_API_KEY ? 'openai/gpt-5-mini' : scriptedModel();
  const apiKey = process.env.AISLE_API_KEY;
  if (!apiKey) throw new Error('Set AISLE_API_KEY to an Aisle key with the search and events:write scopes');
  console.log(await runAgent({ url: process.env.AISLE_URL ?? 'http://127.0.0.1:8787', apiKey, model }));
}
