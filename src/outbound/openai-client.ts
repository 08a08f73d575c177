/**
 * An OpenAI SDK client for an operator's OpenAI-compatible endpoint (embeddings, the model
 * reader): configured from src/config.ts only, no SDK retries (callers decide), and every call
 * through Aisle's outbound client.
 */
import OpenAI from 'openai';
import { OutboundClient } from './client.js';
import { outboundFetch } from './fetch.js';

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface OperatorOpenAi {
  client: OpenAI;
  /** Closed when the client is no longer used. */
  outbound: OutboundClient;
  /** The base URL without a trailing slash (OpenAI's own when none was given). */
  baseUrl: string;
}

export function operatorOpenAi(options: { baseUrl?: string | undefined; apiKey?: string | undefined; timeoutMs: number; maxBytes: number }): OperatorOpenAi {
  const baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  // The endpoint is the operator's own choice (often Ollama on localhost): private addresses allowed.
  const outbound = new OutboundClient({ allowPrivate: true });
  const client = new OpenAI({
    baseURL: baseUrl,
    // Servers that need no key (Ollama, llama.cpp, TEI) get a placeholder.
    apiKey: options.apiKey ?? 'no-key',
    // Passing these explicitly keeps the SDK from reading its OPENAI_* environment variables:
    // configuration comes from src/config.ts only.
    organization: null,
    project: null,
    webhookSecret: null,
    logLevel: 'off',
    // The SDK's backoff is not configurable and would hide attempts from errors: callers retry, or not.
    maxRetries: 0,
    timeout: options.timeoutMs,
    // Every call Aisle makes to a server it does not run goes through the outbound client.
    fetch: outboundFetch(outbound, { timeoutMs: options.timeoutMs, maxBytes: options.maxBytes }),
  });
  return { client, outbound, baseUrl };
}
