// Calibration as a feature: how often would the test in use call a pair significant, on series
// like this run's, when there is nothing to find, and how often when there is a stated effect?
// The run's residual autocorrelation phi (the median over its OOD sets of the bias-corrected
// lag-1 autocorrelation of their residuals on the control, stats/residual-ar1.ts) gives AR(1)
// noise; `simulations` pairs of independent AR(1) series of the run's length (the null) and as
// many pairs correlated `effect` at every checkpoint (the alternative, stats/ar1.ts) are
// residualised on the run's own control and tested exactly as the run's pairs are (pair-tests.ts),
// at the unadjusted level alpha. The naive test's false-positive rate on the same nulls is
// reported beside it, so a reader sees what the default protects against. Seeded: the same run,
// options and seed give the same numbers.
import { correlatedAr1Into, createRandom, MAX_PHI, residualAr1, ar1Into } from '../stats/index.ts';
import type { AnalysisOptions } from './options.ts';
import { testPairs, type PairTestOptions } from './pair-tests.ts';

export interface RunCalibration {
  /** The AR(1) coefficient simulated: the median bias-corrected residual autocorrelation of the run's OOD sets. */
  phi: number;
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
): RunCalibration | null {
  if (opts.calibration <= 0) return null;
  const phis = residualAr1(ood, [control], { method: opts.method, residualiser: 'linear' }).filter((p): p is number => p !== null);
  if (phis.length === 0) return null;
  const phi = Math.max(-MAX_PHI, Math.min(MAX_PHI, median(phis)));
  const n = control.length;
  const random = createRandom(opts.seed);
  const x = new Float64Array(n), y = new Float64Array(n);
  const naive: PairTestOptions = { ...opts, inference: 'naive', representation: opts.representation === 'differences' ? 'differences' : 'levels' };
  let fp = 0, naiveFp = 0, hits = 0;
  const significant = (o: PairTestOptions) => {
    const p = testPairs({ x, y }, control, o)[0].result.p;
    return p !== null && p < opts.alpha;
  };
  for (let i = 0; i < opts.calibration; i++) {
    ar1Into(x, phi, random);
    ar1Into(y, phi, random);
    if (significant(opts)) fp++;
    if (significant(naive)) naiveFp++;
    correlatedAr1Into(x, y, phi, opts.effect, random);
    if (significant(opts)) hits++;
  }
  const m = opts.calibration;
  return { phi, simulations: m, alpha: opts.alpha, falsePositiveRate: fp / m, effect: opts.effect, power: hits / m, naiveFalsePositiveRate: naiveFp / m };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const h = Math.floor(s.length / 2);
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
}
