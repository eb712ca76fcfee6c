/**
 * What the single-pair reference (partial-correlation.ts) and the batch path
 * (partial-correlation-batch.ts) share, so that both run the same test: the options and their
 * check, the covariates' residualiser (ranked for Spearman), the rule for residuals that count as
 * constant, and the test of r (p-value, Fisher-z CI, effective n, null results with their reasons).
 * The formulas and sources are in partial-correlation.ts's header.
 */
import { UserError } from '../errors.ts';
import { bartlettEffectiveN } from './effective-sample-size.ts';
import { normalQuantile, tTwoSidedP } from './distributions.ts';
import { linearResidualiser, type SeriesResidualiser } from './linear-residuals.ts';
import { Ranker, rankInto } from './rank.ts';
import { splineResidualiser } from './spline-residuals.ts';

/** What stats/ offers; analyze/options.ts builds the one analysis-options schema from these. */
export const CORRELATION_METHODS = ['pearson', 'spearman'] as const;
export const RESIDUALISERS = ['linear', 'spline'] as const;
export const INFERENCES = ['effective-n', 'naive'] as const;
export type CorrelationMethod = typeof CORRELATION_METHODS[number];
export type Residualiser = typeof RESIDUALISERS[number];
/** How the p-value and CI count observations: an effective n (modelled-pair-tests.ts), or every checkpoint as independent. */
export type Inference = typeof INFERENCES[number];

export interface PartialResult {
  /** Observations used. */
  n: number;
  /** Null when undefined (a constant series, constant residuals, too few observations). */
  r: number | null;
  /** The observations the test counts: n ('naive'), or the effective sample size ('effective-n'). */
  n_eff: number;
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

export function checkOptions(opts: PartialOptions, k: number): void {
  if (opts.method !== 'pearson' && opts.method !== 'spearman') {
    throw new UserError(`correlation method must be 'pearson' or 'spearman', got '${String(opts.method)}'`);
  }
  if (opts.residualiser !== 'linear' && opts.residualiser !== 'spline') {
    throw new UserError(`residualiser must be 'linear' or 'spline', got '${String(opts.residualiser)}'`);
  }
  if (opts.inference !== undefined && !INFERENCES.includes(opts.inference)) {
    const known = INFERENCES.map((x) => `'${x}'`).join(' or ');
    throw new UserError(`inference must be ${known}, got '${String(opts.inference)}'`);
  }
  if (opts.residualiser === 'spline' && k > 1) {
    throw new UserError(
      `the spline residualiser takes exactly one control variable, got ${k}; use residualiser 'linear' for several`,
    );
  }
  if (opts.splineBasis !== undefined && (!Number.isInteger(opts.splineBasis) || opts.splineBasis < 3)) {
    throw new UserError(`splineBasis must be an integer of at least 3, got ${opts.splineBasis}`);
  }
}

export interface Controls {
  /**
   * Ranks (Spearman) and residualises `y` into `out`; returns the dof the fit used beyond the
   * intercept. With `moments`, stores the residuals' sum and sum of squares there.
   */
  residualiseSeries(y: Float64Array, out: Float64Array, moments?: Float64Array): number;
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
    residualiseSeries(y: Float64Array, out: Float64Array, moments?: Float64Array): number {
      if (spearmanMethod) { rankInto(y, ranked, sorted); return res.residualise(ranked, out, moments); }
      return res.residualise(y, out, moments);
    },
  };
}

/**
 * The rule for residuals that count as constant (the series is a function of the covariates),
 * from the centred sums of squares of the series and of its residuals.
 */
export function negligibleResiduals(seriesSumOfSquares: number, residualSumOfSquares: number): boolean {
  return Math.sqrt(residualSumOfSquares) <= CONSTANT_RESIDUALS * Math.sqrt(seriesSumOfSquares);
}

/** True when the residuals `e` of series `s` are numerically zero (two-pass sums of squares). */
export function residualsConstant(s: Float64Array, e: Float64Array): boolean {
  return negligibleResiduals(centredSumOfSquares(s), centredSumOfSquares(e));
}

function centredSumOfSquares(v: Float64Array): number {
  const n = v.length;
  let m = 0;
  for (let i = 0; i < n; i++) m += v[i];
  m /= n;
  let ss = 0;
  for (let i = 0; i < n; i++) { const d = v[i] - m; ss += d * d; }
  return ss;
}

export function constantSeriesReason(name: string): string {
  return `series '${name}' is constant`;
}

export function constantResidualsReason(name: string): string {
  return `residuals of '${name}' are constant: it is fully explained by the covariates`;
}

/**
 * The test of r from n rows (distinct of them) and k covariate dof: the naive test when `phi` is
 * undefined, else with Bartlett's effective sample size of the two AR(1) coefficients, or with
 * `givenNEff` when the caller computed it another way (uneven-pair-tests.ts), capped the same way.
 */
export function inferFromR(
  n: number, k: number, r: number, distinct: number, phi?: [number, number], givenNEff?: number,
): PartialResult {
  if (distinct - k - 3 <= 0) {
    const rows = `only ${distinct} distinct checkpoint${distinct === 1 ? '' : 's'} (of ${n})`;
    const reason = `${rows}: too few for k=${fmtK(k)} covariate degrees of freedom (needs more than k + 3)`;
    return { ...nullResult(n, n - 2 - k, reason), distinct };
  }
  const extra = distinct < n ? { distinct } : {};
  if (phi === undefined) return { ...(tooFew(n, k) ?? resultFromR(n, k, r)), ...extra };
  const nEff = givenNEff === undefined ? bartlettEffectiveN(phi[0], phi[1], n, distinct) : Math.min(givenNEff, n, distinct);
  if (nEff - k - 3 <= 0) {
    const reason = `effective sample size ${nEff.toFixed(1)} of ${n} checkpoints (residual autocorrelations `
      + `${phi[0].toFixed(2)}, ${phi[1].toFixed(2)}) too small for k=${fmtK(k)} covariate degrees of freedom`
      + ' (needs n_eff - k - 3 > 0)';
    return { ...nullResult(n, nEff - 2 - k, reason), n_eff: nEff, phi, ...extra };
  }
  return { ...resultFromR(n, k, r, nEff), phi, ...extra };
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
  return { n, r: null, n_eff: n, df, p: null, ci95: null, reason };
}

/** The test and interval for a partial correlation r from n observations (nEff of them effective) and k covariate dof. */
function resultFromR(n: number, k: number, r: number, nEff = n): PartialResult {
  const df = nEff - 2 - k;
  const rr = Math.max(-1, Math.min(1, r));
  const denom = 1 - rr * rr;
  const p = denom === 0 ? 0 : tTwoSidedP(rr * Math.sqrt(df / denom), df);
  const z = Math.atanh(rr);
  const half = Z975 / Math.sqrt(nEff - k - 3);
  return { n, r: rr, n_eff: nEff, df, p, ci95: [Math.tanh(z - half), Math.tanh(z + half)] };
}
