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
 * The search is exact in a spectral form: with R'R = Xc'Xc (Cholesky), R^-T Sc R^-1 = U diag(L) U',
 * G = Xc R^-1 U (orthonormal columns), b = G' y:  tr A = 1 + sum 1/(1 + lambda L_i),
 *            ||y - A y||^2 = ||y - mean||^2 - ||b||^2 + sum b_i^2 (lambda L_i / (1 + lambda L_i))^2,
 * so each GCV evaluation costs O(k). A grid over rho finds the global minimum (mgcv's Newton
 * iteration finds a local one from its start: they agree when GCV has one minimum), then bisection
 * on the analytic derivative dGCV/drho pins it to ~1e-13 in rho; lambda = 0 and lambda = infinity
 * (a straight line; mgcv stops at a large finite lambda there) are candidates too.
 * Effective degrees of freedom of the smooth: edf = sum 1/(1 + lambda L_i) = tr A - 1.
 * One basis is built per control variable. X = A + W F (cr-basis.ts, crRows) has two plus two
 * non-zeros per row before F, so X'X, X'y and X beta cost O(n) + O(k^2): each series costs about
 * 8n operations plus the O(k) GCV search, with no allocation. The Cholesky factor of the Gram
 * matrix squares X's condition number, which is small for this basis (its columns are nearly the
 * cardinal functions of the knots); the mgcv comparisons in test/stats/spline.test.ts hold to 1e-8.
 * Deviation from mgcv: mgcv stops when z has fewer distinct values than k; here k is lowered to
 * the number of distinct values (a spline through at least 3 is still defined).
 */
import { crRows, crSpline, placeKnotsOnUnique, uniqueSorted } from './cr-basis.ts';
import type { SeriesResidualiser } from './linear-residuals.ts';
import { choleskyUpper, solveUpperTransposed, symmetricEigen } from './linalg.ts';

export interface SplineResidualiser extends SeriesResidualiser {
  /** The basis dimension used (k, lowered to the number of distinct covariate values). */
  readonly basis: number;
  /** The smoothing parameter of the last residualise() call (Infinity: a straight line). */
  lastLambda: number;
}

