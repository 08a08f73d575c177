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
