/**
 * Spline residualiser: residuals of a series y after a penalised cubic regression spline in ONE
 * control variable z, the smoothing parameter chosen by GCV. This is the GAM
 *   mgcv::gam(y ~ s(z, bs = "cr", k = 10), method = "GCV.Cp")
 * (Wood 2017, "Generalized Additive Models", 2nd ed., sections 4.2, 5.3.1, 5.4.1, 6.2):
 * - basis and penalty of cr-basis.ts, knots by mgcv's place.knots on the unique values of z;
 * - identifiability: the sum-to-zero constraint 1' X beta = 0, absorbed as mgcv does by a
 *   Householder reflection of the column sums (any null-space basis gives the same fit);
 *   model matrix [1, X Z], penalty blockdiag(0, Z' S Z);
 * - for a given lambda: fitted = A y, A = 1 1'/n + Xc (Xc'Xc + lambda Sc)^-1 Xc' (the constrained
 *   columns are orthogonal to the intercept, so it separates exactly);
 * - GCV(lambda) = n ||y - A y||^2 / (n - tr A)^2, minimised over rho = log lambda.
 * The search is exact in a spectral form: with Xc = Q R and R^-T Sc R^-1 = U diag(L) U', G = Q U,
 * b = G' y:  tr A = 1 + sum 1/(1 + lambda L_i),
 *            ||y - A y||^2 = ||y - mean||^2 - ||b||^2 + sum b_i^2 (lambda L_i / (1 + lambda L_i))^2,
 * so each GCV evaluation costs O(k). A grid over rho finds the global minimum (mgcv's Newton
 * iteration finds a local one from its start: they agree when GCV has one minimum), then bisection
 * on the analytic derivative dGCV/drho pins it to ~1e-13 in rho; lambda = 0 and lambda = infinity
 * (a straight line; mgcv stops at a large finite lambda there) are candidates too.
 * Effective degrees of freedom of the smooth: edf = sum 1/(1 + lambda L_i) = tr A - 1.
 * One basis is built per control variable; each series then costs O(n k) with no allocation.
 * Deviation from mgcv: mgcv stops when z has fewer distinct values than k; here k is lowered to
 * the number of distinct values (a spline through at least 3 is still defined).
 */
import { crDesign, crSpline, placeKnots, uniqueSorted } from './cr-basis.ts';
import type { SeriesResidualiser } from './linear-residuals.ts';
import { orthonormalise, solveUpperTransposed, symmetricEigen } from './linalg.ts';

export interface SplineResidualiser extends SeriesResidualiser {
  /** The basis dimension used (k, lowered to the number of distinct covariate values). */
  readonly basis: number;
  /** The smoothing parameter of the last residualise() call (Infinity: a straight line). */
  lastLambda: number;
}

