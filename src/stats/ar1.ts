/**
 * Simulated AR(1) noise, for calibrating a test on series like a run's (analyze/calibration.ts) and
 * for the committed simulation of the inference's error rates (bench/calibration.ts):
 *   e_t = phi e_{t-1} + u_t,  u_t ~ N(0, 1),  e_0 ~ N(0, 1 / (1 - phi^2)) (the stationary law).
 * A correlated pair shares a fraction of its innovations: v_t = phi v_{t-1} + rho u_t +
 * sqrt(1 - rho^2) w_t, so corr(e_t, v_t) = rho at every t (both are AR(1) with the same phi and
 * the same stationary variance), the true correlation an alternative is stated in.
 */
import type { Random } from './random.ts';

/** Fills `out` with one stationary AR(1) series (|phi| < 1). */
export function ar1Into(out: Float64Array, phi: number, random: Random): Float64Array {
  let v = random.normal() / Math.sqrt(1 - phi * phi);
  for (let t = 0; t < out.length; t++) {
    if (t > 0) v = phi * v + random.normal();
    out[t] = v;
  }
  return out;
}

/** Fills x and y with two AR(1) series of coefficient phi whose values correlate rho at every t. */
export function correlatedAr1Into(x: Float64Array, y: Float64Array, phi: number, rho: number, random: Random): void {
  const s = Math.sqrt(1 - phi * phi), c = Math.sqrt(1 - rho * rho);
  let a = 0, b = 0;
  for (let t = 0; t < x.length; t++) {
    const u = random.normal(), w = random.normal();
    if (t === 0) { a = u / s; b = (rho * u + c * w) / s; } else { a = phi * a + u; b = phi * b + rho * u + c * w; }
    x[t] = a; y[t] = b;
  }
}
