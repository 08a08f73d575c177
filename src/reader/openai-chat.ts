/**
 * The reader model over any OpenAI-compatible chat endpoint (OpenAI, Azure OpenAI, Ollama, vLLM,
 * a llama.cpp server): one chat completion per conversation, asked for JSON fitting the answer's
 * schema (`response_format: json_schema`, strict), at temperature 0. No retries: a search waits
 * for the model only within AISLE_READER_TIMEOUT_MS, and the offline reader answers otherwise
 * (src/core/reading/model-reader.ts). docs/search.md, "Readers".
 */
import type OpenAI from 'openai';
import { z } from 'zod';
import { ModelAnswerSchema } from '../core/reading/model-answer.js';
import type { ModelConversation, ReaderModel } from '../core/reading/ports.js';
import type { OutboundClient } from '../outbound/client.js';
import { operatorOpenAi } from '../outbound/openai-client.js';

export interface OpenAiChatReaderOptions {
  model: string;
  /** Up to and including `/v1`, e.g. `http://127.0.0.1:11434/v1` for Ollama. Default OpenAI's. */
  baseUrl?: string;
  /** Sent as a bearer token; servers that need none (Ollama, llama.cpp) get a placeholder. */
  apiKey?: string;
  /** The longest one call may take; the model reader's own budget usually ends it sooner. */
  timeoutMs: number;
}

/** An answer is a few hundred bytes of JSON; anything near this is not an answer. */
const MAX_ANSWER_BYTES = 256 * 1024;
/** Tokens the model may write: the answer's JSON with room to spare. */
const MAX_TOKENS = 300;

/** What the model is told; the schema's field descriptions say the rest. */
const INSTRUCTIONS = [
  'You read a conversation between a person and an AI assistant and decide what product, if any, to show the person now.',
  'shopping_need: true when the person wants something they could buy, said outright ("I need a tent") or implied by a problem a product solves ("my phone keeps dying on hikes").',
  'sensitive: true when the talk touches grief, self-harm, a medical emergency, politics, a child at risk or violence; then no product is shown whatever else is said.',
  'product_query: the kind of product as a short catalog search in English, with the attributes that matter (size, material, audience); no price, no brand unless insisted on. Leave out what the person ruled out.',
  'min_price, max_price, brand: only what the person stated as a requirement; null otherwise.',
  'Text in square brackets such as [EMAIL] replaced personal data.',
].join('\n');

/** The answer's JSON Schema, as the endpoint is asked to follow it. */
const ANSWER_JSON_SCHEMA = z.toJSONSchema(ModelAnswerSchema, { target: 'draft-7' }) as Record<string, unknown>;

export class OpenAiChatReader implements ReaderModel {
  readonly name: string;
  private readonly client: OpenAI;
  private readonly outbound: OutboundClient;

  constructor(options: OpenAiChatReaderOptions) {
    this.name = options.model;
    ({ client: this.client, outbound: this.outbound } = operatorOpenAi({ ...options, maxBytes: MAX_ANSWER_BYTES }));
  }

  async read(conversation: ModelConversation, signal: AbortSignal): Promise<unknown> {
    const completion = await this.client.chat.completions.create(
      {
        model: this.name,
        temperature: 0,
        max_tokens: MAX_TOKENS,
        response_format: { type: 'json_schema', json_schema: { name: 'shopping_need', strict: true, schema: ANSWER_JSON_SCHEMA } },
        messages: [
          { role: 'system', content: INSTRUCTIONS },
          { role: 'user', content: transcript(conversation) },
        ],
      },
      { signal },
    );
    const content = completion.choices[0]?.message?.content;
    if (typeof content !== 'string') throw new Error('the answer has no message content');
    return JSON.parse(content) as unknown;
  }

  close(): Promise<void> {
    return this.outbound.close();
  }
}

/** The conversation as one text: each turn on its own lines, the person's last message marked. */
function transcript(conversation: ModelConversation): string {
  const lines = conversation.turns.map((t) => `${t.role === 'user' ? 'Person' : t.role === 'assistant' ? 'Assistant' : t.role}: ${t.content}`);
  lines.push(`Person (latest message): ${conversation.message}`);
  return `Conversation:\n${lines.join('\n')}`;
}
