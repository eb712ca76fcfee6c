// Degenerate series, caught before a run's pair is believed or pooled. Two ways a run's partial
// correlation can look like a finding without being one:
// - a series with fewer than MIN_DISTINCT_VALUES distinct scores (the demo's overlap sets sitting at
//   0.500 from step 2 on): whatever r it gives comes from the one or two checkpoints where it moves;
// - a significant correlation carried by two checkpoints: without the two checkpoints whose
//   residual products ex_i * ey_i add most to the residual covariance, the covariance has the other
//   sign or vanishes (a leave-two-out check on the covariance the test's r is made of; exact for
//   the covariance of the residuals as fitted, it does not refit the control).
// The second check looks only at pairs significant before correction (p < alpha): for a pair near
// r = 0 two checkpoints always "carry" the sign, and that is not a finding to distrust.
// Such a pair is reported as unstable with the reason; the meta-analysis leaves it out unless
// --keep-unstable. Its false-alarm rate on true effects is measured by scripts/verdict-calibration.ts.
import { firstDifferences, type Representation } from '../stats/index.ts';
import type { AnalysisOptions } from './options.ts';
import { residualPair } from './pair-residuals.ts';

/** A series needs at least this many distinct values (levels) for its correlations to be trusted. */
export const MIN_DISTINCT_VALUES = 5;

/** How many checkpoints may not carry a significant correlation on their own. */
export const CARRYING_CHECKPOINTS = 2;

export interface PairSeries {
  control: Float64Array;
  a: Float64Array;
  b: Float64Array;
  /** Training step of each checkpoint (levels). */
  steps: readonly number[];
  names: { control: string; a: string; b: string };
}

/** Why this run's pair is unstable, or undefined when it is not. `p` is the pair's unadjusted p. */
export function unstableReason(
  s: PairSeries, tested: { r: number | null; p: number | null; representation: Representation },
  opts: Pick<AnalysisOptions, 'method' | 'residualiser' | 'alpha'>,
): string | undefined {
  for (const [name, series] of [[s.names.a, s.a], [s.names.b, s.b], [s.names.control, s.control]] as const) {
    const distinct = new Set(series).size;
    if (distinct < MIN_DISTINCT_VALUES) return `"${name}" has ${distinct} distinct value${distinct === 1 ? '' : 's'} in ${series.length} checkpoints (fewer than ${MIN_DISTINCT_VALUES})`;
  }
  if (tested.r === null || tested.p === null || !(tested.p < opts.alpha)) return undefined;
  const differences = tested.representation === 'differences';
  const pick = (x: Float64Array) => (differences ? firstDifferences(x) : x);
  const residuals = residualPair(pick(s.control), pick(s.a), pick(s.b), opts);
  if (!residuals) return undefined;
  const carriers = carryingCheckpoints(residuals.a, residuals.b);
  if (carriers === undefined) return undefined;
  const steps = differences ? s.steps.slice(1) : s.steps;
  return `${carriers.length === 1 ? 'one checkpoint carries' : `${carriers.length} checkpoints carry`} the correlation (step ${carriers.map((i) => steps[i]).join(' and ')}${differences ? ', as differences' : ''}): without ${carriers.length === 1 ? 'it' : 'them'} the residual covariance has the other sign or vanishes`;
}

/**
 * The fewest checkpoints (at most CARRYING_CHECKPOINTS) whose residual products, removed, leave a
 * covariance of the other sign or zero; undefined when more are needed.
 */
export function carryingCheckpoints(ea: Float64Array, eb: Float64Array): number[] | undefined {
  const n = ea.length;
  let sum = 0;
  const products = new Float64Array(n);
  for (let i = 0; i < n; i++) sum += (products[i] = ea[i] * eb[i]);
  if (sum === 0) return undefined;
  const sign = Math.sign(sum);
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => sign * products[j] - sign * products[i]);
  let rest = sign * sum;
  // the total's scale, so that a remainder of rounding error counts as zero
  const scale = products.reduce((t, p) => t + Math.abs(p), 0);
  for (let k = 0; k < Math.min(CARRYING_CHECKPOINTS, n); k++) {
    rest -= sign * products[order[k]];
    if (rest <= 1e-12 * scale) return order.slice(0, k + 1).sort((x, y) => x - y);
  }
  return undefined;
}
