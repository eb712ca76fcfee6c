// Simulated runs for the resampling tests: AR(1) series from a seeded generator.
import { createRandom } from '../../src/stats/index.ts';

/** n values of x_t = phi x_{t-1} + e_t, e_t standard normal (started from the stationary law). */
export function ar1(n: number, phi: number, seed: number): number[] {
  const random = createRandom(seed);
  const out: number[] = [];
  let v = random.normal() / Math.sqrt(1 - phi * phi);
  for (let t = 0; t < n; t++) { if (t > 0) v = phi * v + random.normal(); out.push(v); }
  return out;
}

/** x = c + e1, y = c + e2 with corr(e1, e2) = rho: the partial correlation given c is rho. */
export function knownPartial(n: number, rho: number, seed: number): { x: number[]; y: number[]; c: number[] } {
  const random = createRandom(seed);
  const c = ar1(n, 0.9, seed + 1);
  const x: number[] = [], y: number[] = [];
  for (let t = 0; t < n; t++) {
    const a = random.normal(), b = random.normal();
    x.push(c[t] + a);
    y.push(0.5 * c[t] + rho * a + Math.sqrt(1 - rho * rho) * b);
  }
  return { x, y, c };
}
