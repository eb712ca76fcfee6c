/**
 * The weighted least-squares core of the random-effects model y_i = x_i'b + u_i + e_i, with
 * e_i ~ N(0, v_i) (known within-run variance) and u_i ~ N(0, tau^2) (between-run variance):
 * for a given tau^2, with weights w_i = 1 / (v_i + tau^2) and W = diag(w),
 *   b = (X'WX)^-1 X'W y,   Var(b) = (X'WX)^-1,
 *   P = W - W X (X'WX)^-1 X' W     (the residual-maker of the weighted fit),
 * and the quantities every estimator and test is built from: y'Py (the weighted residual sum of
 * squares, the generalised Q statistic), tr(P), y'PPy and tr(PP).
 * These are metafor's definitions (Viechtbauer 2010, J. Stat. Softw. 36(3); rma.uni source), which
 * forms the k x k matrix P; here the traces come from p x p products instead (O(k p^2), so a
 * thousand runs cost milliseconds).
 */
import { UserError } from '../errors.ts';
import { choleskyUpper } from './linalg.ts';

/** The design: k rows of p columns, row-major. */
export interface Design { k: number; p: number; x: Float64Array }

export interface WeightedFit {
  /** Coefficients b (p). */
  beta: Float64Array;
  /** (X'WX)^-1 (p x p, row-major): the variance of b under the model. */
  vb: Float64Array;
  /** y'Py = sum w_i (y_i - x_i'b)^2. */
  rss: number;
  /** tr(P). */
  trP: number;
  /** y'PPy = |Py|^2 (only with `second`). */
  yPPy: number;
  /** tr(PP) = sum of P_ij^2 (P is symmetric; only with `second`). */
  trPP: number;
}

/** The intercept-only design (k x 1 of ones). */
export function interceptDesign(k: number): Design {
  return { k, p: 1, x: new Float64Array(k).fill(1) };
}

/**
 * The weighted fit at between-run variance tau2 (tau2 = 0: the fixed-effect, inverse-variance
 * fit). `second` also computes y'PPy and tr(PP), which only REML needs.
 */
export function weightedFit(y: Float64Array, v: Float64Array, tau2: number, design: Design, second = false): WeightedFit {
  return design.p === 1 ? weightedFitOneColumn(y, v, tau2, design, second) : weightedFitAnyColumns(y, v, tau2, design, second);
}

/**
 * weightedFit(...).rss (y'Py, the generalised Q statistic) alone: the Q-profile's and Paule-Mandel's
 * bisections ask only for it, ~100 times a pair. With one column, the same operations in the same order
 * as weightedFitOneColumn's without its arrays, result object and other sums (at 30 runs x 1225 pairs,
 * the whole fits were 103 of 1138 profiled ms of the cheapest analysis; issue 40).
 */
export function weightedRss(y: Float64Array, v: Float64Array, tau2: number, design: Design): number {
  if (design.p !== 1) return weightedFitAnyColumns(y, v, tau2, design).rss;
  const { k, x } = design;
  let xwx = 0, xwy = 0;
  for (let i = 0; i < k; i++) {
    const wi = 1 / (v[i] + tau2), xi = x[i];
    const wa = wi * xi;
    xwy += wa * y[i];
    xwx += wa * xi;
  }
  if (!(xwx > 1e-13 * Math.max(0, xwx))) singularDesign();
  const li = 1 / Math.sqrt(xwx);
  const vb = 0 + li * li, beta = 0 + vb * xwy;
  let rss = 0;
  for (let i = 0; i < k; i++) {
    const w1 = 1 / (v[i] + tau2);
    const e = y[i] - (0 + x[i] * beta);
    rss += w1 * e * e;
  }
  return rss;
}

/** weightedFit for any number of columns (the reference weightedFitOneColumn is tested against). */
export function weightedFitAnyColumns(y: Float64Array, v: Float64Array, tau2: number, design: Design, second = false): WeightedFit {
  const { k, p, x } = design;
  const w = new Float64Array(k);
  for (let i = 0; i < k; i++) w[i] = 1 / (v[i] + tau2);
  // X'WX and X'Wy
  const xwx = new Float64Array(p * p);
  const xwy = new Float64Array(p);
  for (let i = 0; i < k; i++) {
    const o = i * p;
    for (let a = 0; a < p; a++) {
      const wa = w[i] * x[o + a];
      xwy[a] += wa * y[i];
      for (let b = 0; b <= a; b++) xwx[a * p + b] += wa * x[o + b];
    }
  }
  for (let a = 0; a < p; a++) for (let b = 0; b < a; b++) xwx[b * p + a] = xwx[a * p + b];
  const vb = invertPositiveDefinite(xwx, p);
  const beta = new Float64Array(p);
  for (let a = 0; a < p; a++) {
    let s = 0;
    for (let b = 0; b < p; b++) s += vb[a * p + b] * xwy[b];
    beta[a] = s;
  }
  // residuals e = y - Xb; Py = W e, so y'Py = sum w e^2 and y'PPy = sum w^2 e^2
  let rss = 0, yPPy = 0;
  for (let i = 0; i < k; i++) {
    let fitted = 0;
    for (let a = 0; a < p; a++) fitted += x[i * p + a] * beta[a];
    const e = y[i] - fitted;
    rss += w[i] * e * e;
    yPPy += w[i] * w[i] * e * e;
  }
  // with A = WX and M = (X'WX)^-1: tr(P) = sum w - tr(M X'W^2X) and
  // tr(PP) = sum w^2 - 2 tr(M X'W^3X) + tr(M X'W^2X M X'W^2X), all p x p: O(k p^2), P never formed
  const xw2x = new Float64Array(p * p), xw3x = new Float64Array(p * p);
  let sumW = 0, sumW2 = 0;
  for (let i = 0; i < k; i++) {
    const w1 = w[i], w2 = w1 * w1, w3 = w2 * w1;
    sumW += w1; sumW2 += w2;
    for (let a = 0; a < p; a++) {
      const xa = x[i * p + a];
      for (let b = 0; b < p; b++) {
        const xab = xa * x[i * p + b];
        xw2x[a * p + b] += w2 * xab;
        xw3x[a * p + b] += w3 * xab;
      }
    }
  }
  const mB = matMul(vb, xw2x, p); // M X'W^2X
  const trP = sumW - trace(mB, p);
  let trPP = Number.NaN;
  if (second) {
    trPP = sumW2 - 2 * trace(matMul(vb, xw3x, p), p) + trace(matMul(mB, mB, p), p);
  } else {
    yPPy = Number.NaN;
  }
  return { beta, vb, rss, trP, yPPy, trPP };
}

