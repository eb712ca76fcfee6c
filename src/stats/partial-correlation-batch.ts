/**
 * The batch path: the test of partial-correlation.ts on many pairs of series that share one set of
 * covariates (a run's test sets against its control, or a calibration's simulated pairs). Every
 * series is residualised ONCE (against covariates prepared once), and each pair's r is then one
 * dot product of raw residuals:
 *   r_ab = (e_a'e_b - n mean_a mean_b) / sqrt(ss_a ss_b),
 * with each series' residual sum and sum of squares taken from the residualiser's moments (no
 * extra pass). The test of r is the reference's own (partial-correlation-shared.ts, inferFromR), and
 * test/stats/partial-correlation-batch.test.ts checks that every field agrees with the reference
 * on random inputs.
 */
import { UserError } from '../errors.ts';
import { countDistinctRows, denseIds, type DenseIds } from './distinct-rows.ts';
import { residualPhi } from './effective-sample-size.ts';
import {
  checkOptions, constantResidualsReason, constantSeriesReason, inferFromR, negligibleResiduals, nullResult, prepareControls, tooFew,
  type PartialOptions, type PartialResult,
} from './partial-correlation-shared.ts';
import { isConstant, requireLength, toFloat64 } from './validate.ts';

export interface PartialPair { a: string; b: string; result: PartialResult }

/**
 * Tests the pairs of `series` against the covariates. `pairs`: which pairs, by name, in the order
 * wanted; by default every pair (a, b) with a < b in the names sorted by code unit
 * (Array.prototype.sort's default order). Each named series is residualised once, however many
 * pairs it is in.
 */
export function partialCorrelationPairs(
  series: Record<string, ArrayLike<number>>, covariates: ArrayLike<number>[], opts: PartialOptions,
  pairs?: readonly (readonly [string, string])[],
): PartialPair[] {
  const names = Object.keys(series).sort();
  if (names.length === 0) {
    if (pairs?.length) throw new UserError(`pair ('${pairs[0][0]}', '${pairs[0][1]}') names no series: none were given`);
    return [];
  }
  const index = new Map(names.map((name, i) => [name, i]));
  const indexOf = (name: string): number => {
    const i = index.get(name);
    if (i === undefined) throw new UserError(`pair names series '${name}', which is not among the ${names.length} series given`);
    return i;
  };
  const wanted = pairs ? pairs.map(([a, b]) => [indexOf(a), indexOf(b)] as const) : allPairs(names.length);
  const n = series[names[0]].length;
  for (const name of names) requireLength(series[name], n, name, names[0]);
  const state = residualiseAll(names.map((name) => toFloat64(series[name], name)), names, covariates, opts);
  const dots = pairDots(state, wanted);
  return wanted.map(([a, b], i) => ({ a: names[a], b: names[b], result: pairResult(state, a, b, dots[i]) }));
}

function allPairs(m: number): (readonly [number, number])[] {
  const out: (readonly [number, number])[] = [];
  for (let a = 0; a < m; a++) for (let b = a + 1; b < m; b++) out.push([a, b]);
  return out;
}

