/**
 * The effective-n test on unevenly spaced checkpoints (log-spaced early, as Pythia's 0, 1, 2, 4,
 * ..., 512, 1000, 3000, then every 10,000 steps, or `--save-log-spaced`). A lag-1 autocorrelation
 * and first differences both assume equal gaps: on such schedules with noise autocorrelated in
 * training steps the even-spacing test rejected 9-42% of true nulls at 5%, this one 2.8-5.7%
 * (bench/uneven-spacing.ts, the table in docs/analyze.md).
 *
 * Model. Each residual series is a continuous-time AR(1) (Ornstein-Uhlenbeck) process sampled at
 * the checkpoints' steps: corr(e_i, e_j) = exp(-|t_i - t_j| / tau) (Brockwell and Davis 2016,
 * "Introduction to Time Series and Forecasting", 3rd ed., 11.5; Jones 1981 for the irregularly
 * sampled likelihood). Sampled at gaps g_i, it is an AR(1) with coefficient a_i = exp(-g_i / tau)
 * and innovation variance 1 - a_i^2 (stationary variance 1), so its inverse covariance is
 * tridiagonal and the likelihood costs O(n).
 *
 * Fit. tau per residual series by restricted maximum likelihood (REML: the likelihood of the
 * residuals of the regression on X = [1, control], Harville 1974), maximised over a grid of
 * log(tau / g0) refined by golden-section search; g0 is the median gap, and phi = exp(-g0 / tau),
 * the correlation at that gap, is what the output reports (at most MAX_PHI, as on even spacing).
 * REML rather than ML because ML's downward bias of an autocorrelation after a regression is what
 * makes short-series tests liberal (Cheang and Reinsel 2000, JASA 95: REML removes most of it).
 *
 * Effective sample size. For independent x ~ N(0, S_x), y ~ N(0, S_y) and the residual-maker M of
 * X (p columns), r = x'My / sqrt(x'Mx y'My) has var(r) ~ tr(M S_x M S_y) / (tr(M S_x) tr(M S_y))
 * (Bartlett 1935's variance of a correlation between autocorrelated series, here with the
 * regression and any spacing in the matrices; Dutilleul 1993, Biometrics 49, eq. 2.5, for the
 * same form); with white noise it is 1 / (n - p), so n_eff = 1 / var(r) + p equals n, and for two
 * evenly spaced AR(1) series it is about Bartlett's n (1 - phi_x phi_y) / (1 + phi_x phi_y).
 *
 * Differences. First differences scaled by the square root of their gap, (v_{i+1} - v_i) /
 * sqrt(g_i / g0): a random walk's steps then have equal variance whatever the gap. Their
 * covariance follows from the levels' fit (S_d = W D S D' W, D the differencing matrix, W the
 * scaling) and their n_eff uses the residual-maker of [1, scaled differences of the control].
 * The pair is then reported on levels or differences, whichever has the larger n_eff, as on
 * even spacing (levels-or-differences.ts), and never counts more than its distinct checkpoints.
 */
import { MAX_PHI } from './effective-sample-size.ts';
import { choleskyUpper, dot, orthonormalise, solveUpperTransposed } from './linalg.ts';

/** Gaps that differ by more than this relative amount make a schedule uneven. */
const EVEN_TOLERANCE = 1e-9;

export interface Spacing {
  /** True when the gaps between consecutive checkpoints are not all equal. */
  uneven: boolean;
  /** The median gap in steps (g0): phi is the correlation at this gap. */
  reference_gap: number;
  min_gap: number;
  max_gap: number;
}

/** The spacing of a sorted step schedule (at least two steps). */
export function spacingOf(steps: ArrayLike<number>): Spacing {
  const gaps: number[] = [];
  for (let i = 1; i < steps.length; i++) gaps.push(steps[i] - steps[i - 1]);
  if (gaps.length === 0) return { uneven: false, reference_gap: 1, min_gap: 1, max_gap: 1 };
  const sorted = [...gaps].sort((a, b) => a - b);
  const h = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[h] : (sorted[h - 1] + sorted[h]) / 2;
  const minGap = sorted[0], maxGap = sorted[sorted.length - 1];
  return { uneven: maxGap - minGap > EVEN_TOLERANCE * maxGap, reference_gap: median, min_gap: minGap, max_gap: maxGap };
}

