/** Fitting and checking the relevance calibration (used by tools/calibrate.ts). */

/** One labelled candidate: its fusion features [cosine, bm25, coverage, titleCoverage], the label, and its query. */
export interface Example {
  x: [number, number, number, number];
  y: 0 | 1;
  group: string;
}

/** Logistic regression by Newton's method (5 parameters), with a small L2 penalty for stability. */
export function fitLogistic(examples: readonly Example[], l2 = 1e-3, iterations = 30): number[] {
  const d = 5;
  let w = new Array<number>(d).fill(0);
  for (let it = 0; it < iterations; it++) {
    const grad = new Array<number>(d).fill(0);
    const hess = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    for (const e of examples) {
      const xi = [1, ...e.x];
      const p = 1 / (1 + Math.exp(-xi.reduce((s, v, k) => s + v * w[k]!, 0)));
      for (let a = 0; a < d; a++) {
        grad[a]! += (p - e.y) * xi[a]!;
        for (let b = 0; b < d; b++) hess[a]![b]! += p * (1 - p) * xi[a]! * xi[b]!;
      }
    }
    for (let a = 1; a < d; a++) {
      grad[a]! += l2 * examples.length * w[a]!;
      hess[a]![a]! += l2 * examples.length;
    }
    const step = solve(hess, grad);
    w = w.map((v, k) => v - step[k]!);
    if (Math.max(...step.map(Math.abs)) < 1e-8) break;
  }
  return w;
}

/** Gaussian elimination with partial pivoting: small dense systems only. */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[pivot]![c]!)) pivot = r;
    [m[c], m[pivot]] = [m[pivot]!, m[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c || m[c]![c] === 0) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

/** Expected calibration error over 10 equal-width probability bins. */
export function expectedCalibrationError(predictions: readonly { p: number; y: number }[]): number {
  const bins = Array.from({ length: 10 }, () => ({ n: 0, p: 0, y: 0 }));
  for (const { p, y } of predictions) {
    const bin = bins[Math.min(9, Math.floor(p * 10))]!;
    bin.n += 1;
    bin.p += p;
    bin.y += y;
  }
  return bins.reduce((sum, b) => (b.n === 0 ? sum : sum + (b.n / predictions.length) * Math.abs(b.p / b.n - b.y / b.n)), 0);
}

