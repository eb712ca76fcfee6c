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
  /** Writes y's residuals into `out` (may alias y); returns the model's dof beyond the intercept. */
  residualise(y: Float64Array, out: Float64Array): number;
}

export function linearResidualiser(covariates: Float64Array[], n: number): SeriesResidualiser {
  const ones = new Float64Array(n).fill(1);
  const { q } = orthonormalise([ones, ...covariates]);
  const k = covariates.length;
  return {
    residualise(y: Float64Array, out: Float64Array): number {
      if (out !== y) out.set(y);
      // Projecting out one basis vector at a time (modified Gram-Schmidt order) is the stable form.
      for (let j = 0; j < q.length; j++) {
        const qj = q[j];
        let c = 0;
        for (let i = 0; i < n; i++) c += qj[i] * out[i];
        for (let i = 0; i < n; i++) out[i] -= c * qj[i];
      }
      return k;
    },
  };
}
