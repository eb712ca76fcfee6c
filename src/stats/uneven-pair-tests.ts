/**
 * The default (effective-n) test of matched pairs of series on an unevenly spaced step schedule:
 * r, k and the distinct rows as partial-correlation.ts computes them (on levels, and on first
 * differences scaled by the square root of their gap), with the effective sample size of the
 * Ornstein-Uhlenbeck model fitted to each series' residuals (uneven-spacing.ts) in place of
 * Bartlett's lag-1 form, which assumes equal gaps. Per pair, levels or differences, whichever has
 * the larger n_eff ('auto'), as on even spacing (levels-or-differences.ts).
 */
import { UserError } from '../errors.ts';
import { capAtLevelRows, chooseRepresentation, type Representation } from './levels-or-differences.ts';
import { partialCorrelationPairs } from './partial-correlation-batch.ts';
import { inferFromR, prepareControls, type PartialOptions, type PartialResult } from './partial-correlation-shared.ts';
import { rank } from './rank.ts';
import {
  fitOuTheta, MAX_THETA, ouCorrelation, phiOfTheta, projectCovariance, projectedEffectiveN, scaledDifferenceCovariance,
  scaledDifferences, spacingOf, type Projected,
} from './uneven-spacing.ts';
import { isConstant } from './validate.ts';

export type RepresentationChoice = 'auto' | Representation;

/** Steps rescaled to the reference gap, starting at 0. */
export function scaledTimes(steps: ArrayLike<number>): Float64Array {
  const g0 = spacingOf(steps).reference_gap;
  return Float64Array.from(steps, (s) => (s - steps[0]) / g0);
}

/**
 * The OU time constant (in reference gaps) of each series' residuals on the control (ranked first
 * for Spearman), by REML; null for a series that is constant or whose residuals are.
 */
export function residualOuThetas(
  series: Float64Array[], control: Float64Array, u: Float64Array, method: PartialOptions['method'],
): (number | null)[] {
  const n = control.length;
  const controls = prepareControls([control], n, { method, residualiser: 'linear' });
  if (typeof controls === 'string') return series.map(() => null);
  const x = [new Float64Array(n).fill(1), method === 'spearman' ? rank(control) : control];
  const e = new Float64Array(n);
  return series.map((s) => {
    if (isConstant(s)) return null;
    controls.residualiseSeries(s, e);
    if (isConstant(e)) return null;
    return fitOuTheta(e, x, u);
  });
}

/**
 * Tests each pair (xs[i], ys[i]) against one control on the schedule `steps` (uneven: the caller
 * checks). `differencesOpts` are the options for the differences (a spline basis chosen for them).
 */
export function unevenMatched(
  xs: Float64Array[], ys: Float64Array[], control: Float64Array, steps: ArrayLike<number>,
  opts: PartialOptions, differencesOpts: PartialOptions, representation: RepresentationChoice,
): { result: PartialResult; representation: Representation }[] {
  if (xs.length !== ys.length) throw new UserError(`matched pairs need as many x series as y series, got ${xs.length} and ${ys.length}`);
  const n = control.length;
  const u = scaledTimes(steps);
  // one residualisation and one OU fit per distinct series object (a series in several pairs once)
  const all = [...new Set([...xs, ...ys])];
  const names = new Map(all.map((s, i) => [s, `series[${i}]`]));
  const pairs = xs.map((x, i) => [names.get(x)!, names.get(ys[i])!] as const);
  // r, k and the distinct rows come from the naive test; n_eff is the OU model's (below)
  const testNaive = (valuesOf: (s: Float64Array) => Float64Array, c: Float64Array, o: PartialOptions) => {
    const series = Object.fromEntries(all.map((s) => [names.get(s)!, valuesOf(s)]));
    return partialCorrelationPairs(series, [c], { ...o, inference: 'naive' }, pairs).map((p) => p.result);
  };
  const levels = testNaive((s) => s, control, opts);
  const fitted = residualOuThetas(all, control, u, opts.method);
  // a series whose linear residuals are constant (its pairs are null results anyway) gets the most
  // persistent fit, the conservative choice should another residualiser still find a correlation
  const thetas = new Map(all.map((s, i) => [s, fitted[i] ?? MAX_THETA]));
  const ones = new Float64Array(n).fill(1);
  const cx = opts.method === 'spearman' ? rank(control) : control;
  const covariances = new Map<Float64Array, Float64Array>();
  const levelsProjected = new Map<Float64Array, Projected>();
  const covarianceOf = (s: Float64Array) => {
    let c = covariances.get(s);
    if (!c) covariances.set(s, (c = ouCorrelation(u, thetas.get(s)!)));
    return c;
  };
  const phiPair = (x: Float64Array, y: Float64Array): [number, number] => [phiOfTheta(thetas.get(x)!), phiOfTheta(thetas.get(y)!)];

  const levelResults = levels.map((l, i) => {
    const x = xs[i], y = ys[i];
    if (l.r === null) return l;
    const project = (s: Float64Array) => {
      let pr = levelsProjected.get(s);
      if (!pr) levelsProjected.set(s, (pr = projectCovariance(covarianceOf(s), [ones, cx])));
      return pr;
    };
    const nEff = projectedEffectiveN(project(x), project(y), 2, n);
    return inferFromR(n, l.n_eff - 2 - l.df, l.r, l.distinct ?? n, phiPair(x, y), nEff);
  });
  if (representation === 'levels' || n < 3) return levelResults.map((result) => ({ result, representation: 'levels' }));

  const dControl = scaledDifferences(control, u);
  const dScaled = new Map(all.map((s) => [s, scaledDifferences(s, u)]));
  const differences = testNaive((s) => dScaled.get(s)!, dControl, differencesOpts);
  const dOnes = new Float64Array(n - 1).fill(1);
  const dcx = opts.method === 'spearman' ? rank(dControl) : dControl;
  const diffProjected = new Map<Float64Array, Projected>();
  const projectDiff = (s: Float64Array) => {
    let pr = diffProjected.get(s);
    if (!pr) diffProjected.set(s, (pr = projectCovariance(scaledDifferenceCovariance(covarianceOf(s), u), [dOnes, dcx])));
    return pr;
  };
  return differences.map((d, i) => {
    const x = xs[i], y = ys[i];
    const levelsResult = levelResults[i];
    let diff = d;
    if (d.r !== null) {
      const nEff = projectedEffectiveN(projectDiff(x), projectDiff(y), 2, n - 1);
      diff = inferFromR(n - 1, d.n_eff - 2 - d.df, d.r, d.distinct ?? n - 1, phiPair(x, y), nEff);
    }
    diff = capAtLevelRows(diff, levelsResult.distinct ?? n);
    if (representation === 'differences') return { result: diff, representation: 'differences' };
    return chooseRepresentation(levelsResult, diff);
  });
}
