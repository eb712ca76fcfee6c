/**
 * The OOD series' residuals on the control, and each pair's residual (co)variances, corrected for
 * the control's sampling noise when its variance is known (errors in variables).
 *
 * Why. An accuracy over n test examples carries binomial noise u_i of variance p_i (1 - p_i) / n.
 * When both OOD sets follow in-domain progress (slopes beta_a, beta_b on the true control C),
 * regressing them on the observed c = C + u leaves -beta u in both residuals, so their residual
 * covariance gains beta_a beta_b sum(var u_i): a spurious positive partial correlation that no
 * regression on the observed score removes (Fuller 1987, "Measurement Error Models", 1.2 and 2.2).
 * On simulated null runs at n = 250-5000 it gave mean r +0.10 to +0.22 and "generalises" in up to
 * 39% of studies.
 *
 * Linear residualiser, Pearson: the method of moments with the known error variance (Fuller 1987,
 * 1.2.1 and 2.2; heteroscedastic known variances averaged, his 2.2.2): with centred sums S and
 * U = (1 - 1/n) sum var(u_i), the corrected slope is beta*_s = S_sc / (S_cc - U), and
 *   cov_ab = sum e*_a e*_b - beta*_a beta*_b U,   var_a = sum e*_a^2 - beta*_a^2 U,
 * e*_s = (s - mean s) - beta*_s (c - mean c): the partial covariance matrix of (a, b) given the
 * true control, S_ab - S_ac S_bc / (S_cc - U). Equivalently the partial correlation read from the
 * corrected covariance matrix of (a, b, c) with U taken off c's variance, which is how the golden
 * values of test/stats/golden/make_control_error.py are computed. When the control's reliability
 * (S_cc - U) / S_cc falls below MIN_RELIABILITY the denominator is held at that share of S_cc: the
 * estimator's moments do not exist near zero (Fuller 1987, 2.5 modifies it for the same reason); and
 * a pair whose residual variances the correction would take below that share of their naive values
 * is left uncorrected (counted in `uncorrected`): the stated noise is more than its residuals hold.
 *
 * Any other residualiser (the spline): SIMEX (Cook and Stefanski 1994, JASA 89; Carroll, Ruppert,
 * Stefanski and Crainiceanu 2006, "Measurement Error in Nonlinear Models", ch. 5): the control is
 * given extra noise of variance lambda var(u_i) (lambda 0.5, 1, 1.5, 2; SIMEX_REPLICATES draws each,
 * seeded), every series residualised on each noisier control, and each pair's residual covariance
 * and variances, averaged over the draws, extrapolated to lambda = -1 (no noise) by a quadratic in
 * lambda, the usual extrapolant. For the linear residualiser that recovers the method of moments
 * up to the quadratic's curvature error, which test/stats/control-residuals.test.ts bounds. The
 * extrapolation has a variance of its own, which the residuals' noise model does not hold: each
 * pair's `correctionVariance`, Stefanski and Cook's (1995) estimate from the draws' spread.
 *
 * SIMEX's echo bound. The quadratic extrapolant under-corrects (Carroll et al. 2006, 5.3): on a
 * learning curve's plateau the control's noise is as large as its true movement, and the echo grows
 * steeply with the first part of the noise and barely with more, which no extrapolation from added
 * noise sees. On null runs shaped like real ones (bench/realistic.ts with REALISTIC_TRUE_CONTROL,
 * 200 studies a cell) SIMEX removed 33-67% of the echo, the control's true progress giving the
 * rest. So a SIMEX-corrected pair's r is moved toward zero by as much again as SIMEX moved it, on
 * the Fisher z scale and never past zero, where the correction moved it toward zero: what is left
 * of the echo is taken to be at most what SIMEX removed. `simexR` keeps the extrapolation's own r.
 *
 * Both take each checkpoint's error as independent unless the errors' covariance across checkpoints
 * is given (`controlCovariance`, from per-example results): a fixed test set's errors persist between
 * checkpoints, and taken as independent the moments over-correct (240 null pairs: mean r -0.245, z^2
 * / v 4.32; with the covariance -0.017 and 0.98, test/stats/control-covariance.test.ts). Given it, U
 * is its centred trace and SIMEX draws from it.
 *
 * Spearman ranks the series first; ranks carry no known noise variance, so no correction is made
 * (the result says so), and its differences are ranked as differences (rankedDifferences). First
 * differences are otherwise taken of the level residuals (the control's curve
 * is removed in levels, where it is a curve, before differencing), scaled by the square root of
 * their gap; their noise term is sum w_i^2 (var u_i + var u_(i+1)).
 */