/** Returns the residualiser, or a reason in words why the spline cannot be fitted. */
export function splineResidualiser(z: Float64Array, basis = 10): SplineResidualiser | string {
  const n = z.length;
  const unique = uniqueSorted(z);
  const distinct = unique.length;
  const k = Math.min(basis, distinct);
  if (k < 3) return `the control variable has ${distinct} distinct value${distinct === 1 ? '' : 's'}; a spline needs at least 3`;
  const spline = crSpline(placeKnotsOnUnique(unique, k));
  const F = spline.F;
  const { interval, am, ap, cm, cp } = crRows(z, spline.knots);

  // Gram matrix X'X = A'A + A'W F + F'W'A + F'W'W F from the tridiagonal A'A, A'W, W'W.
  const AA = new Float64Array(k * k), AW = new Float64Array(k * k), WW = new Float64Array(k * k);
  const colSum = new Float64Array(k); // 1'X = 1'A + (1'W) F
  const wSum = new Float64Array(k);
  for (let r = 0; r < n; r++) {
    const j = interval[r], a0 = am[r], a1 = ap[r], w0 = cm[r], w1 = cp[r];
    const jj = j * k + j, j1 = j * k + j + 1, k1 = (j + 1) * k + j, kk = (j + 1) * k + j + 1;
    AA[jj] += a0 * a0; AA[j1] += a0 * a1; AA[k1] += a1 * a0; AA[kk] += a1 * a1;
    AW[jj] += a0 * w0; AW[j1] += a0 * w1; AW[k1] += a1 * w0; AW[kk] += a1 * w1;
    WW[jj] += w0 * w0; WW[j1] += w0 * w1; WW[k1] += w1 * w0; WW[kk] += w1 * w1;
    colSum[j] += a0; colSum[j + 1] += a1; wSum[j] += w0; wSum[j + 1] += w1;
  }
  const AWF = matMul(AW, F, k, k, k);
  const WWF = matMul(WW, F, k, k, k);
  const FtWWF = matMulTransA(F, WWF, k, k, k);
  const XtX = new Float64Array(k * k);
  for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) {
    XtX[a * k + b] = AA[a * k + b] + AWF[a * k + b] + AWF[b * k + a] + FtWWF[a * k + b];
  }
  for (let b = 0; b < k; b++) { let s = 0; for (let i = 0; i < k; i++) s += wSum[i] * F[i * k + b]; colSum[b] += s; }

  // Sum-to-zero constraint: Householder H = I - 2 v v'/v'v with H c = -+||c|| e1 (c = column sums
  // of X); Z = columns 2..k of H (k x p, row-major).
  const v = new Float64Array(colSum);
  let cn = 0;
  for (let j = 0; j < k; j++) cn += colSum[j] * colSum[j];
  v[0] += (colSum[0] >= 0 ? 1 : -1) * Math.sqrt(cn);
  let vv = 0;
  for (let j = 0; j < k; j++) vv += v[j] * v[j];
  const p = k - 1;
  const Z = new Float64Array(k * p);
  for (let i = 0; i < k; i++) for (let j = 0; j < p; j++) Z[i * p + j] = (i === j + 1 ? 1 : 0) - (2 * v[i] * v[j + 1]) / vv;
  const gram = matMulTransA(Z, matMul(XtX, Z, k, k, p), k, p, p); // Xc'Xc
  const Sc = matMulTransA(Z, matMul(spline.S, Z, k, k, p), k, p, p);
  const R = choleskyUpper(gram, p);
  if (R === null) return 'the spline basis in the control variable is rank deficient';
  // M = R^-T Sc R^-1 (symmetric), from two triangular solves
  const T1 = new Float64Array(Sc);
  solveUpperTransposed(R, p, T1, p); // R^-T Sc
  const M = new Float64Array(p * p);
  for (let a = 0; a < p; a++) for (let b = 0; b < p; b++) M[a * p + b] = T1[b * p + a];
  solveUpperTransposed(R, p, M, p); // R^-T (Sc R^-1)
  for (let a = 0; a < p; a++) for (let b = a + 1; b < p; b++) { const m = (M[a * p + b] + M[b * p + a]) / 2; M[a * p + b] = m; M[b * p + a] = m; }
  const { values, vectors } = symmetricEigen(M, p);
  let maxL = 0;
  for (let i = 0; i < p; i++) maxL = Math.max(maxL, values[i]);
  const L = new Float64Array(p);
  let minPositive = Infinity;
  for (let i = 0; i < p; i++) {
    L[i] = values[i] > 1e-11 * maxL ? values[i] : 0; // the penalty's null space (straight lines)
    if (L[i] > 0) minPositive = Math.min(minPositive, L[i]);
  }
  // T = Z R^-1 U (k x p): G = X T has orthonormal columns, b = T' X'y.
  const RiU = new Float64Array(vectors); // solve R (R^-1 U) = U by back substitution
  for (let col = 0; col < p; col++) {
    for (let i = p - 1; i >= 0; i--) {
      let s = RiU[i * p + col];
      for (let l = i + 1; l < p; l++) s -= R[i * p + l] * RiU[l * p + col];
      RiU[i * p + col] = s / R[i * p + i];
    }
  }
  const T = matMul(Z, RiU, k, p, p);

  const rhoLo = -Math.log(maxL) - 12;
  const rhoHi = -Math.log(minPositive) + 12;
  const steps = Math.ceil((rhoHi - rhoLo) / 0.2);
  const Xty = new Float64Array(k), Wty = new Float64Array(k);
  const b = new Float64Array(p), b2 = new Float64Array(p);
  const beta = new Float64Array(k), delta = new Float64Array(k);
  let rss0 = 0;

  const gcvAt = (lambda: number): number => {
    let edf = 0, rss = rss0;
    for (let i = 0; i < p; i++) {
      const w = lambda === Infinity ? (L[i] > 0 ? 0 : 1) : 1 / (1 + lambda * L[i]);
      edf += w;
      const u = 1 - w;
      rss += b2[i] * u * u;
    }
    const d = n - 1 - edf;
    return d > 0 ? (n * rss) / (d * d) : Infinity;
  };
  // The sign of dGCV/drho: d rss/drho (n - 1 - edf) - 2 rss d(n - 1 - edf)/drho.
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
    return drss * (n - 1 - edf) - 2 * rss * ddelta;
  };
  const chooseLambda = (): number => {
    let bestRho = rhoLo, bestV = Infinity, bestIndex = -1;
    for (let g = 0; g <= steps; g++) {
      const rho = rhoLo + (g * (rhoHi - rhoLo)) / steps;
      const V = gcvAt(Math.exp(rho));
      if (V < bestV) { bestV = V; bestRho = rho; bestIndex = g; }
    }
    let lambda = Math.exp(bestRho);
    if (bestIndex > 0 && bestIndex < steps) {
      const step = (rhoHi - rhoLo) / steps;
      let lo = bestRho - step, hi = bestRho + step;
      if (slope(lo) < 0 && slope(hi) > 0) {
        for (let it = 0; it < 200 && hi - lo > 1e-13 * Math.max(1, Math.abs(lo)); it++) {
          const mid = (lo + hi) / 2;
          if (slope(mid) < 0) lo = mid; else hi = mid;
        }
        const candidate = Math.exp((lo + hi) / 2);
        const V = gcvAt(candidate);
        if (V <= bestV) { lambda = candidate; bestV = V; }
      }
    }
    const Vinf = gcvAt(Infinity);
    if (Vinf <= bestV) { lambda = Infinity; bestV = Vinf; }
    if (gcvAt(0) < bestV) lambda = 0;
    return lambda;
  };

  const self: SplineResidualiser = {
    basis: k,
    lastLambda: NaN,
    residualise(y: Float64Array, out: Float64Array, moments?: Float64Array): number {
      let mean = 0;
      for (let t = 0; t < n; t++) mean += y[t];
      mean /= n;
      Xty.fill(0); Wty.fill(0);
      let yy = 0;
      for (let t = 0; t < n; t++) {
        const d = y[t] - mean;
        out[t] = d;
        yy += d * d;
        const j = interval[t];
        Xty[j] += am[t] * d; Xty[j + 1] += ap[t] * d;
        Wty[j] += cm[t] * d; Wty[j + 1] += cp[t] * d;
      }
      for (let a = 0; a < k; a++) { let s = 0; for (let i = 0; i < k; i++) s += F[i * k + a] * Wty[i]; Xty[a] += s; }
      let bb = 0;
      for (let i = 0; i < p; i++) {
        let s = 0;
        for (let a = 0; a < k; a++) s += T[a * p + i] * Xty[a];
        b[i] = s; b2[i] = s * s; bb += s * s;
      }
      rss0 = Math.max(0, yy - bb);
      const lambda = chooseLambda();
      self.lastLambda = lambda;
      // beta = T (w o b); fitted = X beta = A beta + W (F beta)
      let edf = 0;
      beta.fill(0);
      for (let i = 0; i < p; i++) {
        const w = lambda === Infinity ? (L[i] > 0 ? 0 : 1) : 1 / (1 + lambda * L[i]);
        edf += w;
        const coef = w * b[i];
        for (let a = 0; a < k; a++) beta[a] += T[a * p + i] * coef;
      }
      for (let a = 0; a < k; a++) { let s = 0; for (let i = 0; i < k; i++) s += F[a * k + i] * beta[i]; delta[a] = s; }
      let sum = 0, sq = 0;
      for (let t = 0; t < n; t++) {
        const j = interval[t];
        const e = out[t] - (am[t] * beta[j] + ap[t] * beta[j + 1] + cm[t] * delta[j] + cp[t] * delta[j + 1]);
        out[t] = e; sum += e; sq += e * e;
      }
      if (moments) { moments[0] = sum; moments[1] = sq; }
      return edf;
    },
  };
  return self;
}

/** (r x m) times (m x c), row-major. */
function matMul(a: Float64Array, b: Float64Array, r: number, m: number, c: number): Float64Array {
  const out = new Float64Array(r * c);
  for (let i = 0; i < r; i++) for (let l = 0; l < m; l++) {
    const ail = a[i * m + l];
    if (ail === 0) continue;
    for (let j = 0; j < c; j++) out[i * c + j] += ail * b[l * c + j];
  }
  return out;
}

/** a' b with a (m x r) and b (m x c), row-major. */
function matMulTransA(a: Float64Array, b: Float64Array, m: number, r: number, c: number): Float64Array {
  const out = new Float64Array(r * c);
  for (let l = 0; l < m; l++) for (let i = 0; i < r; i++) {
    const ali = a[l * r + i];
    if (ali === 0) continue;
    for (let j = 0; j < c; j++) out[i * c + j] += ali * b[l * c + j];
  }
  return out;
}
