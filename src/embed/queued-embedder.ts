import { LRUCache } from 'lru-cache';
import PQueue from 'p-queue';
import type { Embedder } from '../core/shared-ports.js';
import { assertEmbeddable, type EmbeddingProvider } from './provider.js';

export interface QueuedEmbedderOptions {
  /** Single-query vectors kept in memory, keyed by exact text. 0 disables the cache. Default 1,000 (~2 MB at 512-d). */
  queryCacheSize?: number;
  /** Provider calls in flight at once. Default 2. */
  concurrency?: number;
}

/** Told of each batch the model embedded: how many texts, in how many seconds (the server's metrics). */
export type BatchObserver = (texts: number, seconds: number) => void;

/** Counters for tests, logs and the bench: they show what reached the model. */
export interface EmbedderStats {
  /** `embedBatch` calls made to the provider. */
  providerCalls: number;
  /** Texts sent to the provider. */
  providerTexts: number;
  /** Single-text `embed` calls. */
  queries: number;
  /** Single-text calls answered from the cache (including ones that joined an identical call in flight). */
  cacheHits: number;
  /** Single-text calls that went to the provider. */
  cacheMisses: number;
}

// Queries jump the queue: a person is waiting on them, ingestion can wait ~0.2 s more.
const QUERY_PRIORITY = 1;
const BULK_PRIORITY = 0;

/**
 * The Embedder the rest of Aisle uses, around any provider: bounded concurrency (p-queue, queries
 * first), an LRU cache for single-query calls, and chunking of large calls to the provider's batch size.
 */
export class QueuedEmbedder implements Embedder {
  private readonly queue: PQueue;
  private readonly cache: LRUCache<string, Float32Array> | null;
  private readonly counters: EmbedderStats = { providerCalls: 0, providerTexts: 0, queries: 0, cacheHits: 0, cacheMisses: 0 };
  private closed = false;
  /** Set by the server when it keeps metrics (docs/operations.md). */
  onBatch: BatchObserver | null = null;

  constructor(
    private readonly provider: EmbeddingProvider,
    options: QueuedEmbedderOptions = {},
  ) {
    this.queue = new PQueue({ concurrency: options.concurrency ?? 2 });
    const size = options.queryCacheSize ?? 1_000;
    // fetchMethod makes concurrent identical queries share one model call; a failed call is not cached.
    this.cache = size > 0 ? new LRUCache<string, Float32Array>({ max: size, fetchMethod: (text) => this.embedOne(text) }) : null;
  }

  get model(): string {
    return this.provider.model;
  }

  get dimensions(): number {
    return this.provider.dimensions;
  }

  get concurrency(): number {
    return this.queue.concurrency;
  }

  /**
   * Unit-length vectors in input order. One text is a query: served from the LRU cache when
   * seen before. More texts are ingestion: never cached, sent in chunks of the provider's batch
   * size while leaving one slot free for queries. Throws AppError `validation_failed` for a text
   * that is empty after trimming, and whatever the provider throws (e.g. `unavailable`).
   */
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.closed) throw new Error('The embedder is closed');
    assertEmbeddable(texts);
    if (texts.length === 0) return [];
    if (texts.length === 1) return [await this.embedQuery(texts[0] as string)];
    return this.embedBulk(texts);
  }

  /** A snapshot of the counters. */
  stats(): EmbedderStats {
    return { ...this.counters, cacheHits: this.counters.queries - this.counters.cacheMisses };
  }

  /** Waits for work in flight, then releases the provider. Later calls throw. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.onIdle();
    this.cache?.clear();
    await this.provider.close();
  }

  private async embedQuery(text: string): Promise<Float32Array> {
    this.counters.queries++;
    if (!this.cache) return this.embedOne(text);
    const vector = await this.cache.fetch(text);
    if (!vector) throw new Error('The query cache returned no vector');
    // A copy: callers may scale or reuse their vector, the cached one must stay intact.
    return vector.slice();
  }

  private async embedOne(text: string): Promise<Float32Array> {
    this.counters.cacheMisses++;
    const [vector] = await this.queue.add(() => this.callProvider([text]), { priority: QUERY_PRIORITY });
    if (!vector) throw new Error(`${this.provider.model} returned no vector`);
    return vector;
  }

  private async embedBulk(texts: readonly string[]): Promise<Float32Array[]> {
    const size = this.provider.maxBatchSize;
    const chunks = Array.from({ length: Math.ceil(texts.length / size) }, (_, i) => texts.slice(i * size, (i + 1) * size));
    const results = new Array<Float32Array[]>(chunks.length);
    // One bulk call never holds every slot, so queries keep flowing during ingestion.
    const lanes = Math.min(chunks.length, Math.max(1, this.queue.concurrency - 1));
    let next = 0;
    let failed = false;
    const lane = async (): Promise<void> => {
      while (!failed && next < chunks.length) {
        const i = next++;
        try {
          results[i] = await this.queue.add(() => this.callProvider(chunks[i] as string[]), { priority: BULK_PRIORITY });
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: lanes }, lane));
    return results.flat();
  }

  private async callProvider(texts: readonly string[]): Promise<Float32Array[]> {
    this.counters.providerCalls++;
    this.counters.providerTexts += texts.length;
    const started = performance.now();
    const vectors = await this.provider.embedBatch(texts);
    this.onBatch?.(texts.length, (performance.now() - started) / 1000);
    if (vectors.length !== texts.length) throw new Error(`${this.provider.model} returned ${vectors.length} vectors for ${texts.length} texts`);
    return vectors;
  }
}
