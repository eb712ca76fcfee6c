// One run's pair tests as the analysis options ask for them: which series (levels, first
// differences, or per pair the one that keeps more information), which residualiser (auto: the
// spline where the run is long enough) and which inference, whose test is its entry of
// inference-methods.ts. Shared by the analysis itself, its calibration (which must test simulated
// series exactly as the run's are tested) and the robustness table.
import { spacingOf, type PartialResult, type Representation } from '../stats/index.ts';
import { INFERENCE_METHODS } from './inference-methods.ts';
import type { PairTest, PairTestContext, PairTestOptions, SamplingNoise, TestedPair } from './pair-test-contract.ts';

/**
 * Whether the test must model the gaps of this step schedule: an inference method that models them,
 * on steps that are not evenly spaced.
 */
export function modelsGaps(steps: readonly number[] | undefined, opts: PairTestOptions): steps is readonly number[] {
  return steps !== undefined && INFERENCE_METHODS[opts.inference].modelsGaps && steps.length > 2 && spacingOf(steps).uneven;
}

/**
 * `steps`: the run's checkpoints, aligned with the series (absent: evenly spaced). Every pair of the named series, a < b.
 * `context`: what the test may reuse from the analysis's earlier tests.
 */
export function testPairs(
  ood: Record<string, Float64Array>, control: Float64Array, opts: PairTestOptions, steps?: readonly number[], noise: SamplingNoise = {},
  context: PairTestContext = {},
): TestedPair[] {
  const names = Object.keys(ood).sort();
  const pairs = names.flatMap((a, i) => names.slice(i + 1).map((b) => [a, b] as const));
  return testNamed(ood, pairs, control, opts, steps, noise, context);
}

/**
 * The same test on pairs of indexed series against one control (the calibration's simulated pairs,
 * where the null and the alternative share their first series: each series is residualised and
 * fitted once however many pairs it is in).
 */
export function testIndexed(
  series: readonly Float64Array[], pairs: readonly (readonly [number, number])[], control: Float64Array, opts: PairTestOptions,
  steps?: readonly number[], controlNoise: Pick<SamplingNoise, 'control' | 'controlCovariance'> = {}, context: PairTestContext = {},
): { result: PartialResult; representation: Representation }[] {
  const named: Record<string, Float64Array> = {};
  series.forEach((s, i) => { named[`s${i}`] = s; });
  const namedPairs = pairs.map(([a, b]) => [`s${a}`, `s${b}`] as const);
  return testNamed(named, namedPairs, control, opts, steps, controlNoise, context);
}

/** The one dispatch: the test of the inference method in use. */
const testNamed: PairTest = (series, pairs, control, opts, steps, noise, context) =>
  INFERENCE_METHODS[opts.inference].test(series, pairs, control, opts, steps, noise, context);
