// The noise model's fitter for many series (stats/noise-model-batch.ts) against the reference fit
// (stats/noise-model.ts, fitNoiseModel): the same model to the last bit, on even (60 and 400 checkpoints),
// uneven and Pythia-like schedules, white, drifting and mixed residuals, with one to three regression columns.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ouInto } from '../../src/stats/ar1.ts';
import { fitNoiseModel } from '../../src/stats/noise-model.ts';
import { noiseModelFitter } from '../../src/stats/noise-model-batch.ts';
import { createRandom } from '../../src/stats/random.ts';

const pythia = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, ...Array.from({ length: 40 }, (_, i) => 1000 * (i + 1))];
const SCHEDULES: Record<string, number[]> = {
  even: Array.from({ length: 60 }, (_, i) => 10 * i),
  // long enough for the filter to reach its fixed point on most (theta, nugget) of the search
  'even, 400': Array.from({ length: 400 }, (_, i) => 10 * (i + 1)),
  uneven: Array.from({ length: 45 }, (_, i) => Math.round(3 * i + 0.4 * i * i)),
  pythia,
};

test('the batch fitter gives fitNoiseModel\'s model exactly (every field, every axis choice)', () => {
  const random = createRandom(7);
  let fits = 0, drifting = 0;
  for (const [name, steps] of Object.entries(SCHEDULES)) {
    const n = steps.length;
    const index = Float64Array.from({ length: n }, (_, i) => i);
    const control = Float64Array.from({ length: n }, (_, i) => 0.4 + 0.4 * (1 - Math.exp(-4 * i / n)) + 0.01 * random.normal());
    const ones = new Float64Array(n).fill(1);
    const quad = control.map((v) => v * v);
    for (const x of [[ones], [ones, control], [ones, control, quad]]) {
      for (const axes of [undefined, ['step'] as const]) {
        // the series fitted together, one left out (null)
        const series = Array.from({ length: 9 }, (_, s) => {
          if (s === 4) return null;
          const drift = ouInto(new Float64Array(n), index, [0, 2, 8, 30][s % 4], random);
          const nugget = [0, 0.3, 0.7, 1][(s >> 1) % 4];
          return drift.map((v) => Math.sqrt(1 - nugget) * v + Math.sqrt(nugget) * random.normal());
        });
        const got = noiseModelFitter(x, steps, axes)(series);
        series.forEach((e, s) => {
          if (!e) { assert.equal(got[s], null); return; }
          const want = fitNoiseModel(e, x, steps, axes);
          assert.deepEqual(got[s], want, `${name}, ${x.length} columns, series ${s}`);
          fits++;
          if (want.theta > 0) drifting++;
        });
      }
    }
  }
  assert.equal(fits, 192);
  assert.ok(drifting > 40, `the refinement ran on ${drifting} fits`);
});
