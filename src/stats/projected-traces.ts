/**
 * The modelled test's effective sample size on levels without n x n matrices: the fast path of
 * uneven-spacing.ts's projectCovariance + projectedEffectiveN (the dense reference, which the tests
 * compare this with) for the drift-plus-white-noise model (noise-model.ts).
 *
 * n_eff = tr(M S_x) tr(M S_y) / tr(M S_x M S_y) + p, M = I - QQ' (Q: the orthonormalised columns,
 * p <= 3), S = d K + (1 - d) I with K_ij = exp(-|u_i - u_j| / theta) on the model's axis and d the
 * drift's share. Expanding M,
 *   tr(M S) = n - sum_k q_k'S q_k,
 *   tr(M S_x M S_y) = tr(S_x S_y) - 2 sum_k (S_x q_k)'(S_y q_k) + sum_kl (Q'S_x Q)_kl (Q'S_y Q)_lk,
 * and each piece is O(n): K v by a forward and a backward exponential recursion (K is the
 * covariance of a Markov process: K_ij = prod of exp(-gap / theta) over the gaps between i and j),
 * and tr(S_x S_y) = n + 2 d_x d_y sum_{i>j} K_x,ij K_y,ij by the same recursion on the product
 * kernel (each series may have its own axis and theta). A run's pair then costs O(n p) and each
 * series O(n p) memory, where the dense form took O(n^2) of both (6 GB at 1000 checkpoints).
 */
import { dot } from './linalg.ts';
import { axisTimes, type NoiseModel } from './noise-model.ts';

/** What one series' model contributes to its pairs' effective n. */
export interface ModelTraces {
  /** The drift's share (0 for white noise: theta 0). */
  drift: number;
  /** exp(-gap / theta) between consecutive checkpoints on the model's axis (length n; entry 0 unused). */
  decay: Float64Array;
  /** S q_k for each orthonormal column. */
  sq: Float64Array[];
  /** Q'S Q (p x p, row-major). */
  g: Float64Array;
  /** tr(M S). */
  trace: number;
  /** Per gap, -gap / theta (for the product kernel of a pair), or null for white noise. */
  rate: Float64Array | null;
}

/** The model's pieces at the checkpoints' steps, for the orthonormal columns q of the regression. */
export function modelTraces(model: Pick<NoiseModel, 'theta' | 'nugget' | 'axis'>, steps: ArrayLike<number>, q: readonly Float64Array[]): ModelTraces {
  const n = steps.length, p = q.length;
  const white = model.theta <= 0;
  const drift = white ? 0 : 1 - model.nugget;
  const decay = new Float64Array(n);
  let rate: Float64Array | null = null;
  if (!white) {
    const u = axisTimes(steps, model.axis);
    rate = new Float64Array(n);
    for (let i = 1; i < n; i++) { rate[i] = -(u[i] - u[i - 1]) / model.theta; decay[i] = Math.exp(rate[i]); }
  }
  const sq = q.map((col) => covarianceTimes(col, drift, decay));
  const g = new Float64Array(p * p);
  let trace = n;
  for (let k = 0; k < p; k++) {
    for (let l = 0; l < p; l++) g[k * p + l] = dot(q[k], sq[l]);
    trace -= g[k * p + k];
  }
  return { drift, decay, sq, g, trace, rate };
}

/** S v = v + d (F + B): F_i = sum_{j<i} K_ij v_j and B_i = sum_{j>i} K_ij v_j by recursions. */
export function covarianceTimes(v: Float64Array, drift: number, decay: Float64Array): Float64Array {
  const n = v.length;
  const out = Float64Array.from(v);
  if (drift === 0) return out;
  let f = 0;
  for (let i = 1; i < n; i++) { f = decay[i] * (f + v[i - 1]); out[i] += drift * f; }
  let b = 0;
  for (let i = n - 2; i >= 0; i--) { b = decay[i + 1] * (b + v[i + 1]); out[i] += drift * b; }
  return out;
}

/** tr(S_x S_y): n from the diagonal, plus twice the drifts' product kernel summed below it. */
function traceOfProduct(x: ModelTraces, y: ModelTraces, n: number): number {
  if (!x.rate || !y.rate) return n;
  let r = 0, sum = 0;
  for (let i = 1; i < n; i++) {
    r = Math.exp(x.rate[i] + y.rate[i]) * (r + 1);
    sum += r;
  }
  return n + 2 * x.drift * y.drift * sum;
}

/** n_eff = tr(M S_x) tr(M S_y) / tr(M S_x M S_y) + p, at most n: projectedEffectiveN's value, in O(n p). */
export function tracesEffectiveN(x: ModelTraces, y: ModelTraces, p: number, n: number): number {
  const m = x.sq.length;
  let cross = traceOfProduct(x, y, n);
  for (let k = 0; k < m; k++) cross -= 2 * dot(x.sq[k], y.sq[k]);
  for (let k = 0; k < m; k++) for (let l = 0; l < m; l++) cross += x.g[k * m + l] * y.g[l * m + k];
  if (!(cross > 0)) return n;
  return Math.min(n, x.trace * y.trace / cross + p);
}
