/**
 * Pearson and Spearman correlation, as scipy.stats.pearsonr / spearmanr compute the coefficient:
 *   r = sum((x - mean x)(y - mean y)) / (||x - mean x|| ||y - mean y||), clipped to [-1, 1];
 *   Spearman's rho = Pearson's r of the average ranks (rank.ts).
 * scipy returns NaN (with a warning) for a constant input; here that is null, never NaN.
 */
import { UserError } from '../errors.ts';
import { rank } from './rank.ts';
import { isConstant, requireLength, toFloat64 } from './validate.ts';

export function pearson(x: ArrayLike<number>, y: ArrayLike<number>): number | null {
  requireLength(y, x.length, 'y', 'x');
  const a = toFloat64(x, 'x');
  const b = toFloat64(y, 'y');
  if (a.length < 2) throw new UserError(`correlation needs at least 2 observations, got ${a.length}`);
  if (isConstant(a) || isConstant(b)) return null;
  return centredCorrelation(a, b);
}

export function spearman(x: ArrayLike<number>, y: ArrayLike<number>): number | null {
  requireLength(y, x.length, 'y', 'x');
  const a = toFloat64(x, 'x');
  const b = toFloat64(y, 'y');
  if (a.length < 2) throw new UserError(`correlation needs at least 2 observations, got ${a.length}`);
  if (isConstant(a) || isConstant(b)) return null;
  return centredCorrelation(rank(a), rank(b));
}

/** Pearson's r of two non-constant series (no checks). */
export function centredCorrelation(a: Float64Array, b: Float64Array): number {
  const n = a.length;
  let ma = 0, mb = 0;
  for (let i = 0; i < n; i++) { ma += a[i]; mb += b[i]; }
  ma /= n; mb /= n;
  let saa = 0, sbb = 0, sab = 0;
  for (let i = 0; i < n; i++) {
    const da = a[i] - ma, db = b[i] - mb;
    saa += da * da; sbb += db * db; sab += da * db;
  }
  const r = sab / (Math.sqrt(saa) * Math.sqrt(sbb));
  return Math.max(-1, Math.min(1, r));
}
