// One run's pair tests as the analysis options ask for them: which series (levels, first
// differences, or per pair the one with more effective observations), which residualiser and
// which inference; on an unevenly spaced step schedule the effective-n test models the gaps
// (stats/uneven-pair-tests.ts), since a lag-1 autocorrelation and plain differences assume equal
// ones. Shared by the analysis itself, its calibration (which must test simulated series exactly
// as the run's are tested) and the robustness table.
import {
  capAtLevelRows, countDistinctRows, denseIds, distinctLevelRows, firstDifferences, levelsOrDifferencesPairs,
  partialCorrelationPairs, spacingOf, unevenMatched,
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
export function testPairs(
  ood: Record<string, Float64Array>, control: Float64Array, opts: PairTestOptions, steps?: readonly number[],
): TestedPair[] {
  const statOpts = statOptions(control, opts);
  const diffOpts = () => statOptions(firstDifferences(control), opts);
  if (modelsGaps(steps, opts)) {
    const names = Object.keys(ood).sort();
    const pairs = names.flatMap((a, i) => names.slice(i + 1).map((b) => [a, b] as const));
    return unevenMatched(pairs.map(([a]) => ood[a]), pairs.map(([, b]) => ood[b]), control, steps, statOpts, diffOpts(), opts.representation)
      .map((t, i) => ({ a: pairs[i][0], b: pairs[i][1], ...t }));
  }
  if (opts.representation === 'auto' && opts.inference === 'effective-n') return levelsOrDifferencesPairs(ood, [control], statOpts, diffOpts());
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
  const diffOpts = () => statOptions(firstDifferences(control), opts);
  if (modelsGaps(steps, opts)) return unevenMatched(xs, ys, control, steps, statOptions(control, opts), diffOpts(), opts.representation);
  const { series, pairs } = matchedSeries(xs, ys);
  if (opts.representation === 'auto' && opts.inference === 'effective-n') {
    return levelsOrDifferencesPairs(series, [control], statOptions(control, opts), diffOpts(), pairs);
  }
  if (opts.representation === 'differences') {
    const diffControl = firstDifferences(control);
    const controlIds = denseIds(control);
    const diff = Object.fromEntries(Object.entries(series).map(([name, v]) => [name, firstDifferences(v)]));
    return partialCorrelationPairs(diff, [diffControl], statOptions(diffControl, opts), pairs).map(({ result }, i) => {
      const levelRows = countDistinctRows([controlIds, denseIds(xs[i]), denseIds(ys[i])], control.length);
      return { result: capAtLevelRows(result, levelRows), representation: 'differences' as const };
    });
  }
  return partialCorrelationPairs(series, [control], statOptions(control, opts), pairs)
    .map(({ result }) => ({ result, representation: 'levels' as const }));
}

/** Matched pairs as named series and the pairs of names the batch path takes. */
function matchedSeries(xs: Float64Array[], ys: Float64Array[]): {
  series: Record<string, Float64Array>; pairs: (readonly [string, string])[];
} {
  if (xs.length !== ys.length) throw new Error(`matched pairs need as many x series as y series, got ${xs.length} and ${ys.length}`);
  const series: Record<string, Float64Array> = {};
  const pairs = xs.map((x, i) => {
    series[`x${i}`] = x;
    series[`y${i}`] = ys[i];
    return [`x${i}`, `y${i}`] as const;
  });
  return { series, pairs };
}
