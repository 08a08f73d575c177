/**
 * Aisle from Mastra: Aisle's MCP tools over Streamable HTTP (`@mastra/mcp`'s `MCPClient`), given
 * to a Mastra `Agent`. Run it: `AISLE_API_KEY=aisle_sk_… npx tsx examples/mastra.ts`.
 */
import { pathToFileURL } from 'node:url';
import { Agent } from '@mastra/core/agent';
import type { MastraModelConfig } from '@mastra/core/llm';
import { MCPClient } from '@mastra/mcp';
import { INSTRUCTIONS, nextTurn, REQUEST } from './scripted-shopper.js';

export interface AgentOptions {
  url: string;
  apiKey: string;
  /** Anything Mastra's Agent takes as a model: 'openai/gpt-5-mini' (with OPENAI_API_KEY) or an AI SDK 5 model. */
  model?: ConstructorParameters<typeof Agent>[0]['model'];
}

/** Asks the model to find products with Aisle's tools; returns its final answer. */
export async function runAgent({ url, apiKey, model = scriptedModel() }: AgentOptions): Promise<string> {
  const aisle = new MCPClient({
    // An id of its own: while one is connected, Mastra refuses a second MCPClient with the same
    // servers and no id, so two runAgent() calls at once would otherwise fail.
    id: `aisle-${crypto.randomUUID()}`,
    servers: { aisle: { url: new URL(`${url}/mcp`), requestInit: { headers: { Authorization: `Bearer ${apiKey}` } } } },
  });
  try {
    // getToolsets() keeps the tools' own names (getTools() prefixes them: aisle_search_products).
    // Only the two tools this agent needs: fewer tools, fewer wrong calls.
    const { aisle: tools = {} } = await aisle.getToolsets();
    const agent = new Agent({
      name: 'Shopping assistant',
      instructions: INSTRUCTIONS,
      model,
      tools: { search_products: tools.search_products, record_click: tools.record_click },
    });
    const result = await agent.generate(REQUEST, { maxSteps: 6 });
    return result.text;
  } finally {
    await aisle.disconnect();
  }
}

/** The model interface Mastra 0.24's `generate()` takes: the AI SDK 5 one (LanguageModelV2). */
type LanguageModelV2 = Extract<MastraModelConfig, { specificationVersion: 'v2' }>;

/**
 * A scripted stand-in for the model (scripted-shopper.ts): it reads the tool results in its prompt
 * and answers as a model would. Written by hand as the small LanguageModelV2 object the AI SDK's
 * `MockLanguageModelV2` is: Mastra 0.24 refuses AI SDK 6 models (`MockLanguageModelV3` included),
 * and `ai-v5/test`, where `MockLanguageModelV2` lives, needs `msw`. Replace it with a real one, e.g.
 * `model: 'openai/gpt-5-mini'` (Mastra's model router, with OPENAI_API_KEY).
 */
export function scriptedModel(): LanguageModelV2 {
  const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  return {
    specificationVersion: 'v2',
    provider: 'scripted',
    modelId: 'scripted-shopper',
    supportedUrls: {},
    // Agent.generate() calls doGenerate; only Agent.stream() would call doStream.
    doGenerate: async ({ prompt }) => {
      const results = prompt.flatMap((m) => (m.role === 'tool' ? m.content.map((part) => part.output) : []));
      const turn = nextTurn(results);
      if ('text' in turn) return { content: [{ type: 'text', text: turn.text }], finishReason: 'stop', usage, warnings: [] };
      const call = { type: 'tool-call' as const, toolCallId: `call_${results.length}`, toolName: turn.tool, input: JSON.stringify(turn.args) };
      return { content: [call], finishReason: 'tool-calls', usage, warnings: [] };
    },
    doStream: () => Promise.reject(new Error('the scripted model answers generate() only')),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const model = process.env.OPENAI_API_KEY ? 'openai/gpt-5-mini' : scriptedModel();
  const apiKey = process.env.AISLE_API_KEY;
  if (!apiKey) throw new Error('Set AISLE_API_KEY to an Aisle key with the search and events:write scopes');
  console.log(await runAgent({ url: process.env.AISLE_URL ?? 'http://127.0.0.1:8787', apiKey, model }));
}