/**
 * weightedFit with one column (the intercept-only model of every pair's meta-analysis): the same
 * operations on the same values in the same order, without the p x p arrays (a pair's REML and
 * Q-profile make ~80 fits; at 30 runs x 1225 pairs these fits were 9% of the cheapest analysis).
 * The inverse is the Cholesky one's (1 / sqrt(a))^2, not 1 / a, so that the bits agree.
 */
function weightedFitOneColumn(y: Float64Array, v: Float64Array, tau2: number, design: Design, second: boolean): WeightedFit {
  const { k, x } = design;
  let xwx = 0, xwy = 0, sumW = 0, sumW2 = 0, xw2x = 0, xw3x = 0;
  const w = new Float64Array(k);
  for (let i = 0; i < k; i++) {
    const wi = (w[i] = 1 / (v[i] + tau2)), xi = x[i];
    const wa = wi * xi;
    xwy += wa * y[i];
    xwx += wa * xi;
  }
  if (!(xwx > 1e-13 * Math.max(0, xwx))) singularDesign();
  const li = 1 / Math.sqrt(xwx);
  // `0 +` as the general path's sums start at 0: the same zero's sign
  const vb = 0 + li * li, beta = 0 + vb * xwy;
  let rss = 0, yPPy = 0;
  for (let i = 0; i < k; i++) {
    const w1 = w[i], xi = x[i];
    const e = y[i] - (0 + xi * beta);
    rss += w1 * e * e;
    yPPy += w1 * w1 * e * e;
    const w2 = w1 * w1, w3 = w2 * w1, xab = xi * xi;
    sumW += w1; sumW2 += w2;
    xw2x += w2 * xab;
    xw3x += w3 * xab;
  }
  const mB = 0 + vb * xw2x;
  const trP = sumW - (0 + mB);
  const trPP = second ? sumW2 - 2 * (0 + (0 + vb * xw3x)) + (0 + (0 + mB * mB)) : Number.NaN;
  return { beta: Float64Array.of(beta), vb: Float64Array.of(vb), rss, trP, yPPy: second ? yPPy : Number.NaN, trPP };
}

function singularDesign(): never {
  throw new UserError(
    'the moderator design is singular: a column is a combination of the others (e.g. a level with no runs, or a constant numeric moderator)',
  );
}

function matMul(a: Float64Array, b: Float64Array, p: number): Float64Array {
  const out = new Float64Array(p * p);
  for (let i = 0; i < p; i++) {
    for (let m = 0; m < p; m++) {
      const aim = a[i * p + m];
      for (let j = 0; j < p; j++) out[i * p + j] += aim * b[m * p + j];
    }
  }
  return out;
}

function trace(a: Float64Array, p: number): number {
  let t = 0;
  for (let i = 0; i < p; i++) t += a[i * p + i];
  return t;
}

/** Inverse of a symmetric positive-definite p x p matrix by Cholesky; a singular one is the caller's design. */
export function invertPositiveDefinite(a: Float64Array, p: number): Float64Array {
  const R = choleskyUpper(a, p); // A = R'R, so L = R' below
  if (R === null) singularDesign();
  // inv(L) with L = R', then inv(A) = inv(L)' inv(L)
  const Li = new Float64Array(p * p);
  for (let j = 0; j < p; j++) {
    Li[j * p + j] = 1 / R[j * p + j];
    for (let i = j + 1; i < p; i++) {
      let s = 0;
      for (let m = j; m < i; m++) s -= R[m * p + i] * Li[m * p + j];
      Li[i * p + j] = s / R[i * p + i];
    }
  }
  const inv = new Float64Array(p * p);
  for (let i = 0; i < p; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let m = i; m < p; m++) s += Li[m * p + i] * Li[m * p + j];
      inv[i * p + j] = s;
      inv[j * p + i] = s;
    }
  }
  return inv;
}
