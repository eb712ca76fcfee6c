/**
 * Linear residualiser: residuals of a series after least squares on [1, covariates].
 *   e = y - Q Q' y,  with Q an orthonormal basis of the columns [1, c_1, ..., c_k] (QR, linalg.ts).
 * This is statsmodels OLS(y, add_constant(C)).resid, and what pingouin.partial_corr and R ppcor
 * compute implicitly through the inverse covariance matrix (Whittaker 1990; pingouin correlation.py).
 * Q is built once per set of covariates; each series then costs O(n (k + 1)) with no allocation.
 * Degrees of freedom used: k = the number of covariates, as pingouin counts them, even if one is
 * redundant (dropped from Q): df = n - 2 - k stays what the user asked for.
 */
import { orthonormalise } from './linalg.ts';

export interface SeriesResidualiser {
  /**
   * Writes y's residuals into `out` (may alias y); returns the model's dof beyond the intercept.
   * With `moments`, also stores the residuals' sum and sum of squares there (saves a pass).
   */
  residualise(y: Float64Array, out: Float64Array, moments?: Float64Array): number;
}

/** Sum and sum of squares of e into moments[0], moments[1]. */
export function fillMoments(e: Float64Array, moments: Float64Array): void {
  let sum = 0, sq = 0;
  for (let i = 0; i < e.length; i++) { const v = e[i]; sum += v; sq += v * v; }
  moments[0] = sum; moments[1] = sq;
}

export function linearResidualiser(covariates: Float64Array[], n: number): SeriesResidualiser {
  const k = covariates.length;
  const q = k === 1 ? oneCovariateBasis(covariates[0], n) : orthonormalise([new Float64Array(n).fill(1), ...covariates]).q;
  const p = q.length;
  // Q in one array, column after column, for monomorphic access in the hot loop
  const Q = new Float64Array(p * n);
  q.forEach((col, j) => Q.set(col, j * n));
  const coef = new Float64Array(p);
  return {
    residualise(y: Float64Array, out: Float64Array, moments?: Float64Array): number {
      if (p === 2) {
        // the usual case (one covariate): both projections in one pass over y, residuals and
        // their moments in a second
        let c0 = 0, c1 = 0;
        for (let i = 0; i < n; i++) { const v = y[i]; c0 += Q[i] * v; c1 += Q[n + i] * v; }
        let sum = 0, sq = 0;
        for (let i = 0; i < n; i++) { const e = y[i] - c0 * Q[i] - c1 * Q[n + i]; out[i] = e; sum += e; sq += e * e; }
        if (moments) { moments[0] = sum; moments[1] = sq; }
        return k;
      }
      if (out !== y) out.set(y);
      // Projecting out one basis vector at a time (modified Gram-Schmidt order) is the stable form.
      for (let j = 0; j < p; j++) {
        const off = j * n;
        let c = 0;
        for (let i = 0; i < n; i++) c += Q[off + i] * out[i];
        coef[j] = c;
        for (let i = 0; i < n; i++) out[i] -= c * Q[off + i];
      }
      if (moments) fillMoments(out, moments);
      return k;
    },
  };
}

/**
 * The orthonormal basis of [1, c] in closed form: 1/sqrt(n) and (c - mean c)/||c - mean c||
 * (two-pass centring, as accurate as Gram-Schmidt twice); a constant c contributes nothing.
 */
function oneCovariateBasis(c: Float64Array, n: number): Float64Array[] {
  const q0 = new Float64Array(n).fill(1 / Math.sqrt(n));
  let mean = 0;
  for (let i = 0; i < n; i++) mean += c[i];
  mean /= n;
  const q1 = new Float64Array(n);
  let ss = 0, raw = 0;
  for (let i = 0; i < n; i++) { const d = c[i] - mean; q1[i] = d; ss += d * d; raw += c[i] * c[i]; }
  if (!(ss > 0) || Math.sqrt(ss) <= 1e-10 * Math.sqrt(raw)) return [q0];
  const inv = 1 / Math.sqrt(ss);
  for (let i = 0; i < n; i++) q1[i] *= inv;
  return [q0, q1];
}
