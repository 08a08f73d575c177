/**
 * Aisle from the OpenAI Agents SDK: Aisle as an `MCPServerStreamableHttp` of an `Agent`, driven by
 * `run`. Run it: `AISLE_API_KEY=aisle_sk_… npx tsx examples/openai-agents.ts`. The SDK's `openai` 7
 * dependency declares Node 22 or later; this recipe and its test run on Node 20.20 as well.
 */
import { pathToFileURL } from 'node:url';
import { Agent, MCPServerStreamableHttp, type Model, run } from '@openai/agents';
import { assistantMessage, functionCall, modelResponder, ScriptedModel } from '@openai/agents/testing';
import { INSTRUCTIONS, nextTurn, REQUEST } from './scripted-shopper.js';

export interface AgentOptions {
  url: string;
  apiKey: string;
  /** A model name (e.g. 'gpt-5-mini', with OPENAI_API_KEY set) or a Model. */
  model?: string | Model;
}

/** Asks the model to find products with Aisle's tools; returns its final answer. */
export async function runAgent({ url, apiKey, model = scriptedModel() }: AgentOptions): Promise<string> {
  const aisle = new MCPServerStreamableHttp({
    name: 'aisle',
    url: `${url}/mcp`,
    requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
    // Only the two tools this agent needs: fewer tools, fewer wrong calls.
    toolFilter: { allowedToolNames: ['search_products', 'record_click'] },
  });
  await aisle.connect();
  try {
    const agent = new Agent({ name: 'Shopping assistant', instructions: INSTRUCTIONS, model, mcpServers: [aisle] });
    const result = await run(agent, REQUEST, { maxTurns: 6 });
    return result.finalOutput ?? '';
  } finally {
    await aisle.close();
  }
}

/**
 * The SDK's own test model (`ScriptedModel` from `@openai/agents/testing`), scripted
 * (scripted-shopper.ts): each of its three answers reads the tool results in the run's input, as
 * a model would. Replace it with a real one: a model name such as 'gpt-5-mini' and OPENAI_API_KEY.
 */
export function scriptedModel(): ScriptedModel {
  const turn = modelResponder(({ index, request }) => {
    const input = typeof request.input === 'string' ? [] : request.input;
    const next = nextTurn(input.flatMap((item) => (item.type === 'function_call_result' ? [item.output] : [])));
    if ('text' in next) return [assistantMessage(next.text)];
    return [functionCall(next.tool, next.args, { callId: `call_${index}` })];
  });
  return new ScriptedModel([turn, turn, turn]);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const model = process.env.OPENAI_API_KEY ? 'gpt-5-mini' : scriptedModel();
  const apiKey = process.env.AISLE_API_KEY;
  if (!apiKey) throw new Error('Set AISLE_API_KEY to an Aisle key with the search and events:write scopes');
  console.log(await runAgent({ url: process.env.AISLE_URL ?? 'http://127.0.0.1:8787', apiKey, model }));
}
