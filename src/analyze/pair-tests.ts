// One run's pair tests as the analysis options ask for them: which series (levels, first
// differences, or per pair the one that keeps more information), which residualiser (auto: the
// spline where the run is long enough) and which inference. The effective-n test is the modelled
// one (stats/modelled-pair-tests.ts: any step schedule, the control's sampling noise corrected when
// known); the naive test is the papers'. Shared by the analysis itself, its calibration (which must
// test simulated series exactly as the run's are tested) and the robustness table.
import {
  capAtLevelRows, countDistinctRows, denseIds, firstDifferences, modelledPairTests,
  partialCorrelationPairs, spacingOf, splineResidualiser,
  type ControlCorrection, type Inference, type ModelledOptions, type PartialOptions, type Residualiser, type PartialResult, type Representation,
} from '../stats/index.ts';
import type { AnalysisOptions } from './options.ts';

export type PairTestOptions = Pick<AnalysisOptions, 'method' | 'residualiser' | 'inference' | 'representation' | 'splineBasis'>;

/** The fewest checkpoints each residualiser takes: a linear partial correlation, and a spline with more points than its basis. */
export const MIN_STEPS = { linear: 5, spline: 12 } as const;

/** The residualiser a run of n checkpoints uses: 'auto' is the spline from MIN_STEPS.spline checkpoints, else the line. */
export function residualiserFor(residualiser: PairTestOptions['residualiser'], n: number): Residualiser {
  if (residualiser !== 'auto') return residualiser;
  return n >= MIN_STEPS.spline ? 'spline' : 'linear';
}

export interface TestedPair {
  a: string; b: string; result: PartialResult; representation: Representation;
  /** Share of each residual series' variance that is not its own sampling noise (when known). */
  reliability?: [number, number];
  /** r disattenuated for the OOD sets' own sampling noise. */
  disattenuated?: number;
  /** How the control's sampling noise was corrected (the same for every pair of a run). */
  correction?: ControlCorrection;
  controlReliability?: number;
  /** Pair representations of the run left uncorrected: the stated noise exceeds what their residuals hold. */
  uncorrected?: number;
}

/** The spline's basis dimension when none is forced: mgcv's default. */
const DEFAULT_SPLINE_BASIS = 10;

/**
 * The spline's basis dimension for one control series: mgcv's default 10, but at most half the
 * control's distinct values (and at least 3), so that a GCV fit on a plateaued run (8 distinct
 * values in 21 checkpoints) cannot spend nearly every degree of freedom the data has.
 */
export function splineBasisFor(control: Float64Array): number {
  return Math.min(DEFAULT_SPLINE_BASIS, Math.max(3, Math.floor(new Set(control).size / 2)));
}

/** The statistics' options for one control series (the residualiser resolved for its length, the spline's basis chosen for it). */
export function statOptions(
  control: Float64Array, opts: Pick<PairTestOptions, 'method' | 'residualiser' | 'splineBasis'> & Partial<PairTestOptions>,
): PartialOptions {
  let residualiser = residualiserFor(opts.residualiser, control.length);
  const splineBasis = opts.splineBasis ?? splineBasisFor(control);
  // auto takes the line where the spline cannot be fitted (a control that saturates crowds its knots)
  if (opts.residualiser === 'auto' && residualiser === 'spline' && typeof splineResidualiser(control, splineBasis) === 'string') {
    residualiser = 'linear';
  }
  return { method: opts.method, residualiser, inference: opts.inference, splineBasis: residualiser === 'spline' ? splineBasis : undefined };
}

/**
 * Whether the test must model the gaps of this step schedule: the effective-n inference on steps
 * that are not evenly spaced (the naive test counts checkpoints whatever their spacing).
 */
export function modelsGaps(steps: readonly number[] | undefined, opts: PairTestOptions): steps is readonly number[] {
  return steps !== undefined && opts.inference === 'effective-n' && steps.length > 2 && spacingOf(steps).uneven;
}

/** The sampling variance of the control and of each named series at each checkpoint, where known. */
export interface SamplingNoise { control?: Float64Array; series?: Record<string, Float64Array | undefined> }

/** `steps`: the run's checkpoints, aligned with the series (absent: evenly spaced). Every pair of the named series, a < b. */
export function testPairs(
  ood: Record<string, Float64Array>, control: Float64Array, opts: PairTestOptions, steps?: readonly number[], noise: SamplingNoise = {},
): TestedPair[] {
  const names = Object.keys(ood).sort();
  const pairs = names.flatMap((a, i) => names.slice(i + 1).map((b) => [a, b] as const));
  return testNamedPairs(ood, pairs, control, opts, steps, noise);
}

