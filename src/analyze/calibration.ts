// Calibration as a feature: how often would the test in use call a pair significant, on runs like
// this one, when there is nothing to find, and how often when there is a stated effect?
//
// The simulated runs are made the way real ones are, from this run's own fits, so that a test that
// would be liberal on this run says so:
// - the true in-domain curve: the control smoothed over the checkpoints (a GCV spline in
//   log-step) when its sampling variance is known, else the control as observed (taken as exact);
// - each OOD set's true curve: its fitted values on the true control by the residualiser in use
//   (the spline keeps its non-linearity), at the run's own checkpoints (its schedule and gaps);
// - its deviations: draws of the drift-plus-white-noise model fitted to its residuals
//   (stats/noise-model.ts, on the axis the fit chose), scaled to the residuals' variance;
// - the measurement: the simulated control is the true curve plus normal noise of the run's own
//   sampling variance (binomial at its n), in fresh draws, and the test is given that variance as
//   the analysis is; so the control's sampling noise, and the correction for it, are in the
//   simulation. Where the errors' covariance across checkpoints is known (from a fixed test set's
//   per-example results: a store's answers, lm-eval's samples), the errors are drawn from it and
//   the test is given it too. Else they are drawn independent, their variance capped at the
//   control's own jitter around its smoothed curve: a fixed test set whose answers barely change
//   between checkpoints moves less from one checkpoint to the next than p(1 - p)/n says, and the
//   simulation should not hold more control noise than the run does. The OOD curves are functions
//   of that smoothed (true) control, not of the observed one: fitted values on the observed
//   control carry the run's own control noise into both series of every simulated pair, a shared
//   component the freshly drawn control does not carry (on the demo's runs that alone made the
//   simulated false-positive rate 28-52% and the variance ratio 3-15).
// Null pairs pair two of the run's OOD sets' fitted curves with independent deviations; the
// alternative correlates the two deviations `effect`. Each is tested exactly as the run's pairs
// are (pair-tests.ts), at the unadjusted level alpha, in CONTROL_DRAWS groups each with its own
// noisy control. The naive test's false-positive rate on the same nulls is reported beside it.
// Seeded: the same run, options and seed give the same numbers. The run's own series are fitted
// through the analysis's cache (the run's test fitted them already); the simulated series, which
// never repeat, through one that keeps no fits and shares the analysis's fitter (its search grid).
import { prepareControls, type PartialOptions } from '../stats/partial-correlation-shared.ts';
import {
  axisTimes, correlatedNormal, createRandom, MAX_PHI, modelledPairTests, NoiseFitCache, ouInto, splineResidualiser, type NoiseModel, type Random,
} from '../stats/index.ts';
import type { AnalysisOptions } from './options.ts';
import { clippedFisherZ, fisherZVariance } from './fisher-z.ts';
import { statOptions, type PairTestContext, type PairTestOptions, type SamplingNoise } from './pair-test-contract.ts';
import { testIndexed } from './pair-tests.ts';

export interface RunCalibration {
  /** The median over the OOD sets of the fitted drift's correlation at the median gap. */
  phi: number;
  /** The median share of the residuals' variance that is white (sampling noise and checkpoint jitter). */
  nugget: number;
  /** Whether the simulated control carried the run's sampling noise (its variance was known). */
  control_noise_redrawn: boolean;
  simulations: number;
  /** Unadjusted significance level of each simulated test. */
  alpha: number;
  /** Share of null pairs the test in use calls significant (nominal: alpha). */
  false_positive_rate: number;
  /** The true correlation of the deviations the power is for. */
  effect: number;
  /** Share of pairs with that true correlation the test in use calls significant. */
  power: number;
  /** The naive test's false-positive rate on the same null pairs. */
  naive_false_positive_rate: number;
  /**
   * The mean over the null pairs of z^2 / v, z = atanh(r) (clipped as the pooling clips it) and v the variance
   * the test states for it (1 / (df - 1), what its CI and the pooling use): 1 when the stated variance is right,
   * above 1 when the run's r scatter more than its test says. The pooling across runs scales the run's
   * variance by it when above 1 (pair-meta.ts, runVarianceFactor).
   */
  variance_ratio: number;
  /**
   * The ratio's Monte Carlo standard error: the spread of its per-group means, the pairs of each of the
   * CONTROL_DRAWS groups sharing one draw of the control (a cluster-robust standard error). Another
   * --seed moves the ratio by about this much, and with it the pooling's weights and Cochran's Q:
   * a verdict whose Q or pooled p sits near alpha can change with the seed.
   */
  variance_ratio_se: number;
  /** Null pairs with a defined r that the ratio is the mean over. */
  variance_ratio_pairs: number;
}