import { dot } from './linalg.ts';
import { correlatedNormal } from './correlated-normal.ts';
import { MomentSpread } from './moment-spread.ts';
import { createRandom } from './random.ts';
import { spacingOf } from './uneven-spacing.ts';
import { prepareControls, type Controls, type PartialOptions } from './partial-correlation-shared.ts';

/** Reliability floor of the method of moments' denominator. */
export const MIN_RELIABILITY = 0.2;
const SIMEX_LAMBDAS = [0.5, 1, 1.5, 2];
const SIMEX_REPLICATES = 20;

export type ControlCorrection = 'none' | 'moments' | 'simex';

/** A pair's residual covariance and the two variances, for levels and for differences. */
export interface PairMoments {
  c: number; va: number; vb: number;
  /** SIMEX only: the variance its extrapolation adds to r = c / sqrt(va vb) (Stefanski and Cook 1995). */
  correctionVariance?: number;
  /** SIMEX only: the extrapolation's r before the echo bound moved it toward zero. */
  simexR?: number;
}

export interface ControlResiduals {
  n: number;
  correction: ControlCorrection;
  /** The control's reliability (S_cc - U) / S_cc, when its noise is known. */
  reliability?: number;
  /** Per series: the level residuals (with the corrected slope under 'moments'), or null when there are none. */
  residuals: (Float64Array | null)[];
  /** Per series: the residualiser's dof beyond the intercept. */
  dof: number[];
  /** Per requested pair: the corrected moments of the levels and of the gap-scaled differences. */
  levels: PairMoments[];
  differences: PairMoments[];
  /**
   * The same moments before the correction (equal to them without one). A corrected r divides the
   * same cross-product by smaller variances, so its sampling variance grows by raw / corrected:
   * the test's effective sample size is scaled by that ratio (modelled-pair-tests.ts).
   */
  rawLevels: PairMoments[];
  rawDifferences: PairMoments[];
  /** Representations of pairs (levels and differences counted apart) left uncorrected: the stated noise exceeds what their residuals hold. */
  uncorrected?: number;
}

export interface ControlResidualOptions extends Pick<PartialOptions, 'method' | 'residualiser' | 'splineBasis'> {
  /** The control's sampling variance at each checkpoint; absent: no correction. */
  controlVariance?: Float64Array;
  /** The control's sampling errors' covariance across checkpoints (row-major, n x n; its diagonal the variances), where known. */
  controlCovariance?: Float64Array;
  /** Seed of SIMEX's draws. */
  seed?: number;
}

/** `gapScale[i]` = 1 / sqrt(gap_i / median gap): the differences' scaling (uneven-spacing.ts's, as weights). */
export function gapScales(steps: ArrayLike<number> | undefined, n: number): Float64Array {
  const w = new Float64Array(Math.max(0, n - 1)).fill(1);
  if (!steps || n < 2) return w;
  const g0 = spacingOf(steps).reference_gap;
  for (let i = 0; i < n - 1; i++) {
    const gap = steps[i + 1] - steps[i];
    w[i] = gap > 0 && g0 > 0 ? 1 / Math.sqrt(gap / g0) : 1;
  }
  return w;
}

/** Centred gap-scaled first differences of e. */
export function scaledCentredDifferences(e: Float64Array, w: Float64Array): Float64Array {
  const m = e.length - 1;
  const d = new Float64Array(Math.max(0, m));
  let mean = 0;
  for (let i = 0; i < m; i++) { d[i] = (e[i + 1] - e[i]) * w[i]; mean += d[i]; }
  mean /= Math.max(1, m);
  for (let i = 0; i < m; i++) d[i] -= mean;
  return d;
}

/**
 * Residualises every series on the control and gives each requested pair's moments. `skip[s]`
 * marks series with no residuals (constant, or constant residuals): their entries are null.
 */
