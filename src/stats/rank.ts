/**
 * Average ranks, 1-based, ties sharing the mean of the ranks they span:
 * scipy.stats.rankdata(x, method='average').
 * Sorting a Float64Array copy natively and finding each value's tie run by binary search avoids a
 * comparator-based index sort (several times faster for the thousands of series an analysis ranks).
 */
import { toFloat64 } from './validate.ts';

export function rank(x: ArrayLike<number>): Float64Array {
  const values = x instanceof Float64Array ? x : toFloat64(x, 'x');
  const out = new Float64Array(values.length);
  rankInto(values, out, new Float64Array(values.length));
  return out;
}

/** Ranks `x` (finite values) into `out`, using `sorted` (same length) as scratch. */
export function rankInto(x: Float64Array, out: Float64Array, sorted: Float64Array): void {
  const n = x.length;
  sorted.set(x);
  sorted.sort();
  for (let i = 0; i < n; i++) {
    const v = x[i];
    // first index with sorted[j] >= v, then first with sorted[j] > v
    let lo = 0, hi = n;
    while (lo < hi) { const mid = (lo + hi) >>> 1; if (sorted[mid] < v) lo = mid + 1; else hi = mid; }
    const first = lo;
    hi = n;
    while (lo < hi) { const mid = (lo + hi) >>> 1; if (sorted[mid] <= v) lo = mid + 1; else hi = mid; }
    // positions first..lo-1 (0-based) hold v: average 1-based rank
    out[i] = (first + lo + 1) / 2;
  }
}
