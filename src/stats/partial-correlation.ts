/**
 * Partial correlation of x and y given covariates, with pingouin.partial_corr's test (and R ppcor's):
 *   Pearson: e_x, e_y = residuals of x and y on [1, covariates] (linear-residuals.ts), r = corr(e_x, e_y)
 *            (equal to -P_xy / sqrt(P_xx P_yy), P the inverse covariance matrix);
 *   Spearman: the same on the average ranks of x, y and of every covariate (pingouin ranks them all);
 *   df = n - 2 - k;  t = r sqrt(df / (1 - r^2));  p = 2 P(T_df > |t|), computed as 2 cdf(-|t|);
 *   95% CI (Fisher z; pingouin compute_esci with nx = n - k, not rounded here):
 *        tanh(atanh(r) -+ z_0.975 / sqrt(n - k - 3)).
 * With the spline residualiser (spline-residuals.ts, mgcv's GAM with one smooth) k is the smooth's
 * effective degrees of freedom; x and y each get their own GCV fit and so their own edf, and the
 * LARGER of the two is used (conservative: fewer degrees of freedom, wider CI, larger p).
 * Sources: pingouin correlation.py (partial_corr, _correl_pvalue) and effsize.py (compute_esci);
 * Kim 2015, "ppcor: An R Package for a Fast Calculation to Semi-partial Correlation Coefficients".
 * Deviation: pingouin returns p = 0 whenever r^2 is numerically close to 1; here p is computed
 * (it is exactly 0 only when |r| = 1).
 * Null results (never NaN): a constant series, residuals that are constant (the series is a
 * function of the covariates), or too few observations (n - k - 3 <= 0 or df <= 0); `reason` says which.
 *
 * Inference. 'naive' is the test above, which treats the n checkpoints as independent (pingouin's,
 * and the papers'). 'effective-n' (effective-sample-size.ts) replaces n by Bartlett's effective
 * sample size n_eff of the two residual series (from their bias-corrected lag-1 autocorrelations),
 * capped at the number of distinct (x, y, covariates) rows: df = n_eff - 2 - k and the CI uses
 * sqrt(n_eff - k - 3). Both inferences make a pair with too few distinct rows (at most k + 3) a
 * null result: plateaued checkpoints repeat rows, and repeats are not observations.
 */
import { UserError } from '../errors.ts';
import { lag1AboutMean } from './autocorrelation.ts';
import { centredCorrelation } from './correlation.ts';
import { countDistinctRows, denseIds, type DenseIds } from './distinct-rows.ts';
import { bartlettEffectiveN, biasCorrectedAr1 } from './effective-sample-size.ts';
import { normalQuantile, tTwoSidedP } from './distributions.ts';
import { linearResidualiser, type SeriesResidualiser } from './linear-residuals.ts';
import { Ranker, rankInto } from './rank.ts';
import { splineResidualiser } from './spline-residuals.ts';
import { isConstant, requireLength, toFloat64 } from './validate.ts';

/** What stats/ offers; analyze/options.ts builds the one analysis-options schema from these. */
export const CORRELATION_METHODS = ['pearson', 'spearman'] as const;
export const RESIDUALISERS = ['linear', 'spline'] as const;
export const INFERENCES = ['effective-n', 'naive'] as const;
export type CorrelationMethod = typeof CORRELATION_METHODS[number];
export type Residualiser = typeof RESIDUALISERS[number];
/** How the p-value and CI count observations: Bartlett's effective n, or every checkpoint as independent. */
export type Inference = typeof INFERENCES[number];

export interface PartialResult {
  /** Observations used. */
  n: number;
  /** Null when undefined (a constant series, constant residuals, too few observations). */
  r: number | null;
  /** The observations the test counts: n ('naive'), or the effective sample size ('effective-n'). */
  nEff: number;
  /** nEff - 2 - k (k = covariates; for the spline, the smooth's effective dof). */
  df: number;
  /** Two-sided t-test p-value with df. */
  p: number | null;
  /** Fisher z interval: tanh(atanh(r) -+ z_.975 / sqrt(nEff - k - 3)). */
  ci95: [number, number] | null;
  /** 'effective-n': the bias-corrected AR(1) coefficients of the two residual series. */
  phi?: [number, number];
  /** Distinct (x, y, covariates) rows, when fewer than n. */
  distinct?: number;
  /** Why r / p / ci95 are null, in words. */
  reason?: string;
}