export function controlResiduals(
  series: readonly Float64Array[], control: Float64Array, pairs: readonly (readonly [number, number])[],
  steps: ArrayLike<number> | undefined, opts: ControlResidualOptions, skip: Uint8Array,
): ControlResiduals | string {
  const n = control.length;
  const w = gapScales(steps, n);
  const variance = opts.method === 'pearson' ? opts.controlVariance : undefined;
  const controls = prepareControls([control], n, opts);
  if (typeof controls === 'string') return controls;
  if (variance && opts.residualiser === 'linear') return moments(series, control, pairs, w, variance, skip, opts.controlCovariance);
  const naive = residualiseAll(series, controls, skip);
  const out: ControlResiduals = {
    n, correction: 'none', residuals: naive.residuals, dof: naive.dof, ...withRaw(pairMoments(naive.residuals, pairs, w)),
  };
  if (opts.method === 'spearman') return { ...out, ...rankedDifferences(series, control, pairs, w, opts, skip) };
  if (!variance) return out;
  const { reliability } = controlNoise(control, variance, opts.controlCovariance);
  const simex = simexMoments(series, control, pairs, w, variance, opts, skip, out);
  return typeof simex === 'string' ? simex : { ...out, ...simex, correction: 'simex', reliability };
}

/**
 * Spearman's differences: the ranks of the (gap-scaled) differences residualised on the ranks of the
 * control's. Differencing level ranks would not do: a series that rises with training has ranks
 * 1..n, whose differences are nearly all 1 and carry nothing.
 */
function rankedDifferences(
  series: readonly Float64Array[], control: Float64Array, pairs: readonly (readonly [number, number])[], w: Float64Array,
  opts: ControlResidualOptions, skip: Uint8Array,
): Pick<ControlResiduals, 'differences' | 'rawDifferences'> {
  const scaled = (v: Float64Array) => Float64Array.from({ length: v.length - 1 }, (_, i) => (v[i + 1] - v[i]) * w[i]);
  const controls = prepareControls([scaled(control)], control.length - 1, opts);
  const none = pairs.map(() => ({ c: 0, va: 0, vb: 0 }));
  if (typeof controls === 'string') return { differences: none, rawDifferences: none };
  const { residuals } = residualiseAll(series.map(scaled), controls, skip);
  const centred = residuals.map((e) => (e ? centre(e) : null));
  const differences = pairs.map(([a, b]) => {
    const x = centred[a], y = centred[b];
    return x && y ? { c: dot(x, y), va: dot(x, x), vb: dot(y, y) } : { c: 0, va: 0, vb: 0 };
  });
  return { differences, rawDifferences: differences };
}

function residualiseAll(
  series: readonly Float64Array[], controls: Controls, skip: Uint8Array,
): { residuals: (Float64Array | null)[]; dof: number[] } {
  const dof: number[] = [];
  const residuals = series.map((s, i) => {
    if (skip[i]) { dof.push(0); return null; }
    const e = new Float64Array(s.length);
    dof.push(controls.residualiseSeries(s, e));
    return e;
  });
  return { residuals, dof };
}

function pairMoments(
  residuals: readonly (Float64Array | null)[], pairs: readonly (readonly [number, number])[], w: Float64Array,
): { levels: PairMoments[]; differences: PairMoments[] } {
  const centred = residuals.map((e) => (e ? centre(e) : null));
  const diffs = residuals.map((e) => (e ? scaledCentredDifferences(e, w) : null));
  const moment = (vs: (Float64Array | null)[], a: number, b: number): PairMoments => {
    const x = vs[a], y = vs[b];
    if (!x || !y) return { c: 0, va: 0, vb: 0 };
    return { c: dot(x, y), va: dot(x, x), vb: dot(y, y) };
  };
  return {
    levels: pairs.map(([a, b]) => moment(centred, a, b)),
    differences: pairs.map(([a, b]) => moment(diffs, a, b)),
  };
}

/**
 * The control's centred sum of squares, its noise U = E[sum (u_i - mean u)^2] and the reliability:
 * (1 - 1/n) sum var(u_i) for independent errors; with their covariance S, tr(S) - sum(S) / n, far
 * less when errors persist between checkpoints (a fixed test set's), whose common part the centring
 * takes.
 */
