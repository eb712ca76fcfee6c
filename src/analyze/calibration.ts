// Calibration as a feature: how often would the test in use call a pair significant, on series
// like this run's, when there is nothing to find, and how often when there is a stated effect?
// The run's residual autocorrelation phi (the median over its OOD sets of the bias-corrected
// lag-1 autocorrelation of their residuals on the control, stats/residual-ar1.ts) gives AR(1)
// noise; `simulations` pairs of independent AR(1) series of the run's length (the null) and as
// many pairs correlated `effect` at every checkpoint (the alternative, stats/ar1.ts) are
// residualised on the run's own control and tested exactly as the run's pairs are (pair-tests.ts),
// at the unadjusted level alpha. The naive test's false-positive rate on the same nulls is
// reported beside it, so a reader sees what the default protects against. Seeded: the same run,
// options and seed give the same numbers. On an unevenly spaced schedule (and the effective-n
// test) the noise is an Ornstein-Uhlenbeck process sampled at the run's own steps, its time
// constant the median of the REML fits to the OOD sets' residuals (stats/uneven-spacing.ts), so the
// simulated series have the run's gaps as well as its length.
import {
  ar1Into, correlatedAr1Into, correlatedOuInto, createRandom, MAX_PHI, ouInto, phiOfTheta, residualAr1, residualOuThetas, scaledTimes, spacingOf,
} from '../stats/index.ts';
import type { AnalysisOptions } from './options.ts';
import { modelsGaps, testMatched, type PairTestOptions } from './pair-tests.ts';

export interface RunCalibration {
  /**
   * The AR(1) coefficient simulated: the median bias-corrected residual autocorrelation of the
   * run's OOD sets; on uneven spacing, the OU correlation at the median gap.
   */
  phi: number;
  /** Uneven spacing: the OU time constant simulated, in training steps (correlation exp(-gap / tau)). */
  tau?: number;
  simulations: number;
  /** Unadjusted significance level of each simulated test. */
  alpha: number;
  /** Share of null pairs the test in use calls significant (nominal: alpha). */
  falsePositiveRate: number;
  /** The true correlation the power is for. */
  effect: number;
  /** Share of pairs with that true correlation the test in use calls significant. */
  power: number;
  /** The naive test's false-positive rate on the same null pairs. */
  naiveFalsePositiveRate: number;
}

export function calibrateRun(
  control: Float64Array, ood: Float64Array[], opts: PairTestOptions & Pick<AnalysisOptions, 'alpha' | 'calibration' | 'effect' | 'seed'>,
  steps?: readonly number[],
): RunCalibration | null {
  if (opts.calibration <= 0) return null;
  const gaps = modelsGaps(steps, opts) ? steps : undefined;
  const u = gaps ? scaledTimes(gaps) : undefined;
  const fits = u
    ? residualOuThetas(ood, control, u, opts.method)
    : residualAr1(ood, [control], { method: opts.method, residualiser: 'linear' });
  const fitted = fits.filter((p): p is number => p !== null);
  if (fitted.length === 0) return null;
  const n = control.length, m = opts.calibration;
  const random = createRandom(opts.seed);
  const series = () => Array.from({ length: m }, () => new Float64Array(n));
  const nullX = series(), nullY = series(), altX = series(), altY = series();
  let phi: number, tau: number | undefined;
  if (u) {
    const theta = median(fitted);
    phi = phiOfTheta(theta);
    tau = theta * spacingOf(gaps!).referenceGap;
    for (let i = 0; i < m; i++) {
      ouInto(nullX[i], u, theta, random);
      ouInto(nullY[i], u, theta, random);
      correlatedOuInto(altX[i], altY[i], u, theta, opts.effect, random);
    }
  } else {
    phi = Math.max(-MAX_PHI, Math.min(MAX_PHI, median(fitted)));
    for (let i = 0; i < m; i++) {
      ar1Into(nullX[i], phi, random);
      ar1Into(nullY[i], phi, random);
      correlatedAr1Into(altX[i], altY[i], phi, opts.effect, random);
    }
  }
  const naive: PairTestOptions = { ...opts, inference: 'naive', representation: opts.representation === 'differences' ? 'differences' : 'levels' };
  const rate = (xs: Float64Array[], ys: Float64Array[], o: PairTestOptions) =>
    testMatched(xs, ys, control, o, gaps).filter(({ result }) => result.p !== null && result.p < opts.alpha).length / m;
  return {
    phi, ...(tau !== undefined ? { tau } : {}), simulations: m, alpha: opts.alpha,
    falsePositiveRate: rate(nullX, nullY, opts), effect: opts.effect, power: rate(altX, altY, opts),
    naiveFalsePositiveRate: rate(nullX, nullY, naive),
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const h = Math.floor(s.length / 2);
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
}