export interface PartialOptions {
  method: CorrelationMethod;
  /** 'spline' takes exactly one covariate (with none, both residualisers just centre the series). */
  residualiser: Residualiser;
  /** Basis dimension of the spline (mgcv's k); default 10. */
  splineBasis?: number;
  /** Default 'naive' (pingouin's test); the analysis defaults to 'effective-n'. */
  inference?: Inference;
}

/** Residuals whose norm is below this fraction of the centred series' norm count as constant. */
const CONSTANT_RESIDUALS = 1e-10;

const Z975 = normalQuantile(0.975);

export function partialCorrelation(
  x: ArrayLike<number>, y: ArrayLike<number>, covariates: ArrayLike<number>[], opts: PartialOptions,
): PartialResult {
  const n = x.length;
  requireLength(y, n, 'y', 'x');
  covariates.forEach((c, i) => requireLength(c, n, `covariates[${i}]`, 'x'));
  const xs = toFloat64(x, 'x');
  const ys = toFloat64(y, 'y');
  const cs = covariates.map((c, i) => toFloat64(c, `covariates[${i}]`));
  const distinct = n > 0 ? countDistinctRows([xs, ys, ...cs].map(denseIds), n) : 0;
  return partialOfArrays(xs, ys, cs, opts, 'x', 'y', distinct);
}

/**
 * The same on validated arrays (not modified). Used by the bootstrap on resampled rows, which
 * repeat rows by design: it passes no `distinct` count, and only r is used there.
 */
export function partialOfArrays(
  x: Float64Array, y: Float64Array, covariates: Float64Array[], opts: PartialOptions, nameX = 'x', nameY = 'y',
  distinct = x.length,
): PartialResult {
  const n = x.length;
  const k = covariates.length;
  checkOptions(opts, k);
  const early = tooFew(n, k);
  if (early) return early;
  for (const [s, name] of [[x, nameX], [y, nameY]] as const) {
    if (isConstant(s)) return nullResult(n, n - 2 - k, `series '${name}' is constant`);
  }
  const controls = prepareControls(covariates, n, opts);
  if (typeof controls === 'string') return nullResult(n, n - 2 - k, controls);
  const rx = new Float64Array(n), ry = new Float64Array(n);
  const dofX = controls.residualiseSeries(x, rx);
  const dofY = controls.residualiseSeries(y, ry);
  const kEff = Math.max(dofX, dofY);
  const late = tooFew(n, kEff);
  if (late) return late;
  for (const [s, e, name] of [[x, rx, nameX], [y, ry, nameY]] as const) {
    if (residualsConstant(s, e, controls.scratch)) return nullResult(n, n - 2 - kEff, constantResidualsReason(name));
  }
  const r = centredCorrelation(rx, ry);
  const phi = opts.inference === 'effective-n' ? [residualPhi(rx), residualPhi(ry)] as [number, number] : undefined;
  return inferFromR(n, kEff, r, distinct, phi);
}

/** Bias-corrected AR(1) coefficient of one residual series. */
function residualPhi(e: Float64Array): number {
  const n = e.length;
  let m = 0;
  for (let t = 0; t < n; t++) m += e[t];
  m /= n;
  let ss = 0;
  for (let t = 0; t < n; t++) ss += (e[t] - m) * (e[t] - m);
  return biasCorrectedAr1(lag1AboutMean(e, 0, n, m, ss), n);
}

/**
 * The test of r from n rows (distinct of them) and k covariate dof: the naive test when `phi` is
 * undefined, else with Bartlett's effective sample size of the two AR(1) coefficients, or with
 * `givenNEff` when the caller computed it another way (uneven-pair-tests.ts), capped the same way.
 */
export function inferFromR(n: number, k: number, r: number, distinct: number, phi?: [number, number], givenNEff?: number): PartialResult {
  if (distinct - k - 3 <= 0) {
    return { ...nullResult(n, n - 2 - k, `only ${distinct} distinct checkpoint${distinct === 1 ? '' : 's'} (of ${n}): too few for k=${fmtK(k)} covariate degrees of freedom (needs more than k + 3)`), distinct };
  }
  const extra = distinct < n ? { distinct } : {};
  if (phi === undefined) return { ...(tooFew(n, k) ?? resultFromR(n, k, r)), ...extra };
  const nEff = givenNEff === undefined ? bartlettEffectiveN(phi[0], phi[1], n, distinct) : Math.min(givenNEff, n, distinct);
  if (nEff - k - 3 <= 0) {
    return { ...nullResult(n, nEff - 2 - k, `effective sample size ${nEff.toFixed(1)} of ${n} checkpoints (residual autocorrelations ${phi[0].toFixed(2)}, ${phi[1].toFixed(2)}) too small for k=${fmtK(k)} covariate degrees of freedom (needs n_eff - k - 3 > 0)`), nEff, phi, ...extra };
  }
  return { ...resultFromR(n, k, r, nEff), phi, ...extra };
}