/** Returns the residualiser, or a reason in words why the spline cannot be fitted. */
export function splineResidualiser(z: Float64Array, basis = 10): SplineResidualiser | string {
  const n = z.length;
  const distinct = uniqueSorted(z).length;
  const k = Math.min(basis, distinct);
  if (k < 3) return `the control variable has ${distinct} distinct value${distinct === 1 ? '' : 's'}; a spline needs at least 3`;
  const spline = crSpline(placeKnots(z, k));
  const X = crDesign(z, spline);
  // Sum-to-zero constraint: Householder H with H c = -+||c|| e1; Z = columns 2..k of H.
  const c = new Float64Array(k);
  for (let r = 0; r < n; r++) for (let j = 0; j < k; j++) c[j] += X[r * k + j];
  const v = Float64Array.from(c);
  const cn = Math.hypot(...c);
  v[0] += (c[0] >= 0 ? 1 : -1) * cn;
  const vv = v.reduce((s, e) => s + e * e, 0);
  const p = k - 1;
  const Z = new Float64Array(k * p); // row-major k x p
  for (let i = 0; i < k; i++) for (let j = 0; j < p; j++) Z[i * p + j] = (i === j + 1 ? 1 : 0) - (2 * v[i] * v[j + 1]) / vv;
  const cols: Float64Array[] = [];
  for (let j = 0; j < p; j++) {
    const col = new Float64Array(n);
    for (let r = 0; r < n; r++) { let s = 0; for (let i = 0; i < k; i++) s += X[r * k + i] * Z[i * p + j]; col[r] = s; }
    cols.push(col);
  }
  const Sc = new Float64Array(p * p);
  const SZ = new Float64Array(k * p);
  for (let i = 0; i < k; i++) for (let j = 0; j < p; j++) { let s = 0; for (let l = 0; l < k; l++) s += spline.S[i * k + l] * Z[l * p + j]; SZ[i * p + j] = s; }
  for (let a = 0; a < p; a++) for (let b = 0; b < p; b++) { let s = 0; for (let l = 0; l < k; l++) s += Z[l * p + a] * SZ[l * p + b]; Sc[a * p + b] = s; }
  const { q, r, kept } = orthonormalise(cols);
  if (kept.length < p) return `the spline basis in the control variable is rank deficient (${kept.length} of ${p} columns)`;
  // M = R^-T Sc R^-1, symmetric
  const T = Float64Array.from(Sc);
  solveUpperTransposed(r, p, T, p); // T = R^-T Sc
  const Tt = new Float64Array(p * p);
  for (let a = 0; a < p; a++) for (let b = 0; b < p; b++) Tt[a * p + b] = T[b * p + a];
  solveUpperTransposed(r, p, Tt, p); // R^-T (Sc R^-1)
  for (let a = 0; a < p; a++) for (let b = a + 1; b < p; b++) { const m = (Tt[a * p + b] + Tt[b * p + a]) / 2; Tt[a * p + b] = m; Tt[b * p + a] = m; }
  const { values, vectors } = symmetricEigen(Tt, p);
  let maxL = 0;
  for (let i = 0; i < p; i++) maxL = Math.max(maxL, values[i]);
  const L = new Float64Array(p);
  let minPositive = Infinity;
  for (let i = 0; i < p; i++) {
    L[i] = values[i] > 1e-11 * maxL ? values[i] : 0; // the penalty's null space (straight lines)
    if (L[i] > 0) minPositive = Math.min(minPositive, L[i]);
  }
  // G = Q U, stored column after column
  const G = new Float64Array(n * p);
  for (let i = 0; i < p; i++) for (let j = 0; j < p; j++) {
    const u = vectors[j * p + i];
    if (u === 0) continue;
    const qj = q[j];
    for (let t = 0; t < n; t++) G[i * n + t] += u * qj[t];
  }
  const rhoLo = -Math.log(maxL) - 12;
  const rhoHi = -Math.log(minPositive) + 12;
  const steps = Math.ceil((rhoHi - rhoLo) / 0.2);
  const b = new Float64Array(p);
  const b2 = new Float64Array(p);
  let rss0 = 0;

  // GCV and its derivative's sign-carrying part at rho (see header).
  const gcv = (lambda: number): number => {
    let edf = 0, rss = rss0;
    for (let i = 0; i < p; i++) {
      const s = lambda * L[i];
      const w = lambda === Infinity ? (L[i] > 0 ? 0 : 1) : 1 / (1 + s);
      edf += w;
      const u = 1 - w;
      rss += b2[i] * u * u;
    }
    const d = n - 1 - edf;
    return d > 0 ? (n * rss) / (d * d) : Infinity;
  };
  const slope = (rho: number): number => {
    const lambda = Math.exp(rho);
    let edf = 0, rss = rss0, drss = 0, ddelta = 0;
    for (let i = 0; i < p; i++) {
      const w = 1 / (1 + lambda * L[i]);
      const u = 1 - w;
      edf += w;
      rss += b2[i] * u * u;
      drss += 2 * b2[i] * w * u * u;
      ddelta += w * u;
    }
    const d = n - 1 - edf;
    return drss * d - 2 * rss * ddelta;
  };

  const self: SplineResidualiser = {
    basis: k,
    lastLambda: NaN,
    residualise(y: Float64Array, out: Float64Array): number {
      let mean = 0;
      for (let t = 0; t < n; t++) mean += y[t];
      mean /= n;
      let yy = 0;
      for (let t = 0; t < n; t++) { const d = y[t] - mean; out[t] = d; yy += d * d; }
      let bb = 0;
      for (let i = 0; i < p; i++) {
        let s = 0;
        const off = i * n;
        for (let t = 0; t < n; t++) s += G[off + t] * out[t];
        b[i] = s; b2[i] = s * s; bb += s * s;
      }
      rss0 = Math.max(0, yy - bb);
      // global search on a grid of rho, then the two limits
      let bestRho = rhoLo, bestV = Infinity, bestIndex = -1;
      for (let g = 0; g <= steps; g++) {
        const rho = rhoLo + (g * (rhoHi - rhoLo)) / steps;
        const V = gcv(Math.exp(rho));
        if (V < bestV) { bestV = V; bestRho = rho; bestIndex = g; }
      }
      let lambda = Math.exp(bestRho);
      if (bestIndex > 0 && bestIndex < steps) {
        let lo = bestRho - (rhoHi - rhoLo) / steps, hi = bestRho + (rhoHi - rhoLo) / steps;
        if (slope(lo) < 0 && slope(hi) > 0) {
          for (let it = 0; it < 200 && hi - lo > 1e-13 * Math.max(1, Math.abs(lo)); it++) {
            const mid = (lo + hi) / 2;
            if (slope(mid) < 0) lo = mid; else hi = mid;
          }
          const rho = (lo + hi) / 2;
          if (gcv(Math.exp(rho)) <= bestV) { lambda = Math.exp(rho); bestV = gcv(lambda); }
        }
      }
      if (gcv(Infinity) <= bestV) { lambda = Infinity; bestV = gcv(Infinity); }
      if (gcv(0) < bestV) { lambda = 0; }
      self.lastLambda = lambda;
      let edf = 0;
      for (let i = 0; i < p; i++) {
        const w = lambda === Infinity ? (L[i] > 0 ? 0 : 1) : 1 / (1 + lambda * L[i]);
        edf += w;
        const coef = w * b[i];
        if (coef === 0) continue;
        const off = i * n;
        for (let t = 0; t < n; t++) out[t] -= coef * G[off + t];
      }
      return edf;
    },
  };
  return self;
}