/** Largest tau / g0 fitted: phi = exp(-g0 / tau) <= MAX_PHI. */
export const MAX_THETA = -1 / Math.log(MAX_PHI);
/** Smallest tau / g0 on the grid (below it, even the shortest gaps of a log-spaced schedule decorrelate). */
const MIN_THETA = 1e-6;
const GRID = 120;

/** The REML fit of tau / g0 to residuals `e` of the regression on the columns `x`, at steps / g0 `u`. */
export function fitOuTheta(e: Float64Array, x: Float64Array[], u: Float64Array): number {
  const n = e.length;
  const p = x.length;
  const ze = new Float64Array(n);
  const zx = x.map(() => new Float64Array(n));
  const a = new Float64Array(n), s = new Float64Array(n);
  const reml = (theta: number): number => {
    let logdet = 0;
    for (let i = 1; i < n; i++) {
      const ai = theta <= 0 ? 0 : Math.exp(-(u[i] - u[i - 1]) / theta);
      const v = 1 - ai * ai;
      a[i] = ai; s[i] = 1 / Math.sqrt(v);
      logdet += Math.log(v);
    }
    const whiten = (v: Float64Array, z: Float64Array) => {
      z[0] = v[0];
      for (let i = 1; i < n; i++) z[i] = (v[i] - a[i] * v[i - 1]) * s[i];
    };
    whiten(e, ze);
    x.forEach((col, j) => whiten(col, zx[j]));
    // q = z_e'z_e - h' G^-1 h with G = Z_x'Z_x, h = Z_x'z_e (the GLS residual sum of squares)
    const g = new Float64Array(p * p), w = new Float64Array(p);
    for (let j = 0; j < p; j++) {
      w[j] = dot(zx[j], ze);
      for (let l = 0; l <= j; l++) g[j * p + l] = g[l * p + j] = dot(zx[j], zx[l]);
    }
    const chol = choleskyUpper(g, p);
    if (!chol) return -Infinity;
    solveUpperTransposed(chol, p, w, 1);
    const q = dot(ze, ze) - dot(w, w);
    let logdetG = 0;
    for (let j = 0; j < p; j++) logdetG += 2 * Math.log(chol[j * p + j]);
    if (!(q > 0)) return -Infinity;
    return -0.5 * (logdet + logdetG + (n - p) * Math.log(q));
  };
  // the grid: white noise, then log(theta) evenly from MIN_THETA to MAX_THETA
  const lo = Math.log(MIN_THETA), hi = Math.log(MAX_THETA);
  let best = 0, bestValue = reml(0), bestIndex = -1;
  for (let i = 0; i <= GRID; i++) {
    const theta = Math.exp(lo + (hi - lo) * i / GRID);
    const value = reml(theta);
    if (value > bestValue) { bestValue = value; best = theta; bestIndex = i; }
  }
  if (bestIndex < 0) return 0;
  // golden-section search on log(theta) between the grid neighbours of the best point
  let left = lo + (hi - lo) * Math.max(0, bestIndex - 1) / GRID, right = lo + (hi - lo) * Math.min(GRID, bestIndex + 1) / GRID;
  const ratio = (Math.sqrt(5) - 1) / 2;
  let c = right - ratio * (right - left), d = left + ratio * (right - left);
  let fc = reml(Math.exp(c)), fd = reml(Math.exp(d));
  for (let it = 0; it < 40; it++) {
    if (fc > fd) { right = d; d = c; fd = fc; c = right - ratio * (right - left); fc = reml(Math.exp(c)); }
    else { left = c; c = d; fc = fd; d = left + ratio * (right - left); fd = reml(Math.exp(d)); }
  }
  const refined = Math.exp((left + right) / 2);
  return reml(refined) >= bestValue ? refined : best;
}