export interface Controls {
  /**
   * Ranks (Spearman) and residualises `y` into `out`; returns the dof the fit used beyond the
   * intercept. With `moments`, stores the residuals' sum and sum of squares there.
   */
  residualiseSeries(y: Float64Array, out: Float64Array, moments?: Float64Array): number;
  /** n-length scratch the caller may use between calls. */
  scratch: Float64Array;
}

/** Builds the residualiser of one set of covariates (ranked for Spearman), or a reason it cannot. */
export function prepareControls(covariates: Float64Array[], n: number, opts: PartialOptions): Controls | string {
  const spearmanMethod = opts.method === 'spearman';
  const sorted = spearmanMethod ? new Ranker(n) : (undefined as unknown as Ranker);
  const covs = spearmanMethod
    ? covariates.map((c) => { const r = new Float64Array(n); rankInto(c, r, sorted); return r; })
    : covariates;
  let res: SeriesResidualiser;
  if (opts.residualiser === 'spline' && covs.length === 1) {
    const s = splineResidualiser(covs[0], opts.splineBasis ?? 10);
    if (typeof s === 'string') return s;
    res = s;
  } else {
    res = linearResidualiser(covs, n);
  }
  const ranked = spearmanMethod ? new Float64Array(n) : new Float64Array(0);
  return {
    scratch: new Float64Array(n),
    residualiseSeries(y: Float64Array, out: Float64Array, moments?: Float64Array): number {
      if (spearmanMethod) { rankInto(y, ranked, sorted); return res.residualise(ranked, out, moments); }
      return res.residualise(y, out, moments);
    },
  };
}

export function checkOptions(opts: PartialOptions, k: number): void {
  if (opts.method !== 'pearson' && opts.method !== 'spearman') {
    throw new UserError(`correlation method must be 'pearson' or 'spearman', got '${String(opts.method)}'`);
  }
  if (opts.residualiser !== 'linear' && opts.residualiser !== 'spline') {
    throw new UserError(`residualiser must be 'linear' or 'spline', got '${String(opts.residualiser)}'`);
  }
  if (opts.inference !== undefined && !INFERENCES.includes(opts.inference)) {
    throw new UserError(`inference must be ${INFERENCES.map((x) => `'${x}'`).join(' or ')}, got '${String(opts.inference)}'`);
  }
  if (opts.residualiser === 'spline' && k > 1) {
    throw new UserError(`the spline residualiser takes exactly one control variable, got ${k}; use residualiser 'linear' for several`);
  }
  if (opts.splineBasis !== undefined && (!Number.isInteger(opts.splineBasis) || opts.splineBasis < 3)) {
    throw new UserError(`splineBasis must be an integer of at least 3, got ${opts.splineBasis}`);
  }
}

/** True when the residuals `e` of series `s` are numerically zero. */
export function residualsConstant(s: Float64Array, e: Float64Array, _scratch?: Float64Array): boolean {
  const n = s.length;
  let m = 0;
  for (let i = 0; i < n; i++) m += s[i];
  m /= n;
  let ss = 0, ee = 0, em = 0;
  for (let i = 0; i < n; i++) { const d = s[i] - m; ss += d * d; em += e[i]; }
  em /= n;
  for (let i = 0; i < n; i++) { const d = e[i] - em; ee += d * d; }
  return Math.sqrt(ee) <= CONSTANT_RESIDUALS * Math.sqrt(ss);
}

export function constantResidualsReason(name: string): string {
  return `residuals of '${name}' are constant: it is fully explained by the covariates`;
}

function fmtK(k: number): string {
  return Number.isInteger(k) ? String(k) : k.toFixed(2);
}

/** A null result when n is too small for k (or edf) covariates, else undefined. */
export function tooFew(n: number, k: number): PartialResult | undefined {
  const df = n - 2 - k;
  if (n - k - 3 <= 0 || df <= 0) {
    return nullResult(n, df, `n=${n} too few for k=${fmtK(k)} covariate degrees of freedom (needs n - k - 3 > 0)`);
  }
  return undefined;
}

