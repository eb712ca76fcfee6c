/**
 * The small dense linear algebra the residualisers need, on Float64Array:
 * - orthonormalise: QR of a tall n x p matrix (p <= ~11) by modified Gram-Schmidt with one
 *   re-orthogonalisation pass ("twice is enough", Giraud et al. 2005), which is as accurate as
 *   Householder QR for these sizes and gives Q column by column, the form residualisation uses;
 *   columns that are (numerically) combinations of earlier ones are dropped, which makes a constant
 *   or duplicated covariate harmless, as numpy's pinv does in pingouin.
 * - symmetricEigen: cyclic Jacobi rotations for a small symmetric matrix (accurate to machine
 *   precision for tiny eigenvalues too, which the spline's penalty needs).
 * - pivotedCholesky: a root of a positive semi-definite matrix that may be singular (a fixed test
 *   set's error covariance across checkpoints), O(n^3 / 3) where Jacobi's sweeps took seconds at
 *   400 checkpoints.
 * Written here rather than taken from a library (e.g. ml-matrix) because these run once per series
 * in the analysis hot loop: in place, on typed arrays, with no per-call objects.
 */

export interface Orthonormal {
  /** Orthonormal columns, each of length n, spanning the kept input columns. */
  q: Float64Array[];
  /** Upper-triangular R (kept x kept, row-major): kept input columns = Q R. */
  r: Float64Array;
  /** Indices of the input columns that were kept. */
  kept: number[];
}

/** A column is dropped when Gram-Schmidt leaves less than this fraction of its norm. */
const DEPENDENT = 1e-10;

export function orthonormalise(columns: Float64Array[]): Orthonormal {
  const p = columns.length;
  const q: Float64Array[] = [];
  const kept: number[] = [];
  const rFull = new Float64Array(p * p);
  for (let j = 0; j < p; j++) {
    const v = new Float64Array(columns[j]);
    const norm0 = Math.sqrt(dot(v, v));
    const coef = new Float64Array(q.length);
    for (let pass = 0; pass < 2; pass++) {
      for (let i = 0; i < q.length; i++) {
        const c = dot(q[i], v);
        coef[i] += c;
        axpy(-c, q[i], v);
      }
    }
    const norm = Math.sqrt(dot(v, v));
    if (norm0 === 0 || norm <= DEPENDENT * norm0) continue;
    for (let i = 0; i < v.length; i++) v[i] /= norm;
    const row = q.length;
    for (let i = 0; i < q.length; i++) rFull[i * p + row] = coef[i];
    rFull[row * p + row] = norm;
    q.push(v);
    kept.push(j);
  }
  const m = q.length;
  const r = new Float64Array(m * m);
  for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) r[i * m + j] = rFull[i * p + j];
  return { q, r, kept };
}

export function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** y += a * x */
export function axpy(a: number, x: Float64Array, y: Float64Array): void {
  for (let i = 0; i < y.length; i++) y[i] += a * x[i];
}

/**
 * Eigen-decomposition of a symmetric m x m matrix (row-major; not modified).
 * Returns eigenvalues and eigenvectors as columns of `vectors` (row-major m x m): A = V diag(values) V'.
 */
export function symmetricEigen(a: Float64Array, m: number): { values: Float64Array; vectors: Float64Array } {
  const A = Float64Array.from(a);
  const V = new Float64Array(m * m);
  for (let i = 0; i < m; i++) V[i * m + i] = 1;
  let norm = 0;
  for (let i = 0; i < m * m; i++) norm += A[i] * A[i];
  // off-diagonal entries below this are rounding noise: set to zero instead of rotated
  const negligible = 1e-17 * Math.sqrt(norm);
  for (let sweep = 0; sweep < 60; sweep++) {
    let rotated = false;
    for (let p = 0; p < m - 1; p++) {
      for (let q = p + 1; q < m; q++) {
        const apq = A[p * m + q];
        if (Math.abs(apq) <= negligible) { A[p * m + q] = 0; A[q * m + p] = 0; continue; }
        rotated = true;
        const app = A[p * m + p], aqq = A[q * m + q];
        const theta = (aqq - app) / (2 * apq);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1), s = t * c;
        for (let k = 0; k < m; k++) {
          const akp = A[k * m + p], akq = A[k * m + q];
          A[k * m + p] = c * akp - s * akq;
          A[k * m + q] = s * akp + c * akq;
        }
        for (let k = 0; k < m; k++) {
          const apk = A[p * m + k], aqk = A[q * m + k];
          A[p * m + k] = c * apk - s * aqk;
          A[q * m + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < m; k++) {
          const vkp = V[k * m + p], vkq = V[k * m + q];
          V[k * m + p] = c * vkp - s * vkq;
          V[k * m + q] = s * vkp + c * vkq;
        }
      }
    }
    if (!rotated) break;
  }
  const values = new Float64Array(m);
  for (let i = 0; i < m; i++) values[i] = A[i * m + i];
  return { values, vectors: V };
}

