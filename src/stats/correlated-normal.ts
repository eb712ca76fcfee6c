// Draws of a multivariate normal N(0, S) with a known covariance S: the control's sampling errors
// on a fixed test set (SIMEX's pseudo-errors, the calibration's simulated measurement).
import { pivotedCholesky } from './linalg.ts';
import type { Random } from './random.ts';

/**
 * A drawer of N(0, S), S symmetric n x n (row-major) and positive semi-definite: L z with L L' = S
 * (pivoted Cholesky, of S's rank: a singular S is the usual case, fewer examples than checkpoints or
 * answers that never change), z standard normal from `random`. S is factored once, when the drawer
 * is made.
 */
export function correlatedNormal(covariance: Float64Array, n: number): (random: Random) => Float64Array {
  const { l, rank } = pivotedCholesky(covariance, n);
  return (random) => {
    const z = Float64Array.from({ length: rank }, () => random.normal());
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let t = 0;
      for (let k = 0; k < rank; k++) t += l[i * n + k] * z[k];
      out[i] = t;
    }
    return out;
  };
}
