/** Validation shared by the bootstrap and the permutation test (same rules as partialCorrelation). */
import { UserError } from '../errors.ts';
import { checkOptions, type PartialOptions } from './partial-correlation-shared.ts';
import { requireLength, toFloat64 } from './validate.ts';

export function validatedInputs(
  x: ArrayLike<number>, y: ArrayLike<number>, covariates: ArrayLike<number>[], opts: PartialOptions,
): { x: Float64Array; y: Float64Array; covariates: Float64Array[] } {
  const n = x.length;
  requireLength(y, n, 'y', 'x');
  covariates.forEach((c, i) => requireLength(c, n, `covariates[${i}]`, 'x'));
  checkOptions(opts, covariates.length);
  return { x: toFloat64(x, 'x'), y: toFloat64(y, 'y'), covariates: covariates.map((c, i) => toFloat64(c, `covariates[${i}]`)) };
}

export function requirePositiveInteger(v: unknown, name: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
    throw new UserError(`${name} must be a positive integer, got ${String(v)}`);
  }
  return v;
}
