import { join } from 'node:path';
import { type DataType, env, type FeatureExtractionPipeline, pipeline } from '@huggingface/transformers';
import { turnOffOnnxTelemetry } from '../config.js';
import { resolveTransformersModel } from './model-name.js';
import type { EmbeddingProvider } from './provider.js';

export interface TransformersProviderOptions {
  /** A Hugging Face model id (`Xenova/bge-small-en-v1.5`) or a local folder holding config.json, tokenizer.json and onnx/. */
  model: string;
  /** Downloads of hub models go to `<cacheDir>/transformers`. */
  cacheDir: string;
  /** Expected vector size; start fails when the model's differs. */
  dimensions?: number;
  /** Default 'fp32'; 'q8' etc. only when the model folder has that file. */
  dtype?: DataType;
  /** Texts per pipeline call. Default 32. */
  maxBatchSize?: number;
}

/**
 * An embedding provider running a sentence-embedding ONNX model with transformers.js
 * (feature-extraction, mean pooling, L2 normalisation). A local folder is loaded with remote
 * downloads disabled; a hub id may download into `cacheDir`. Throws when the model cannot be
 * loaded or its dimension differs from `dimensions`.
 */
export async function createTransformersProvider(options: TransformersProviderOptions): Promise<EmbeddingProvider> {
  const resolved = resolveTransformersModel(options.model);
  turnOffOnnxTelemetry(); // transformers.js runs its models on onnxruntime-node
  // `env` is global to transformers.js and read while a pipeline loads; Aisle loads one at a time.
  if (resolved.localModelPath !== null) {
    env.localModelPath = `${resolved.localModelPath}/`;
    env.allowLocalModels = true;
    env.allowRemoteModels = false;
  } else {
    env.allowLocalModels = false;
    env.allowRemoteModels = true;
  }
  const extractor = await pipeline('feature-extraction', resolved.id, {
    dtype: options.dtype ?? 'fp32',
    cache_dir: join(options.cacheDir, 'transformers'),
    local_files_only: resolved.localModelPath !== null,
  });
  const [probe] = await extract(extractor, resolved.id, ['dimension probe']);
  const dimensions = probe?.length ?? 0;
  if (options.dimensions !== undefined && options.dimensions !== dimensions) {
    await extractor.dispose();
    throw new Error(`The transformers model ${options.model} produces ${dimensions}-dimensional vectors, but ${options.dimensions} are configured`);
  }
  return new TransformersProvider(extractor, resolved.id, dimensions, options.maxBatchSize ?? 32);
}

/** Mean-pooled, unit-length rows, one per text. */
async function extract(extractor: FeatureExtractionPipeline, model: string, texts: readonly string[]): Promise<Float32Array[]> {
  const output = await extractor([...texts], { pooling: 'mean', normalize: true });
  try {
    const [rows, width] = output.dims as [number, number];
    const data = output.data;
    if (!(data instanceof Float32Array) || rows !== texts.length) throw new Error(`${model} returned ${rows} embeddings for ${texts.length} texts`);
    return Array.from({ length: rows }, (_, i) => data.slice(i * width, (i + 1) * width));
  } finally {
    output.dispose();
  }
}

class TransformersProvider implements EmbeddingProvider {
  constructor(
    private readonly extractor: FeatureExtractionPipeline,
    readonly model: string,
    readonly dimensions: number,
    readonly maxBatchSize: number,
  ) {}

  embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
    return extract(this.extractor, this.model, texts);
  }

  async close(): Promise<void> {
    await this.extractor.dispose();
  }
}
