// One run's pair tests as the analysis options ask for them: which series (levels, first
// differences, or per pair the one with more effective observations), which residualiser and
// which inference; on an unevenly spaced step schedule the effective-n test models the gaps
// (stats/uneven-pair-tests.ts), since a lag-1 autocorrelation and plain differences assume equal
// ones. Shared by the analysis itself, its calibration (which must test simulated series exactly
// as the run's are tested) and the robustness table.
import {
  capAtLevelRows, countDistinctRows, denseIds, distinctLevelRows, firstDifferences, levelsOrDifferencesMatched, levelsOrDifferencesPairs,
  partialCorrelationMatched, partialCorrelationPairs, spacingOf, unevenMatched,
  type PartialOptions, type PartialResult, type Representation,
} from '../stats/index.ts';
import type { AnalysisOptions } from './options.ts';

export type PairTestOptions = Pick<AnalysisOptions, 'method' | 'residualiser' | 'inference' | 'representation'>;

export interface TestedPair { a: string; b: string; result: PartialResult; representation: Representation }

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

function statOptions(control: Float64Array, opts: PairTestOptions): PartialOptions {
  return {
    method: opts.method, residualiser: opts.residualiser, inference: opts.inference,
    splineBasis: opts.residualiser === 'spline' ? splineBasisFor(control) : undefined,
  };
}

/**
 * Whether the test must model the gaps of this step schedule: the effective-n inference on steps
 * that are not evenly spaced (the naive test counts checkpoints whatever their spacing).
 */
export function modelsGaps(steps: readonly number[] | undefined, opts: PairTestOptions): steps is readonly number[] {
  return steps !== undefined && opts.inference === 'effective-n' && steps.length > 2 && spacingOf(steps).uneven;
}

/** `steps`: the run's checkpoints, aligned with the series (absent: evenly spaced). */
export function testPairs(ood: Record<string, Float64Array>, control: Float64Array, opts: PairTestOptions, steps?: readonly number[]): TestedPair[] {
  const statOpts = statOptions(control, opts);
  if (modelsGaps(steps, opts)) {
    const names = Object.keys(ood).sort();
    const pairs = names.flatMap((a, i) => names.slice(i + 1).map((b) => [a, b] as const));
    return unevenMatched(pairs.map(([a]) => ood[a]), pairs.map(([, b]) => ood[b]), control, steps, statOpts,
      statOptions(firstDifferences(control), opts), opts.representation)
      .map((t, i) => ({ a: pairs[i][0], b: pairs[i][1], ...t }));
  }
  if (opts.representation === 'auto' && opts.inference === 'effective-n') return levelsOrDifferencesPairs(ood, [control], statOpts,
    statOptions(firstDifferences(control), opts));
  if (opts.representation === 'differences') {
    const diff: Record<string, Float64Array> = {};
    for (const [k, v] of Object.entries(ood)) diff[k] = firstDifferences(v);
    const diffControl = firstDifferences(control);
    const diffOpts = { ...statOpts, splineBasis: opts.residualiser === 'spline' ? splineBasisFor(diffControl) : undefined };
    const levelRows = distinctLevelRows(ood, [control]);
    return partialCorrelationPairs(diff, [diffControl], diffOpts)
      .map((p) => ({ ...p, result: capAtLevelRows(p.result, levelRows.get(`${p.a}\u0000${p.b}`)!), representation: 'differences' as const }));
  }
  // 'levels', and 'auto' with the naive test (which has no effective n to choose by)
  return partialCorrelationPairs(ood, [control], statOpts).map((p) => ({ ...p, representation: 'levels' as const }));
}

/** The same test on matched pairs (xs[i], ys[i]) against one control (the calibration's simulated pairs). */
export function testMatched(
  xs: Float64Array[], ys: Float64Array[], control: Float64Array, opts: PairTestOptions, steps?: readonly number[],
): { result: PartialResult; representation: Representation }[] {
  if (modelsGaps(steps, opts)) return unevenMatched(xs, ys, control, steps, statOptions(control, opts),
    statOptions(firstDifferences(control), opts), opts.representation);
  if (opts.representation === 'auto' && opts.inference === 'effective-n') return levelsOrDifferencesMatched(xs, ys, [control],
    statOptions(control, opts), statOptions(firstDifferences(control), opts));
  if (opts.representation === 'differences') {
    const diffControl = firstDifferences(control);
    const controlIds = denseIds(control);
    return partialCorrelationMatched(xs.map((x) => firstDifferences(x)), ys.map((y) => firstDifferences(y)), [diffControl],
      statOptions(diffControl, opts))
      .map((result, i) => ({
        result: capAtLevelRows(result, countDistinctRows([controlIds, denseIds(xs[i]), denseIds(ys[i])], control.length)),
        representation: 'differences' as const }));
  }
  return partialCorrelationMatched(xs, ys, [control], statOptions(control, opts)).map((result) => ({ result, representation: 'levels' as const }));
}