/** phi = exp(-1 / theta), the correlation at the reference gap. */
export function phiOfTheta(theta: number): number {
  return theta <= 0 ? 0 : Math.min(MAX_PHI, Math.exp(-1 / theta));
}

/** The OU correlation matrix (n x n, row-major) at times u (steps / g0) with time constant theta. */
export function ouCorrelation(u: Float64Array, theta: number): Float64Array {
  const n = u.length;
  const s = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    s[i * n + i] = 1;
    if (theta <= 0) continue;
    for (let j = 0; j < i; j++) s[i * n + j] = s[j * n + i] = Math.exp(-(u[i] - u[j]) / theta);
  }
  return s;
}

/** The covariance of the gap-scaled first differences of a series with covariance s (n x n). */
export function scaledDifferenceCovariance(s: Float64Array, u: Float64Array): Float64Array {
  const n = u.length, m = n - 1;
  const w = new Float64Array(m);
  for (let i = 0; i < m; i++) w[i] = 1 / Math.sqrt(u[i + 1] - u[i]);
  const out = new Float64Array(m * m);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j <= i; j++) {
      const v = w[i] * w[j] * (s[(i + 1) * n + j + 1] - s[(i + 1) * n + j] - s[i * n + j + 1] + s[i * n + j]);
      out[i * m + j] = out[j * m + i] = v;
    }
  }
  return out;
}

/** The gap-scaled first differences of v at times u. */
export function scaledDifferences(v: Float64Array, u: Float64Array): Float64Array {
  const out = new Float64Array(Math.max(0, v.length - 1));
  for (let i = 0; i < out.length; i++) out[i] = (v[i + 1] - v[i]) / Math.sqrt(u[i + 1] - u[i]);
  return out;
}

/** M S M for the residual-maker M of the columns x (with the intercept among them), and its trace. */
export interface Projected { a: Float64Array; trace: number }

export function projectCovariance(s: Float64Array, x: Float64Array[]): Projected {
  return projectCovarianceInPlace(Float64Array.from(s), x);
}

/**
 * projectCovariance overwriting s (a temporary the caller drops): the same numbers, by the same
 * operations (each column's product taken before any column is subtracted), with no n x n copies.
 */
export function projectCovarianceInPlace(s: Float64Array, x: Float64Array[]): Projected {
  const n = x[0].length;
  const q = orthonormalise(x).q;
  // B = S - Q (Q'S), then A = B - (B Q) Q'
  const qs = q.map((col) => {
    const v = new Float64Array(n);
    for (let i = 0; i < n; i++) { const qi = col[i]; if (qi === 0) continue; for (let j = 0; j < n; j++) v[j] += qi * s[i * n + j]; }
    return v;
  });
  q.forEach((col, k) => { for (let i = 0; i < n; i++) { const qi = col[i], v = qs[k]; for (let j = 0; j < n; j++) s[i * n + j] -= qi * v[j]; } });
  const bq = q.map((col) => {
    const v = new Float64Array(n);
    for (let i = 0; i < n; i++) { let t = 0; for (let j = 0; j < n; j++) t += s[i * n + j] * col[j]; v[i] = t; }
    return v;
  });
  q.forEach((col, k) => { const v = bq[k]; for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) s[i * n + j] -= v[i] * col[j]; });
  let trace = 0;
  for (let i = 0; i < n; i++) trace += s[i * n + i];
  return { a: s, trace };
}

/**
 * n_eff = tr(A_x) tr(A_y) / tr(A_x A_y) + p for the projected covariances of two independent
 * series (p = the regression's columns), at most `n`.
 */
export function projectedEffectiveN(ax: Projected, ay: Projected, p: number, n: number): number {
  let cross = 0;
  for (let i = 0; i < ax.a.length; i++) cross += ax.a[i] * ay.a[i];
  if (!(cross > 0)) return n;
  return Math.min(n, ax.trace * ay.trace / cross + p);
}