/** Solves R' X = B in place for upper-triangular R (m x m, row-major); B is m x c, row-major. */
export function solveUpperTransposed(r: Float64Array, m: number, b: Float64Array, c: number): void {
  for (let i = 0; i < m; i++) {
    for (let k = 0; k < i; k++) {
      const rki = r[k * m + i];
      if (rki === 0) continue;
      for (let j = 0; j < c; j++) b[i * c + j] -= rki * b[k * c + j];
    }
    const d = r[i * m + i];
    for (let j = 0; j < c; j++) b[i * c + j] /= d;
  }
}

/** Upper-triangular R with R'R = A (p x p, row-major), or null when A is not numerically positive definite. */
export function choleskyUpper(a: Float64Array, p: number): Float64Array | null {
  const R = new Float64Array(p * p);
  let maxDiag = 0;
  for (let i = 0; i < p; i++) maxDiag = Math.max(maxDiag, a[i * p + i]);
  for (let i = 0; i < p; i++) {
    let d = a[i * p + i];
    for (let l = 0; l < i; l++) d -= R[l * p + i] * R[l * p + i];
    if (!(d > 1e-13 * maxDiag)) return null;
    const rii = Math.sqrt(d);
    R[i * p + i] = rii;
    for (let j = i + 1; j < p; j++) {
      let s = a[i * p + j];
      for (let l = 0; l < i; l++) s -= R[l * p + i] * R[l * p + j];
      R[i * p + j] = s / rii;
    }
  }
  return R;
}

/**
 * A root of a symmetric positive semi-definite n x n matrix (row-major): L (n x rank, row-major,
 * rows in the matrix's own order) with L L' = A, by Cholesky with diagonal pivoting (Higham 2002,
 * "Accuracy and Stability of Numerical Algorithms", 10.3), stopping where the largest remaining
 * diagonal falls below `relTol` times the largest diagonal: a singular A (fewer examples than
 * checkpoints, answers that never change) gives its rank's columns.
 */
export function pivotedCholesky(a: Float64Array, n: number, relTol = 1e-12): { l: Float64Array; rank: number } {
  const d = new Float64Array(n);
  let top = 0;
  for (let i = 0; i < n; i++) { d[i] = a[i * n + i]; top = Math.max(top, d[i]); }
  const perm = Array.from({ length: n }, (_, i) => i);
  const l = new Float64Array(n * n);
  let rank = 0;
  for (let k = 0; k < n; k++) {
    let j = k;
    for (let i = k + 1; i < n; i++) if (d[perm[i]] > d[perm[j]]) j = i;
    if (!(d[perm[j]] > relTol * top)) break;
    [perm[k], perm[j]] = [perm[j], perm[k]];
    const pk = perm[k];
    const root = Math.sqrt(d[pk]);
    l[pk * n + k] = root;
    for (let i = k + 1; i < n; i++) {
      const pi = perm[i];
      let t = a[pi * n + pk];
      for (let m = 0; m < k; m++) t -= l[pi * n + m] * l[pk * n + m];
      const v = t / root;
      l[pi * n + k] = v;
      d[pi] -= v * v;
    }
    rank++;
  }
  return { l, rank };
}
