/**
 * The two distribution functions stats/ needs, from @stdlib (not hand-written series).
 * Two-sided t p-values use the lower tail at -|t| so that p-values near 0 keep their precision
 * (2 * cdf(-|t|) instead of 2 * (1 - cdf(|t|)), which would round to 0 below about 1e-16).
 */
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import normalQuantileStd from '@stdlib/stats-base-dists-normal-quantile';

/** Two-sided p-value of a t statistic with `df` (possibly fractional) degrees of freedom. */
export function tTwoSidedP(t: number, df: number): number {
  if (!Number.isFinite(t)) return 0;
  return Math.min(1, 2 * tCdf(-Math.abs(t), df));
}

/** Quantile of the standard normal distribution. */
export function normalQuantile(p: number): number {
  return normalQuantileStd(p, 0, 1);
}
