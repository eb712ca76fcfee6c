/**
 * The modelled test's effective sample size on first differences without n x n matrices: the fast
 * path of the dense reference (uneven-spacing.ts: projectCovariance of the model's correlation,
 * scaledDifferenceCovariance, projectCovariance on the centring, projectedEffectiveN), which the tests
 * compare this with, for the drift-plus-white-noise model (noise-model.ts).
 *
 * The differences' covariance is B = L S L' with L = M_1 D_w M (m = n - 1 rows): M = I - QQ' the
 * levels' residual-maker, D_w the gap-scaled differencing ((D_w x)_i = w_i (x_{i+1} - x_i)), M_1 the
 * centring. Both traces need only N = L'L, which is the same for every series of a run:
 *   N = M (T - c c' / m) M = T + V H V',  T = D_w'D_w (tridiagonal), c = D_w'1,
 *   V = [Q, TQ, Mc] (2p + 1 columns), H = [[Q'TQ, -I, 0], [-I, 0, 0], [0, 0, -1/m]].
 * So tr(B) = tr(S N) = tr(G) + tr(H V'SV), with G = D_w S D_w' the scaled differences' own
 * covariance, and
 *   tr(B_x B_y) = tr(S_x N S_y N) = tr(G_x G_y) + 2 tr(H V'S_x T S_y V) + tr(H V'S_y V H V'S_x V).
 * S v is the levels' O(n) recursion (projected-traces.ts). G has an O(n) structure of its own: with
 * rho_k the drift's correlation across gap k and h_i = w_i (1 - rho_{i+1}),
 *   G_ii = 2 w_i^2 (nugget + d (1 - rho_{i+1})),  G_ij = -d h_i h_j prod_{k=j+2..i} rho_k - [i = j + 1] nugget w_i w_j
 * (i > j, d = 1 - nugget the drift's share), so tr(G_x G_y) is one forward recursion on the product
 * kernel. 1 - rho is taken as -expm1(-gap / theta), where the dense form subtracts correlations near 1.
 * A series then costs O(n p) time and memory and a pair O(n p), where the dense form took O(n^2) of
 * memory and O(n^2 p) of time per series and O(n^2) per pair.
 */
import { dot } from './linalg.ts';
import { axisTimes, type NoiseModel } from './noise-model.ts';
import { covarianceTimes } from './projected-traces.ts';

/** What every series of a run shares: the gap scales and N = T + V H V'. */
export interface DifferenceBasis {
  /** 1 / sqrt(gap) per difference on the scaled step axis (length m = n - 1). */
  w: Float64Array;
  /** The columns of V. */
  v: Float64Array[];
  /** H (r x r, row-major, r = v.length). */
  h: Float64Array;
}

/** What one series' model contributes to its pairs' effective n on differences. */
export interface DifferenceTraces {
  drift: number;
  nugget: number;
  /** Per gap k (entry 0 unused): -gap / theta on the model's axis, or null for white noise. */
  rate: Float64Array | null;
  /** w_i (1 - rho_{i+1}) per difference. */
  hw: Float64Array;
  /** G's diagonal. */
  diagonal: Float64Array;
  /** S v_k and T S v_k for each column of V. */
  sv: Float64Array[];
  tsv: Float64Array[];
  /** V'S V (r x r). */
  vsv: Float64Array;
  /** tr(B). */
  trace: number;
}

/**
 * The shared part for checkpoints at scaled times `u` (uneven-pair-tests.ts scaledTimes) and the
 * orthonormal columns `q` of the levels' regression.
 */
export function differenceBasis(u: ArrayLike<number>, q: readonly Float64Array[]): DifferenceBasis {
  const n = u.length, m = n - 1, p = q.length;
  const w = new Float64Array(m);
  for (let i = 0; i < m; i++) w[i] = 1 / Math.sqrt(u[i + 1] - u[i]);
  const tq = q.map((col) => tridiagonalTimes(col, w));
  const c = new Float64Array(n);
  for (let i = 0; i < m; i++) { c[i] -= w[i]; c[i + 1] += w[i]; }
  for (const col of q) { const t = dot(col, c); for (let i = 0; i < n; i++) c[i] -= t * col[i]; }
  const v = [...q, ...tq, c];
  const r = v.length;
  const h = new Float64Array(r * r);
  for (let k = 0; k < p; k++) {
    for (let l = 0; l < p; l++) h[k * r + l] = dot(q[k], tq[l]);
    h[k * r + p + k] = h[(p + k) * r + k] = -1;
  }
  h[r * r - 1] = -1 / m;
  return { w, v, h };
}

