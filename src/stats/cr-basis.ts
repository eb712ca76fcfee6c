/**
 * Cubic regression spline basis and penalty, as mgcv's smooth.construct.cr.smooth.spec builds them
 * (Wood 2017, "Generalized Additive Models", 2nd ed., section 5.3.1; mgcv's place.knots and crspl):
 * the spline is parameterised by its values beta_j at k knots x_1 < ... < x_k, with zero second
 * derivative at the end knots. With h_j = x_{j+1} - x_j,
 *   D ((k-2) x k):  D[i,i] = 1/h_i, D[i,i+1] = -1/h_i - 1/h_{i+1}, D[i,i+2] = 1/h_{i+1}
 *   B ((k-2) x (k-2), symmetric tridiagonal): B[i,i] = (h_i + h_{i+1})/3, B[i,i+1] = h_{i+1}/6
 *   F = [0; B^-1 D; 0] (k x k) maps beta to the second derivatives at the knots,
 *   S = D' B^-1 D is the penalty: integral of f''(x)^2 dx = beta' S beta.
 * For x in [x_j, x_{j+1}]: f(x) = a- beta_j + a+ beta_{j+1} + c- delta_j + c+ delta_{j+1}, delta = F beta,
 *   a- = (x_{j+1} - x)/h_j, a+ = (x - x_j)/h_j,
 *   c- = ((x_{j+1} - x)^3/h_j - h_j (x_{j+1} - x))/6, c+ = ((x - x_j)^3/h_j - h_j (x - x_j))/6;
 * outside the knots f continues linearly (mgcv's extrapolation).
 * Written here because no JavaScript library builds mgcv's "cr" basis.
 */
import { UserError } from '../errors.ts';

/** mgcv place.knots: k knots spread evenly through the sorted unique values (interpolating between them). */
export function placeKnots(x: ArrayLike<number>, k: number): Float64Array {
  return placeKnotsOnUnique(uniqueSorted(x), k);
}

/** placeKnots on values already sorted and unique. */
export function placeKnotsOnUnique(u: Float64Array, k: number): Float64Array {
  const n = u.length;
  if (k > n) throw new UserError(`a spline with ${k} knots needs at least ${k} distinct covariate values, got ${n}`);
  if (k < 2) throw new UserError(`a spline needs at least 2 knots, got ${k}`);
  const knots = new Float64Array(k);
  knots[0] = u[0];
  knots[k - 1] = u[n - 1];
  const delta = (n - 1) / (k - 1);
  for (let i = 1; i <= k - 2; i++) {
    const lbi = Math.floor(delta * i) + 1; // 1-based lower index, as in R
    const frac = delta * i + 1 - lbi;
    knots[i] = u[lbi - 1] * (1 - frac) + u[lbi] * frac;
  }
  return knots;
}

export function uniqueSorted(x: ArrayLike<number>): Float64Array {
  const s = new Float64Array(x.length);
  for (let i = 0; i < s.length; i++) s[i] = x[i];
  s.sort();
  let m = 0;
  for (let i = 0; i < s.length; i++) if (i === 0 || s[i] !== s[m - 1]) s[m++] = s[i];
  return s.slice(0, m);
}

export interface CrSpline {
  knots: Float64Array;
  /** k x k row-major: second derivatives at the knots = F beta. */
  F: Float64Array;
  /** k x k row-major penalty. */
  S: Float64Array;
}

export function crSpline(knots: Float64Array): CrSpline {
  const k = knots.length;
  const h = new Float64Array(k - 1);
  for (let j = 0; j < k - 1; j++) h[j] = knots[j + 1] - knots[j];
  const m = k - 2;
  const F = new Float64Array(k * k);
  const S = new Float64Array(k * k);
  if (m <= 0) return { knots, F, S };
  // D, row-major m x k
  const D = new Float64Array(m * k);
  for (let i = 0; i < m; i++) {
    D[i * k + i] = 1 / h[i];
    D[i * k + i + 1] = -1 / h[i] - 1 / h[i + 1];
    D[i * k + i + 2] = 1 / h[i + 1];
  }
  // Solve B X = D (tridiagonal, SPD) by the Thomas algorithm, column by column of D at once.
  const diag = new Float64Array(m), upper = new Float64Array(m);
  for (let i = 0; i < m; i++) { diag[i] = (h[i] + h[i + 1]) / 3; upper[i] = i < m - 1 ? h[i + 1] / 6 : 0; }
  const X = Float64Array.from(D);
  const cPrime = new Float64Array(m);
  let denom = diag[0];
  cPrime[0] = upper[0] / denom;
  for (let c = 0; c < k; c++) X[c] /= denom;
  for (let i = 1; i < m; i++) {
    denom = diag[i] - upper[i - 1] * cPrime[i - 1];
    cPrime[i] = upper[i] / denom;
    for (let c = 0; c < k; c++) X[i * k + c] = (X[i * k + c] - upper[i - 1] * X[(i - 1) * k + c]) / denom;
  }
  for (let i = m - 2; i >= 0; i--) {
    for (let c = 0; c < k; c++) X[i * k + c] -= cPrime[i] * X[(i + 1) * k + c];
  }
  // F = [0; X; 0]
  F.set(X, k);
  // S = D' X
  for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) {
    let s = 0;
    for (let i = 0; i < m; i++) s += D[i * k + a] * X[i * k + b];
    S[a * k + b] = s;
  }
  // symmetrise rounding
  for (let a = 0; a < k; a++) for (let b = a + 1; b < k; b++) {
    const v = (S[a * k + b] + S[b * k + a]) / 2;
    S[a * k + b] = v; S[b * k + a] = v;
  }
  return { knots, F, S };
}

