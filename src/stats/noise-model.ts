/**
 * The dependence model of a residual series, fitted by REML: a smooth drift plus white noise.
 *
 * Model. e_i = x(t_i) + w_i: x an Ornstein-Uhlenbeck process (continuous-time AR(1), correlation
 * exp(-|t_i - t_j| / theta)) of variance (1 - nugget) s^2, and w white noise of variance nugget s^2
 * (a "nugget": Cressie 1993, "Statistics for Spatial Data", 2.3.1). A score measured on a finite
 * test set is exactly this: the checkpoint's true score drifts smoothly while its binomial
 * sampling noise is white. An AR(1) alone (lag-1 autocorrelation) sees the white part and calls
 * the series nearly independent: with 30 log-spaced checkpoints whose deviations are smooth in
 * log-step under white binomial noise, the true effective sample size was 7.5-19 where the lag-1
 * form counted 27-37, and a null pair was rejected in 29-31% of runs.
 *
 * Time axis. The drift may be smooth in steps or in log-steps (learning moves fast early and slowly
 * late): both axes are fitted, t = step / g0 and t = log(step + g1) / median log-gap (g0 the median
 * gap, g1 the smallest positive gap), and the one with the larger restricted likelihood is used
 * (both models have the same two parameters, so their likelihoods compare directly).
 *
 * Likelihood. The model is a state-space model (scalar state x, observation x + w), so the Kalman
 * filter's innovations whiten it exactly in O(n) (Harvey 1989, "Forecasting, Structural Time Series
 * Models and the Kalman Filter", 3.4; Jones 1981 for the irregularly sampled OU): log|V| is the
 * sum of the innovation variances' logs, and V^-1/2 v is the filter applied to v. REML (Harville
 * 1974) on the residuals of the regression on X = [1, control]: the GLS residual sum of squares q
 * of the whitened data on the whitened X, -2 l = log|V| + log|X'V^-1 X| + (n - p) log q, with the
 * scale s^2 profiled out. REML rather than ML because ML's downward bias of an autocorrelation
 * after a regression makes short-series tests liberal (Cheang and Reinsel 2000, JASA 95).
 * Maximised over a grid of (log theta, nugget), then coordinate-wise golden-section refinement.
 */
import { MAX_PHI } from './effective-sample-size.ts';
import { choleskyUpper, dot, solveUpperTransposed } from './linalg.ts';
import { spacingOf } from './uneven-spacing.ts';

export type TimeAxis = 'step' | 'log-step';

export interface NoiseModel {
  /** OU time constant in units of the axis' reference gap (0: no drift, white noise only). */
  theta: number;
  /** Share of the variance that is white (0: a pure OU drift; 1: white noise). */
  nugget: number;
  axis: TimeAxis;
  /** The drift's correlation at the reference gap, exp(-1 / theta), at most MAX_PHI. */
  phi: number;
  /** The restricted log-likelihood at the fit (up to a constant). */
  logLik: number;
}

/** Largest theta fitted (phi = exp(-1 / theta) <= MAX_PHI). */
export const MAX_THETA = -1 / Math.log(MAX_PHI);
const MIN_THETA = 1e-3;
export const THETA_GRID = 28;
export const NUGGET_GRID = [0, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 0.97];

/** The checkpoints' times on one axis, in units of that axis' median gap, starting at 0. */
export function axisTimes(steps: ArrayLike<number>, axis: TimeAxis): Float64Array {
  const n = steps.length;
  if (axis === 'step') {
    const g0 = n > 1 ? spacingOf(steps).reference_gap : 1;
    return Float64Array.from(steps, (s) => (s - steps[0]) / (g0 > 0 ? g0 : 1));
  }
  let g1 = Infinity;
  for (let i = 1; i < n; i++) { const g = steps[i] - steps[i - 1]; if (g > 0 && g < g1) g1 = g; }
  if (!Number.isFinite(g1)) g1 = 1;
  const logs = Float64Array.from(steps, (s) => Math.log(s - steps[0] + g1));
  const g0 = n > 1 ? spacingOf(logs).reference_gap : 1;
  return logs.map((v) => (v - logs[0]) / (g0 > 0 ? g0 : 1));
}

/** The Kalman filter's gains for one (theta, nugget) on times u: applying them whitens a series. */
export interface Filter { a: Float64Array; k: Float64Array; sd: Float64Array; logdet: number }