/** Groups of simulated pairs, each with its own draw of the control's sampling noise. */
const CONTROL_DRAWS = 10;

export function calibrateRun(
  control: Float64Array, ood: Float64Array[], opts: PairTestOptions & Pick<AnalysisOptions, 'alpha' | 'calibration' | 'effect' | 'seed'>,
  steps?: readonly number[], noise: SamplingNoise = {}, context: PairTestContext = {},
): RunCalibration | null {
  if (opts.calibration <= 0 || ood.length < 2) return null;
  const n = control.length;
  const times = steps ?? Array.from({ length: n }, (_, i) => i);
  const fitted = modelledPairTests(ood, control, [], { ...statOptions(control, opts), representation: 'levels', fits: context.fits }, times).models;
  const usable = ood.map((_, i) => i).filter((i) => fitted[i] !== null);
  if (usable.length < 2) return null;
  const smooth = noise.control ? smoothOverSteps(control, times) : undefined;
  const trueControl = smooth?.curve ?? control;
  // each OOD curve a function of the TRUE control: fitted on the observed control, its fitted values
  // would carry the run's own control noise into both series of every simulated pair, which the
  // freshly drawn control does not carry: a shared component no residualiser removes
  const curves = ood.map((s) => fittedOnControl(s, trueControl, statOptions(trueControl, opts)));
  const scales = ood.map((s, i) => Math.sqrt(Math.max(0, variance(sub(s, curves[i])))));
  const controlNoise = noise.control ? controlNoiseDraw(noise, smooth?.jitter ?? 0) : undefined;
  const random = createRandom(opts.seed);
  const m = opts.calibration;
  const perDraw = Math.ceil(m / CONTROL_DRAWS);
  let falsePositives = 0, hits = 0, naiveFalsePositives = 0, done = 0, squaredZ = 0, defined = 0;
  const groups: { sum: number; count: number }[] = [];
  const naive: PairTestOptions = { ...opts, inference: 'naive', representation: opts.representation === 'differences' ? 'differences' : 'levels' };
  const simulated: PairTestContext = { fits: context.fits?.sharingFitter() ?? new NoiseFitCache(false) };
  for (let g = 0; g < CONTROL_DRAWS && done < m; g++) {
    const size = Math.min(perDraw, m - done);
    const c = controlNoise ? add(trueControl, controlNoise(random), 1) : trueControl;
    const cNoise: SamplingNoise = controlNoise ? { control: noise.control, controlCovariance: noise.controlCovariance } : {};
    // series 3i, 3i + 1, 3i + 2: x, its null partner, its alternative partner (x is shared, so fitted once)
    const series: Float64Array[] = [];
    const nulls: [number, number][] = [], alternatives: [number, number][] = [];
    for (let i = 0; i < size; i++) {
      const k = done + i;
      const a = usable[k % usable.length], b = usable[(k + 1 + Math.floor(k / usable.length)) % usable.length];
      const bb = b === a ? usable[(usable.indexOf(a) + 1) % usable.length] : b;
      const za = draw(fitted[a]!, times, random), zb = draw(fitted[bb]!, times, random);
      const zc = draw(fitted[a]!, times, random);
      const mixed = Float64Array.from(za, (v, t) => opts.effect * v + Math.sqrt(1 - opts.effect ** 2) * zc[t]);
      series.push(add(curves[a], za, scales[a]), add(curves[bb], zb, scales[bb]), add(curves[bb], mixed, scales[bb]));
      nulls.push([3 * i, 3 * i + 1]);
      alternatives.push([3 * i, 3 * i + 2]);
    }
    const tested = testIndexed(series, [...nulls, ...alternatives], c, opts, steps, cNoise, simulated);
    const significant = (results: typeof tested) => results.filter(({ result }) => result.p !== null && result.p < opts.alpha).length;
    const nullResults = tested.slice(0, size);
    falsePositives += significant(nullResults);
    hits += significant(tested.slice(size));
    naiveFalsePositives += significant(testIndexed(series, nulls, c, naive, steps, cNoise));
    const group = { sum: 0, count: 0 };
    for (const { result } of nullResults) {
      if (result.r === null || result.df <= 1) continue;
      const ratio = clippedFisherZ(result.r) ** 2 / fisherZVariance(result);
      squaredZ += ratio;
      defined++;
      group.sum += ratio;
      group.count++;
    }
    groups.push(group);
    done += size;
  }
  const models = usable.map((i) => fitted[i]!);
  return {
    phi: Math.min(MAX_PHI, median(models.map((f) => f.phi))), nugget: median(models.map((f) => f.nugget)),
    control_noise_redrawn: controlNoise !== undefined,
    simulations: m, alpha: opts.alpha, false_positive_rate: falsePositives / m, effect: opts.effect, power: hits / m,
    naive_false_positive_rate: naiveFalsePositives / m, variance_ratio: defined ? squaredZ / defined : 1,
    variance_ratio_se: clusteredSe(groups, defined ? squaredZ / defined : 1), variance_ratio_pairs: defined,
  };
}

