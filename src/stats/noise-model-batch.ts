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
 * - with the usual two columns (intercept and control) the sums are held in locals, two series pass
 *   through each grid point together (their recursions are chains of dependent operations, which
 *   the processor then runs side by side), and an exp or log whose argument repeats the one before
 *   it is not recomputed (equal gaps; the filter's variance at its fixed point), and on equal gaps
 *   the refinement's filter stops once its variance reaches that fixed point (objective2Repeating).
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
    if (p === 2) return atPoint2(gp, gp.r, a, k, sd, e, n);
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
      const fitted = series.flatMap((e, s) => (e ? [s] : []));
      points.forEach((gp, g) => {
        let t = 0;
        // two columns: two series per pass, whose recursions run side by side (each is a chain of dependent operations)
        for (; p === 2 && gp.r && t + 1 < fitted.length; t += 2) {
          const s1 = fitted[t], s2 = fitted[t + 1];
          atPoint2Pair(gp, gp.r, series[s1]!, series[s2]!, n, values[s1]!, values[s2]!, g);
        }
        for (; t < fitted.length; t++) values[fitted[t]]![g] = atPoint(gp, series[fitted[t]]!);
      });
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
 * atPoint2 of two series at once (into out1[g] and out2[g]): each series' operations are atPoint2's,
 * in its order; only the two recursions are interleaved.
 */
function atPoint2Pair(
  gp: GridPoint, r: Float64Array, e: Float64Array, f: Float64Array, n: number, out1: Float64Array, out2: Float64Array, g: number,
): void {
  const { a, k, sd } = gp.f;
  const z0 = gp.zx[0], z1 = gp.zx[1];
  let m = 0, ee = 0, w0 = 0, w1 = 0, mf = 0, ff = 0, v0 = 0, v1 = 0;
  for (let i = 0; i < n; i++) {
    const ai = a[i], ki = k[i], si = sd[i], x0 = z0[i], x1 = z1[i];
    const pred = ai * m, nu = e[i] - pred, z = nu / si;
    m = pred + ki * nu;
    const predf = ai * mf, nuf = f[i] - predf, zf = nuf / si;
    mf = predf + ki * nuf;
    ee += z * z;
    w0 += x0 * z;
    w1 += x1 * z;
    ff += zf * zf;
    v0 += x0 * zf;
    v1 += x1 * zf;
  }
  out1[g] = gridValue(gp, r, ee, w0, w1, n);
  out2[g] = gridValue(gp, r, ff, v0, v1, n);
}

/** The grid point's objective from a series' sums (two columns): solveUpperTransposed and dot on p = 2, in their order. */
function gridValue(gp: GridPoint, r: Float64Array, ee: number, w0: number, w1: number, n: number): number {
  w0 /= r[0];
  if (r[1] !== 0) w1 -= r[1] * w0;
  w1 /= r[3];
  const q = ee - (w0 * w0 + w1 * w1);
  if (!(q > 0)) return Infinity;
  return gp.f.logdet + gp.logdetG + (n - 2) * Math.log(q);
}

/**
 * atPoint for the usual two columns (intercept and control): the same operations in the same order
 * as solveUpperTransposed and dot on p = 2, with the sums held in locals rather than an array.
 */
function atPoint2(
  gp: GridPoint, r: Float64Array, a: Float64Array, k: Float64Array, sd: Float64Array, e: Float64Array, n: number,
): number {
  const z0 = gp.zx[0], z1 = gp.zx[1];
  let m = 0, ee = 0, w0 = 0, w1 = 0;
  for (let i = 0; i < n; i++) {
    const pred = a[i] * m, nu = e[i] - pred, z = nu / sd[i];
    m = pred + k[i] * nu;
    ee += z * z;
    w0 += z0[i] * z;
    w1 += z1[i] * z;
  }
  return gridValue(gp, r, ee, w0, w1, n);
}

/**
 * noise-model.ts's objective in one pass: filterFor's recursion, whiten's of e and of each column,
 * and the dot products as running sums, each in the reference's order of operations. Two repeats
 * are not recomputed: exp(-gap / theta) where a gap equals the one before it (an even schedule's,
 * Pythia's 1000-step tail), and the log and square root of an innovation variance equal to the one
 * before it (the filter's variance reaches its fixed point on equal gaps).
 */
function fusedObjective(x: readonly Float64Array[], n: number): (e: Float64Array, u: Float64Array) => (theta: number, nugget: number) => number {
  const p = x.length;
  const a = new Float64Array(n), mx = new Float64Array(p), zx = new Float64Array(p), w = new Float64Array(p), g = new Float64Array(p * p);
  const sameGap = new Uint8Array(n);
  let aTheta = NaN, aU: Float64Array | undefined, repeating = false;
  return (e, u) => (theta, nugget) => {
    if (u !== aU) {
      for (let i = 2; i < n; i++) sameGap[i] = u[i] - u[i - 1] === u[i - 1] - u[i - 2] ? 1 : 0;
      repeating = sameGap.includes(1);
      aU = u;
      aTheta = NaN;
    }
    if (theta !== aTheta) {
      for (let i = 1; i < n; i++) a[i] = theta <= 0 ? 0 : sameGap[i] ? a[i - 1] : Math.exp(-(u[i] - u[i - 1]) / theta);
      aTheta = theta;
    }
    if (p === 2) return (repeating ? objective2Repeating : objective2)(x[0], x[1], a, e, n, nugget);
    const drift = 1 - nugget;
    let pv = drift, logdet = 0, me = 0, ee = 0, lastF = NaN, lastLog = 0, lastSd = 0;
    mx.fill(0);
    w.fill(0);
    g.fill(0);
    for (let i = 0; i < n; i++) {
      const ai = i > 0 ? a[i] : 0;
      if (i > 0) pv = ai * ai * pv + drift * (1 - ai * ai);
      const fi = Math.max(pv + nugget, 1e-12);
      if (fi !== lastF) { lastF = fi; lastLog = Math.log(fi); lastSd = Math.sqrt(fi); }
      const sd = lastSd, k = pv / fi;
      logdet += lastLog;
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

/**
 * The objective for the usual two columns, x0 and x1: the loop above with its sums in locals, and
 * choleskyUpper, solveUpperTransposed and dot on p = 2 written out in their order of operations.
 */
function objective2(x0: Float64Array, x1: Float64Array, a: Float64Array, e: Float64Array, n: number, nugget: number): number {
  const drift = 1 - nugget;
  let pv = drift, logdet = 0, me = 0, ee = 0, lastF = NaN, lastLog = 0, lastSd = 0;
  let m0 = 0, m1 = 0, w0 = 0, w1 = 0, g00 = 0, g10 = 0, g11 = 0;
  for (let i = 0; i < n; i++) {
    const ai = i > 0 ? a[i] : 0;
    if (i > 0) pv = ai * ai * pv + drift * (1 - ai * ai);
    const fi = Math.max(pv + nugget, 1e-12);
    if (fi !== lastF) { lastF = fi; lastLog = Math.log(fi); lastSd = Math.sqrt(fi); }
    const sd = lastSd, k = pv / fi;
    logdet += lastLog;
    pv = pv * (1 - k);
    const pe = ai * me, nue = e[i] - pe, z = nue / sd;
    me = pe + k * nue;
    ee += z * z;
    const p0 = ai * m0, nu0 = x0[i] - p0, z0 = nu0 / sd;
    m0 = p0 + k * nu0;
    const p1 = ai * m1, nu1 = x1[i] - p1, z1 = nu1 / sd;
    m1 = p1 + k * nu1;
    w0 += z0 * z;
    w1 += z1 * z;
    g00 += z0 * z0;
    g10 += z1 * z0;
    g11 += z1 * z1;
  }
  return objective2End(logdet, ee, w0, w1, g00, g10, g11, n);
}

/** The end of objective2: choleskyUpper, solveUpperTransposed and dot on p = 2 written out in their order of operations. */
function objective2End(logdet: number, ee: number, w0: number, w1: number, g00: number, g10: number, g11: number, n: number): number {
  const maxDiag = Math.max(Math.max(0, g00), g11);
  if (!(g00 > 1e-13 * maxDiag)) return Infinity;
  const r00 = Math.sqrt(g00), r01 = g10 / r00;
  let d = g11;
  d -= r01 * r01;
  if (!(d > 1e-13 * maxDiag)) return Infinity;
  const r11 = Math.sqrt(d);
  w0 /= r00;
  if (r01 !== 0) w1 -= r01 * w0;
  w1 /= r11;
  const q = ee - (w0 * w0 + w1 * w1);
  if (!(q > 0)) return Infinity;
  let logdetG = 0;
  logdetG += 2 * Math.log(r00);
  logdetG += 2 * Math.log(r11);
  return logdet + logdetG + (n - 2) * Math.log(q);
}

/**
 * objective2 on a schedule with repeated gaps (an even schedule's step axis, Pythia's 1000-step
 * tail): where the filter's prior variance repeats the one before it under the same coefficient (its
 * fixed point, reached within ~10-500 checkpoints), every later checkpoint under that coefficient
 * has the same gain and variance, so only the whitening runs there: the same operations on the same
 * values, without the filter's chain through a division at each checkpoint. Kept apart from
 * objective2, whose loop the check would slow on schedules with no repeated gap (the log-step axis).
 */
function objective2Repeating(x0: Float64Array, x1: Float64Array, a: Float64Array, e: Float64Array, n: number, nugget: number): number {
  const drift = 1 - nugget;
  let pv = drift, logdet = 0, me = 0, ee = 0, lastF = NaN, lastLog = 0, lastSd = 0;
  let m0 = 0, m1 = 0, w0 = 0, w1 = 0, g00 = 0, g10 = 0, g11 = 0;
  let prior = NaN;
  for (let i = 0; i < n; i++) {
    const ai = i > 0 ? a[i] : 0;
    if (i > 0) pv = ai * ai * pv + drift * (1 - ai * ai);
    const fixed = i > 1 && pv === prior && ai === a[i - 1];
    prior = pv;
    const fi = Math.max(pv + nugget, 1e-12);
    if (fi !== lastF) { lastF = fi; lastLog = Math.log(fi); lastSd = Math.sqrt(fi); }
    const sd = lastSd, k = pv / fi;
    logdet += lastLog;
    pv = pv * (1 - k);
    const pe = ai * me, nue = e[i] - pe, z = nue / sd;
    me = pe + k * nue;
    ee += z * z;
    const p0 = ai * m0, nu0 = x0[i] - p0, z0 = nu0 / sd;
    m0 = p0 + k * nu0;
    const p1 = ai * m1, nu1 = x1[i] - p1, z1 = nu1 / sd;
    m1 = p1 + k * nu1;
    w0 += z0 * z;
    w1 += z1 * z;
    g00 += z0 * z0;
    g10 += z1 * z0;
    g11 += z1 * z1;
    if (!fixed) continue;
    for (; i + 1 < n && a[i + 1] === ai; i++) {
      const j = i + 1;
      logdet += lastLog;
      const pe = ai * me, nue = e[j] - pe, z = nue / sd;
      me = pe + k * nue;
      ee += z * z;
      const p0 = ai * m0, nu0 = x0[j] - p0, z0 = nu0 / sd;
      m0 = p0 + k * nu0;
      const p1 = ai * m1, nu1 = x1[j] - p1, z1 = nu1 / sd;
      m1 = p1 + k * nu1;
      w0 += z0 * z;
      w1 += z1 * z;
      g00 += z0 * z0;
      g10 += z1 * z0;
      g11 += z1 * z1;
    }
  }
  return objective2End(logdet, ee, w0, w1, g00, g10, g11, n);
}
