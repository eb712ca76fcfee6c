/**
 * The distribution functions stats/ needs, from @stdlib (not hand-written series).
 * Two-sided t p-values use the lower tail at -|t| so that p-values near 0 keep their precision
 * (2 * cdf(-|t|) instead of 2 * (1 - cdf(|t|)), which would round to 0 below about 1e-16).
 */
import betainc from '@stdlib/math-base-special-betainc';
import gammainc from '@stdlib/math-base-special-gammainc';
import chisqQuantileStd from '@stdlib/stats-base-dists-chisquare-quantile';
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import normalQuantileStd from '@stdlib/stats-base-dists-normal-quantile';
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantileStd from '@stdlib/stats-base-dists-t-quantile';

/** Two-sided p-value of a t statistic with `df` (possibly fractional) degrees of freedom. */
export function tTwoSidedP(t: number, df: number): number {
  if (!Number.isFinite(t)) return 0;
  return Math.min(1, 2 * tCdf(-Math.abs(t), df));
}

/** Two-sided p-value of a standard normal statistic. */
export function normalTwoSidedP(z: number): number {
  if (!Number.isFinite(z)) return 0;
  return Math.min(1, 2 * normalCdf(-Math.abs(z), 0, 1));
}

/** Quantile of the standard normal distribution. */
export function normalQuantile(p: number): number {
  return normalQuantileStd(p, 0, 1);
}

/** Quantile of Student's t with `df` degrees of freedom. */
export function tQuantile(p: number, df: number): number {
  return tQuantileStd(p, df);
}

/** Quantile of the chi-square distribution with `df` degrees of freedom. */
export function chiSquareQuantile(p: number, df: number): number {
  return chisqQuantileStd(p, df);
}

/**
 * Upper-tail probability P(X > x) of chi-square(df), as the regularised upper incomplete gamma
 * function Q(df / 2, x / 2), so tiny p-values keep their precision (as R's pchisq(lower.tail = FALSE)).
 */
export function chiSquareUpperP(x: number, df: number): number {
  if (x <= 0) return 1;
  return gammainc(x / 2, df / 2, true, true);
}

/**
 * Upper-tail probability P(X > x) of F(df1, df2): the regularised incomplete beta function
 * I_{df2 / (df2 + df1 x)}(df2 / 2, df1 / 2), without the 1 - cdf cancellation.
 */
export function fUpperP(x: number, df1: number, df2: number): number {
  if (x <= 0) return 1;
  return betainc(df2 / (df2 + df1 * x), df2 / 2, df1 / 2, true, false);
}
