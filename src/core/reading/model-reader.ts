/**
 * The model reader (docs/search.md, "Readers"): a conversation is read by a language model behind
 * an OpenAI-compatible chat endpoint (src/reader/openai-chat.ts), which answers whether there is
 * a shopping need, whether the talk is sensitive, the product query and hard constraints
 * (ModelAnswerSchema). The offline reader answers instead on a timeout, an error, a busy endpoint
 * or an answer that does not fit the schema (`metadata.reader: offline_fallback`).
 *
 * - Product queries never reach the model: the offline reader searches them as typed.
 * - The model sees the conversation after redaction only (search redacts every text before
 *   reading; the texts are redacted again here, so no path can hand it personal data).
 * - The offline sensitive-topic patterns run first: a conversation they silence never reaches the
 *   model, and the model can silence more but never less.
 * - Answers are cached per conversation (its redacted text and the model's name), and calls in
 *   flight are bounded: a search waits for a slot only within its own time budget.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../clock.js';
import { redactPii } from '../pii/pii.js';
import type { Logger } from '../shared-ports.js';
import { isProductQuery } from '../understanding/need.js';
import { sensitiveTopic } from '../understanding/sensitive.js';
import { type ModelAnswer, ModelAnswerSchema } from './model-answer.js';
import { EMPTY_READING } from './offline-reader.js';
import type { ModelConversation, NeedReader, ReaderModel, ReadInput, Reading } from './ports.js';

/** Earlier turns the model reads, the latest (the sensitive-topic patterns read as many). */
const MODEL_TURNS = 8;
/** Characters of one turn the model reads (a request's turn can be 4,000). */
const MODEL_TURN_CHARS = 2_000;
/** How long a cached answer is used: the same conversation read again within an hour (a page, a retry) reads the same. */
export const MODEL_ANSWER_TTL_MS = 3_600_000;

export interface ModelReaderOptions {
  model: ReaderModel;
  /** The offline reader: product queries, and every conversation the model cannot answer in time. */
  fallback: NeedReader;
  /** A search's whole budget for the model: waiting for a slot and the call (AISLE_READER_TIMEOUT_MS). */
  timeoutMs: number;
  /** Calls to the endpoint in flight at most, per process (AISLE_READER_CONCURRENCY). */
  concurrency: number;
  /** Answers kept, the most recently used (AISLE_READER_CACHE_ENTRIES); 0 keeps none. */
  cacheEntries: number;
  /** How long a cached answer is used (by `clock`). */
  cacheTtlMs: number;
  clock: Clock;
  logger: Logger;
}

/** Why the offline reader answered instead of the model (logged; never the endpoint's key, which this side never holds). */
type FallbackReason = 'timeout' | 'busy' | 'error' | 'malformed';

export class ModelReader implements NeedReader {
  private readonly cache = new Map<string, { answer: ModelAnswer; at: number }>();
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly options: ModelReaderOptions) {}

  warm(): Promise<void> {
    return this.options.fallback.warm();
  }

  async read(input: ReadInput): Promise<Reading> {
    const { fallback } = this.options;
    // Product queries, and evaluation's lexical half, are read offline.
    if (input.retrieval === 'lexical' || isProductQuery(input.text, input.before)) return fallback.read(input);
    const conversation = toModelConversation(input);
    const texts = [conversation.message, ...conversation.turns.map((t) => t.content)];
    if (sensitiveTopic(texts) !== null) return fallback.read(input);

    const key = createHash('sha256')
      .update(JSON.stringify([this.options.model.name, conversation]))
      .digest('base64url');
    const cached = this.fromCache(key);
    if (cached !== null) return toReading(cached);
    const answered = await this.ask(conversation);
    if (typeof answered === 'string') {
      this.options.logger.warn(
        { reason: answered, model: this.options.model.name },
        'the reader model did not answer; the offline reader read the conversation',
      );
      return { ...(await fallback.read(input)), reader: 'offline_fallback' };
    }
    this.remember(key, answered);
    return toReading(answered);
  }

  /** The model's answer, or why there is none. */
  private async ask(conversation: ModelConversation): Promise<ModelAnswer | FallbackReason> {
    // Elapsed time, not the clock's dates (which tests move by hand), bounds the wait.
    const deadline = performance.now() + this.options.timeoutMs;
    if (!(await this.acquire(deadline))) return 'busy';
    const remaining = Math.floor(deadline - performance.now());
    try {
      if (remaining <= 0) return 'busy';
      const signal = AbortSignal.timeout(remaining);
      let raw: unknown;
      try {
        raw = await this.options.model.read(conversation, signal);
      } catch {
        return signal.aborted ? 'timeout' : 'error';
      }
      const parsed = ModelAnswerSchema.safeParse(raw);
      if (!parsed.success) return 'malformed';
      const answer = parsed.data;
      // A shopping need with nothing to search for is no answer.
      if (answer.shopping_need && !answer.sensitive && answer.product_query.trim() === '') return 'malformed';
      return answer;
    } finally {
      this.release();
    }
  }

  /** A slot for one call, waiting at most until `deadline`; false when none came in time. */
  private acquire(deadline: number): Promise<boolean> {
    if (this.inFlight < this.options.concurrency) {
      this.inFlight++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.inFlight++;
        resolve(true);
      };
      const timer = setTimeout(
        () => {
          const i = this.waiting.indexOf(wake);
          if (i >= 0) this.waiting.splice(i, 1);
          resolve(false);
        },
        Math.max(0, deadline - performance.now()),
      );
      this.waiting.push(wake);
    });
  }

  private release(): void {
    this.inFlight--;
    this.waiting.shift()?.();
  }

  private fromCache(key: string): ModelAnswer | null {
    const hit = this.cache.get(key);
    if (hit === undefined) return null;
    this.cache.delete(key);
    if (this.options.clock.now().getTime() - hit.at > this.options.cacheTtlMs) return null;
    this.cache.set(key, hit); // most recently used last
    return hit.answer;
  }

  private remember(key: string, answer: ModelAnswer): void {
    if (this.options.cacheEntries <= 0) return;
    this.cache.set(key, { answer, at: this.options.clock.now().getTime() });
    while (this.cache.size > this.options.cacheEntries) this.cache.delete(this.cache.keys().next().value!);
  }
}

/** The conversation as the model reads it: the latest turns, each bounded, redacted once more. */
function toModelConversation(input: ReadInput): ModelConversation {
  const clip = (text: string) => redactPii(text.slice(0, MODEL_TURN_CHARS)).text;
  return {
    turns: input.said.slice(-MODEL_TURNS).map((t) => ({ role: t.role, content: clip(t.content) })),
    message: clip(input.message),
  };
}

/** The model's answer as a reading: silence, or a product query with its constraints. */
function toReading(answer: ModelAnswer): Reading {
  const empty: Reading = { ...EMPTY_READING, reader: 'model' };
  if (answer.sensitive) return { ...empty, silence: 'sensitive_topic' };
  if (!answer.shopping_need) return { ...empty, silence: 'no_shopping_need' };
  const query = answer.product_query.replace(/\s+/g, ' ').trim();
  const { min_price: min, max_price: max } = answer;
  // A range upside down is a misreading: neither bound is kept.
  const prices = min !== null && max !== null && min > max ? {} : { ...(min !== null ? { minPrice: min } : {}), ...(max !== null ? { maxPrice: max } : {}) };
  const brand = answer.brand?.trim();
  return { ...empty, text: query, current: query, interpreted: query, constraints: { ...prices, ...(brand ? { brand } : {}) } };
}