export function filterFor(u: Float64Array, theta: number, nugget: number, f: Filter): void {
  const n = u.length;
  const drift = 1 - nugget;
  let p = drift; // P(i | i-1): the state's prior variance
  let logdet = 0;
  for (let i = 0; i < n; i++) {
    if (i > 0) {
      const ai = theta <= 0 ? 0 : Math.exp(-(u[i] - u[i - 1]) / theta);
      f.a[i] = ai;
      p = ai * ai * p + drift * (1 - ai * ai);
    } else {
      f.a[0] = 0;
    }
    const fi = Math.max(p + nugget, 1e-12);
    f.sd[i] = Math.sqrt(fi);
    f.k[i] = p / fi;
    logdet += Math.log(fi);
    p = p * (1 - p / fi); // P(i | i)
  }
  f.logdet = logdet;
}

/** The innovations of v under the filter, each divided by its standard deviation: V^-1/2 v. */
export function whiten(v: Float64Array, f: Filter, out: Float64Array): void {
  let m = 0; // the state's filtered mean
  for (let i = 0; i < v.length; i++) {
    const pred = f.a[i] * m;
    const nu = v[i] - pred;
    out[i] = nu / f.sd[i];
    m = pred + f.k[i] * nu;
  }
}

/** -2 x the restricted log-likelihood's profile (up to a constant), or Infinity when undefined. */
function makeObjective(e: Float64Array, x: readonly Float64Array[], u: Float64Array): (theta: number, nugget: number) => number {
  const n = e.length, p = x.length;
  const f: Filter = { a: new Float64Array(n), k: new Float64Array(n), sd: new Float64Array(n), logdet: 0 };
  const ze = new Float64Array(n);
  const zx = x.map(() => new Float64Array(n));
  const g = new Float64Array(p * p), w = new Float64Array(p);
  return (theta, nugget) => {
    filterFor(u, theta, nugget, f);
    whiten(e, f, ze);
    for (let j = 0; j < p; j++) whiten(x[j], f, zx[j]);
    for (let j = 0; j < p; j++) {
      w[j] = dot(zx[j], ze);
      for (let m = 0; m <= j; m++) g[j * p + m] = g[m * p + j] = dot(zx[j], zx[m]);
    }
    // q = z_e'z_e - h'G^-1 h = z_e'z_e - |R'^-1 h|^2 with R'R = G (h = Z_x'z_e, solved in place in w)
    const r = choleskyUpper(g, p);
    if (!r) return Infinity;
    solveUpperTransposed(r, p, w, 1);
    const q = dot(ze, ze) - dot(w, w);
    if (!(q > 0)) return Infinity;
    let logdetG = 0;
    for (let j = 0; j < p; j++) logdetG += 2 * Math.log(r[j * p + j]);
    return f.logdet + logdetG + (n - p) * Math.log(q);
  };
}

/**
 * The REML fit of the drift-plus-white-noise model to residuals `e` of the regression on the
 * columns `x` (with the intercept among them), at the checkpoints' `steps`, on the better axis.
 * `axes` restricts the axes tried.
 */
export function fitNoiseModel(
  e: Float64Array, x: readonly Float64Array[], steps: ArrayLike<number>, axes: readonly TimeAxis[] = ['step', 'log-step'],
): NoiseModel {
  let best: NoiseModel | undefined;
  for (const axis of axes) {
    const fit = fitOnAxis(e, x, axisTimes(steps, axis), axis);
    if (!best || fit.logLik > best.logLik + 1e-9) best = fit;
  }
  return best!;
}

function fitOnAxis(e: Float64Array, x: readonly Float64Array[], u: Float64Array, axis: TimeAxis): NoiseModel {
  const objective = makeObjective(e, x, u);
  return searchReml(objective, (i, j) => objective(i < 0 ? 0 : gridTheta(i), i < 0 ? 1 : NUGGET_GRID[j]), axis);
}

/** The grid's thetas: log(theta) evenly from MIN_THETA to MAX_THETA, i = 0..THETA_GRID. */
export const gridTheta = (i: number): number => Math.exp(Math.log(MIN_THETA) + (Math.log(MAX_THETA) - Math.log(MIN_THETA)) * i / THETA_GRID);

/**
 * The REML search on one axis: the best point of the (theta, nugget) grid, then coordinate-wise
 * golden-section refinement around it. `objective` is -2 x the restricted log-likelihood at any
 * point; `atGrid(i, j)` its value at grid theta i and nugget NUGGET_GRID[j] (i = -1: white noise),
 * which a caller fitting many series on one schedule computes faster (noise-model-batch.ts).
 */
