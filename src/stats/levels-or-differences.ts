/**
 * The default inference for one run's pairs: every pair is tested on its levels and on its first
 * differences, each with Bartlett's effective sample size (effective-sample-size.ts), and the
 * representation with the larger effective sample size is reported.
 *
 * Why both. Residuals that are nearly a random walk (phi near 1: a score that drifts) leave
 * almost no effective observations in levels (n_eff ~ n (1 - phi^2) / (1 + phi^2)), so the levels
 * test is honest but powerless; their differences are nearly independent and keep the signal when
 * the two series move together step by step (Granger and Newbold 1974 on regressions between
 * integrated series; Box, Jenkins and Reinsel, ch. 4). Residuals with little autocorrelation keep
 * nearly n effective observations in levels, while differencing them halves the information (it
 * makes a lag-1 autocorrelation of -1/2). Choosing by the effective sample size looks only at each
 * series' own autocorrelation, never at the pair's correlation, so it does not pick the smaller
 * p-value; docs/analyze.md has the simulated false-positive rates of the choice (at most the
 * nominal 5% within simulation error for phi from 0 to 0.95, n from 10 to 50).
 */
import { firstDifferences } from './differences.ts';
import { countDistinctRows, denseIds } from './distinct-rows.ts';
import { partialCorrelationPairs, type PartialPair } from './partial-correlation-batch.ts';
import { inferFromR, type PartialOptions, type PartialResult } from './partial-correlation-shared.ts';

export type Representation = 'levels' | 'differences';

export interface ChosenPair extends PartialPair { representation: Representation }

/**
 * The pairs of `series` (all of them, or `pairs`, as partialCorrelationPairs takes them), each on
 * levels or differences. `differencesOpts`: options for the differences (a spline basis chosen for
 * them), default `opts`.
 */
export function levelsOrDifferencesPairs(
  series: Record<string, Float64Array>, covariates: Float64Array[], opts: PartialOptions, differencesOpts: PartialOptions = opts,
  pairs?: readonly (readonly [string, string])[],
): ChosenPair[] {
  const levels = partialCorrelationPairs(series, covariates, { ...opts, inference: 'effective-n' }, pairs);
  const n = covariates[0]?.length ?? Object.values(series)[0]?.length ?? 0;
  if (n < 3) return levels.map((p) => ({ ...p, representation: 'levels' }));
  const diffSeries: Record<string, Float64Array> = {};
  for (const [name, s] of Object.entries(series)) diffSeries[name] = firstDifferences(s);
  const diffCovariates = covariates.map((c) => firstDifferences(c));
  const differences = partialCorrelationPairs(diffSeries, diffCovariates, { ...differencesOpts, inference: 'effective-n' }, pairs);
  return levels.map((l, i) => {
    const chosen = chooseRepresentation(l.result, capAtLevelRows(differences[i].result, l.result.distinct ?? n));
    return { a: l.a, b: l.b, ...chosen };
  });
}

/**
 * The differences' test counted at most the distinct checkpoints of the pair. Differences of a
 * plateaued series can take more distinct values than the levels do (a run that revisits 8 score
 * rows in 21 checkpoints has up to 20 distinct steps between them), yet D distinct (control, a, b)
 * rows hold at most D - 1 independent changes. So the differences' cap is D - 1 and `distinct`
 * reports D, the number the run's plateau warning speaks of. `levelRows` > n (the levels all
 * distinct) leaves the result as it is.
 */
export function capAtLevelRows(diff: PartialResult, levelRows: number): PartialResult {
  if (levelRows > diff.n) return diff;
  const k = diff.n_eff - 2 - diff.df;
  if (diff.r === null) return { ...diff, distinct: levelRows };
  const rows = Math.min(diff.distinct ?? diff.n, levelRows - 1);
  const capped = inferFromR(diff.n, k, diff.r, rows, diff.phi, diff.phi ? diff.n_eff : undefined);
  if (capped.r === null) {
    capped.reason = `only ${levelRows} distinct checkpoints (of ${diff.n + 1}): too few for the differences' test with`
      + ` k=${Number.isInteger(k) ? k : k.toFixed(2)} covariate degrees of freedom (needs more than k + 4)`;
  }
  return { ...capped, distinct: levelRows };
}

/** Distinct (covariates, a, b) level rows of every pair (a < b in sorted name order), keyed "a\u0000b". */
export function distinctLevelRows(series: Record<string, Float64Array>, covariates: Float64Array[]): Map<string, number> {
  const names = Object.keys(series).sort();
  const n = covariates[0]?.length ?? series[names[0]]?.length ?? 0;
  const covIds = covariates.map(denseIds);
  const ids = new Map(names.map((name) => [name, denseIds(series[name])]));
  const out = new Map<string, number>();
  for (let i = 0; i < names.length; i++) {
    for (let j = i + 1; j < names.length; j++) {
      out.set(`${names[i]}\u0000${names[j]}`, countDistinctRows([...covIds, ids.get(names[i])!, ids.get(names[j])!], n));
    }
  }
  return out;
}

/** Differences when they give a defined result with more effective observations than levels (also on uneven spacing). */
export function chooseRepresentation(
  levels: PartialResult, differences: PartialResult,
): { result: PartialResult; representation: Representation } {
  const useDifferences = differences.r !== null && (levels.r === null || differences.n_eff > levels.n_eff);
  return useDifferences ? { result: differences, representation: 'differences' } : { result: levels, representation: 'levels' };
}
