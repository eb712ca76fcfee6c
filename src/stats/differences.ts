/**
 * First differences d_i = x_{i+1} - x_i (numpy.diff): correlating the step-to-step changes of two
 * series, rather than their levels, removes shared trends along a run, a simple check that respects
 * the order of checkpoints (evaluations at successive checkpoints of one run are autocorrelated).
 */
import { toFloat64 } from './validate.ts';

export function firstDifferences(x: ArrayLike<number>): Float64Array {
  const v = toFloat64(x, 'x');
  const out = new Float64Array(Math.max(0, v.length - 1));
  for (let i = 0; i < out.length; i++) out[i] = v[i + 1] - v[i];
  return out;
}