export function nullResult(n: number, df: number, reason: string): PartialResult {
  return { n, r: null, nEff: n, df, p: null, ci95: null, reason };
}

/** The test and interval for a partial correlation r from n observations (nEff of them effective) and k covariate dof. */
export function resultFromR(n: number, k: number, r: number, nEff = n): PartialResult {
  const df = nEff - 2 - k;
  const rr = Math.max(-1, Math.min(1, r));
  const denom = 1 - rr * rr;
  const p = denom === 0 ? 0 : tTwoSidedP(rr * Math.sqrt(df / denom), df);
  const z = Math.atanh(rr);
  const half = Z975 / Math.sqrt(nEff - k - 3);
  return { n, r: rr, nEff, df, p, ci95: [Math.tanh(z - half), Math.tanh(z + half)] };
}

/**
 * Efficient all-pairs form for one run: every series is residualised ONCE (against covariates built
 * once), normalised to a centred unit vector, and each pair's r is then one dot product.
 * Pairs (a, b) with a < b in the names sorted by code unit (Array.prototype.sort's default order).
 */
export function partialCorrelationPairs(
  series: Record<string, ArrayLike<number>>, covariates: ArrayLike<number>[], opts: PartialOptions,
): { a: string; b: string; result: PartialResult }[] {
  const names = Object.keys(series).sort();
  const out: { a: string; b: string; result: PartialResult }[] = [];
  if (names.length === 0) return out;
  const n = series[names[0]].length;
  for (const name of names) requireLength(series[name], n, name, names[0]);
  const state = residualiseAll(names.map((name) => toFloat64(series[name], name)), names, covariates, opts);
  const { m, resid, reasons } = state;
  // all pair dot products first, four pairs per pass over a's residuals
  const dots = new Float64Array(m * m);
  for (let a = 0; a < m; a++) {
    if (reasons[a] !== undefined) continue;
    const oa = a * n;
    let b = a + 1;
    for (; b + 3 < m; b += 4) {
      const o0 = b * n, o1 = o0 + n, o2 = o1 + n, o3 = o2 + n;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (let t = 0; t < n; t++) {
        const u = resid[oa + t];
        s0 += u * resid[o0 + t]; s1 += u * resid[o1 + t]; s2 += u * resid[o2 + t]; s3 += u * resid[o3 + t];
      }
      dots[a * m + b] = s0; dots[a * m + b + 1] = s1; dots[a * m + b + 2] = s2; dots[a * m + b + 3] = s3;
    }
    for (; b < m; b++) dots[a * m + b] = dotAt(resid, oa, b * n, n);
  }
  for (let a = 0; a < m; a++) {
    for (let b = a + 1; b < m; b++) out.push({ a: names[a], b: names[b], result: pairResult(state, a, b, dots[a * m + b]) });
  }
  return out;
}

/**
 * The same test on matched pairs (xs[i], ys[i]) sharing one set of covariates, residualised once:
 * what a calibration needs for many simulated pairs of one run (analyze/calibration.ts).
 */
export function partialCorrelationMatched(
  xs: Float64Array[], ys: Float64Array[], covariates: ArrayLike<number>[], opts: PartialOptions,
): PartialResult[] {
  if (xs.length !== ys.length) throw new UserError(`matched pairs need as many x series as y series, got ${xs.length} and ${ys.length}`);
  const count = xs.length;
  if (count === 0) return [];
  const n = xs[0].length;
  const all = [...xs, ...ys];
  all.forEach((s, i) => requireLength(s, n, i < count ? `xs[${i}]` : `ys[${i - count}]`, 'xs[0]'));
  const names = all.map((_, i) => (i < count ? `x${i}` : `y${i - count}`));
  const state = residualiseAll(all.map((s, i) => toFloat64(s, names[i])), names, covariates, opts);
  const out: PartialResult[] = [];
  for (let i = 0; i < count; i++) {
    const b = count + i;
    const dot = state.reasons[i] === undefined && state.reasons[b] === undefined ? dotAt(state.resid, i * n, b * n, n) : 0;
    out.push(pairResult(state, i, b, dot));
  }
  return out;
}

