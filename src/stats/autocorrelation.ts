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
  const mean = meanOf(v);
  const c0 = lagProduct(v, mean, 0);
  if (!(c0 > 0)) return null;
  const out = new Float64Array(nlags + 1);
  out[0] = 1;
  for (let j = 1; j <= nlags; j++) out[j] = lagProduct(v, mean, j) / c0;
  return out;
}

/**
 * acf_1 alone, without allocating (the effective-n test takes it of every residual series):
 * the same sums as autocorrelation(), so the same value; null for a constant or one-value series.
 */
export function lag1Autocorrelation(v: Float64Array): number | null {
  if (v.length < 2) return null;
  const mean = meanOf(v);
  // c_0 and c_1 in one pass, each summed in the order lagProduct sums it
  let c0 = 0, c1 = 0;
  let d = v[0] - mean;
  for (let t = 0; t + 1 < v.length; t++) {
    const next = v[t + 1] - mean;
    c0 += d * d;
    c1 += d * next;
    d = next;
  }
  c0 += d * d;
  return c0 > 0 ? c1 / c0 : null;
}

function meanOf(v: Float64Array): number {
  let mean = 0;
  for (let t = 0; t < v.length; t++) mean += v[t];
  return mean / v.length;
}

/** n c_j = sum_t (v_t - mean)(v_{t+j} - mean). */
function lagProduct(v: Float64Array, mean: number, j: number): number {
  let c = 0;
  for (let t = 0; t + j < v.length; t++) c += (v[t] - mean) * (v[t + j] - mean);
  return c;
}
