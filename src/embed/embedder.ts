import { type EmbeddingProviderName, embeddingModelName, useLitePrecision } from './model-name.js';
import type { RetryPolicy } from './openai.js';
import type { EmbeddingProvider } from './provider.js';
import { QueuedEmbedder } from './queued-embedder.js';

export { embeddingModelName } from './model-name.js';
export { QueuedEmbedder } from './queued-embedder.js';

/** Plain options, filled from src/config.ts by the composition root; nothing here reads the environment. */
export interface EmbedderOptions {
  provider: EmbeddingProviderName;
  /** openai: the model name (required); transformers: a hub id or local folder (required); use-lite: optional, must name USE-lite. */
  model?: string;
  /** openai: the endpoint up to `/v1`. */
  baseUrl?: string;
  /** openai: bearer token. */
  apiKey?: string;
  /** Expected vector size; a provider whose vectors differ fails at start or on the first call. */
  dimensions?: number;
  /** Model cache: the built USE-lite .onnx, transformers.js downloads. */
  cacheDir: string;
  /** Single-query LRU entries; 0 disables. Default 1,000. */
  queryCacheSize?: number;
  /** Provider calls in flight. Default 2 for local models (onnxruntime already uses every core), 4 for openai. */
  concurrency?: number;
  /** use-lite: onnxruntime threads per run; 0 (default) takes every core. */
  threads?: number;
  /** Texts per provider call; defaults suit each provider (use-lite 32, openai 256, transformers 32). */
  maxBatchSize?: number;
  /** openai: retry policy (tests shorten it). */
  retry?: Partial<RetryPolicy>;
  /** openai: one request's time bound (AISLE_EMBEDDING_TIMEOUT_MS). */
  timeoutMs?: number;
}

/**
 * Starts the configured embedding provider behind a QueuedEmbedder (bounded concurrency, query
 * LRU, chunked ingestion). Providers are imported on demand so each loads only its own runtime
 * (onnxruntime + the tokenizer, the OpenAI SDK, or transformers.js). Throws when the options do
 * not fit the provider, or when the provider cannot start (model unreadable, endpoint down while
 * probing an unknown dimension: AppError `unavailable`).
 */
export async function createEmbedder(options: EmbedderOptions): Promise<QueuedEmbedder> {
  const provider = await createProvider(options);
  const concurrency = options.concurrency ?? (options.provider === 'openai' ? 4 : 2);
  return new QueuedEmbedder(provider, { concurrency, ...(options.queryCacheSize === undefined ? {} : { queryCacheSize: options.queryCacheSize }) });
}

async function createProvider(options: EmbedderOptions): Promise<EmbeddingProvider> {
  const { baseUrl, apiKey, dimensions, cacheDir, maxBatchSize, retry, timeoutMs } = options;
  // Refuses the options the provider cannot run before anything loads.
  const model = embeddingModelName(options);
  switch (options.provider) {
    case 'use-lite': {
      const { createUseLiteProvider } = await import('./use-lite/provider.js');
      return createUseLiteProvider({
        cacheDir,
        maxBatchSize,
        precision: useLitePrecision(options.model),
        ...(options.threads === undefined ? {} : { intraOpThreads: options.threads }),
      });
    }
    case 'openai': {
      const { createOpenAiProvider } = await import('./openai.js');
      return createOpenAiProvider({ model, baseUrl, apiKey, dimensions, maxBatchSize, retry, timeoutMs });
    }
    case 'transformers': {
      const { createTransformersProvider } = await import('./transformers.js');
      return createTransformersProvider({ model: options.model!, cacheDir, dimensions, maxBatchSize });
    }
  }
}
