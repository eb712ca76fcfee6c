// "How much does a relation vary across models?": for each OOD pair, a random-effects
// meta-analysis of the runs' partial correlations on Fisher's z (stats/meta-analysis.ts): the
// pooled r with its CI, the between-run variance tau^2, I^2, Cochran's Q and the 95% prediction
// interval for a new model; optionally a meta-regression on one run attribute (does the relation
// depend on the model family?). Each pair's verdict is decided from these numbers by verdict.ts.
// A run whose pair is unstable (stability.ts) is left out of that pair's pooling and listed,
// unless keepUnstable.
// Each run's z and variance come from fisher-z.ts (clipping r = ±1, the calibrated variance); the
// notes say how many runs were clipped and how the variances were scaled.
import {
  adjustPValues, isMetaRegression, metaRegression, randomEffectsMeta,
  type Correction, type Moderator, type Tau2Estimator,
} from '../stats/index.ts';
import type { PairResult, RunAnalysis } from './run-result.ts';
import { clippedFisherZ, fisherZVariance, MAX_POOLED_R, runVarianceFactor } from './fisher-z.ts';
import { pairVerdict, type PairVerdict } from './verdict.ts';

export interface MetaAnalysisOptions {
  /** Between-run variance estimator. */
  metaEstimator: Tau2Estimator;
  /** Hartung-Knapp adjustment: t tests on k - 1 df with a rescaled se. */
  hartungKnapp: boolean;
  /** A run attribute to meta-regress the pooled z on. */
  moderator?: string;
  alpha: number;
  correction: Correction;
  /** A pair whose prediction interval lies inside +/- this is negligible everywhere. */
  equivalenceMargin: number;
  /** Pool runs whose pair is unstable instead of leaving them out. */
  keepUnstable: boolean;
}

export interface ModeratorResult {
  attribute: string;
  kind: 'categorical' | 'numeric';
  /** Runs in the regression (those with the attribute and an estimate). */
  runs: number;
  /** Omnibus test that the pooled z does not depend on the attribute (QM, or F with Hartung-Knapp). */
  test: { statistic: number; df1: number; df2: number | null; distribution: 'chi-square' | 'F'; p: number } | null;
  /** Coefficients on the z scale (the intercept, then slope or level differences from `reference`). */
  coefficients: { name: string; estimate: number; se: number; p: number; ci95: [number, number] }[];
  reference?: string;
  /** Categorical: the fitted r of each level with its 95% CI. */
  levels?: { level: string; runs: number; r: number; ci95: [number, number] }[];
  /** Residual between-run variance, and the share of tau^2 the attribute accounts for (0..1). */
  tau2: number | null;
  r2: number | null;
  notes: string[];
}

export interface PairMeta {
  a: string;
  b: string;
  /** Runs pooled (those where r is defined and, unless keepUnstable, the pair is stable; |r| >= 0.999 clipped) and runs left out. */
  runs: number;
  excluded: number;
  /** Pooled r = tanh(pooled z), its 95% CI, p (z test, or t with Hartung-Knapp) and p adjusted over the pairs. */
  r: number | null;
  ci95: [number, number] | null;
  p: number | null;
  p_adjusted: number | null;
  /** Pooled Fisher z and its standard error. */
  z: number | null;
  se: number | null;
  /** Between-run variance of z with its Q-profile 95% CI; I^2 (0..1) with its CI. */
  tau2: number | null;
  tau2_ci95: [number, number] | null;
  i2: number | null;
  i2_ci95: [number, number] | null;
  /** Cochran's Q, its df and p. */
  q: number | null;
  q_df: number | null;
  q_p: number | null;
  /** Q's p adjusted over the pairs with the same correction as the pooled p (what "depends on the model" is decided on). */
  q_p_adjusted: number | null;
  /** 95% prediction interval for a new model's partial correlation (r scale); null below 3 runs. */
  prediction95: [number, number] | null;
  /** The pair's one verdict (verdict.ts) and why, naming the interval it was decided on. */
  verdict: PairVerdict;
  why: string;
  /** Runs whose pair is unstable, with the reason (left out of the pooling unless keepUnstable). */
  unstable: { run: string; reason: string }[];
  /** What could not be estimated, in words. */
  notes: string[];
  moderator?: ModeratorResult;
  /** With robustness on: the analysis choices giving the same verdict, of those computed, and whether that is under half (robustness.ts). */
  holds?: number;
  of?: number;
  fragile?: boolean;
}

