import { AppError } from '../core/errors.js';

/**
 * What each embedding backend implements. Backends stay simple (one call in, one call out);
 * `QueuedEmbedder` adds what they all need: bounded concurrency, the query cache and chunking.
 */
export interface EmbeddingProvider {
  /** Identifies the vector space: the catalog records it, and a mismatch at start is an error. */
  readonly model: string;
  readonly dimensions: number;
  /** Most texts one `embedBatch` call accepts; callers chunk larger inputs. */
  readonly maxBatchSize: number;
  /** Unit-length vectors in input order. Texts are already checked non-empty by the caller. */
  embedBatch(texts: readonly string[]): Promise<Float32Array[]>;
  /** Releases sessions and sockets; the provider is unusable afterwards. */
  close(): Promise<void>;
}

/**
 * Throws AppError `validation_failed` when a text is empty after trimming: every model would
 * still return a vector for it, one that matches nothing and everything alike.
 */
export function assertEmbeddable(texts: readonly string[]): void {
  texts.forEach((text, i) => {
    if (text.trim() === '') {
      const which = texts.length === 1 ? 'The text' : `Text ${i}`;
      throw new AppError('validation_failed', `${which} to embed is empty after trimming whitespace; there is nothing to embed.`);
    }
  });
}

/**
 * Scales `vector` to unit length in place and returns it. Throws when it has no direction
 * (all zeros, NaN or infinite components): that is a broken backend, not a query to answer.
 */
export function normalizeInPlace(vector: Float32Array, source: string): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum);
  if (!Number.isFinite(norm) || norm === 0) {
    throw new AppError('internal_error', `${source} returned an embedding of length ${norm}; it cannot be normalised.`);
  }
  for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) / norm;
  return vector;
}