function controlNoise(control: Float64Array, variance: Float64Array, covariance?: Float64Array): { scc: number; u: number; reliability: number } {
  const n = control.length;
  const cc = centre(control);
  const scc = dot(cc, cc);
  let u = 0;
  if (covariance) {
    let all = 0;
    for (let i = 0; i < n; i++) { u += covariance[i * n + i]; for (let j = 0; j < n; j++) all += covariance[i * n + j]; }
    u -= all / n;
  } else {
    for (let i = 0; i < n; i++) u += variance[i];
    u *= 1 - 1 / n;
  }
  return { scc, u, reliability: scc > 0 ? (scc - u) / scc : 0 };
}

/** The same centred noise of the gap-scaled first differences d_i = w_i (u_(i+1) - u_i). */
function differencedNoise(variance: Float64Array, w: Float64Array, covariance?: Float64Array): number {
  const n = variance.length, m = n - 1;
  let ud = 0;
  if (!covariance) {
    for (let i = 0; i < m; i++) ud += w[i] * w[i] * (variance[i] + variance[i + 1]);
    return ud * (1 - 1 / Math.max(1, m));
  }
  const s = (i: number, j: number) => covariance[i * n + j];
  let all = 0;
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < m; j++) {
      const c = w[i] * w[j] * (s(i + 1, j + 1) - s(i + 1, j) - s(i, j + 1) + s(i, j));
      all += c;
      if (i === j) ud += c;
    }
  }
  return ud - all / Math.max(1, m);
}

function moments(
  series: readonly Float64Array[], control: Float64Array, pairs: readonly (readonly [number, number])[], w: Float64Array,
  variance: Float64Array, skip: Uint8Array, covariance?: Float64Array,
): ControlResiduals {
  const n = control.length;
  const cc = centre(control);
  const { scc, u, reliability } = controlNoise(control, variance, covariance);
  const denominator = Math.max(scc - u, MIN_RELIABILITY * scc);
  // the differenced noise: each difference holds two checkpoints' noise, scaled by its gap
  const ud = differencedNoise(variance, w, covariance);
  const beta = new Float64Array(series.length);
  const residuals = series.map((s, i) => {
    if (skip[i]) return null;
    const sc = centre(s);
    const b = dot(sc, cc) / denominator;
    beta[i] = b;
    for (let t = 0; t < n; t++) sc[t] -= b * cc[t];
    return sc;
  });
  const raw = pairMoments(residuals, pairs, w);
  // a residual variance the control's noise echo would take more than 1 - MIN_RELIABILITY of says
  // that noise is overstated for this series (a fixed test set whose answers barely change between
  // checkpoints carries little of its binomial variance from one to the next): such a pair is left
  // uncorrected rather than divided by what is left
  let uncorrected = 0;
  const correct = (m: PairMoments, a: number, b: number, noise: number): PairMoments => {
    const na = beta[a] * beta[a] * noise, nb = beta[b] * beta[b] * noise;
    if (na > (1 - MIN_RELIABILITY) * m.va || nb > (1 - MIN_RELIABILITY) * m.vb) { uncorrected++; return m; }
    return { c: m.c - beta[a] * beta[b] * noise, va: m.va - na, vb: m.vb - nb };
  };
  return {
    n, correction: 'moments', reliability, residuals, dof: series.map(() => 1),
    levels: raw.levels.map((m, i) => correct(m, pairs[i][0], pairs[i][1], u)),
    differences: raw.differences.map((m, i) => correct(m, pairs[i][0], pairs[i][1], ud)),
    rawLevels: raw.levels, rawDifferences: raw.differences, uncorrected,
  };
}

