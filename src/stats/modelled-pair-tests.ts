/**
 * The default (effective-n) test of pairs of OOD series against one control, for any checkpoint
 * schedule: r from the pair's residuals on the control (corrected for the control's sampling
 * noise when its variance is known: control-residuals.ts), its effective sample size from a
 * drift-plus-white-noise model fitted to each residual series (noise-model.ts), on levels or on the
 * first differences of the level residuals.
 *
 * Effective sample size. For independent x ~ N(0, S_x), y ~ N(0, S_y) and the residual-maker M of
 * X = [1, control], r = x'My / sqrt(x'Mx y'My) has var(r) ~ tr(M S_x M S_y) / (tr(M S_x) tr(M S_y))
 * (Bartlett 1935's variance of a correlation between autocorrelated series, with the regression and
 * any spacing in the matrices; Dutilleul 1993, Biometrics 49, eq. 2.5), and n_eff = 1 / var(r) + 2
 * (n with white noise). The differences' covariance is D M S M D' (gap-scaled, centred). Because the
 * model has a white part, a smooth drift under binomial noise is counted as the few independent
 * observations it is, which a lag-1 autocorrelation cannot see.
 *
 * Levels or differences ('auto'). Each is scored by the information it keeps about a correlation
 * between the series' own signal: (n_eff - k - 3) R_a R_b, where R is the share of a residual
 * series' variance that is not its own sampling noise (1 when the OOD sets' sampling variance is
 * not given). Differencing a smooth signal under white sampling noise keeps the noise and loses the
 * signal (R falls), while differencing a random walk turns few effective observations into many.
 * The choice looks only at each series' own model and noise, never at the pair's correlation.
 * With the spline residualiser 'auto' keeps levels: the spline fitted to each series in a noisy
 * control also fits that control's noise where it plateaus, a component both residual series share
 * as a function of the same control values; differencing a persistent drift leaves that component
 * dominant, and the linear projection the effective n is computed with does not see it (AR(1)
 * noise at phi 0.95, 50 checkpoints: 22.7% false positives on differences, 5.0% on levels;
 * bench/calibration.ts).

 * r / sqrt(R_a R_b) is reported beside r as the correlation disattenuated for the OOD sets' own
 * sampling noise (Spearman 1904's correction for attenuation); it is not what is tested.
 */
import { countDistinctRows, denseIds } from './distinct-rows.ts';
import { capAtLevelRows, type Representation } from './levels-or-differences.ts';
import { controlResiduals, gapScales, type ControlCorrection, type PairMoments } from './control-residuals.ts';
import type { NoiseModel } from './noise-model.ts';
import { NoiseFitCache } from './noise-fit-cache.ts';
import {
  constantResidualsReason, constantSeriesReason, inferFromR, nullResult, residualsConstant, tooFew,
  type PartialOptions, type PartialResult,
} from './partial-correlation-shared.ts';
import { rank } from './rank.ts';
import { scaledTimes } from './uneven-pair-tests.ts';
import { modelTraces, tracesEffectiveN, type ModelTraces } from './projected-traces.ts';
import {
  differenceBasis, differenceEffectiveN, differenceTraces, type DifferenceBasis, type DifferenceTraces,
} from './projected-difference-traces.ts';
import { orthonormalise } from './linalg.ts';
import { isConstant } from './validate.ts';

export interface ModelledOptions extends Pick<PartialOptions, 'method' | 'residualiser' | 'splineBasis'> {
  representation: 'auto' | Representation;
  /** The control's sampling variance per checkpoint (corrects r for it). */
  controlVariance?: Float64Array;
  /** The control's sampling errors' covariance across checkpoints (row-major), where known. */
  controlCovariance?: Float64Array;
  /** Each series' sampling variance per checkpoint, where known (reliability, disattenuated r). */
  seriesVariance?: readonly (Float64Array | undefined)[];
  seed?: number;
  /** Fits already made by the caller's analysis (noise-fit-cache.ts); absent: every series is fitted. */
  fits?: NoiseFitCache;
}

export interface ModelledPair {
  result: PartialResult;
  representation: Representation;
  /** Share of each residual series' variance that is not its sampling noise, in the representation used. */
  reliability?: [number, number];
  /** r / sqrt(reliability_a reliability_b), clipped to [-1, 1]. */
  disattenuated?: number;
  /** SIMEX only: its extrapolation's r before the echo bound, and the uncorrected r (control-residuals.ts). */
  simex?: { r: number; uncorrected: number };
}

export interface ModelledRun {
  pairs: ModelledPair[];
  /** The noise model fitted to each series' residuals (null: no residuals). */
  models: (NoiseModel | null)[];
  correction: ControlCorrection;
  /** The control's reliability when its noise is known. */
  controlReliability?: number;
  /** Pair representations left uncorrected (control-residuals.ts). */
  uncorrected?: number;
}