/** The model's pieces at the checkpoints' steps, for a run's basis. */
export function differenceTraces(
  model: Pick<NoiseModel, 'theta' | 'nugget' | 'axis'>, steps: ArrayLike<number>, basis: DifferenceBasis,
): DifferenceTraces {
  const n = steps.length, m = n - 1, { w, v } = basis, r = v.length;
  const white = model.theta <= 0;
  const drift = white ? 0 : 1 - model.nugget, nugget = white ? 1 : model.nugget;
  const decay = new Float64Array(n);
  const oneMinus = new Float64Array(n).fill(1);
  let rate: Float64Array | null = null;
  if (!white) {
    const t = axisTimes(steps, model.axis);
    rate = new Float64Array(n);
    for (let k = 1; k < n; k++) {
      rate[k] = -(t[k] - t[k - 1]) / model.theta;
      decay[k] = Math.exp(rate[k]);
      oneMinus[k] = -Math.expm1(rate[k]);
    }
  }
  const hw = new Float64Array(m), diagonal = new Float64Array(m);
  let trace = 0;
  for (let i = 0; i < m; i++) {
    hw[i] = w[i] * oneMinus[i + 1];
    diagonal[i] = 2 * w[i] * w[i] * (nugget + drift * oneMinus[i + 1]);
    trace += diagonal[i];
  }
  const sv = v.map((col) => covarianceTimes(col, drift, decay));
  const tsv = sv.map((col) => tridiagonalTimes(col, w));
  const vsv = new Float64Array(r * r);
  for (let k = 0; k < r; k++) for (let l = 0; l < r; l++) vsv[k * r + l] = dot(v[k], sv[l]);
  for (let k = 0; k < r; k++) for (let l = 0; l < r; l++) trace += basis.h[k * r + l] * vsv[l * r + k];
  return { drift, nugget, rate, hw, diagonal, sv, tsv, vsv, trace };
}

/** T x = D_w'(D_w x). */
function tridiagonalTimes(x: Float64Array, w: Float64Array): Float64Array {
  const out = new Float64Array(x.length);
  for (let i = 0; i < w.length; i++) {
    const d = w[i] * w[i] * (x[i + 1] - x[i]);
    out[i] -= d;
    out[i + 1] += d;
  }
  return out;
}

/** tr(G_x G_y): the diagonals' products plus twice the products below the diagonal, by one recursion. */
function traceOfDifferenceProduct(x: DifferenceTraces, y: DifferenceTraces, w: Float64Array): number {
  const m = w.length;
  let diagonal = 0;
  for (let i = 0; i < m; i++) diagonal += x.diagonal[i] * y.diagonal[i];
  // the first sub-diagonal's terms that hold a white part
  let sub = 0;
  for (let i = 1; i < m; i++) {
    const ww = w[i] * w[i - 1];
    sub += ww * (x.drift * x.hw[i] * x.hw[i - 1] * y.nugget + x.nugget * y.drift * y.hw[i] * y.hw[i - 1] + x.nugget * y.nugget * ww);
  }
  // the drifts' products: sum_{i>j} z_i z_j prod_{k=j+2..i} rho_x,k rho_y,k, z = hw_x hw_y
  let drifts = 0;
  if (x.rate && y.rate) {
    let s = 0;
    for (let i = 1; i < m; i++) {
      s = x.hw[i - 1] * y.hw[i - 1] + Math.exp(x.rate[i] + y.rate[i]) * s;
      drifts += x.hw[i] * y.hw[i] * s;
    }
  }
  return diagonal + 2 * (x.drift * y.drift * drifts + sub);
}

/**
 * n_eff = tr(B_x) tr(B_y) / tr(B_x B_y) + p, at most n (n: the differences' count): the dense
 * projectedEffectiveN of the projected difference covariances, in O(n p).
 */
export function differenceEffectiveN(x: DifferenceTraces, y: DifferenceTraces, basis: DifferenceBasis, p: number, n: number): number {
  const { h } = basis, r = basis.v.length;
  let cross = traceOfDifferenceProduct(x, y, basis.w);
  for (let k = 0; k < r; k++) {
    for (let l = 0; l < r; l++) if (h[k * r + l] !== 0) cross += 2 * h[k * r + l] * dot(x.tsv[l], y.sv[k]);
  }
  // tr(H Vy H Vx), Vx = V'S_x V
  for (let a = 0; a < r; a++) {
    for (let b = 0; b < r; b++) {
      let hv = 0, vh = 0;
      for (let k = 0; k < r; k++) { hv += h[a * r + k] * y.vsv[k * r + b]; vh += h[b * r + k] * x.vsv[k * r + a]; }
      cross += hv * vh;
    }
  }
  if (!(cross > 0)) return n;
  return Math.min(n, x.trace * y.trace / cross + p);
}
