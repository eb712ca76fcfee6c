/**
 * Input checks shared by every public function in stats/: lengths must agree and every value must be
 * a finite number. Failures are the caller's data, so they throw UserError naming the series and index.
 */
import { UserError } from '../errors.ts';

/** `values` as a Float64Array (a copy unless it already is one), throwing on NaN / infinite values with the offending index. */
export function toFloat64(values: ArrayLike<number>, name: string): Float64Array {
  if (values instanceof Float64Array) return checkFinite(values, name);
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

/** Returns `values` itself (callers never modify their inputs) after checking every value is finite. */
function checkFinite(values: Float64Array, name: string): Float64Array {
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) {
      throw new UserError(`series '${name}' has a non-finite value (${values[i]}) at index ${i}; expected finite numbers`);
    }
  }
  return values;
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
