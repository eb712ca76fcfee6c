/**
 * Sample autocorrelation of a series, as statsmodels.tsa.stattools.acf(x, nlags, adjusted=False,
 * fft=False) computes it (Box, Jenkins and Reinsel, "Time Series Analysis", 4th ed., 2.1.5):
 *   c_j = (1/n) sum_{t=0}^{n-1-j} (x_t - mean)(x_{t+j} - mean),   acf_j = c_j / c_0.
 * The divisor n (not n - j) keeps the sequence positive semi-definite; its small-sample bias is
 * what effective-sample-size.ts corrects for. A constant series has no autocorrelation: null.
 */
import { UserError } from '../errors.ts';
import { toFloat64 } from './validate.ts';

/** acf_0..acf_nlags (acf_0 = 1), or null for a constant series. */
export function autocorrelation(x: ArrayLike<number>, nlags: number): Float64Array | null {
  const v = toFloat64(x, 'x');
  const n = v.length;
  if (!Number.isInteger(nlags) || nlags < 0 || nlags >= n) {
    throw new UserError(`nlags must be an integer from 0 to n - 1 = ${n - 1}, got ${nlags}`);
  }
  let mean = 0;
  for (let t = 0; t < n; t++) mean += v[t];
  mean /= n;
  const d = new Float64Array(n);
  for (let t = 0; t < n; t++) d[t] = v[t] - mean;
  let c0 = 0;
  for (let t = 0; t < n; t++) c0 += d[t] * d[t];
  if (!(c0 > 0)) return null;
  const out = new Float64Array(nlags + 1);
  out[0] = 1;
  for (let j = 1; j <= nlags; j++) {
    let c = 0;
    for (let t = 0; t + j < n; t++) c += d[t] * d[t + j];
    out[j] = c / c0;
  }
  return out;
}

