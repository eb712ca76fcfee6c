// Draws of a multivariate normal N(0, S) with a known covariance S: the control's sampling errors
// on a fixed test set (SIMEX's pseudo-errors, the calibration's simulated measurement).
import { symmetricEigen } from './linalg.ts';
import type { Random } from './random.ts';

/**
 * A drawer of N(0, S), S symmetric n x n (row-major) and positive semi-definite: V sqrt(L) z from
 * S = V L V' (eigenvalues below 0 by rounding taken as 0), z standard normal from `random`. S is
 * decomposed once, when the drawer is made.
 */
export function correlatedNormal(covariance: Float64Array, n: number): (random: Random) => Float64Array {
  const { values, vectors } = symmetricEigen(covariance, n);
  const root = Float64Array.from(values, (v) => Math.sqrt(Math.max(0, v)));
  return (random) => {
    const z = Float64Array.from(root, (r) => r * random.normal());
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let t = 0;
      for (let k = 0; k < n; k++) t += vectors[i * n + k] * z[k];
      out[i] = t;
    }
    return out;
  };
}
