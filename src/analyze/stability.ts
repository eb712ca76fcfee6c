// Degenerate series, caught before a run's pair is believed or pooled. Two ways a run's partial
// correlation can look like a finding without being one:
// - a series with fewer than MIN_DISTINCT_VALUES distinct scores (the demo's overlap sets sitting at
//   0.500 from step 2 on): whatever r it gives comes from the one or two checkpoints where it moves;
// - a significant correlation carried by one or two checkpoints: one checkpoint's residual product
//   ex_i * ey_i outweighs all the others' together (|products| summed), or without the two
//   checkpoints whose products add most to the residual covariance it has the other sign or
//   vanishes (leave-one/two-out checks on the covariance the test's r is made of, on the residuals
//   as fitted: the control is not refitted). On white or AR(1) noise with a true correlation of 0.5
//   these flag about 18% of the significant runs of 10 checkpoints, 4-5% of 15 and at most 0.3%
//   of 25 or more (measured by scripts/verdict-calibration.ts; docs/analyze.md).
// The second check looks only at pairs significant before correction (p < alpha): for a pair near
// r = 0 two checkpoints always "carry" the sign, and that is not a finding to distrust.
// Such a pair is reported as unstable with the reason; the meta-analysis leaves it out unless
// --keep-unstable.
import { denseIds, firstDifferences, type Representation } from '../stats/index.ts';
import { prepareControls, type Controls } from '../stats/partial-correlation-shared.ts';
import type { AnalysisOptions } from './options.ts';
import { statOptions } from './pair-test-contract.ts';

/** A series needs at least this many distinct values (levels) for its correlations to be trusted. */
export const MIN_DISTINCT_VALUES = 5;

/** How many checkpoints may not carry a significant correlation on their own. */
export const CARRYING_CHECKPOINTS = 2;

/** One run's series (levels), as the analysis selected them. */
export interface StabilityRun {
  control: Float64Array;
  ood: Record<string, Float64Array>;
  /** Training step of each checkpoint. */
  steps: readonly number[];
  controlName: string;
}

/** What the pair's test gave: r, the unadjusted p and the series it correlated. */
export interface TestedForStability { r: number | null; p: number | null; representation: Representation }

/**
 * The run's check: why a pair of its OOD sets is unstable, or undefined when it is not. Distinct
 * values and residuals are computed once per series (and representation) and shared by the pairs.
 */
export function runStability(
  run: StabilityRun, opts: Pick<AnalysisOptions, 'method' | 'residualiser' | 'splineBasis' | 'alpha'>,
): (a: string, b: string, tested: TestedForStability) => string | undefined {
  // per series, once: why it has too few distinct values (or null)
  const fewDistinct = new Map<string, string | null>();
  const fewDistinctOf = (name: string, series: Float64Array): string | null => {
    let why = fewDistinct.get(name);
    if (why === undefined) {
      // denseIds' hash table where no value is NaN (which a Set counts once): a Set took 12-53 profiled ms at 30 x 20 x 1000
      const d = series.some(Number.isNaN) ? new Set(series).size : denseIds(series).levels;
      why = d < MIN_DISTINCT_VALUES
        ? `"${name}" has ${d} distinct value${d === 1 ? '' : 's'} in ${series.length} checkpoints (fewer than ${MIN_DISTINCT_VALUES})` : null;
      fewDistinct.set(name, why);
    }
    return why;
  };
  const residuals = { levels: new Map<string, Float64Array | null>(), differences: new Map<string, Float64Array | null>() };
  const controls: Partial<Record<Representation, Controls | string>> = {};
  const residualOf = (name: string, representation: Representation): Float64Array | null => {
    const cache = residuals[representation];
    let e = cache.get(name);
    if (e !== undefined) return e;
    const pick = (x: Float64Array) => (representation === 'differences' ? firstDifferences(x) : x);
    let c = controls[representation];
    if (c === undefined) {
      const control = pick(run.control);
      c = controls[representation] = prepareControls([control], control.length, {
        ...statOptions(control, opts),
      });
    }
    if (typeof c === 'string') e = null;
    else {
      const x = pick(run.ood[name]);
      e = new Float64Array(x.length);
      c.residualiseSeries(x, e);
    }
    cache.set(name, e);
    return e;
  };
  return (a, b, tested) => {
    const few = fewDistinctOf(a, run.ood[a]) ?? fewDistinctOf(b, run.ood[b]) ?? fewDistinctOf(run.controlName, run.control);
    if (few !== null) return few;
    if (tested.r === null || tested.p === null || !(tested.p < opts.alpha)) return undefined;
    const ea = residualOf(a, tested.representation), eb = residualOf(b, tested.representation);
    if (ea === null || eb === null) return undefined;
    const carried = carryingCheckpoints(ea, eb);
    if (carried === undefined) return undefined;
    const differences = tested.representation === 'differences';
    const steps = differences ? run.steps.slice(1) : run.steps;
    const at = `step ${carried.checkpoints.map((i) => steps[i]).join(' and ')}${differences ? ', as differences' : ''}`;
    const one = carried.checkpoints.length === 1;
    return carried.how === 'outweighs'
      ? `one checkpoint carries the correlation (${at}): its residual product outweighs all other checkpoints' together`
      : `${one ? 'one checkpoint carries' : `${carried.checkpoints.length} checkpoints carry`} the correlation (${at}):`
        + ` without ${one ? 'it' : 'them'} the residual covariance has the other sign or vanishes`;
  };
}