export interface MetaAcrossRuns {
  estimator: Tau2Estimator;
  hartung_knapp: boolean;
  moderator: string | null;
  pairs: PairMeta[];
}

/** Run attributes by run name, for the moderator. */
export type RunAttributes = ReadonlyMap<string, Readonly<Record<string, string>>>;

export function metaAcrossRuns(runs: readonly Pick<RunAnalysis, 'run' | 'pairs' | 'calibration'>[], opts: MetaAnalysisOptions,
  attributes: RunAttributes = new Map()): MetaAcrossRuns {
  const byPair = new Map<string, { a: string; b: string; items: PooledItem[] }>();
  for (const run of runs) {
    const factor = runVarianceFactor(run);
    for (const pair of run.pairs) {
      const key = `${pair.a}\u0000${pair.b}`;
      let entry = byPair.get(key);
      if (!entry) byPair.set(key, (entry = { a: pair.a, b: pair.b, items: [] }));
      entry.items.push({ run: run.run, pair, factor });
    }
  }
  const pairs = [...byPair.values()]
    .sort((x, y) => cmp(x.a, y.a) || cmp(x.b, y.b))
    .map(({ a, b, items }) => metaOfPair(a, b, items, opts, attributes));
  const adjusted = adjustPValues(pairs.map((p) => p.p), opts.correction);
  const qAdjusted = adjustPValues(pairs.map((p) => p.q_p), opts.correction);
  const ctx = { alpha: opts.alpha, equivalenceMargin: opts.equivalenceMargin, correction: opts.correction, pairs: pairs.length };
  pairs.forEach((p, i) => {
    p.p_adjusted = adjusted[i];
    p.q_p_adjusted = qAdjusted[i];
    Object.assign(p, pairVerdict(p, ctx));
  });
  return { estimator: opts.metaEstimator, hartung_knapp: opts.hartungKnapp, moderator: opts.moderator ?? null, pairs };
}

/** One run's result for a pair, with the factor its stated variance is scaled by (fisher-z.ts). */
interface PooledItem { run: string; pair: PairResult; factor: number }

function metaOfPair(a: string, b: string, items: PooledItem[], opts: MetaAnalysisOptions,
  attributes: RunAttributes): PairMeta {
  const unstable = items.filter((x) => x.pair.unstable !== undefined).map((x) => ({ run: x.run, reason: x.pair.unstable! }));
  const candidates = opts.keepUnstable ? items : items.filter((x) => x.pair.unstable === undefined);
  const used = candidates.filter((x) => x.pair.r !== null);
  const clipped = used.filter((x) => Math.abs(x.pair.r!) >= MAX_POOLED_R).length;
  const out: PairMeta = {
    a, b, runs: used.length, excluded: items.length - used.length,
    r: null, ci95: null, p: null, p_adjusted: null, z: null, se: null,
    tau2: null, tau2_ci95: null, i2: null, i2_ci95: null, q: null, q_df: null, q_p: null, q_p_adjusted: null,
    prediction95: null, verdict: 'inconclusive', why: '', unstable, notes: [],
  };
  if (unstable.length) {
    out.notes.push(`${unstable.length} run${unstable.length === 1 ? '' : 's'} ` +
      `unstable${opts.keepUnstable ? ', pooled anyway (--keep-unstable)' : ', left out (--keep-unstable pools them)'}: ` +
      `${unstable.map((u) => `${u.run}: ${u.reason}`).join('; ')}`);
  }
  const undefinedR = candidates.length - used.length;
  if (undefinedR) out.notes.push(`${undefinedR} run${undefinedR === 1 ? '' : 's'} without a defined r left out`);
  if (clipped) {
    out.notes.push(`${clipped} run${clipped === 1 ? '' : 's'} with |r| >= ${MAX_POOLED_R} (r = ±1: infinite Fisher z) pooled at ` +
      `|r| = ${MAX_POOLED_R} (Fisher z clipped at ±atanh(${MAX_POOLED_R}))`);
  }
  if (used.length === 0) return out;
  const scaled = used.filter((x) => x.factor > 1);
  if (scaled.length) {
    const factors = scaled.map((x) => x.factor);
    out.notes.push(`${scaled.length} run${scaled.length === 1 ? '' : 's'} pooled with the variance ${scaled.length === 1 ? 'its' : 'their'} ` +
      `calibration measured, ${fmtRange(Math.min(...factors), Math.max(...factors))} times the stated one`);
  }
  const y = used.map((x) => clippedFisherZ(x.pair.r!));
  const v = used.map((x) => fisherZVariance(x.pair) * x.factor);
  const m = randomEffectsMeta(y, v, { estimator: opts.metaEstimator, hartungKnapp: opts.hartungKnapp });
  Object.assign(out, {
    r: Math.tanh(m.estimate), ci95: tanhPair(m.ci), p: m.p, z: m.estimate, se: m.se,
    tau2: m.tau2, tau2_ci95: m.tau2_ci, i2: m.i2, i2_ci95: m.i2_ci, q: m.q, q_df: m.k > 1 ? m.q_df : null, q_p: m.q_p,
    prediction95: m.prediction_interval && tanhPair(m.prediction_interval),
  });
  out.notes.push(...m.notes);
  if (opts.moderator !== undefined) out.moderator = moderate(opts.moderator, used, y, v, opts, attributes);
  return out;
}