export function modelledPairTests(
  series: readonly Float64Array[], control: Float64Array, pairs: readonly (readonly [number, number])[],
  opts: ModelledOptions, steps?: ArrayLike<number>, names?: readonly string[],
): ModelledRun {
  const n = control.length;
  const nameOf = (i: number) => names?.[i] ?? `series[${i}]`;
  const none = (reason: string): ModelledRun => ({
    pairs: pairs.map(() => ({ result: nullResult(n, n - 3, reason), representation: 'levels' })), models: series.map(() => null),
    correction: 'none',
  });
  const early = tooFew(n, 1);
  if (early) return { ...none(early.reason!), pairs: pairs.map(() => ({ result: { ...early }, representation: 'levels' })) };
  const times = steps ?? Float64Array.from({ length: n }, (_, i) => i);
  const constant = Uint8Array.from(series, (s) => (isConstant(s) ? 1 : 0));
  const cr = controlResiduals(series, control, pairs, times, opts, constant);
  if (typeof cr === 'string') return none(cr);
  const ranked = opts.method === 'spearman';
  const cx = ranked ? rank(control) : control;
  const ones = new Float64Array(n).fill(1);
  const constantResid = series.map((s, i) => {
    const e = cr.residuals[i];
    return e !== null && residualsConstant(ranked ? rank(s) : s, e);
  });
  const models = (opts.fits ?? new NoiseFitCache(false)).fit([ones, cx], times, series.map((_, i) => (constantResid[i] ? null : cr.residuals[i])));
  const u = scaledTimes(times);
  // the models' traces in O(n) a series and a pair, with no n x n matrix: on levels
  // (projected-traces.ts) and on differences (projected-difference-traces.ts)
  const levelsTraces = new Map<number, ModelTraces>(), diffTraces = new Map<number, DifferenceTraces>();
  const q = orthonormalise([ones, cx]).q;
  const tracesOf = (s: number) => {
    let t = levelsTraces.get(s);
    if (!t) levelsTraces.set(s, (t = modelTraces(models[s]!, times, q)));
    return t;
  };
  let basis: DifferenceBasis | undefined;
  const diffTracesOf = (s: number) => {
    let t = diffTraces.get(s);
    if (!t) diffTraces.set(s, (t = differenceTraces(models[s]!, times, (basis ??= differenceBasis(u, q)))));
    return t;
  };
  const w = gapScales(times, n);
  const noiseOf = (s: number) => sampling(opts.seriesVariance?.[s], w, n, ranked);
  const covIds = denseIds(cx);
  const ids = covIds.levels === n ? undefined : series.map((s) => denseIds(s));

  const test = ([a, b]: readonly [number, number], p: number): ModelledPair => {
    for (const s of [a, b]) if (constant[s]) return { result: nullResult(n, n - 3, constantSeriesReason(nameOf(s))), representation: 'levels' };
    const k = Math.max(cr.dof[a], cr.dof[b]);
    const late = tooFew(n, k);
    if (late) return { result: late, representation: 'levels' };
    for (const s of [a, b]) {
      if (constantResid[s]) return { result: nullResult(n, n - 2 - k, constantResidualsReason(nameOf(s))), representation: 'levels' };
    }
    const phi: [number, number] = [models[a]!.phi, models[b]!.phi];
    const distinct = ids ? countDistinctRows([covIds, ids[a], ids[b]], n) : n;
    const lm = cr.levels[p], dm = cr.differences[p];
    const levelsNEff = () => corrected(tracesEffectiveN(tracesOf(a), tracesOf(b), 2, n), lm, cr.rawLevels[p]);
    // the levels' result only where it can be the answer (the robustness table's differences choices never read it)
    const levels = () => momentsResult(lm, n, k, distinct, phi, levelsNEff, nameOf(a), nameOf(b));
    const relLevels = reliabilities(noiseOf(a).levels, noiseOf(b).levels, lm, (n - 1 - k) / n);
    if (opts.representation === 'levels' || n < 4 || (opts.representation === 'auto' && opts.residualiser === 'spline')) {
      return withReliability({ result: levels(), representation: 'levels' }, relLevels);
    }
    const diffNEff = () => corrected(differenceEffectiveN(diffTracesOf(a), diffTracesOf(b), basis!, 2, n - 1), dm, cr.rawDifferences[p]);
    let diff = momentsResult(dm, n - 1, k, n - 1, phi, diffNEff, nameOf(a), nameOf(b));
    diff = capAtLevelRows(diff, distinct);
    const relDiff = reliabilities(noiseOf(a).differences, noiseOf(b).differences, dm, (n - 2) / (n - 1));
    if (opts.representation === 'differences') return withReliability({ result: diff, representation: 'differences' }, relDiff);
    const score = (r: PartialResult, rel: [number, number] | undefined) =>
      r.r === null ? -1 : Math.max(0, r.n_eff - k - 3) * (rel ? rel[0] * rel[1] : 1);
    const onLevels = levels();
    return score(diff, relDiff) > score(onLevels, relLevels)
      ? withReliability({ result: diff, representation: 'differences' }, relDiff)
      : withReliability({ result: onLevels, representation: 'levels' }, relLevels);
  };
  // each series' projections are dropped after its last pair: pairs are tested grouped by
  // their first series (the calibration's pairs share it), which changes no pair's numbers
  const order = pairs.map((_, p) => p);
  const lo = (p: number) => Math.min(...pairs[p]), hi = (p: number) => Math.max(...pairs[p]);
  order.sort((x, y) => lo(x) - lo(y) || hi(x) - hi(y) || x - y);
  const lastUse = new Map<number, number>();
  order.forEach((p, t) => { for (const s of pairs[p]) lastUse.set(s, t); });
  const out = new Array<ModelledPair>(pairs.length);
  order.forEach((p, t) => {
    const tested = test(pairs[p], p);
    out[p] = tested.representation === 'levels' ? withSimex(tested, cr.levels[p], cr.rawLevels[p])
      : withSimex(tested, cr.differences[p], cr.rawDifferences[p]);
    for (const s of pairs[p]) if (lastUse.get(s) === t) { levelsTraces.delete(s); diffTraces.delete(s); }
  });
  return {
    pairs: out, models, correction: cr.correction, ...(cr.reliability !== undefined ? { controlReliability: cr.reliability } : {}),
    ...(cr.uncorrected ? { uncorrected: cr.uncorrected } : {}),
  };
}