/** Every series residualised once on the covariates, with what each pair's test needs. */
interface Residualised {
  n: number; k: number; names: string[]; effective: boolean;
  /** Set when no pair can be tested: too few rows for the covariates, or the covariates' residualiser cannot be fitted. */
  early: PartialResult | undefined; controlsReason: string | undefined;
  constantSeries: Uint8Array; constantResiduals: Uint8Array;
  resid: Float64Array; dof: Float64Array; means: Float64Array; norms: Float64Array; phis: Float64Array;
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
  const controlsReason = typeof controls === 'string' ? controls : undefined;
  // raw residuals, one series after another
  const resid = new Float64Array(m * n);
  const dof = new Float64Array(m);
  const means = new Float64Array(m), norms = new Float64Array(m), phis = new Float64Array(m);
  const constantSeries = new Uint8Array(m), constantResiduals = new Uint8Array(m);
  const effective = opts.inference === 'effective-n';
  const moments = new Float64Array(2);
  for (let s = 0; s < m; s++) {
    if (early) continue;
    const ssData = shiftedSumOfSquares(data[s]); // 0 for a constant series
    if (ssData === 0 && isConstant(data[s])) { constantSeries[s] = 1; continue; }
    if (typeof controls !== 'object') continue;
    const e = resid.subarray(s * n, (s + 1) * n);
    dof[s] = controls.residualiseSeries(data[s], e, moments);
    // residuals have mean 0 up to rounding (the intercept is in every model), so their centred
    // sum of squares comes from the raw moments without cancellation
    const mean = moments[0] / n;
    const ssE = Math.max(0, moments[1] - moments[0] * mean);
    if (negligibleResiduals(ssData, ssE)) { constantResiduals[s] = 1; continue; }
    means[s] = mean;
    norms[s] = Math.sqrt(ssE);
    if (effective) phis[s] = residualPhi(e);
  }
  // distinct (control, a, b) rows per pair; one all-distinct covariate makes every row distinct
  const covIds = cs.map(denseIds);
  const seriesIds = covIds.some((c) => c.levels === n) ? undefined : data.map(denseIds);
  return {
    n, k, names, effective, early, controlsReason, constantSeries, constantResiduals,
    resid, dof, means, norms, phis, covIds, seriesIds,
  };
}

/**
 * The residuals' dot product of each pair. Consecutive pairs sharing their first series (as every
 * pair does) go four at a time in one pass over that series' residuals.
 */
function pairDots(st: Residualised, pairs: readonly (readonly [number, number])[]): Float64Array {
  const { n, resid } = st;
  const dots = new Float64Array(pairs.length);
  if (st.early || st.controlsReason !== undefined) return dots;
  let i = 0;
  while (i < pairs.length) {
    const a = pairs[i][0];
    if (st.constantSeries[a] || st.constantResiduals[a]) { i++; continue; }
    const oa = a * n;
    if (i + 3 < pairs.length && pairs[i + 1][0] === a && pairs[i + 2][0] === a && pairs[i + 3][0] === a) {
      const o0 = pairs[i][1] * n, o1 = pairs[i + 1][1] * n, o2 = pairs[i + 2][1] * n, o3 = pairs[i + 3][1] * n;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (let t = 0; t < n; t++) {
        const u = resid[oa + t];
        s0 += u * resid[o0 + t]; s1 += u * resid[o1 + t]; s2 += u * resid[o2 + t]; s3 += u * resid[o3 + t];
      }
      dots[i] = s0; dots[i + 1] = s1; dots[i + 2] = s2; dots[i + 3] = s3;
      i += 4;
      continue;
    }
    dots[i] = dotAt(resid, oa, pairs[i][1] * n, n);
    i++;
  }
  return dots;
}

/**
 * The test of the pair (a, b) of residualised series, given their residuals' dot product: the
 * reference's checks in the reference's order, so that a pair that fails several gives its reason.
 */
function pairResult(st: Residualised, a: number, b: number, dot: number): PartialResult {
  const { n, k, names } = st;
  if (st.early) return { ...st.early };
  for (const s of [a, b]) if (st.constantSeries[s]) return nullResult(n, n - 2 - k, constantSeriesReason(names[s]));
  if (st.controlsReason !== undefined) return nullResult(n, n - 2 - k, st.controlsReason);
  const kEff = Math.max(st.dof[a], st.dof[b]);
  const late = tooFew(n, kEff);
  if (late) return late;
  for (const s of [a, b]) if (st.constantResiduals[s]) return nullResult(n, n - 2 - kEff, constantResidualsReason(names[s]));
  const r = (dot - n * st.means[a] * st.means[b]) / (st.norms[a] * st.norms[b]);
  const distinct = st.seriesIds ? countDistinctRows([...st.covIds, st.seriesIds[a], st.seriesIds[b]], n) : n;
  return inferFromR(n, kEff, r, distinct, st.effective ? [st.phis[a], st.phis[b]] : undefined);
}

/** Sum of squares about the mean in one pass, shifted by the first value (only for a threshold). */
function shiftedSumOfSquares(s: Float64Array): number {
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
