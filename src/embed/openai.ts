import { setTimeout as sleep } from 'node:timers/promises';
import type OpenAI from 'openai';
import { APIConnectionError, APIError } from 'openai';
import { AppError } from '../core/errors.js';
import { type OutboundClient, OutboundError } from '../outbound/client.js';
import { operatorOpenAi } from '../outbound/openai-client.js';
import { type EmbeddingProvider, normalizeInPlace } from './provider.js';

export interface RetryPolicy {
  /** Attempts per request, the first included. Default 5. */
  maxAttempts: number;
  /** Delay before the second attempt; doubles each time, half of it random. Default 500 ms. */
  baseDelayMs: number;
  /** Cap on any one delay, Retry-After included. Default 8 s. */
  maxDelayMs: number;
}

export interface OpenAiProviderOptions {
  model: string;
  /** Up to and including `/v1`, e.g. `http://127.0.0.1:11434/v1` for Ollama. Default OpenAI's. */
  baseUrl?: string;
  /** Sent as a bearer token; servers that need none (Ollama, TEI) get a placeholder. */
  apiKey?: string;
  /** Expected vector size. When absent, one probe request at start finds it out. */
  dimensions?: number;
  /**
   * Send `dimensions` in each request (OpenAI's text-embedding-3 models shorten their vectors to
   * it; most other servers reject the field). Default: only for `text-embedding-3*` models.
   */
  sendDimensions?: boolean;
  /** Inputs per request. Default 256, well under OpenAI's 2,048 and most servers' limits. */
  maxBatchSize?: number;
  retry?: Partial<RetryPolicy>;
  /** Per attempt. Default 30 s (the SDK's own default is 10 minutes). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** 256 vectors of 3,072 floats as JSON are about 10 MB. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;
const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 8_000 };

/**
 * An embedding provider for any OpenAI-compatible `/embeddings` endpoint (OpenAI, Azure OpenAI,
 * Ollama, vLLM, TEI). Retries 408/429/5xx and connection failures with exponential backoff and
 * jitter. Throws AppError `unavailable` (naming the URL) when the endpoint stays down,
 * `internal_error` when it rejects the request or returns vectors of another dimension.
 */
export async function createOpenAiProvider(options: OpenAiProviderOptions): Promise<EmbeddingProvider> {
  // We retry ourselves (requestWithRetry): the client makes one attempt per call.
  const { client, outbound, baseUrl } = operatorOpenAi({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxBytes: MAX_ANSWER_BYTES,
  });
  const provider = new OpenAiProvider(client, outbound, baseUrl, options);
  if (options.dimensions !== undefined) return provider;
  try {
    await provider.probeDimensions();
  } catch (err) {
    await provider.close();
    throw err;
  }
  return provider;
}

class OpenAiProvider implements EmbeddingProvider {
  readonly model: string;
  readonly maxBatchSize: number;
  private expectedDimensions: number | undefined;
  private readonly sendDimensions: boolean;
  private readonly retry: RetryPolicy;
  private readonly url: string;

  constructor(
    private readonly client: OpenAI,
    private readonly outbound: OutboundClient,
    baseUrl: string,
    options: OpenAiProviderOptions,
  ) {
    this.model = options.model;
    this.maxBatchSize = options.maxBatchSize ?? 256;
    this.expectedDimensions = options.dimensions;
    this.sendDimensions = options.dimensions !== undefined && (options.sendDimensions ?? options.model.startsWith('text-embedding-3'));
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.url = `${baseUrl}/embeddings`;
  }

  get dimensions(): number {
    if (this.expectedDimensions === undefined) throw new Error('dimensions are known once the probe has run');
    return this.expectedDimensions;
  }

  /** Learns the vector size from one request; also fails fast, at start, when the endpoint is down. */
  async probeDimensions(): Promise<void> {
    const [vector] = await this.requestWithRetry(['dimension probe']);
    if (!vector || vector.length === 0) throw new AppError('internal_error', `The embedding endpoint ${this.url} returned an empty embedding`);
    this.expectedDimensions = vector.length;
  }

