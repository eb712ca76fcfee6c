/**
 * Partial correlation of x and y given covariates, with pingouin.partial_corr's test (and R ppcor's):
 *   Pearson: e_x, e_y = residuals of x and y on [1, covariates] (linear-residuals.ts), r = corr(e_x, e_y)
 *            (equal to -P_xy / sqrt(P_xx P_yy), P the inverse covariance matrix);
 *   Spearman: the same on the average ranks of x, y and of every covariate (pingouin ranks them all);
 *   df = n - 2 - k;  t = r sqrt(df / (1 - r^2));  p = 2 P(T_df > |t|), computed as 2 cdf(-|t|);
 *   95% CI (Fisher z; pingouin compute_esci with nx = n - k, not rounded here):
 *        tanh(atanh(r) -+ z_0.975 / sqrt(n - k - 3)).
 * With the spline residualiser (spline-residuals.ts, mgcv's GAM with one smooth) k is the smooth's
 * effective degrees of freedom; x and y each get their own GCV fit and so their own edf, and the
 * LARGER of the two is used (conservative: fewer degrees of freedom, wider CI, larger p).
 * Sources: pingouin correlation.py (partial_corr, _correl_pvalue) and effsize.py (compute_esci);
 * Kim 2015, "ppcor: An R Package for a Fast Calculation to Semi-partial Correlation Coefficients".
 * Deviation: pingouin returns p = 0 whenever r^2 is numerically close to 1; here p is computed
 * (it is exactly 0 only when |r| = 1).
 * Null results (never NaN): a constant series, residuals that are constant (the series is a
 * function of the covariates), or too few observations (n - k - 3 <= 0 or df <= 0); `reason` says which.
 *
 * Inference. 'naive' is the test above, which treats the n checkpoints as independent (pingouin's,
 * and the papers'). 'effective-n' (effective-sample-size.ts) replaces n by Bartlett's effective
 * sample size n_eff of the two residual series (from their bias-corrected lag-1 autocorrelations),
 * capped at the number of distinct (x, y, covariates) rows: df = n_eff - 2 - k and the CI uses
 * sqrt(n_eff - k - 3). Both inferences make a pair with too few distinct rows (at most k + 3) a
 * null result: plateaued checkpoints repeat rows, and repeats are not observations.
 *
 * This file is the reference: one pair, read top to bottom. partial-correlation-batch.ts runs the
 * same test on many pairs sharing their covariates (every series residualised once) and is tested
 * to agree with this one (test/stats/partial-correlation-batch.test.ts); the pieces both use (the
 * options, the covariates' residualiser, the test of r and the null results) live in
 * partial-correlation-shared.ts.
 */
import { centredCorrelation } from './correlation.ts';
import { countDistinctRows, denseIds } from './distinct-rows.ts';
import { residualPhi } from './effective-sample-size.ts';
import {
  checkOptions, constantResidualsReason, constantSeriesReason, inferFromR, nullResult, prepareControls, residualsConstant,
  tooFew, type PartialOptions, type PartialResult,
} from './partial-correlation-shared.ts';
import { isConstant, requireLength, toFloat64 } from './validate.ts';

/**
 * The partial correlation of x and y given the covariates, and its test. `distinct`: how many
 * distinct rows the test may count, by default counted from the (x, y, covariates) rows; the
 * bootstrap and the permutation test pass n, since the repeats of a resample are their own.
 */
export function partialCorrelation(
  x: ArrayLike<number>, y: ArrayLike<number>, covariates: ArrayLike<number>[], opts: PartialOptions, distinct?: number,
): PartialResult {
  const n = x.length;
  requireLength(y, n, 'y', 'x');
  covariates.forEach((c, i) => requireLength(c, n, `covariates[${i}]`, 'x'));
  const k = covariates.length;
  checkOptions(opts, k);
  const xs = toFloat64(x, 'x');
  const ys = toFloat64(y, 'y');
  const cs = covariates.map((c, i) => toFloat64(c, `covariates[${i}]`));
  const early = tooFew(n, k);
  if (early) return early;
  for (const [s, name] of [[xs, 'x'], [ys, 'y']] as const) {
    if (isConstant(s)) return nullResult(n, n - 2 - k, constantSeriesReason(name));
  }
  const controls = prepareControls(cs, n, opts);
  if (typeof controls === 'string') return nullResult(n, n - 2 - k, controls);
  const rx = new Float64Array(n), ry = new Float64Array(n);
  const dofX = controls.residualiseSeries(xs, rx);
  const dofY = controls.residualiseSeries(ys, ry);
  const kEff = Math.max(dofX, dofY);
  const late = tooFew(n, kEff);
  if (late) return late;
  for (const [s, e, name] of [[xs, rx, 'x'], [ys, ry, 'y']] as const) {
    if (residualsConstant(s, e)) return nullResult(n, n - 2 - kEff, constantResidualsReason(name));
  }
  const r = centredCorrelation(rx, ry);
  const phi = opts.inference === 'effective-n' ? [residualPhi(rx), residualPhi(ry)] as [number, number] : undefined;
  const rows = distinct ?? countDistinctRows([xs, ys, ...cs].map(denseIds), n);
  return inferFromR(n, kEff, r, rows, phi);
}
