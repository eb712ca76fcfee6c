/**
 * Mixed-effects meta-regression on one moderator (metafor's rma.uni(yi, vi, mods = ~ m)):
 *   y_i = b0 + b1 m_i (+ ...) + u_i + e_i,  u_i ~ N(0, tau^2_res),  e_i ~ N(0, v_i).
 * A numeric moderator enters as one column; a categorical one as dummy columns for every level
 * but the first in sort order (R's treatment contrasts on a factor), so each coefficient is the
 * difference from that reference level.
 * - residual tau^2 by the chosen estimator with the design X (tau2-estimators.ts), its Q-profile
 *   CI with k - p df, residual I^2 = tau^2 / (tau^2 + (k - p) / tr(P_FE));
 * - coefficients b = (X'WX)^-1 X'Wy with z tests, or with Hartung-Knapp t tests on k - p df and
 *   Var(b) scaled by s^2 = y'Py / (k - p);
 * - the omnibus test that every coefficient but the intercept is 0:
 *   QM = b' Var(b)^-1 b ~ chi-square(m), or with Hartung-Knapp F = QM / m ~ F(m, k - p);
 * - QE = y'P_FE y ~ chi-square(k - p): residual heterogeneity (Cochran's Q of the model);
 * - R^2 = max(0, (tau^2_RE - tau^2_res) / tau^2_RE), tau^2_RE from the model without the moderator
 *   and the same estimator; undefined (null, with a note) when tau^2_RE = 0, where metafor prints 0;
 * - for a categorical moderator, the fitted effect of each level with its CI (metafor's predict()).
 * Needs k - p >= 1 (one more run than coefficients); with fewer, `notes` says so and there is no test.
 */
import { UserError } from '../errors.ts';
import { chiSquareUpperP, fUpperP, normalQuantile, normalTwoSidedP, tQuantile, tTwoSidedP } from './distributions.ts';
import { checkMetaOptions, metaInputs, qProfileCi, type MetaOptions } from './meta-analysis.ts';
import { interceptDesign, invertPositiveDefinite, weightedFit, type Design } from './meta-wls.ts';
import { estimateTau2, type Tau2Estimator } from './tau2-estimators.ts';

export type Moderator =
  | { kind: 'categorical'; values: readonly string[] }
  | { kind: 'numeric'; values: readonly number[] };

export interface Coefficient { name: string; estimate: number; se: number; statistic: number; p: number; ci: [number, number] }
export interface LevelEffect { level: string; k: number; estimate: number; se: number; ci: [number, number] }

export interface MetaRegression {
  k: number;
  /** Coefficients, the intercept included. */
  p: number;
  estimator: Tau2Estimator;
  hartung_knapp: boolean;
  level: number;
  moderator: 'categorical' | 'numeric';
  /** The reference level of a categorical moderator. */
  reference?: string;
  coefficients: Coefficient[];
  /** The omnibus moderator test: chi-square(m) without, F(m, k - p) with Hartung-Knapp. */
  test: { statistic: number; df1: number; df2: number | null; distribution: 'chi-square' | 'F'; p: number };
  tau2: number;
  tau2_ci: [number, number];
  i2: number;
  /** Residual heterogeneity QE with k - p df. */
  qe: number;
  qe_df: number;
  qe_p: number;
  /** Share of tau^2 accounted for by the moderator (0..1); null when the model without it has tau^2 = 0. */
  r2: number | null;
  /** Fitted effect per level (categorical moderators only). */
  levels?: LevelEffect[];
  notes: string[];
}

export interface MetaRegressionShortfall { k: number; p: number; notes: string[] }

