/**
 * The noise model's REML fit (noise-model.ts) for many residual series on the same regression
 * columns and checkpoints: a run's OOD sets, and the calibration's simulated series. The fits are
 * the reference's to the last bit (the same search, each objective value computed by the same
 * floating-point operations in the same order), only faster:
 * - at the search's grid points the Kalman filter and the whitened regression columns (their Gram
 *   matrix's Cholesky factor and log-determinant) depend only on the columns and the schedule, so
 *   they are computed once for all series; a series' grid value is then its own whitening and p dot
 *   products, with no exp, log or sqrt;
 * - off the grid (the golden-section refinement), the filter, the whitening and the dot products are
 *   one pass with no arrays written, and the filter's coefficients exp(-gap / theta) are kept while
 *   only the nugget moves.
 * The grid is what was slow: 262 of each axis' ~400 objective evaluations, each with n exps and logs.
 */
import { choleskyUpper, dot, solveUpperTransposed } from './linalg.ts';
import {
  axisTimes, filterFor, gridTheta, NUGGET_GRID, searchReml, THETA_GRID, whiten, type Filter, type NoiseModel, type TimeAxis,
} from './noise-model.ts';

/** At one grid point: the filter, and the whitened columns' Cholesky factor (null: not positive definite) and log-determinant. */
interface GridPoint { f: Filter; zx: Float64Array[]; r: Float64Array | null; logdetG: number }

interface Axis { axis: TimeAxis; u: Float64Array; white: GridPoint; grid: GridPoint[] }

/**
 * A fitter of the noise model to residual series of the regression on the columns `x` (the
 * intercept among them) at the checkpoints' `steps`: fitter(series)[i] equals fitNoiseModel(series[i],
 * x, steps, axes), null where series[i] is null (no residuals to fit).
 */
export function noiseModelFitter(
  x: readonly Float64Array[], steps: ArrayLike<number>, axes: readonly TimeAxis[] = ['step', 'log-step'],
): (series: readonly (Float64Array | null)[]) => (NoiseModel | null)[] {
  const n = steps.length, p = x.length;
  const prepared: Axis[] = axes.map((axis) => {
    const u = axisTimes(steps, axis);
    const grid: GridPoint[] = [];
    for (let i = 0; i <= THETA_GRID; i++) for (const nugget of NUGGET_GRID) grid.push(gridPoint(u, x, gridTheta(i), nugget));
    return { axis, u, white: gridPoint(u, x, 0, 1), grid };
  });
  const w = new Float64Array(p);
  // whiten's recursion and the dot products z_x'z_e, z_e'z_e as running sums, in one pass
  const atPoint = (gp: GridPoint, e: Float64Array): number => {
    if (!gp.r) return Infinity;
    const { a, k, sd } = gp.f;
    w.fill(0);
    let m = 0, ee = 0;
    for (let i = 0; i < n; i++) {
      const pred = a[i] * m, nu = e[i] - pred, z = nu / sd[i];
      m = pred + k[i] * nu;
      ee += z * z;
      for (let j = 0; j < p; j++) w[j] += gp.zx[j][i] * z;
    }
    solveUpperTransposed(gp.r, p, w, 1);
    const q = ee - dot(w, w);
    if (!(q > 0)) return Infinity;
    return gp.f.logdet + gp.logdetG + (n - p) * Math.log(q);
  };
  const objective = fusedObjective(x, n);
  const nuggets = NUGGET_GRID.length;
  // grid point by grid point over all the series (each point's arrays read while in cache), then each series' search
  return (series) => {
    const best: (NoiseModel | null)[] = series.map(() => null);
    for (const a of prepared) {
      const points = [a.white, ...a.grid];
      const values = series.map((e) => (e ? new Float64Array(points.length) : undefined));
      points.forEach((gp, g) => series.forEach((e, s) => { if (e) values[s]![g] = atPoint(gp, e); }));
      series.forEach((e, s) => {
        if (!e) return;
        const v = values[s]!;
        const fit = searchReml(objective(e, a.u), (i, j) => v[i < 0 ? 0 : 1 + i * nuggets + j], a.axis);
        const b = best[s];
        if (!b || fit.logLik > b.logLik + 1e-9) best[s] = fit;
      });
    }
    return best;
  };
}

function gridPoint(u: Float64Array, x: readonly Float64Array[], theta: number, nugget: number): GridPoint {
  const n = u.length, p = x.length;
  const f: Filter = { a: new Float64Array(n), k: new Float64Array(n), sd: new Float64Array(n), logdet: 0 };
  filterFor(u, theta, nugget, f);
  const zx = x.map((col) => { const z = new Float64Array(n); whiten(col, f, z); return z; });
  const g = new Float64Array(p * p);
  for (let j = 0; j < p; j++) for (let m = 0; m <= j; m++) g[j * p + m] = g[m * p + j] = dot(zx[j], zx[m]);
  const r = choleskyUpper(g, p);
  let logdetG = 0;
  if (r) for (let j = 0; j < p; j++) logdetG += 2 * Math.log(r[j * p + j]);
  return { f, zx, r, logdetG };
}

/**
 * noise-model.ts's objective in one pass: filterFor's recursion, whiten's of e and of each column,
 * and the dot products as running sums, each in the reference's order of operations.
 */
function fusedObjective(x: readonly Float64Array[], n: number): (e: Float64Array, u: Float64Array) => (theta: number, nugget: number) => number {
  const p = x.length;
  const a = new Float64Array(n), mx = new Float64Array(p), zx = new Float64Array(p), w = new Float64Array(p), g = new Float64Array(p * p);
  let aTheta = NaN, aU: Float64Array | undefined;
  return (e, u) => (theta, nugget) => {
    if (theta !== aTheta || u !== aU) {
      for (let i = 1; i < n; i++) a[i] = theta <= 0 ? 0 : Math.exp(-(u[i] - u[i - 1]) / theta);
      aTheta = theta;
      aU = u;
    }
    const drift = 1 - nugget;
    let pv = drift, logdet = 0, me = 0, ee = 0;
    mx.fill(0);
    w.fill(0);
    g.fill(0);
    for (let i = 0; i < n; i++) {
      const ai = i > 0 ? a[i] : 0;
      if (i > 0) pv = ai * ai * pv + drift * (1 - ai * ai);
      const fi = Math.max(pv + nugget, 1e-12);
      const sd = Math.sqrt(fi), k = pv / fi;
      logdet += Math.log(fi);
      pv = pv * (1 - k);
      const pe = ai * me, nue = e[i] - pe, z = nue / sd;
      me = pe + k * nue;
      ee += z * z;
      for (let j = 0; j < p; j++) {
        const pj = ai * mx[j], nuj = x[j][i] - pj, zj = nuj / sd;
        mx[j] = pj + k * nuj;
        zx[j] = zj;
        w[j] += zj * z;
      }
      for (let j = 0; j < p; j++) for (let m = 0; m <= j; m++) g[j * p + m] += zx[j] * zx[m];
    }
    for (let j = 0; j < p; j++) for (let m = 0; m < j; m++) g[m * p + j] = g[j * p + m];
    const r = choleskyUpper(g, p);
    if (!r) return Infinity;
    solveUpperTransposed(r, p, w, 1);
    const q = ee - dot(w, w);
    if (!(q > 0)) return Infinity;
    let logdetG = 0;
    for (let j = 0; j < p; j++) logdetG += 2 * Math.log(r[j * p + j]);
    return logdet + logdetG + (n - p) * Math.log(q);
  };
}
