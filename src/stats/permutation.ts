/**
 * Order-respecting permutation test of a partial correlation: x and y are residualised once on the
 * covariates, then the residuals of y are circularly shifted against those of x by a random lag
 * s in 1..n-1 (drawn uniformly, with replacement, `permutations` times). A circular shift keeps each
 * series' autocorrelation intact and only breaks their alignment, so the null distribution reflects
 * the dependence between checkpoints that an ordinary shuffle would destroy (the "circular shift" or
 * "toroidal shift" test; Bjornstad and Falck 2001, Ebisuzaki 1997 discuss the idea).
 *   p = (1 + #{ |r_shift| >= |r_obs| }) / (1 + permutations)   (Phipson and Smyth 2010),
 * never 0. With n checkpoints there are only n - 1 distinct shifts, so p cannot go below about
 * 1 / (n - 1) however many permutations are drawn. Deterministic from the seed (random.ts).
 * When the observed r is null, p is 1 (no evidence) and `reason` says why.
 */
import { centredCorrelation } from './correlation.ts';
import { partialCorrelation } from './partial-correlation.ts';
import { prepareControls, type PartialOptions } from './partial-correlation-shared.ts';
import { createRandom } from './random.ts';
import { requirePositiveInteger, validatedInputs } from './resample-inputs.ts';

export interface PermutationOptions extends PartialOptions {
  permutations: number;
  seed: number;
}

export function permutationTest(
  x: ArrayLike<number>, y: ArrayLike<number>, covariates: ArrayLike<number>[], opts: PermutationOptions,
): { p: number; observed: number | null; reason?: string } {
  const data = validatedInputs(x, y, covariates, opts);
  const permutations = requirePositiveInteger(opts.permutations, 'permutations');
  const n = data.x.length;
  // only r is used (p comes from the shifts), so repeated rows do not make it null
  const observed = partialCorrelation(data.x, data.y, data.covariates, opts, n);
  if (observed.r === null) return { p: 1, observed: null, reason: observed.reason };
  const controls = prepareControls(data.covariates, n, opts);
  if (typeof controls === 'string') return { p: 1, observed: null, reason: controls };
  const ux = new Float64Array(n), uy = new Float64Array(n);
  controls.residualiseSeries(data.x, ux);
  controls.residualiseSeries(data.y, uy);
  centreAndNormalise(ux);
  centreAndNormalise(uy);
  const threshold = Math.abs(centredCorrelation(ux, uy)) - 1e-12; // ties count as extreme
  const random = createRandom(opts.seed);
  let extreme = 0;
  for (let i = 0; i < permutations; i++) {
    const s = 1 + random.int(n - 1);
    let r = 0;
    for (let t = 0; t < n - s; t++) r += ux[t] * uy[t + s];
    for (let t = n - s; t < n; t++) r += ux[t] * uy[t + s - n];
    if (Math.abs(r) >= threshold) extreme++;
  }
  return { p: (1 + extreme) / (1 + permutations), observed: observed.r };
}

function centreAndNormalise(v: Float64Array): void {
  let m = 0;
  for (let i = 0; i < v.length; i++) m += v[i];
  m /= v.length;
  let ss = 0;
  for (let i = 0; i < v.length; i++) { v[i] -= m; ss += v[i] * v[i]; }
  const inv = 1 / Math.sqrt(ss);
  for (let i = 0; i < v.length; i++) v[i] *= inv;
}
