/**
 * Circular block bootstrap confidence interval for a partial correlation along one run
 * (Politis and Romano 1992; Lahiri 2003, "Resampling Methods for Dependent Data", ch. 2):
 * the checkpoints 0..n-1 are treated as a circle; a resample concatenates ceil(n / L) blocks of L
 * consecutive checkpoints, each starting at a uniformly drawn checkpoint (wrapping past the end),
 * truncated to n. Whole rows move together (x, y and every covariate of one checkpoint), so the
 * order within a block and the cross-series dependence are kept. The circular form gives every
 * checkpoint the same chance to be drawn (the moving-block form under-samples both ends).
 * Default block length L = ceil(n^(1/3)) (the rate-optimal order for variance estimation, Hall,
 * Horowitz and Jing 1995). The partial correlation (residualisation included) is recomputed on
 * every resample.
 *
 * The interval is a percentile-t (bootstrap-t) interval on Fisher's z (Efron and Tibshirani 1993,
 * ch. 12.5; Lahiri 2003, 6.3 for blocks): each resample gives t* = (atanh r* - atanh r)
 * sqrt(n_eff*), n_eff* the resample's own effective sample size (effective-sample-size.ts), and
 * the interval is tanh(atanh r - t*_{(1+level)/2} se, atanh r - t*_{(1-level)/2} se), with
 * se = 1 / sqrt(n_eff - k - 3) from the observed pair (capped at its distinct checkpoints). The
 * resample is scaled by sqrt(n_eff*), not sqrt(n_eff* - k - 3): resampled rows do not lose the
 * k + 3 degrees of freedom the observed residuals did (the reason Davison and Hinkley 1997, 6.2.3,
 * rescale residuals by their leverage before resampling), so z* spreads about 1 / sqrt(n_eff*)
 * around z, and the narrower studentizer undercovered by about 2 points
 * (bench/bootstrap-coverage.ts). Why not the plain percentile interval of r* (genstudy's before): with 25
 * autocorrelated checkpoints blocks of 3 keep too little of the dependence, so r* varies less than
 * r does (percentile coverage 71-90% for a nominal 95%, bench/bootstrap-coverage.ts), and on
 * plateaus resamples made of a few repeated rows give r* near +-1 on one side, so percentile
 * intervals came out lopsided (r -0.03 with [-0.98, 0.01]). Studentizing puts the dependence into
 * se, where the effective-n test already measures it; the bootstrap gives the shape.
 * Returns null with a reason when the observed r is null, or when fewer than half the resamples
 * give a defined r and se* (resamples whose rows make a series constant), since the quantiles
 * would then be biased. Deterministic from the seed (random.ts). quantile() is numpy.quantile's
 * default linear interpolation.
 */
import { UserError } from '../errors.ts';
import { partialCorrelation } from './partial-correlation.ts';
import type { PartialOptions } from './partial-correlation-shared.ts';
import { createRandom } from './random.ts';
import { requirePositiveInteger, validatedInputs } from './resample-inputs.ts';

export interface BlockBootstrapOptions extends PartialOptions {
  resamples: number;
  /** Block length in checkpoints; default ceil(n^(1/3)). */
  blockLength?: number;
  seed: number;
  /** Coverage of the interval; default 0.95. */
  level?: number;
}

export interface BootstrapInterval {
  ci95: [number, number] | null;
  /** Why ci95 is null. */
  reason?: string;
}

export function blockBootstrapCI(
  x: ArrayLike<number>, y: ArrayLike<number>, covariates: ArrayLike<number>[], opts: BlockBootstrapOptions,
): [number, number] | null {
  return blockBootstrap(x, y, covariates, opts).ci95;
}

/** The interval, or null with the reason there is none. */
export function blockBootstrap(
  x: ArrayLike<number>, y: ArrayLike<number>, covariates: ArrayLike<number>[], opts: BlockBootstrapOptions,
): BootstrapInterval {
  const data = validatedInputs(x, y, covariates, opts);
  const n = data.x.length;
  const resamples = requirePositiveInteger(opts.resamples, 'resamples');
  const level = opts.level ?? 0.95;
  if (!(level > 0 && level < 1)) throw new UserError(`level must be between 0 and 1, got ${level}`);
  const blockLength = opts.blockLength ?? Math.max(1, Math.ceil(Math.cbrt(n)));
  requirePositiveInteger(blockLength, 'blockLength');
  if (blockLength > n) throw new UserError(`blockLength ${blockLength} is longer than the series (${n} checkpoints)`);
  const random = createRandom(opts.seed);
  const effective: PartialOptions = {
    method: opts.method, residualiser: opts.residualiser, splineBasis: opts.splineBasis, inference: 'effective-n',
  };
  const observed = partialCorrelation(data.x, data.y, data.covariates, effective);
  if (observed.r === null) return { ci95: null, reason: observed.reason ?? 'the correlation is undefined' };
  if (Math.abs(observed.r) >= 1) return { ci95: null, reason: 'the correlation is exactly +-1: no interval on Fisher\'s z' };
  const z = Math.atanh(observed.r);
  const se = 1 / Math.sqrt(observed.n_eff - (observed.n_eff - 2 - observed.df) - 3);
  const rows = new Int32Array(n);
  const bx = new Float64Array(n), by = new Float64Array(n);
  const bc = data.covariates.map(() => new Float64Array(n));
  const ts = new Float64Array(resamples);
  let count = 0;
  for (let b = 0; b < resamples; b++) {
    circularBlockRows(n, blockLength, random.uniform, rows);
    for (let i = 0; i < n; i++) {
      const row = rows[i];
      bx[i] = data.x[row]; by[i] = data.y[row];
      for (let c = 0; c < bc.length; c++) bc[c][i] = data.covariates[c][row];
    }
    // repeats are the resampling's own, so the resample's n_eff is not capped at its distinct rows
    const res = partialCorrelation(bx, by, bc, effective, n);
    if (res.r === null || Math.abs(res.r) >= 1) continue;
    const kb = res.n_eff - 2 - res.df;
    if (!(res.n_eff - kb - 3 > 0)) continue;
    ts[count++] = (Math.atanh(res.r) - z) * Math.sqrt(res.n_eff);
  }
  if (count < resamples / 2) {
    const defined = `only ${count} of ${resamples} block resamples give a defined correlation (fewer than half)`;
    return { ci95: null, reason: `${defined}: too few distinct checkpoints for a bootstrap interval` };
  }
  const sorted = ts.subarray(0, count).sort();
  return { ci95: [Math.tanh(z - quantile(sorted, (1 + level) / 2) * se), Math.tanh(z - quantile(sorted, (1 - level) / 2) * se)] };
}

/** Fills `rows` with the row indices of one circular-block resample. */
export function circularBlockRows(n: number, blockLength: number, uniform: () => number, rows: Int32Array): void {
  let filled = 0;
  while (filled < n) {
    const start = Math.floor(uniform() * n);
    for (let j = 0; j < blockLength && filled < n; j++) rows[filled++] = (start + j) % n;
  }
}

/** numpy.quantile(sorted, q) with the default 'linear' method, on ascending values. */
export function quantile(sorted: Float64Array, q: number): number {
  const pos = q * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
}