/**
 * The same test on pairs of indexed series against one control (the calibration's simulated pairs,
 * where the null and the alternative share their first series: each series is residualised and
 * fitted once however many pairs it is in).
 */
export function testIndexed(
  series: readonly Float64Array[], pairs: readonly (readonly [number, number])[], control: Float64Array, opts: PairTestOptions,
  steps?: readonly number[], controlVariance?: Float64Array,
): { result: PartialResult; representation: Representation }[] {
  const named: Record<string, Float64Array> = {};
  series.forEach((s, i) => { named[`s${i}`] = s; });
  return testNamedPairs(named, pairs.map(([a, b]) => [`s${a}`, `s${b}`] as const), control, opts, steps, { control: controlVariance });
}

type PairTest = (
  series: Record<string, Float64Array>, pairs: readonly (readonly [string, string])[], control: Float64Array, opts: PairTestOptions,
  steps: readonly number[] | undefined, noise: SamplingNoise,
) => TestedPair[];

/**
 * How each inference method is run, keyed like stats/'s INFERENCES (a method without its test is a
 * type error; its words are inference-methods.ts's): the modelled effective-n test, or the papers'
 * naive one on levels or first differences.
 */
const PAIR_TESTS: Record<Inference, PairTest> = {
  'effective-n': (series, pairs, control, opts, steps, noise) => {
    const names = Object.keys(series);
    const index = new Map(names.map((name, i) => [name, i]));
    const run = modelledPairTests(names.map((t) => series[t]), control, pairs.map(([a, b]) => [index.get(a)!, index.get(b)!] as const),
      modelledOptions(control, opts, noise.control, names.map((t) => noise.series?.[t])), steps, names);
    const extra = {
      correction: run.correction, ...(run.controlReliability !== undefined ? { controlReliability: run.controlReliability } : {}),
      ...(run.uncorrected ? { uncorrected: run.uncorrected } : {}),
    };
    return run.pairs.map((t, i) => ({ a: pairs[i][0], b: pairs[i][1], ...t, ...extra }));
  },
  naive: (series, pairs, control, opts) => naivePairs(series, control, opts, pairs),
};

/** The one dispatch: the test of the inference method in use. */
function testNamedPairs(
  series: Record<string, Float64Array>, pairs: readonly (readonly [string, string])[], control: Float64Array, opts: PairTestOptions,
  steps: readonly number[] | undefined, noise: SamplingNoise,
): TestedPair[] {
  return PAIR_TESTS[opts.inference](series, pairs, control, opts, steps, noise);
}

function modelledOptions(
  control: Float64Array, opts: PairTestOptions, controlVariance: Float64Array | undefined, seriesVariance: (Float64Array | undefined)[],
): ModelledOptions {
  return {
    ...statOptions(control, opts), representation: opts.representation, controlVariance, seriesVariance,
  };
}

/** The papers' test: every checkpoint an independent observation, on levels or first differences. */
function naivePairs(
  series: Record<string, Float64Array>, control: Float64Array, opts: PairTestOptions, pairs: readonly (readonly [string, string])[],
): TestedPair[] {
  if (opts.representation === 'differences') {
    const diff: Record<string, Float64Array> = {};
    for (const [k, v] of Object.entries(series)) diff[k] = firstDifferences(v);
    const diffControl = firstDifferences(control);
    const controlIds = denseIds(control);
    const ids = new Map<string, ReturnType<typeof denseIds>>();
    const idsOf = (name: string) => { let d = ids.get(name); if (!d) ids.set(name, (d = denseIds(series[name]))); return d; };
    // D distinct level rows hold at most D - 1 changes: the differences' observations are capped by the pair's level rows
    return partialCorrelationPairs(diff, [diffControl], statOptions(diffControl, opts), pairs).map((p) => ({
      ...p, result: capAtLevelRows(p.result, countDistinctRows([controlIds, idsOf(p.a), idsOf(p.b)], control.length)),
      representation: 'differences' as const,
    }));
  }
  // 'levels', and 'auto' (which has no effective n to choose by)
  return partialCorrelationPairs(series, [control], statOptions(control, opts), pairs).map((p) => ({ ...p, representation: 'levels' as const }));
}
