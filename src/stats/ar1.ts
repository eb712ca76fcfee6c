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

/**
 * Fills `out` with an Ornstein-Uhlenbeck series sampled at times u (any spacing), time constant
 * theta in the same unit, stationary variance 1: e_0 ~ N(0, 1), e_i = a_i e_{i-1} + sqrt(1 - a_i^2) z_i,
 * a_i = exp(-(u_i - u_{i-1}) / theta) (theta 0: white noise). The exact discretisation, so
 * corr(e_i, e_j) = exp(-|u_i - u_j| / theta): what the uneven-spacing test models (uneven-spacing.ts).
 */
export function ouInto(out: Float64Array, u: ArrayLike<number>, theta: number, random: Random): Float64Array {
  let v = random.normal();
  for (let t = 0; t < out.length; t++) {
    if (t > 0) {
      const a = theta > 0 ? Math.exp(-(u[t] - u[t - 1]) / theta) : 0;
      v = a * v + Math.sqrt(1 - a * a) * random.normal();
    }
    out[t] = v;
  }
  return out;
}

/** Two OU series at times u sharing a fraction rho of their innovations: corr(x_t, y_t) = rho at every t. */
export function correlatedOuInto(x: Float64Array, y: Float64Array, u: ArrayLike<number>, theta: number, rho: number, random: Random): void {
  const c = Math.sqrt(1 - rho * rho);
  let a = 0, b = 0;
  for (let t = 0; t < x.length; t++) {
    const z = random.normal(), w = random.normal();
    if (t === 0) { a = z; b = rho * z + c * w; } else {
      const k = theta > 0 ? Math.exp(-(u[t] - u[t - 1]) / theta) : 0;
      const s = Math.sqrt(1 - k * k);
      a = k * a + s * z; b = k * b + s * (rho * z + c * w);
    }
    x[t] = a; y[t] = b;
  }
}