  async embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
    const vectors = await this.requestWithRetry(texts);
    const expected = this.dimensions;
    const wrong = vectors.find((v) => v.length !== expected);
    if (wrong) {
      throw new AppError(
        'internal_error',
        `The embedding endpoint ${this.url} returned ${wrong.length}-dimensional vectors for model ${this.model}, ` +
          `but ${expected} dimensions are configured. Set AISLE_EMBEDDING_DIMENSIONS to the model's size (and re-index).`,
      );
    }
    return vectors.map((v) => normalizeInPlace(v, `The embedding endpoint ${this.url}`));
  }

  close(): Promise<void> {
    return this.outbound.close();
  }

  private async requestWithRetry(texts: readonly string[]): Promise<Float32Array[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.request(texts);
      } catch (error) {
        if (!isRetryable(error) || attempt >= this.retry.maxAttempts) throw this.explain(error, attempt);
        await sleep(this.delayBefore(attempt + 1, error));
      }
    }
  }

  private async request(texts: readonly string[]): Promise<Float32Array[]> {
    const response = await this.client.embeddings.create({
      model: this.model,
      input: [...texts],
      // The SDK would otherwise ask for base64, which several compatible servers do not speak.
      encoding_format: 'float',
      ...(this.sendDimensions && this.expectedDimensions !== undefined ? { dimensions: this.expectedDimensions } : {}),
    });
    if (!Array.isArray(response?.data)) {
      throw new AppError('unavailable', `The embedding endpoint ${this.url} answered something that is not an embeddings response`);
    }
    const rows = [...response.data].sort((a, b) => a.index - b.index);
    if (rows.length !== texts.length || rows.some((row, i) => row.index !== i || !Array.isArray(row.embedding))) {
      throw new AppError('internal_error', `The embedding endpoint ${this.url} returned ${rows.length} embeddings for ${texts.length} inputs`);
    }
    return rows.map((row) => Float32Array.from(row.embedding));
  }

  /** Exponential with equal jitter, so retries spread out but still grow; Retry-After wins when longer. */
  private delayBefore(attempt: number, error: unknown): number {
    const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 2));
    const jittered = ceiling / 2 + Math.random() * (ceiling / 2);
    return Math.min(this.retry.maxDelayMs, Math.max(jittered, retryAfterMs(error)));
  }

  private explain(error: unknown, attempts: number): Error {
    if (error instanceof AppError) return error;
    const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
    if (error instanceof APIConnectionError) {
      const reason = `${connectionReason(error)}; ${tries}`;
      return new AppError('unavailable', `Cannot reach the embedding endpoint ${this.url} (${reason}). Is the server running?`, { cause: error });
    }
    if (error instanceof APIError && error.status !== undefined && isRetryableStatus(error.status)) {
      return new AppError('unavailable', `The embedding endpoint ${this.url} answered HTTP ${error.status} (${tries}): ${error.message}`, { cause: error });
    }
    if (error instanceof APIError) {
      const detail = `The embedding endpoint ${this.url} rejected the request for model ${this.model}: ${error.message}`;
      return new AppError('internal_error', detail, { cause: error });
    }
    // Anything else is an answer the SDK could not read (not JSON, cut short): the endpoint's fault.
    return new AppError('unavailable', `The embedding endpoint ${this.url} failed: ${String(error)}`, { cause: error });
  }
}

const isRetryableStatus = (status: number): boolean => status === 408 || status === 429 || status >= 500;

function isRetryable(error: unknown): boolean {
  if (error instanceof APIConnectionError) return true;
  return error instanceof APIError && error.status !== undefined && isRetryableStatus(error.status);
}

function retryAfterMs(error: unknown): number {
  if (!(error instanceof APIError) || !error.headers) return 0;
  const ms = Number(error.headers.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const seconds = Number(error.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
}

/** The outbound client's reason, or the socket-level one (ECONNREFUSED, ENOTFOUND), in the SDK error's cause chain. */
function connectionReason(error: APIConnectionError): string {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 5 && cause instanceof Error; depth++) {
    if (cause instanceof OutboundError && cause.kind !== 'connection') return cause.message;
    const code = (cause as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
    cause = cause.cause;
  }
  return error.message;
}
