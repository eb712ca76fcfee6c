// Exact Binomial(n, p) draws for simulated accuracies: a score over n examples is a count of right
// answers, so its values are multiples of 1/n and its noise is p(1 - p)/n, which a normal
// approximation would blur at the extremes and a rounded one would not make exact.
// Inversion searching outwards from the mode (alternately up and down), so a draw costs about one
// standard deviation of steps (35 at n 5000, p 0.5) whatever n is.
import type { Random } from '../src/stats/index.ts';

/** ln(k!): exact sums for small k, Stirling's series (error below 1e-15 relative) above. */
function lnFactorial(k: number): number {
  if (k < 30) {
    let s = 0;
    for (let i = 2; i <= k; i++) s += Math.log(i);
    return s;
  }
  const k2 = k * k;
  return k * Math.log(k) - k + 0.5 * Math.log(2 * Math.PI * k) + 1 / (12 * k) - 1 / (360 * k * k2) + 1 / (1260 * k * k2 * k2);
}

export function binomialSample(n: number, p: number, random: Random): number {
  if (p <= 0) return 0;
  if (p >= 1) return n;
  const q = 1 - p;
  const mode = Math.min(n, Math.floor((n + 1) * p));
  const pMode = Math.exp(lnFactorial(n) - lnFactorial(mode) - lnFactorial(n - mode) + mode * Math.log(p) + (n - mode) * Math.log(q));
  let u = random.uniform() - pMode;
  if (u <= 0) return mode;
  let lo = mode, hi = mode, pLo = pMode, pHi = pMode;
  while (lo > 0 || hi < n) {
    if (hi < n) {
      pHi *= ((n - hi) / (hi + 1)) * (p / q);
      hi++;
      u -= pHi;
      if (u <= 0) return hi;
    }
    if (lo > 0) {
      pLo *= (lo / (n - lo + 1)) * (q / p);
      lo--;
      u -= pLo;
      if (u <= 0) return lo;
    }
  }
  // Only the rounding of the probabilities' sum leaves u above 0 here.
  return mode;
}
