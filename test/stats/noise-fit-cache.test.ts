// The cache of noise-model fits (stats/noise-fit-cache.ts): a fit served from it is the fit
// fitNoiseModel makes, and any change of input (one bit of the series, the control column, the
// checkpoints, the axes) is fitted afresh rather than served.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ouInto } from '../../src/stats/ar1.ts';
import { modelledPairTests } from '../../src/stats/modelled-pair-tests.ts';
import { NoiseFitCache } from '../../src/stats/noise-fit-cache.ts';
import { fitNoiseModel } from '../../src/stats/noise-model.ts';
import { createRandom } from '../../src/stats/random.ts';

const steps = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, ...Array.from({ length: 30 }, (_, i) => 1000 * (i + 1))];
const n = steps.length;

function setting(seed: number) {
  const random = createRandom(seed);
  const index = Float64Array.from({ length: n }, (_, i) => i);
  const control = Float64Array.from({ length: n }, (_, i) => 0.4 + 0.4 * (1 - Math.exp(-4 * i / n)) + 0.01 * random.normal());
  const series = Array.from({ length: 5 }, (_, s) => {
    const drift = ouInto(new Float64Array(n), index, [0, 3, 10][s % 3], random);
    return drift.map((v) => 0.8 * v + 0.6 * random.normal());
  });
  return { control, series, ones: new Float64Array(n).fill(1) };
}

test('a fit served from the cache is fitNoiseModel\'s, and a series fitted once is not fitted again', () => {
  const { control, series, ones } = setting(3);
  const x = [ones, control];
  const cache = new NoiseFitCache();
  const first = cache.fit(x, steps, [series[0], null, series[1], series[2]]);
  assert.equal(cache.fitted, 3);
  assert.equal(first[1], null);
  // the same series again (copies: the cache compares values, not identities), with one new
  const again = cache.fit([Float64Array.from(ones), Float64Array.from(control)], [...steps], [series[2].slice(), series[0].slice(), series[3]]);
  assert.equal(cache.hits, 2);
  assert.equal(cache.fitted, 4);
  for (const [got, e] of [[again[0], series[2]], [again[1], series[0]], [again[2], series[3]], [first[0], series[0]]] as const) {
    assert.deepEqual(got, fitNoiseModel(e, x, steps));
  }
});

test('a changed input is fitted afresh: one bit of the series, the control, the checkpoints, the axes', () => {
  const { control, series, ones } = setting(5);
  const x = [ones, control];
  const cache = new NoiseFitCache();
  cache.fit(x, steps, [series[0]]);
  const nudged = series[0].slice();
  nudged[7] = nudged[7] + Math.abs(nudged[7]) * Number.EPSILON;
  assert.notEqual(nudged[7], series[0][7]);
  const otherControl = control.slice();
  otherControl[0] += 1e-3;
  const otherSteps = steps.map((s, i) => (i === n - 1 ? s + 500 : s));
  const cases: [string, () => unknown, unknown][] = [
    ['series', () => cache.fit(x, steps, [nudged])[0], fitNoiseModel(nudged, x, steps)],
    ['control', () => cache.fit([ones, otherControl], steps, [series[0]])[0], fitNoiseModel(series[0], [ones, otherControl], steps)],
    ['steps', () => cache.fit(x, otherSteps, [series[0]])[0], fitNoiseModel(series[0], x, otherSteps)],
    ['axes', () => cache.fit(x, steps, [series[0]], ['step'])[0], fitNoiseModel(series[0], x, steps, ['step'])],
  ];
  for (const [what, fit, want] of cases) {
    const before = cache.fitted;
    assert.deepEqual(fit(), want, what);
    assert.equal(cache.fitted, before + 1, `a changed ${what} was served from the cache`);
  }
  assert.equal(cache.hits, 0);
  // a series the caller changes after the call is not the one kept
  const mine = series[1].slice();
  cache.fit(x, steps, [mine]);
  mine[0] += 0.5;
  assert.deepEqual(cache.fit(x, steps, [mine])[0], fitNoiseModel(mine, x, steps));
  assert.equal(cache.hits, 0);
  // and one that keeps no fits shares only its fitter
  const none = new NoiseFitCache(false);
  none.fit(x, steps, [series[2]]);
  none.fit(x, steps, [series[2]]);
  assert.deepEqual([none.hits, none.fitted], [0, 2]);
  // nor one sharing another's fitter: it neither serves the other's fits nor keeps its own
  const view = cache.sharingFitter();
  assert.deepEqual(view.fit(x, steps, [series[0]])[0], fitNoiseModel(series[0], x, steps));
  view.fit(x, steps, [series[3]]);
  assert.deepEqual(view.fit(x, steps, [series[3]])[0], fitNoiseModel(series[3], x, steps));
  assert.deepEqual([view.hits, view.fitted], [0, 3]);
});

test('the modelled test gives the same pairs with a cache as without, fitting each series once', () => {
  const { control, series } = setting(9);
  const pairs = [[0, 1], [0, 2], [1, 3], [2, 4]] as const;
  const opts = { method: 'pearson', residualiser: 'linear', representation: 'auto' } as const;
  const fits = new NoiseFitCache();
  const plain = modelledPairTests(series, control, pairs, opts, steps);
  for (const representation of ['auto', 'levels', 'differences'] as const) {
    const cached = modelledPairTests(series, control, pairs, { ...opts, representation, fits }, steps);
    assert.deepEqual(cached, modelledPairTests(series, control, pairs, { ...opts, representation }, steps), representation);
  }
  assert.deepEqual(modelledPairTests(series, control, pairs, { ...opts, fits }, steps), plain);
  assert.deepEqual([fits.fitted, fits.hits], [5, 15]);
});
