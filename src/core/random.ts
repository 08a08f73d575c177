/**
 * Deterministic pseudo-random numbers in [0, 1) for a seed (mulberry32): the same seed always
 * gives the same sequence, so what is drawn from it (synthetic requests, sample catalogs, test
 * data) can be reproduced exactly.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
