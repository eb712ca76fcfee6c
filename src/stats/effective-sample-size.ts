/**
 * Effective number of independent observations behind the correlation of two autocorrelated
 * series, the default inference of genstudy's partial correlations.
 *
 * Bartlett (1935, "Some aspects of the time-correlation problem in regard to tests of
 * significance", JRSS 98) showed that for two independent series the variance of their sample
 * correlation is about (1/n) (1 + 2 sum_j rho_x(j) rho_y(j)); for two AR(1) series with
 * coefficients phi_x, phi_y the sum is phi_x phi_y / (1 - phi_x phi_y), so
 *   n_eff = n (1 - phi_x phi_y) / (1 + phi_x phi_y)
 * independent pairs carry the same information (the form of Pyper and Peterman 1998, eq. 1, with
 * the AR(1) autocorrelations summed to infinity rather than truncated at n/5, which under-corrects
 * strong persistence at small n).
 * phi is estimated from the residual series' lag-1 autocorrelation r_1 (autocorrelation.ts), which
 * is biased towards zero in short series: E[r_1] ~ phi - (1 + 3 phi)/n (Kendall 1954; Marriott and
 * Pope 1954). Without the correction the test still rejects 7-8% of true nulls at phi = 0.95
 * (docs/analyze.md, the simulation table), so phi = r_1 + (1 + 3 r_1)/n, clipped to [-0.99, 0.99].
 * Only positive products shrink n: a negative product (one series alternating) would inflate n
 * beyond the observations there are, so n_eff is capped at n, and at `maxN` (the distinct
 * checkpoints when scores repeat: a plateau holds no new information).
 * The test is then the usual one with n_eff in place of n: df = n_eff - 2 - k, Fisher-z CI with
 * sqrt(n_eff - k - 3) (partial-correlation-shared.ts, inferFromR).
 */
import { lag1Autocorrelation } from './autocorrelation.ts';

/** Largest |phi| used: keeps n_eff finite and positive. */
export const MAX_PHI = 0.99;

/** The AR(1) coefficient from a lag-1 autocorrelation of n values, corrected for its first-order bias. */
export function biasCorrectedAr1(r1: number, n: number): number {
  const phi = r1 + (1 + 3 * r1) / n;
  return Math.max(-MAX_PHI, Math.min(MAX_PHI, phi));
}

/**
 * phi of one residual series: its lag-1 autocorrelation (autocorrelation.ts), bias-corrected. The
 * one estimate of the residual AR(1) that the effective-n test (both partial-correlation paths) and
 * the calibration's simulated noise (residual-ar1.ts) use. A constant series counts as r_1 = 0.
 */
export function residualPhi(e: Float64Array): number {
  return biasCorrectedAr1(lag1Autocorrelation(e) ?? 0, e.length);
}

/** Bartlett's n_eff for two AR(1) series of n values with coefficients phiX, phiY, at most maxN. */
export function bartlettEffectiveN(phiX: number, phiY: number, n: number, maxN = n): number {
  const product = Math.max(0, phiX * phiY);
  return Math.min(n * (1 - product) / (1 + product), n, maxN);
}