/** Every series residualised once on the covariates, with what each pair's test needs. */
interface Residualised {
  n: number; k: number; m: number; early: PartialResult | undefined; effective: boolean;
  resid: Float64Array; dof: Float64Array; means: Float64Array; norms: Float64Array; phis: Float64Array;
  reasons: (string | undefined)[];
  covIds: DenseIds[]; seriesIds: DenseIds[] | undefined;
}

function residualiseAll(data: Float64Array[], names: string[], covariates: ArrayLike<number>[], opts: PartialOptions): Residualised {
  const m = data.length;
  const n = data[0].length;
  covariates.forEach((c, i) => requireLength(c, n, `covariates[${i}]`, names[0]));
  const k = covariates.length;
  checkOptions(opts, k);
  const cs = covariates.map((c, i) => toFloat64(c, `covariates[${i}]`));
  const early = tooFew(n, k);
  const controls = early ? undefined : prepareControls(cs, n, opts);
  // raw residuals, one series after another; r_ab = (e_a'e_b - n mean_a mean_b) / sqrt(ss_a ss_b)
  const resid = new Float64Array(m * n);
  const dof = new Float64Array(m);
  const means = new Float64Array(m), norms = new Float64Array(m), phis = new Float64Array(m);
  const effective = opts.inference === 'effective-n';
  const reasons: (string | undefined)[] = new Array(m).fill(undefined);
  const moments = new Float64Array(2);
  for (let s = 0; s < m; s++) {
    if (early) { reasons[s] = early.reason; continue; }
    if (typeof controls === 'string') { reasons[s] = controls; continue; }
    const ssData = centredSumOfSquares(data[s]); // 0 for a constant series
    if (ssData === 0 && isConstant(data[s])) { reasons[s] = `series '${names[s]}' is constant`; continue; }
    dof[s] = controls!.residualiseSeries(data[s], resid.subarray(s * n, (s + 1) * n), moments);
    // residuals have mean 0 up to rounding (the intercept is in every model), so their centred
    // sum of squares comes from the raw moments without cancellation
    const mean = moments[0] / n;
    const ssE = Math.max(0, moments[1] - moments[0] * mean);
    if (Math.sqrt(ssE) <= CONSTANT_RESIDUALS * Math.sqrt(ssData)) {
      reasons[s] = constantResidualsReason(names[s]);
      continue;
    }
    means[s] = mean;
    norms[s] = Math.sqrt(ssE);
    if (effective) phis[s] = biasCorrectedAr1(lag1AboutMean(resid, s * n, n, mean, ssE), n);
  }
  // distinct (control, a, b) rows per pair; one all-distinct covariate makes every row distinct
  const covIds = cs.map(denseIds);
  const seriesIds = covIds.some((c) => c.levels === n) ? undefined : data.map(denseIds);
  return { n, k, m, early, effective, resid, dof, means, norms, phis, reasons, covIds, seriesIds };
}

/** The test of the pair (a, b) of residualised series, given their residuals' dot product. */
function pairResult(st: Residualised, a: number, b: number, dot: number): PartialResult {
  const { n, k } = st;
  const reason = st.reasons[a] ?? st.reasons[b];
  if (reason !== undefined) return nullResult(n, n - 2 - (st.early ? k : Math.max(st.dof[a], st.dof[b])), reason);
  const kEff = Math.max(st.dof[a], st.dof[b]);
  const r = (dot - n * st.means[a] * st.means[b]) / (st.norms[a] * st.norms[b]);
  const distinct = st.seriesIds ? countDistinctRows([...st.covIds, st.seriesIds[a], st.seriesIds[b]], n) : n;
  return tooFew(n, kEff) ?? inferFromR(n, kEff, r, distinct, st.effective ? [st.phis[a], st.phis[b]] : undefined);
}

/** Sum of squares about the mean in one pass, shifted by the first value (only for a threshold). */
function centredSumOfSquares(s: Float64Array): number {
  const n = s.length, shift = s[0];
  let sum = 0, sq = 0;
  for (let t = 0; t < n; t++) { const d = s[t] - shift; sum += d; sq += d * d; }
  return Math.max(0, sq - (sum * sum) / n);
}

function dotAt(v: Float64Array, a: number, b: number, n: number): number {
  let s0 = 0, s1 = 0;
  let t = 0;
  for (; t + 1 < n; t += 2) { s0 += v[a + t] * v[b + t]; s1 += v[a + t + 1] * v[b + t + 1]; }
  if (t < n) s0 += v[a + t] * v[b + t];
  return s0 + s1;
}
