import { existsSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, resolve } from 'node:path';

export type EmbeddingProviderName = 'use-lite' | 'openai' | 'transformers';

/** The catalog records this name; it is the same model the reference folder and transformers.js load. */
export const USE_LITE_MODEL = 'google/universal-sentence-encoder-lite';
export const USE_LITE_DIMENSIONS = 512;

/**
 * The same model with its dense layers' weights in 8 bits (use-lite/onnx-graph.ts): its own name,
 * so a catalog embedded by one is never searched with the other's vectors.
 */
export const USE_LITE_INT8_MODEL = 'google/universal-sentence-encoder-lite:int8';

const USE_LITE_ALIASES = new Set(['use-lite', 'google/universal-sentence-encoder-lite', 'universal-sentence-encoder-lite']);
const USE_LITE_INT8_ALIASES = new Set(['use-lite-int8', USE_LITE_INT8_MODEL]);

/** Which build of USE-lite a use-lite `model` setting names: float32 (the default) or int8. */
export function useLitePrecision(model: string | undefined): 'float32' | 'int8' {
  return model !== undefined && USE_LITE_INT8_ALIASES.has(model) ? 'int8' : 'float32';
}

export interface ResolvedTransformersModel {
  /** What transformers.js is asked to load: the hub id, or the folder's name under localModelPath. */
  id: string;
  /** The folder's parent for a local model; null for a hub id. */
  localModelPath: string | null;
}

/**
 * Decides whether `model` is a local folder or a hub id. A string that looks like a path
 * (absolute, `./`, `../`, `~`) must be an existing folder; throws otherwise, rather than asking
 * the hub for a model named like a typo'd path.
 */
export function resolveTransformersModel(model: string): ResolvedTransformersModel {
  const looksLikePath = isAbsolute(model) || /^(\.{1,2}|~)([/\\]|$)/.test(model) || model.includes('\\');
  const folder = resolve(model);
  if (existsSync(folder) && statSync(folder).isDirectory()) {
    // transformers.js joins localModelPath and the id; the folder name is the id under its parent.
    return { id: basename(folder), localModelPath: dirname(folder) };
  }
  if (looksLikePath) throw new Error(`The transformers model folder ${folder} does not exist`);
  return { id: model, localModelPath: null };
}

/**
 * The name the configured provider's embedder will report as its `model`, without loading it:
 * catalogs and ranking models are keyed by it, so tools that only read or judge ranking models
 * (`npm run learn`, `npm run aisle -- ranking …`) need the name, not the model. Throws on the
 * options the provider itself would refuse (a model use-lite does not run, a dimension it does
 * not give, a missing model name).
 */
export function embeddingModelName(options: { provider: EmbeddingProviderName; model?: string; dimensions?: number }): string {
  const { model, dimensions } = options;
  switch (options.provider) {
    case 'use-lite':
      if (model !== undefined && !USE_LITE_ALIASES.has(model) && !USE_LITE_INT8_ALIASES.has(model)) {
        throw new Error(
          `The use-lite provider runs only ${USE_LITE_MODEL} (use-lite) and its 8-bit build (use-lite-int8), not ${model}; use the transformers or openai provider for other models`,
        );
      }
      if (dimensions !== undefined && dimensions !== USE_LITE_DIMENSIONS) {
        throw new Error(`${USE_LITE_MODEL} produces ${USE_LITE_DIMENSIONS}-dimensional vectors, but ${dimensions} are configured`);
      }
      return useLitePrecision(model) === 'int8' ? USE_LITE_INT8_MODEL : USE_LITE_MODEL;
    case 'openai':
      if (model === undefined) throw new Error('The openai embedding provider needs a model name');
      return model;
    case 'transformers':
      if (model === undefined) throw new Error('The transformers embedding provider needs a model id or folder');
      return resolveTransformersModel(model).id;
  }
}