/**
 * The model matrix in factored form for x inside the knot range: row r of X is
 *   am[r] e_j + ap[r] e_{j+1} + cm[r] F_j + cp[r] F_{j+1},  j = interval[r],
 * so X = A + W F with A and W two non-zeros per row; products with X then cost O(n) + O(k^2).
 */
export interface CrRows { interval: Int32Array; am: Float64Array; ap: Float64Array; cm: Float64Array; cp: Float64Array }

export function crRows(x: ArrayLike<number>, knots: Float64Array): CrRows {
  const k = knots.length;
  const n = x.length;
  const rows: CrRows = {
    interval: new Int32Array(n), am: new Float64Array(n), ap: new Float64Array(n), cm: new Float64Array(n), cp: new Float64Array(n),
  };
  for (let r = 0; r < n; r++) {
    const v = x[r];
    let lo = 0, hi = k - 1; // find j with knots[j] <= v <= knots[j+1]
    while (hi - lo > 1) { const mid = (lo + hi) >>> 1; if (knots[mid] <= v) lo = mid; else hi = mid; }
    const hj = knots[lo + 1] - knots[lo];
    const right = knots[lo + 1] - v, left = v - knots[lo];
    rows.interval[r] = lo;
    rows.am[r] = right / hj;
    rows.ap[r] = left / hj;
    rows.cm[r] = (right * right * right / hj - hj * right) / 6;
    rows.cp[r] = (left * left * left / hj - hj * left) / 6;
  }
  return rows;
}

/** The n x k model matrix (row-major) of the spline at `x`. */
export function crDesign(x: ArrayLike<number>, spline: CrSpline): Float64Array {
  const { knots, F } = spline;
  const k = knots.length;
  const n = x.length;
  const X = new Float64Array(n * k);
  for (let r = 0; r < n; r++) {
    const v = x[r];
    const row = r * k;
    if (v < knots[0] || v > knots[k - 1]) {
      // linear extrapolation: value and first derivative at the nearest end knot
      const end = v < knots[0] ? 0 : k - 1;
      const j = end === 0 ? 0 : k - 2;
      const hj = knots[j + 1] - knots[j];
      const d = v - knots[end];
      // f'(x_j) = (b_{j+1} - b_j)/h_j - h_j (2 delta_j + delta_{j+1})/6; f'(x_{j+1}) = ... + h_j (delta_j + 2 delta_{j+1})/6
      X[row + end] += 1;
      X[row + j] += -d / hj;
      X[row + j + 1] += d / hj;
      const wj = end === 0 ? -hj * 2 / 6 : hj / 6;
      const wj1 = end === 0 ? -hj / 6 : hj * 2 / 6;
      for (let c = 0; c < k; c++) X[row + c] += d * (wj * F[j * k + c] + wj1 * F[(j + 1) * k + c]);
      continue;
    }
    let lo = 0, hi = k - 1; // find j with knots[j] <= v <= knots[j+1]
    while (hi - lo > 1) { const mid = (lo + hi) >>> 1; if (knots[mid] <= v) lo = mid; else hi = mid; }
    const j = lo;
    const hj = knots[j + 1] - knots[j];
    const right = knots[j + 1] - v, left = v - knots[j];
    const aMinus = right / hj, aPlus = left / hj;
    const cMinus = (right * right * right / hj - hj * right) / 6;
    const cPlus = (left * left * left / hj - hj * left) / 6;
    X[row + j] += aMinus;
    X[row + j + 1] += aPlus;
    for (let c = 0; c < k; c++) X[row + c] += cMinus * F[j * k + c] + cPlus * F[(j + 1) * k + c];
  }
  return X;
}