/** The design matrix for one moderator, with names for its columns and the levels in order. */
export function moderatorDesign(moderator: Moderator): { design: Design; names: string[]; levels?: string[] } {
  const k = moderator.values.length;
  if (moderator.kind === 'numeric') {
    const x = new Float64Array(2 * k);
    moderator.values.forEach((m, i) => {
      if (!Number.isFinite(m)) throw new UserError(`moderator value ${i} is ${m}; expected a finite number`);
      x[2 * i] = 1; x[2 * i + 1] = m;
    });
    return { design: { k, p: 2, x }, names: ['intercept', 'slope'] };
  }
  const levels = [...new Set(moderator.values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const p = levels.length;
  const x = new Float64Array(k * p);
  moderator.values.forEach((m, i) => {
    x[i * p] = 1;
    const j = levels.indexOf(m);
    if (j > 0) x[i * p + j] = 1;
  });
  return { design: { k, p, x }, names: ['intercept', ...levels.slice(1).map((l) => `${l} - ${levels[0]}`)], levels };
}

export function metaRegression(
  yIn: ArrayLike<number>, vIn: ArrayLike<number>, moderator: Moderator, options: MetaOptions = {},
): MetaRegression | MetaRegressionShortfall {
  const opts = checkMetaOptions(options);
  const { y, v } = metaInputs(yIn, vIn);
  if (moderator.values.length !== y.length) {
    throw new UserError(`meta-regression: ${y.length} estimates but ${moderator.values.length} moderator values`);
  }
  const { design, names, levels } = moderatorDesign(moderator);
  const { k, p } = design;
  if (p < 2) return { k, p, notes: ['the moderator has one value in every run: nothing to compare'] };
  if (k - p < 1) {
    const short = `${k} runs for ${p} coefficients: a meta-regression needs at least one more run than coefficients`;
    return { k, p, notes: [`${short} (residual heterogeneity has k - p = ${k - p} degrees of freedom)`] };
  }
  const notes: string[] = [];
  const df = k - p;
  const tau2 = estimateTau2(y, v, design, opts.estimator);
  const fit = weightedFit(y, v, tau2, design);
  const fe = weightedFit(y, v, 0, design);
  const scale = opts.hartungKnapp ? fit.rss / df : 1;
  const vb = fit.vb.map((x) => x * scale);
  const crit = opts.hartungKnapp ? tQuantile(1 - (1 - opts.level) / 2, df) : normalQuantile(1 - (1 - opts.level) / 2);
  const pOf = (stat: number) => (opts.hartungKnapp ? tTwoSidedP(stat, df) : normalTwoSidedP(stat));
  const coefficients: Coefficient[] = names.map((name, j) => {
    const estimate = fit.beta[j], se = Math.sqrt(vb[j * p + j]);
    return { name, estimate, se, statistic: estimate / se, p: pOf(estimate / se), ci: [estimate - crit * se, estimate + crit * se] };
  });
  // QM = b_m' Var(b_m)^-1 b_m over the m = p - 1 moderator coefficients
  const m = p - 1;
  const sub = new Float64Array(m * m);
  for (let a = 0; a < m; a++) for (let b = 0; b < m; b++) sub[a * m + b] = vb[(a + 1) * p + (b + 1)];
  const inv = invertPositiveDefinite(sub, m);
  let qm = 0;
  for (let a = 0; a < m; a++) for (let b = 0; b < m; b++) qm += fit.beta[a + 1] * inv[a * m + b] * fit.beta[b + 1];
  const test = opts.hartungKnapp
    ? { statistic: qm / m, df1: m, df2: df, distribution: 'F' as const, p: fUpperP(qm / m, m, df) }
    : { statistic: qm, df1: m, df2: null, distribution: 'chi-square' as const, p: chiSquareUpperP(qm, m) };
  const tau2Re = estimateTau2(y, v, interceptDesign(k), opts.estimator);
  const r2 = tau2Re > 0 ? Math.max(0, (tau2Re - tau2) / tau2Re) : null;
  if (r2 === null) notes.push('no between-run variance without the moderator (tau^2 = 0), so none for it to account for (R^2 undefined)');
  const typical = df / fe.trP;
  const result: MetaRegression = {
    k, p, estimator: opts.estimator, hartung_knapp: opts.hartungKnapp, level: opts.level, moderator: moderator.kind,
    coefficients, test, tau2, tau2_ci: qProfileCi(y, v, design, opts.level), i2: tau2 / (tau2 + typical),
    qe: fe.rss, qe_df: df, qe_p: chiSquareUpperP(fe.rss, df), r2, notes,
  };
  if (levels) {
    result.reference = levels[0];
    result.levels = levels.map((level, j) => {
      // fitted effect of level j: b0 (+ bj); its variance v00 (+ vjj + 2 v0j)
      const estimate = fit.beta[0] + (j > 0 ? fit.beta[j] : 0);
      const variance = vb[0] + (j > 0 ? vb[j * p + j] + 2 * vb[j] : 0);
      const se = Math.sqrt(variance);
      const count = moderator.values.filter((x) => x === level).length;
      return { level, k: count, estimate, se, ci: [estimate - crit * se, estimate + crit * se] };
    });
  }
  return result;
}

export function isMetaRegression(x: MetaRegression | MetaRegressionShortfall): x is MetaRegression {
  return 'coefficients' in x;
}
