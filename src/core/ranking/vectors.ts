/**
 * Cosine arithmetic on embedding vectors, shared by the catalog store (which re-scores what an
 * ANN index returns) and the ranking features, so both see the same, exact figure.
 */

/**
 * Candidate vectors are the catalog store's cached arrays, the same objects search after search,
 * so each one's norm is computed once: a search then needs one pass over each vector instead of
 * two (docs/search.md).
 */
const norms = new WeakMap<Float32Array, number>();
export function normOf(v: Float32Array): number {
  let n = norms.get(v);
  if (n === undefined) {
    let s = 0;
    for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
    n = Math.sqrt(s);
    norms.set(v, n);
  }
  return n;
}

// Two functions rather than one over Float32Array | Float64Array: a loop that sees both element
// kinds is compiled for both and runs slower for each.
function dotOf(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < b.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

export function dotWith64(a: Float64Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < b.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

/** Cosine similarity from the full-precision vectors; 0 when either is all zeros. */
export function cosineOf(a: Float32Array, b: Float32Array): number {
  return dotOf(a, b) / (normOf(a) * normOf(b) || 1);
}

/** The normalised mean of unit vectors (one vector stays as it is). */
export function meanVector(vectors: readonly Float32Array[]): Float32Array {
  if (vectors.length === 1) return vectors[0]!;
  const out = new Float32Array(vectors[0]!.length);
  for (const v of vectors) for (let i = 0; i < out.length; i++) out[i]! += v[i]!;
  let norm = 0;
  for (let i = 0; i < out.length; i++) norm += out[i]! * out[i]!;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < out.length; i++) out[i]! /= norm;
  return out;
}