/** The cluster-robust standard error of a mean over groups' pairs: sqrt(G / (G - 1) sum (S_g - n_g mean)^2) / N. */
function clusteredSe(groups: readonly { sum: number; count: number }[], mean: number): number {
  const used = groups.filter((g) => g.count > 0);
  const total = used.reduce((acc, g) => acc + g.count, 0);
  if (used.length < 2) return 0;
  const spread = used.reduce((acc, g) => acc + (g.sum - g.count * mean) ** 2, 0);
  return Math.sqrt((used.length / (used.length - 1)) * spread) / total;
}

/**
 * A draw of the control's sampling errors: from their covariance S where it is known (V sqrt(L) z,
 * S = V L V'), so a fixed test set's persistent errors are simulated as the correction takes them;
 * else independent with the stated variances, capped at the control's own jitter around its
 * smoothed curve (a fixed test set moves less between checkpoints than p(1 - p)/n says).
 */
export function controlNoiseDraw(noise: SamplingNoise, jitter: number): (random: Random) => Float64Array {
  const n = noise.control!.length;
  if (noise.controlCovariance) return correlatedNormal(noise.controlCovariance, n);
  const scale = Math.min(1, jitter / Math.max(1e-300, mean(noise.control!)));
  const sd = Float64Array.from(noise.control!, (v) => Math.sqrt(Math.max(0, v * scale)));
  return (random) => Float64Array.from(sd, (v) => v * random.normal());
}

/** A series' fitted values on the control, by the residualiser in use (a straight line, or the GCV spline with its basis). */
function fittedOnControl(s: Float64Array, control: Float64Array, opts: PartialOptions): Float64Array {
  const controls = prepareControls([control], control.length, { ...opts, method: 'pearson' });
  if (typeof controls === 'string') return Float64Array.from(s, () => mean(s));
  const e = new Float64Array(s.length);
  controls.residualiseSeries(s, e);
  return sub(s, e);
}

/**
 * The control smoothed over the checkpoints (a GCV spline in log-step): the true curve it measures,
 * and the control's jitter around it (residual variance on the spline's residual degrees of freedom).
 */
function smoothOverSteps(control: Float64Array, steps: ArrayLike<number>): { curve: Float64Array; jitter: number } {
  const t = axisTimes(steps, 'log-step');
  const n = control.length;
  const spline = splineResidualiser(t, Math.max(3, Math.min(10, Math.floor(n / 3))));
  if (typeof spline === 'string') return { curve: control, jitter: Infinity };
  const e = new Float64Array(n);
  const edf = spline.residualise(control, e);
  const jitter = e.reduce((acc, x) => acc + x * x, 0) / Math.max(1, n - 1 - edf);
  return { curve: sub(control, e), jitter };
}

/** One draw of a fitted noise model at the run's checkpoints, variance 1. */
function draw(model: NoiseModel, steps: ArrayLike<number>, random: Random): Float64Array {
  const u = axisTimes(steps, model.axis);
  const drift = ouInto(new Float64Array(u.length), u, model.theta, random);
  const a = Math.sqrt(1 - model.nugget), b = Math.sqrt(model.nugget);
  return drift.map((v) => a * v + b * random.normal());
}

const add = (curve: Float64Array, z: Float64Array, scale: number) => Float64Array.from(curve, (v, i) => v + scale * z[i]);
const sub = (a: Float64Array, b: Float64Array) => Float64Array.from(a, (v, i) => v - b[i]);
const mean = (v: Float64Array) => v.reduce((s, x) => s + x, 0) / v.length;
function variance(v: Float64Array): number {
  const m = mean(v);
  return v.reduce((s, x) => s + (x - m) ** 2, 0) / Math.max(1, v.length - 1);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const h = Math.floor(s.length / 2);
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
}