function momentsResult(
  m: { c: number; va: number; vb: number }, n: number, k: number, distinct: number, phi: [number, number],
  nEff: () => number, a: string, b: string,
): PartialResult {
  if (!(m.va > 0) || !(m.vb > 0)) {
    const which = m.va > 0 ? b : a;
    return nullResult(n, n - 2 - k, `residual variance of '${which}' is not positive after the correction for the control's sampling noise`);
  }
  const r = Math.max(-1, Math.min(1, m.c / Math.sqrt(m.va * m.vb)));
  return inferFromR(n, k, r, distinct, phi, nEff());
}

/**
 * n_eff of a corrected r: the cross-product's sampling variance is the raw residuals', while the
 * denominator is the corrected variances' product, so var(r) grows by raw / corrected. SIMEX's
 * extrapolation adds its own variance (`correctionVariance`), which the raw residuals do not hold.
 */
function corrected(nEff: number, m: PairMoments, raw: PairMoments): number {
  if (m === raw || !(raw.va > 0) || !(raw.vb > 0)) return nEff;
  const ratio = Math.min(1, Math.max(0, (m.va / raw.va) * (m.vb / raw.vb)));
  const scaled = 2 + (nEff - 2) * ratio;
  const added = m.correctionVariance ?? 0;
  return added > 0 && scaled > 2 ? 2 + 1 / (1 / (scaled - 2) + added) : scaled;
}

/** The sampling noise a series' residuals carry, per representation (sums of variances). */
function sampling(v: Float64Array | undefined, w: Float64Array, n: number, ranked: boolean): { levels?: number; differences?: number } {
  if (!v || ranked) return {};
  let levels = 0, differences = 0;
  for (let i = 0; i < n; i++) levels += v[i];
  for (let i = 0; i < n - 1; i++) differences += w[i] * w[i] * (v[i] + v[i + 1]);
  return { levels, differences };
}

function reliabilities(
  noiseA: number | undefined, noiseB: number | undefined, m: { va: number; vb: number }, kept: number,
): [number, number] | undefined {
  if (noiseA === undefined || noiseB === undefined || !(m.va > 0) || !(m.vb > 0)) return undefined;
  // `kept`: the share of each value's noise its residual keeps after the fit (about (n - 1 - k) / n)
  const share = (noise: number, v: number) => Math.min(1, Math.max(0, 1 - (noise * kept) / v));
  return [share(noiseA, m.va), share(noiseB, m.vb)];
}

/** The SIMEX extrapolation's r and the uncorrected r beside a pair whose r the echo bound gave. */
function withSimex(pair: ModelledPair, m: PairMoments, raw: PairMoments): ModelledPair {
  if (m.simexR === undefined || pair.result.r === null || !(raw.va > 0) || !(raw.vb > 0)) return pair;
  return { ...pair, simex: { r: m.simexR, uncorrected: Math.max(-1, Math.min(1, raw.c / Math.sqrt(raw.va * raw.vb))) } };
}

function withReliability(pair: ModelledPair, rel: [number, number] | undefined): ModelledPair {
  if (!rel || pair.result.r === null) return pair;
  const product = rel[0] * rel[1];
  return product > 0
    ? { ...pair, reliability: rel, disattenuated: Math.max(-1, Math.min(1, pair.result.r / Math.sqrt(product))) }
    : { ...pair, reliability: rel };
}
