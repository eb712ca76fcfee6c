// A run's Fisher z and the variance the pooling across runs gives it: the one place that decides
// what a run's weight in the pooled estimate rests on.
// A run with r = ±1 (Spearman on two series that rise in step, a set scored twice) has an infinite
// Fisher z. Leaving it out dropped the strongest evidence, so a clear mirror pair came out
// inconclusive; its z is clipped at ±atanh(0.999) instead (|r| >= 0.999 pooled as 0.999), with the
// variance from its effective sample size as every run's. Why clip rather than give r = ±1 some other
// variance: the run's weight should rest on how many observations it has, as for any run, and a
// clipped z of 3.8 says "at least 0.999" without letting one run's z of 18 (r = 1 - 1e-16) dominate
// the pooled mean or inflate tau^2.
// The stated variance 1 / (nEff - k - 3) is the test's own; where the run's calibration (calibration.ts)
// finds that null pairs simulated like the run's scatter more than that (a ratio above 1: the
// effective n counted too many observations, or the control's correction adds variance), the pooling
// uses the larger, measured variance. Cochran's Q sums each run's excess, so a test that is 8% liberal
// per run made "depends on the model" twice as frequent as alpha over 5 runs.

/** The largest |r| pooled as it is: beyond it the run is pooled at this r. */
export const MAX_POOLED_R = 0.999;
const MAX_Z = Math.atanh(MAX_POOLED_R);

export const clippedFisherZ = (r: number): number => Math.max(-MAX_Z, Math.min(MAX_Z, Math.atanh(r)));

/**
 * The variance of one run's Fisher z as its test states it: 1 / (nEff - k - 3), with nEff the
 * observations the run's test counted (the effective sample size of the default 'effective-n'
 * inference, n with --inference naive) and k the covariate degrees of freedom (1, or the spline's
 * edf), exactly the variance of the run's own 95% CI. k is recovered from df = nEff - 2 - k.
 */
export function fisherZVariance(pair: { n_eff: number; df: number }): number {
  const k = pair.n_eff - 2 - pair.df;
  return 1 / (pair.n_eff - k - 3);
}

/** What a run's stated variances are multiplied by in the pooling: its calibration's variance ratio when above 1, else 1. */
export function runVarianceFactor(run: { calibration?: { variance_ratio: number } }): number {
  const ratio = run.calibration?.variance_ratio;
  return ratio !== undefined && Number.isFinite(ratio) && ratio > 1 ? ratio : 1;
}
