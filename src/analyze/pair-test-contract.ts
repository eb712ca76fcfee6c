// What one run's pair test takes and gives, and how its options resolve into stats/'s options:
// shared by the dispatch (pair-tests.ts), each inference method's test (inference-methods.ts) and
// the analysis options (options.ts), none of which this module imports, so that the methods' one
// record can give both the --inference help and the tests.
import {
  splineResidualiser, type NoiseFitCache,
  type ControlCorrection, type CorrelationMethod, type Inference, type PartialOptions, type PartialResult, type Representation,
  type Residualiser, RESIDUALISERS,
} from '../stats/index.ts';

/** How the control is regressed out: stats/'s residualisers, or auto (the spline where the run is long enough). */
export const RESIDUALISER_CHOICES = ['auto', ...RESIDUALISERS] as const;

/** What each run's pairs are computed on: levels, first differences, or (auto) per pair the one with more effective observations. */
export const REPRESENTATION_CHOICES = ['auto', 'levels', 'differences'] as const;

/** The analysis options a pair test reads (options.ts declares them; the analysis passes its own). */
export interface PairTestOptions {
  method: CorrelationMethod;
  residualiser: typeof RESIDUALISER_CHOICES[number];
  inference: Inference;
  representation: typeof REPRESENTATION_CHOICES[number];
  splineBasis?: number;
}

/** The fewest checkpoints each residualiser takes: a linear partial correlation, and a spline with more points than its basis. */
export const MIN_STEPS = { linear: 5, spline: 12 } as const;

/** The residualiser a run of n checkpoints uses: 'auto' is the spline from MIN_STEPS.spline checkpoints, else the line. */
export function residualiserFor(residualiser: PairTestOptions['residualiser'], n: number): Residualiser {
  if (residualiser !== 'auto') return residualiser;
  return n >= MIN_STEPS.spline ? 'spline' : 'linear';
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

/** The sampling variance of the control and of each named series at each checkpoint, where known. */
export interface SamplingNoise {
  control?: Float64Array;
  /** The control's sampling errors' covariance across checkpoints (row-major), where known. */
  controlCovariance?: Float64Array;
  series?: Record<string, Float64Array | undefined>;
}

export interface TestedPair {
  a: string; b: string; result: PartialResult; representation: Representation;
  /** Share of each residual series' variance that is not its own sampling noise (when known). */
  reliability?: [number, number];
  /** r disattenuated for the OOD sets' own sampling noise. */
  disattenuated?: number;
  /** SIMEX's extrapolation's r before the echo bound gave r, and the uncorrected r (stats/control-residuals.ts). */
  simex?: { r: number; uncorrected: number };
  /** How the control's sampling noise was corrected (the same for every pair of a run). */
  correction?: ControlCorrection;
  controlReliability?: number;
  /** Pair representations of the run left uncorrected: the stated noise exceeds what their residuals hold. */
  uncorrected?: number;
}

/**
 * What a test may reuse from earlier tests of the same analysis: the noise-model fits already made
 * (the owner creates the cache and drops it; see analysis.ts for which work shares one).
 */
export interface PairTestContext { fits?: NoiseFitCache }

/** One inference method's test of the named pairs of a run's series against its control; `steps` absent: evenly spaced. */
export type PairTest = (
  series: Record<string, Float64Array>, pairs: readonly (readonly [string, string])[], control: Float64Array, opts: PairTestOptions,
  steps: readonly number[] | undefined, noise: SamplingNoise, context: PairTestContext,
) => TestedPair[];