export function searchReml(
  objectiveAt: (theta: number, nugget: number) => number, atGrid: (i: number, j: number) => number, axis: TimeAxis,
): NoiseModel {
  const objective = remembered(objectiveAt);
  const lo = Math.log(MIN_THETA), hi = Math.log(MAX_THETA);
  // white noise (theta 0) is the model's boundary; every nugget gives the same fit there
  let bestTheta = 0, bestNugget = 1, bestValue = atGrid(-1, 0), bestI = -1;
  for (let i = 0; i <= THETA_GRID; i++) {
    for (let j = 0; j < NUGGET_GRID.length; j++) {
      const v = atGrid(i, j);
      if (v < bestValue - 1e-12) { bestValue = v; bestTheta = gridTheta(i); bestNugget = NUGGET_GRID[j]; bestI = i; }
    }
  }
  if (bestI >= 0) {
    let logTheta = Math.log(bestTheta), nugget = bestNugget;
    const thetaLo = lo + (hi - lo) * Math.max(0, bestI - 1) / THETA_GRID, thetaHi = lo + (hi - lo) * Math.min(THETA_GRID, bestI + 1) / THETA_GRID;
    for (let round = 0; round < 2; round++) {
      logTheta = goldenMin((t) => objective(Math.exp(t), nugget), thetaLo, thetaHi, logTheta);
      nugget = goldenMin((w) => objective(Math.exp(logTheta), w), Math.max(0, nugget - 0.15), Math.min(0.995, nugget + 0.15), nugget);
    }
    const refined = objective(Math.exp(logTheta), nugget);
    if (refined < bestValue) { bestValue = refined; bestTheta = Math.exp(logTheta); bestNugget = nugget; }
  }
  return { theta: bestTheta, nugget: bestNugget, axis, phi: phiOf(bestTheta), logLik: -0.5 * bestValue };
}

/**
 * The objective with its last few values kept: each golden-section search ends on f(mid) and
 * f(start), and the next one starts where the last ended, so about one evaluation in 30 repeats one.
 */
function remembered(f: (theta: number, nugget: number) => number): (theta: number, nugget: number) => number {
  const thetas = [NaN, NaN, NaN, NaN], nuggets = [NaN, NaN, NaN, NaN], values = [0, 0, 0, 0];
  let next = 0;
  return (theta, nugget) => {
    for (let i = 0; i < 4; i++) if (thetas[i] === theta && nuggets[i] === nugget) return values[i];
    const v = f(theta, nugget);
    thetas[next] = theta; nuggets[next] = nugget; values[next] = v;
    next = (next + 1) % 4;
    return v;
  };
}

/** phi = exp(-1 / theta), the drift's correlation at the reference gap. */
export function phiOf(theta: number): number {
  return theta <= 0 ? 0 : Math.min(MAX_PHI, Math.exp(-1 / theta));
}

/** Golden-section search for a minimum of f on [a, b]; returns `start` when nothing beats it. */
function goldenMin(f: (v: number) => number, a: number, b: number, start: number): number {
  const ratio = (Math.sqrt(5) - 1) / 2;
  let left = a, right = b;
  let c = right - ratio * (right - left), d = left + ratio * (right - left);
  let fc = f(c), fd = f(d);
  for (let it = 0; it < 30; it++) {
    if (fc < fd) { right = d; d = c; fd = fc; c = right - ratio * (right - left); fc = f(c); }
    else { left = c; c = d; fc = fd; d = left + ratio * (right - left); fd = f(d); }
  }
  const mid = (left + right) / 2;
  return f(mid) <= f(start) ? mid : start;
}

/**
 * The model's correlation matrix (n x n, row-major) at the checkpoints' steps: (1 - nugget)
 * exp(-|t_i - t_j| / theta) off the diagonal, 1 on it. `driftOnly` leaves the white part out.
 */
export function noiseCorrelation(model: NoiseModel, steps: ArrayLike<number>, driftOnly = false): Float64Array {
  const u = axisTimes(steps, model.axis);
  const n = u.length;
  const s = new Float64Array(n * n);
  const drift = 1 - model.nugget;
  for (let i = 0; i < n; i++) {
    s[i * n + i] = driftOnly ? drift : 1;
    if (model.theta <= 0) continue;
    for (let j = 0; j < i; j++) s[i * n + j] = s[j * n + i] = drift * Math.exp(-(u[i] - u[j]) / model.theta);
  }
  return s;
}
