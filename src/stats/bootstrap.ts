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
 * every resample; the interval is the percentile interval: the (1 - level)/2 and (1 + level)/2
 * quantiles of the resampled r, with numpy.quantile's default linear interpolation.
 * Returns null when the observed r is null, or when fewer than half the resamples give a defined r
 * (e.g. resamples whose rows make a series constant), since the percentiles would then be biased.
 * Deterministic from the seed (random.ts).
 */
import { UserError } from '../errors.ts';
import { partialOfArrays, type PartialOptions } from './partial-correlation.ts';
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

export function blockBootstrapCI(
  x: ArrayLike<number>, y: ArrayLike<number>, covariates: ArrayLike<number>[], opts: BlockBootstrapOptions,
): [number, number] | null {
  const data = validatedInputs(x, y, covariates, opts);
  const n = data.x.length;
  const resamples = requirePositiveInteger(opts.resamples, 'resamples');
  const level = opts.level ?? 0.95;
  if (!(level > 0 && level < 1)) throw new UserError(`level must be between 0 and 1, got ${level}`);
  const blockLength = opts.blockLength ?? Math.max(1, Math.ceil(Math.cbrt(n)));
  requirePositiveInteger(blockLength, 'blockLength');
  if (blockLength > n) throw new UserError(`blockLength ${blockLength} is longer than the series (${n} checkpoints)`);
  const observed = partialOfArrays(data.x, data.y, data.covariates, opts);
  if (observed.r === null) return null;
  const random = createRandom(opts.seed);
  const rows = new Int32Array(n);
  const bx = new Float64Array(n), by = new Float64Array(n);
  const bc = data.covariates.map(() => new Float64Array(n));
  const rs = new Float64Array(resamples);
  let count = 0;
  for (let b = 0; b < resamples; b++) {
    circularBlockRows(n, blockLength, random.uniform, rows);
    for (let i = 0; i < n; i++) {
      const row = rows[i];
      bx[i] = data.x[row]; by[i] = data.y[row];
      for (let c = 0; c < bc.length; c++) bc[c][i] = data.covariates[c][row];
    }
    const r = partialOfArrays(bx, by, bc, opts).r;
    if (r !== null) rs[count++] = r;
  }
  if (count < resamples / 2) return null;
  const sorted = rs.subarray(0, count).sort();
  return [quantile(sorted, (1 - level) / 2), quantile(sorted, (1 + level) / 2)];
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
