/**
 * Input checks shared by every public function in stats/: lengths must agree and every value must be
 * a finite number. Failures are the caller's data, so they throw UserError naming the series and index.
 */
import { UserError } from '../errors.ts';

/** Copies `values` into a Float64Array, throwing on NaN / infinite values with the offending index. */
export function toFloat64(values: ArrayLike<number>, name: string): Float64Array {
  const n = values.length;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new UserError(`series '${name}' has a non-finite value (${String(v)}) at index ${i}; expected finite numbers`);
    }
    out[i] = v;
  }
  return out;
}

/** Throws unless `values` has `n` entries. */
export function requireLength(values: ArrayLike<number>, n: number, name: string, reference: string): void {
  if (values.length !== n) {
    throw new UserError(`series '${name}' has ${values.length} values but '${reference}' has ${n}; expected equal lengths`);
  }
}

/** True when every value equals the first (scipy's test for a constant input). */
export function isConstant(x: Float64Array): boolean {
  const first = x[0];
  for (let i = 1; i < x.length; i++) if (x[i] !== first) return false;
  return true;
}