function simexMoments(
  series: readonly Float64Array[], control: Float64Array, pairs: readonly (readonly [number, number])[], w: Float64Array,
  variance: Float64Array, opts: ControlResidualOptions, skip: Uint8Array, naive: ControlResiduals,
): { levels: PairMoments[]; differences: PairMoments[]; uncorrected: number } | string {
  const n = control.length;
  const random = createRandom(opts.seed ?? 0);
  const sd = Float64Array.from(variance, (v) => Math.sqrt(Math.max(0, v)));
  // the same draws at every lambda (common random numbers): each draw's moments then vary smoothly
  // in lambda, and the extrapolation to -1 does not amplify draw-to-draw noise between the lambdas
  const correlated = opts.controlCovariance ? correlatedNormal(opts.controlCovariance, n) : undefined;
  const draws = correlated ? Array.from({ length: SIMEX_REPLICATES }, () => correlated(random))
    : Array.from({ length: SIMEX_REPLICATES }, () => Float64Array.from(sd, (s) => s * random.normal()));
  const lambdas = [0, ...SIMEX_LAMBDAS];
  // per lambda (0 first), per pair: the mean moments over the draws, and their spread over the draws
  const spread = lambdas.map(() => ({ levels: new MomentSpread(pairs.length), differences: new MomentSpread(pairs.length) }));
  const means = lambdas.map((lambda, li) => {
    if (li === 0) return { levels: naive.levels, differences: naive.differences };
    const acc = { levels: pairs.map(() => ({ c: 0, va: 0, vb: 0 })), differences: pairs.map(() => ({ c: 0, va: 0, vb: 0 })) };
    const noisy = new Float64Array(n);
    let drawn = 0;
    for (const draw of draws) {
      const scale = Math.sqrt(lambda);
      for (let i = 0; i < n; i++) noisy[i] = control[i] + scale * draw[i];
      const controls = prepareControls([noisy], n, opts);
      if (typeof controls === 'string') continue;
      drawn++;
      const m = pairMoments(residualiseAll(series, controls, skip).residuals, pairs, w);
      add(acc.levels, m.levels);
      add(acc.differences, m.differences);
      for (const key of ['levels', 'differences'] as const) {
        const list = m[key], into = spread[li][key];
        for (let p = 0; p < pairs.length; p++) into.add(p, list[p].c, list[p].va, list[p].vb);
        into.drawn();
      }
    }
    if (drawn < 2) return undefined;
    for (const key of ['levels', 'differences'] as const) for (const m of acc[key]) { m.c /= drawn; m.va /= drawn; m.vb /= drawn; }
    return acc;
  });
  if (means.some((m) => m === undefined)) return 'the spline could not be fitted on the control with simulated extra noise (SIMEX)';
  // The correction's own variance (Stefanski and Cook 1995, JASA 90, "Simulation-extrapolation: the
  // measurement error jackknife", section 3): var(estimate at lambda) = its stated variance minus
  // the draws' variance s^2(lambda), extrapolated to -1 like the estimate. The stated variance barely
  // moves with lambda (n_eff is fitted once), so the extrapolation adds -s^2(-1), s^2(0) = 0 among
  // the points. s^2 is the spread of r to first order at the corrected moments (moment-spread.ts):
  // the draws move c and the variances together, and the spread of c alone over the corrected
  // variances made a pair at |r| 0.999 (the demo's mirrored sets, whose r no draw moves) untestable
  // once a fixed test set's covariance made its correction credible; the spread of each draw's own
  // r, tried first, divides by the draws' noisier variances and left null runs' tests liberal.
  // Measured on null runs shaped like real ones (bench/realistic.ts): without the term their z
  // scattered 1.20-1.60 times the stated variance (docs/analyze.md).
  const extrapolate = (pick: (l: typeof means[number]) => PairMoments[], s2: (li: number) => MomentSpread) => pairs.map((_, p) => {
    const m = {
      c: quadraticAtMinusOne(lambdas, lambdas.map((_, li) => pick(means[li])[p].c)),
      va: quadraticAtMinusOne(lambdas, lambdas.map((_, li) => pick(means[li])[p].va)),
      vb: quadraticAtMinusOne(lambdas, lambdas.map((_, li) => pick(means[li])[p].vb)),
    };
    const added = Math.max(0, -quadraticAtMinusOne(lambdas, lambdas.map((_, li) => s2(li).rVariance(p, m.c, m.va, m.vb))));
    return m.va > 0 && m.vb > 0 ? { ...m, correctionVariance: added } : m;
  });
  // the method of moments' rule: a pair whose variances the correction would take below
  // MIN_RELIABILITY of their naive values is left uncorrected
  let uncorrected = 0;
  const credible = (list: PairMoments[], raw: PairMoments[]) => list.map((m, i) => {
    if (m.va >= MIN_RELIABILITY * raw[i].va && m.vb >= MIN_RELIABILITY * raw[i].vb) return m;
    uncorrected++;
    return raw[i];
  });
  const levels = credible(extrapolate((l) => l!.levels, (li) => spread[li].levels), naive.levels);
  const differences = credible(extrapolate((l) => l!.differences, (li) => spread[li].differences), naive.differences);
  return {
    levels: levels.map((m, i) => (m === naive.levels[i] ? m : echoBound(m, naive.levels[i]))),
    differences: differences.map((m, i) => (m === naive.differences[i] ? m : echoBound(m, naive.differences[i]))),
    uncorrected,
  };
}