/**
 * The checkpoints that carry the residual covariance: one whose product outweighs all others
 * together, else the fewest (at most CARRYING_CHECKPOINTS) whose removal leaves a covariance of the
 * other sign or zero; undefined when neither.
 */
export function carryingCheckpoints(ea: Float64Array, eb: Float64Array): { checkpoints: number[]; how: 'outweighs' | 'flips' } | undefined {
  const n = ea.length;
  // the products are formed where needed rather than kept (ea[i] * eb[i] is the same double each time);
  // the sum, the scale and whether every product is finite in one pass (three passes were 45-65 of
  // ~900 profiled ms of the cheapest analysis of 30 x 50 x 200)
  let sum = 0, scale = 0, finite = true;
  for (let i = 0; i < n; i++) {
    const product = ea[i] * eb[i];
    sum += product;
    scale += Math.abs(product);
    if (!Number.isFinite(product)) finite = false;
  }
  if (sum === 0) return undefined;
  const sign = Math.sign(sum);
  const order = largestFirst(ea, eb, sign, Math.min(CARRYING_CHECKPOINTS, n), finite);
  let rest = sign * sum;
  if (sign * (ea[order[0]] * eb[order[0]]) > scale / 2) return { checkpoints: [order[0]], how: 'outweighs' };
  for (let k = 0; k < Math.min(CARRYING_CHECKPOINTS, n); k++) {
    rest -= sign * (ea[order[k]] * eb[order[k]]);
    // relative to the total's scale, so that a remainder of rounding error counts as zero
    if (rest <= 1e-12 * scale) return { checkpoints: order.slice(0, k + 1).sort((x, y) => x - y), how: 'flips' };
  }
  return undefined;
}

/**
 * The indices of the k largest sign * ea[i] * eb[i], largest first and, among equal ones, the earlier
 * first: the first k of a stable sort of all n indices, which this was (a sort per significant
 * pair was 1.6 of 4.9 profiled seconds of the cheapest analysis of 30 x 20 x 1000). With a
 * non-finite product (`finite` false) the comparisons would differ from the sort's, so those take the sort.
 */
function largestFirst(ea: Float64Array, eb: Float64Array, sign: number, k: number, finite: boolean): number[] {
  const n = ea.length;
  if (!finite) return Array.from({ length: n }, (_, j) => j).sort((x, y) => sign * (ea[y] * eb[y]) - sign * (ea[x] * eb[x])).slice(0, k);
  const top: number[] = [];
  for (let i = 0; i < n; i++) {
    const v = sign * (ea[i] * eb[i]);
    let at = top.length;
    while (at > 0 && v > sign * (ea[top[at - 1]] * eb[top[at - 1]])) at--;
    if (at < k) {
      top.splice(at, 0, i);
      if (top.length > k) top.pop();
    }
  }
  return top;
}
