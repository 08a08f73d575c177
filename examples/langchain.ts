/**
 * Aisle from LangChain.js: Aisle's MCP tools over Streamable HTTP (`@langchain/mcp-adapters`),
 * given to a `createAgent` agent (LangGraph underneath). Run it:
 * `AISLE_API_KEY=aisle_sk_… npx tsx examples/langchain.ts`.
 */
import { pathToFileURL } from 'node:url';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { createAgent } from 'langchain';
import { INSTRUCTIONS, nextTurn, REQUEST, textOf } from './scripted-shopper.js';

export interface AgentOptions {
  url: string;
  apiKey: string;
  /** A chat model, or a name createAgent resolves ('openai:gpt-5-mini' needs `@langchain/openai` installed). */
  model?: string | BaseChatModel;
}

/** Asks the model to find products with Aisle's tools; returns its final answer. */
export async function runAgent({ url, apiKey, model = scriptedModel() }: AgentOptions): Promise<string> {
  const aisle = new MultiServerMCPClient({
    mcpServers: { aisle: { transport: 'http', url: `${url}/mcp`, headers: { Authorization: `Bearer ${apiKey}` } } },
  });
  try {
    // Only the two tools this agent needs: fewer tools, fewer wrong calls.
    const tools = (await aisle.getTools()).filter((tool) => tool.name === 'search_products' || tool.name === 'record_click');
    const agent = createAgent({ model, tools, systemPrompt: INSTRUCTIONS });
    const { messages } = await agent.invoke({ messages: [{ role: 'user', content: REQUEST }] });
    return textOf(messages.at(-1)?.content);
  } finally {
    await aisle.close();
  }
}

/**
 * LangChain's own fake chat model (`fakeModel()`), scripted (scripted-shopper.ts): each of its
 * three answers reads the tool results in the conversation, as a model would. Replace it with a
 * real one, e.g. 'openai:gpt-5-mini' or `new ChatOpenAI({ model: 'gpt-5-mini' })`, both with
 * `@langchain/openai` installed (LangChain names the package to install when it is missing).
 */
export function scriptedModel(): BaseChatModel {
  const model = fakeModel();
  for (let i = 0; i < 3; i++) {
    model.respond((messages) => {
      const turn = nextTurn(messages.filter(ToolMessage.isInstance).map((m) => m.content));
      if ('text' in turn) return new AIMessage(turn.text);
      return new AIMessage({ content: '', tool_calls: [{ id: `call_${i}`, name: turn.tool, args: turn.args }] });
    });
  }
  return model;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const model = process.env.OPENAI_API_KEY ? 'openai:gpt-5-mini' : scriptedModel();
  const apiKey = process.env.AISLE_API_KEY;
  if (!apiKey) throw new Error('Set AISLE_API_KEY to an Aisle key with the search and events:write scopes');
  console.log(await runAgent({ url: process.env.AISLE_URL ?? 'http://127.0.0.1:8787', apiKey, model }));
}
