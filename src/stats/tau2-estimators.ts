/**
 * Estimators of the between-run variance tau^2 of a random-effects model (meta-wls.ts), each as
 * metafor's rma.uni defines it, and each run to convergence (metafor stops its iterations at
 * 1e-5 by default; the golden values are made with tight tolerances, see test/stats/golden):
 * - DL, DerSimonian & Laird (1986), method of moments, generalised to meta-regression:
 *     tau^2 = max(0, (Q_FE - (k - p)) / tr(P_FE)),  Q_FE = y'P_0 y, P at tau^2 = 0.
 * - PM, Paule & Mandel (1982): the tau^2 >= 0 at which the generalised Q statistic
 *     Q(tau^2) = y'P(tau^2)y equals its expectation k - p (0 when Q(0) < k - p). Q decreases in
 *     tau^2, so the root is bracketed and found by bisection to machine precision.
 * - REML, restricted maximum likelihood (Viechtbauer 2005): Fisher scoring
 *     tau^2 <- tau^2 + (y'PPy - tr(P)) / tr(PP)
 *   from the DL value, safeguarded by a bracket of the score's sign change (a step that leaves it
 *   is replaced by bisection); when the maximum is at the boundary (the restricted score at 0 is
 *   <= 0 and the iterates head there) tau^2 is exactly 0.
 */
import { weightedFit, weightedRss, type Design } from './meta-wls.ts';

export type Tau2Estimator = 'REML' | 'DL' | 'PM';
export const TAU2_ESTIMATORS = ['REML', 'DL', 'PM'] as const satisfies readonly Tau2Estimator[];

const MAX_ITERATIONS = 1000;

/** tau^2 by the chosen estimator (needs k - p >= 1). */
export function estimateTau2(y: Float64Array, v: Float64Array, design: Design, estimator: Tau2Estimator): number {
  switch (estimator) {
    case 'DL': return dersimonianLaird(y, v, design);
    case 'PM': return pauleMandel(y, v, design);
    case 'REML': return restrictedML(y, v, design);
  }
}

export function dersimonianLaird(y: Float64Array, v: Float64Array, design: Design): number {
  const fe = weightedFit(y, v, 0, design);
  return Math.max(0, (fe.rss - (design.k - design.p)) / fe.trP);
}

export function pauleMandel(y: Float64Array, v: Float64Array, design: Design): number {
  const target = design.k - design.p;
  const q = (t: number) => weightedRss(y, v, t, design);
  if (q(0) <= target) return 0;
  return decreasingRoot(q, target, 0, initialUpper(v));
}

export function restrictedML(y: Float64Array, v: Float64Array, design: Design): number {
  let vMean = 0;
  for (const x of v) vMean += x / v.length;
  // Fisher scoring can overshoot back and forth around the root when the expected information
  // tr(PP) is far from the observed one (metafor's own iteration then fails to converge). So the
  // iterates keep a bracket: lo has a positive restricted score, hi a negative one, and a step
  // that leaves (lo, hi) is replaced by the midpoint. Near the optimum y'PPy - tr(P) cancels and
  // has a rounding-noise floor (about 1e-13 of the variances with an uncentred numeric
  // moderator): the iteration stops well above it.
  // A step may also stay inside the bracket yet land alternately just inside each end, so the
  // bracket shrinks by ~2% an iteration (30 runs of sampling variances 0.006-0.20 and tau^2 ~1e-5
  // did not converge in 1000): a step not under half the one two iterations back goes to the midpoint.
  let lo = 0, loKnown = false, hi = Number.POSITIVE_INFINITY;
  let step1 = Number.POSITIVE_INFINITY, step2 = Number.POSITIVE_INFINITY;
  let tau2 = dersimonianLaird(y, v, design);
  for (let iter = 0; iter < MAX_ITERATIONS; iter++) {
    const f = weightedFit(y, v, tau2, design, true);
    const score = f.yPPy - f.trP;
    if (score === 0) return tau2;
    if (score > 0) { lo = Math.max(lo, tau2); loKnown = true; } else hi = Math.min(hi, tau2);
    let next = tau2 + score / f.trPP;
    if (next < 0 && !loKnown) {
      // heading below 0: the maximum is at the boundary when the score at 0 is not positive
      const at0 = tau2 === 0 ? f : weightedFit(y, v, 0, design, true);
      if (at0.yPPy - at0.trP <= 0) return 0;
      loKnown = true; // lo = 0 has a positive score
    }
    const stalled = Number.isFinite(hi) && loKnown && Math.abs(next - tau2) > 0.5 * step2;
    if (stalled || !(next > lo && next < hi)) next = Number.isFinite(hi) ? 0.5 * (lo + hi) : Math.max(next, lo);
    step2 = step1; step1 = Math.abs(next - tau2);
    const tol = 1e-11 * (next + vMean);
    if (Math.abs(next - tau2) <= tol || (loKnown && hi - lo <= tol)) return next;
    tau2 = next;
  }
  throw new Error(`REML did not converge in ${MAX_ITERATIONS} iterations`);
}

/** A tau^2 larger than any plausible root to start the bracket from (grown as needed). */
export function initialUpper(v: Float64Array): number {
  let m = 0;
  for (const x of v) m = Math.max(m, x);
  return Math.max(1, 10 * m);
}

/**
 * The t >= lo where the decreasing function f equals target, given f(lo) > target; the upper end
 * of the bracket is doubled from `hi` until f(hi) < target. Bisection to machine precision.
 */
export function decreasingRoot(f: (t: number) => number, target: number, lo: number, hi: number): number {
  let grow = 0;
  while (f(hi) >= target) {
    lo = hi;
    hi *= 2;
    if (++grow > 200) throw new Error('could not bracket the root of the Q profile');
  }
  for (let i = 0; i < 400; i++) {
    const mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    if (f(mid) >= target) lo = mid; else hi = mid;
  }
  return 0.5 * (lo + hi);
}