function moderate(
  attribute: string, used: PooledItem[], y: number[], v: number[], opts: MetaAnalysisOptions, attributes: RunAttributes,
): ModeratorResult {
  const values = used.map((x) => attributes.get(x.run)?.[attribute]);
  const keep = values.map((x, i) => (x === undefined || x === '' ? -1 : i)).filter((i) => i >= 0);
  const notes: string[] = [];
  const missing = used.length - keep.length;
  if (missing) notes.push(`${missing} run${missing === 1 ? '' : 's'} without the attribute "${attribute}" left out`);
  const raw = keep.map((i) => values[i]!);
  const numeric = raw.length > 0 && raw.every((s) => s.trim() !== '' && Number.isFinite(Number(s)));
  const moderator: Moderator = numeric ? { kind: 'numeric', values: raw.map(Number) } : { kind: 'categorical', values: raw };
  const base: ModeratorResult = { attribute, kind: moderator.kind, runs: keep.length, test: null, coefficients: [], tau2: null, r2: null, notes };
  if (keep.length === 0) {
    notes.push(`no run has the attribute "${attribute}"`);
    return base;
  }
  if (numeric && new Set(raw.map(Number)).size < 2) {
    notes.push(`"${attribute}" has one value in every run: nothing to compare`);
    return base;
  }
  const fit = metaRegression(keep.map((i) => y[i]), keep.map((i) => v[i]), moderator,
    { estimator: opts.metaEstimator, hartungKnapp: opts.hartungKnapp });
  notes.push(...fit.notes);
  if (!isMetaRegression(fit)) return base;
  const result: ModeratorResult = {
    ...base,
    test: fit.test,
    coefficients: fit.coefficients.map((c) => ({ name: c.name, estimate: c.estimate, se: c.se, p: c.p, ci95: c.ci })),
    tau2: fit.tau2, r2: fit.r2,
  };
  if (fit.levels) {
    result.reference = fit.reference;
    result.levels = fit.levels.map((l) => ({ level: l.level, runs: l.k, r: Math.tanh(l.estimate), ci95: tanhPair(l.ci) }));
  }
  return result;
}

const fmtRange = (lo: number, hi: number) => (lo.toFixed(2) === hi.toFixed(2) ? lo.toFixed(2) : `${lo.toFixed(2)}-${hi.toFixed(2)}`);

function tanhPair(x: [number, number]): [number, number] {
  return [Math.tanh(x[0]), Math.tanh(x[1])];
}

function cmp(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
