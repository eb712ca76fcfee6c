import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UserError } from '../../src/errors.ts';
import { blockBootstrap, blockBootstrapCI, correlatedAr1Into, partialCorrelation } from '../../src/stats/index.ts';
import { circularBlockRows, quantile } from '../../src/stats/bootstrap.ts';
import { createRandom } from '../../src/stats/random.ts';
import { ar1, knownPartial } from './simulate.ts';

const linear = { method: 'pearson', residualiser: 'linear' } as const;

test('deterministic for a seed, different for another seed', () => {
  const { x, y, c } = knownPartial(60, 0.4, 11);
  const a = blockBootstrapCI(x, y, [c], { ...linear, resamples: 200, seed: 5 });
  const b = blockBootstrapCI(x, y, [c], { ...linear, resamples: 200, seed: 5 });
  const other = blockBootstrapCI(x, y, [c], { ...linear, resamples: 200, seed: 6 });
  assert.ok(a && b && other);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, other);
  assert.ok(a[0] < a[1]);
});

test('circular blocks keep order within a block and wrap around the end', () => {
  const rows = new Int32Array(10);
  const starts = [0.85, 0.1, 0.5];
  let i = 0;
  circularBlockRows(10, 4, () => starts[i++], rows);
  assert.deepEqual(Array.from(rows), [8, 9, 0, 1, 1, 2, 3, 4, 5, 6]);
  assert.equal(quantile(Float64Array.from([1, 2, 3, 4]), 0.5), 2.5); // numpy.quantile 'linear'
  assert.equal(quantile(Float64Array.from([1, 2, 3, 4, 5]), 0.025), 1.1);
});

test('covers the true partial correlation most of the time (simulation, nominal 95%)', () => {
  let cover = 0;
  const reps = 30;
  for (let s = 0; s < reps; s++) {
    const { x, y, c } = knownPartial(80, 0.5, 1000 + 7 * s);
    const ci = blockBootstrapCI(x, y, [c], { ...linear, resamples: 200, seed: s });
    assert.ok(ci);
    if (ci[0] <= 0.5 && 0.5 <= ci[1]) cover++;
  }
  assert.ok(cover >= 24, `covered ${cover} of ${reps}`);
});

test('wider than the naive Fisher interval for strongly autocorrelated series', () => {
  let wider = 0;
  const reps = 12;
  for (let s = 0; s < reps; s++) {
    const x = ar1(100, 0.95, 50 + s * 3), y = ar1(100, 0.95, 51 + s * 3), c = ar1(100, 0.95, 52 + s * 3);
    const naive = partialCorrelation(x, y, [c], linear).ci95!;
    const ci = blockBootstrapCI(x, y, [c], { ...linear, resamples: 150, seed: s })!;
    if (ci[1] - ci[0] > naive[1] - naive[0]) wider++;
  }
  assert.ok(wider >= 10, `wider in ${wider} of ${reps}`);
});

test('works with Spearman and the spline residualiser', () => {
  const { x, y, c } = knownPartial(40, 0.6, 3);
  const ci = blockBootstrapCI(x, y, [c], { method: 'spearman', residualiser: 'spline', resamples: 40, seed: 1 });
  assert.ok(ci && ci[0] < ci[1] && ci[0] >= -1 && ci[1] <= 1);
});

test('null when the observed r is null; bad options throw UserError', () => {
  const c = [1, 2, 3, 4, 5, 6, 7, 8];
  assert.equal(blockBootstrapCI([1, 1, 1, 1, 1, 1, 1, 1], [3, 1, 2, 5, 4, 7, 8, 6], [c], { ...linear, resamples: 10, seed: 1 }), null);
  const x = [3, 1, 2, 5, 4, 7, 8, 6];
  assert.throws(() => blockBootstrapCI(x, x, [c], { ...linear, resamples: 10, seed: 1, blockLength: 9 }), UserError);
  assert.throws(() => blockBootstrapCI(x, x, [c], { ...linear, resamples: 0, seed: 1 }), /resamples/);
  assert.throws(() => blockBootstrapCI(x, x, [c], { ...linear, resamples: 10, seed: 1, level: 1 }), /level/);
  assert.throws(() => blockBootstrapCI(x, x.slice(1), [c], { ...linear, resamples: 10, seed: 1 }), /'y' has 7 values/);
  assert.throws(() => blockBootstrapCI(x, x, [c], { ...linear, resamples: 10, seed: -1 }), /seed/);
});

test('the seeded generator is reproducible and accepts seed 0', () => {
  const a = createRandom(0), b = createRandom(0), c = createRandom(1);
  const va = [a.uniform(), a.uniform()], vb = [b.uniform(), b.uniform()];
  assert.deepEqual(va, vb);
  assert.notEqual(c.uniform(), va[0]);
  const r = createRandom(9);
  for (let i = 0; i < 1000; i++) { const k = r.int(7); assert.ok(k >= 0 && k < 7 && Number.isInteger(k)); }
});

test('plateau-heavy runs: the interval reaches at least half a standard error on both sides of r (the percentile interval hugged r ' +
  'on one side)', () => {
  const linear = { method: 'pearson', residualiser: 'linear' } as const;
  const random = createRandom(42);
  const n = 21;
  const e = new Float64Array(n), v = new Float64Array(n);
  let checked = 0;
  for (let s = 0; s < 40; s++) {
    correlatedAr1Into(e, v, 0.8, 0, random);
    const c = Float64Array.from({ length: n }, (_, t) => 0.3 + 0.5 * (1 - Math.exp(-4 * t / (n - 1))) + 0.02 * random.normal());
    const x = c.map((cv, t) => 0.8 * cv + 0.05 * e[t]), y = c.map((cv, t) => -0.3 * cv + 0.05 * v[t]);
    // most checkpoints repeat the previous one's whole score row
    for (let t = 1; t < n; t++) if (random.uniform() < 0.6) { c[t] = c[t - 1]; x[t] = x[t - 1]; y[t] = y[t - 1]; }
    const observed = partialCorrelation(x, y, [c], { ...linear, inference: 'effective-n' });
    const { ci95, reason } = blockBootstrap(x, y, [c], { ...linear, resamples: 200, seed: s });
    if (observed.r === null) { assert.equal(ci95, null); assert.ok(reason); continue; }
    if (ci95 === null) { assert.match(reason!, /resamples/); continue; }
    const z = Math.atanh(observed.r), se = 1 / Math.sqrt(observed.n_eff - 4);
    const below = z - Math.atanh(ci95[0]), above = Math.atanh(ci95[1]) - z;
    assert.ok(below >= 0.5 * se && above >= 0.5 * se,
      `run ${s}: r ${observed.r.toFixed(3)}, CI [${ci95[0].toFixed(3)}, ${ci95[1].toFixed(3)}], se ${se.toFixed(3)}`);
    checked++;
  }
  assert.ok(checked >= 30, `only ${checked} intervals checked`);
});