/** Largest |r| taken to Fisher's z in the echo bound (r = +-1 has no finite z). */
const ECHO_BOUND_MAX_R = 0.9999;

/**
 * SIMEX's corrected moments with r moved toward zero by as much again as the correction moved it
 * (Fisher z; never past zero), where the correction moved r toward zero; else as they are. The
 * variances are kept, so the pair's effective n is unchanged.
 */
export function echoBound(m: PairMoments, raw: PairMoments): PairMoments {
  if (!(m.va > 0) || !(m.vb > 0) || !(raw.va > 0) || !(raw.vb > 0)) return m;
  const clip = (r: number) => Math.max(-ECHO_BOUND_MAX_R, Math.min(ECHO_BOUND_MAX_R, r));
  const r = m.c / Math.sqrt(m.va * m.vb);
  const z = Math.atanh(clip(r)), zRaw = Math.atanh(clip(raw.c / Math.sqrt(raw.va * raw.vb)));
  const moved = zRaw - z;
  if (!(moved !== 0 && Math.sign(moved) === Math.sign(z))) return { ...m, simexR: r };
  const bounded = Math.sign(z) * Math.max(0, Math.abs(z) - Math.abs(moved));
  return { ...m, c: Math.tanh(bounded) * Math.sqrt(m.va * m.vb), simexR: r };
}

function withRaw(
  m: { levels: PairMoments[]; differences: PairMoments[] },
): Pick<ControlResiduals, 'levels' | 'differences' | 'rawLevels' | 'rawDifferences'> {
  return { ...m, rawLevels: m.levels, rawDifferences: m.differences };
}

function add(into: PairMoments[], from: PairMoments[]): void {
  for (let i = 0; i < into.length; i++) { into[i].c += from[i].c; into[i].va += from[i].va; into[i].vb += from[i].vb; }
}

/** The least-squares quadratic through (x_i, y_i), evaluated at -1. */
export function quadraticAtMinusOne(x: readonly number[], y: readonly number[]): number {
  // normal equations of [1, x, x^2]
  const s = [0, 0, 0, 0, 0], t = [0, 0, 0];
  for (let i = 0; i < x.length; i++) {
    let p = 1;
    for (let j = 0; j < 5; j++) { s[j] += p; if (j < 3) t[j] += p * y[i]; p *= x[i]; }
  }
  const m = [[s[0], s[1], s[2]], [s[1], s[2], s[3]], [s[2], s[3], s[4]]];
  const coef = solve3(m, t);
  return coef[0] - coef[1] + coef[2];
}

function solve3(m: number[][], b: number[]): number[] {
  const a = m.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < 3; c++) {
    let pivot = c;
    for (let r = c + 1; r < 3; r++) if (Math.abs(a[r][c]) > Math.abs(a[pivot][c])) pivot = r;
    [a[c], a[pivot]] = [a[pivot], a[c]];
    for (let r = c + 1; r < 3; r++) {
      const f = a[r][c] / a[c][c];
      for (let k = c; k < 4; k++) a[r][k] -= f * a[c][k];
    }
  }
  const x = [0, 0, 0];
  for (let r = 2; r >= 0; r--) {
    let v = a[r][3];
    for (let k = r + 1; k < 3; k++) v -= a[r][k] * x[k];
    x[r] = v / a[r][r];
  }
  return x;
}

function centre(v: Float64Array): Float64Array {
  let m = 0;
  for (let i = 0; i < v.length; i++) m += v[i];
  m /= v.length;
  return v.map((x) => x - m);
}
