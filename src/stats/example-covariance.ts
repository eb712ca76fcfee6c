// The sampling covariance of a score that is a share of right answers over the same examples at
// every checkpoint (a fixed test set). Each checkpoint's score is the mean of its examples' 0/1
// results; with the examples a sample from the population the test set stands for, the covariance
// of two checkpoints' means is the covariance of their per-example results divided by n. Persistent
// answers (an example a model gets right at one checkpoint it mostly gets right at the next) make it
// close to the variance p(1 - p)/n, and the errors of successive checkpoints nearly equal: the
// independence a stated p(1 - p)/n per checkpoint implies is what fixed test sets break.

/**
 * From each checkpoint's results on the same n examples (1 right, 0 wrong; the same example order
 * at every checkpoint), the covariance of the checkpoints' shares right, row-major (checkpoints x
 * checkpoints): (share right at both - share at s x share at t) / n. Its diagonal is p(1 - p)/n.
 */
export function shareCovariance(right: readonly Uint8Array[]): Float64Array {
  const c = right.length, n = right[0]?.length ?? 0;
  for (const r of right) if (r.length !== n) throw new Error(`shareCovariance: checkpoints have ${n} and ${r.length} examples`);
  const out = new Float64Array(c * c);
  if (n === 0) return out;
  const share = right.map((r) => r.reduce((t, x) => t + x, 0) / n);
  for (let t = 0; t < c; t++) {
    const a = right[t];
    for (let s = 0; s <= t; s++) {
      const b = right[s];
      let both = 0;
      for (let i = 0; i < n; i++) both += a[i] & b[i];
      out[t * c + s] = out[s * c + t] = (both / n - share[t] * share[s]) / n;
    }
  }
  return out;
}
