// The modelled test's effective n on first differences in O(n) (stats/projected-difference-traces.ts)
// against the dense reference it replaces in the analysis (uneven-spacing.ts: the model's n x n
// correlation projected on [1, control], scaledDifferenceCovariance, projected on the centring, then
// projectedEffectiveN): equal to 1e-10 relative on even, uneven and Pythia's schedules, white,
// drifting and mixed models (with and without the nugget) on either time axis, one or two columns.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { orthonormalise } from '../../src/stats/linalg.ts';
import { noiseCorrelation, type NoiseModel } from '../../src/stats/noise-model.ts';
import { differenceBasis, differenceEffectiveN, differenceTraces } from '../../src/stats/projected-difference-traces.ts';
import { createRandom } from '../../src/stats/random.ts';
import { scaledTimes } from '../../src/stats/uneven-pair-tests.ts';
import { projectCovariance, projectedEffectiveN, scaledDifferenceCovariance } from '../../src/stats/uneven-spacing.ts';

const pythia = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, ...Array.from({ length: 143 }, (_, i) => 1000 * (i + 1))];
const SCHEDULES: Record<string, number[]> = {
  even: Array.from({ length: 80 }, (_, i) => 10 * i),
  'even, 300': Array.from({ length: 300 }, (_, i) => 10 * (i + 1)),
  uneven: Array.from({ length: 50 }, (_, i) => Math.round(3 * i + 0.4 * i * i)),
  pythia,
};

test('differenceEffectiveN equals the dense projectedEffectiveN of the differences (and tr(B) the dense trace) to 1e-10', () => {
  const random = createRandom(5);
  let worst = 0, pairs = 0, below = 0;
  for (const [name, steps] of Object.entries(SCHEDULES)) {
    const n = steps.length, m = n - 1;
    const control = Float64Array.from({ length: n }, (_, i) => 0.4 + 0.4 * (1 - Math.exp(-5 * i / n)) + 0.01 * random.normal());
    const ones = new Float64Array(n).fill(1), dOnes = new Float64Array(m).fill(1);
    const u = scaledTimes(steps);
    for (const x of [[ones], [ones, control]]) {
      const basis = differenceBasis(u, orthonormalise(x).q);
      const models: NoiseModel[] = [];
      for (const theta of [0, 0.3, 2, 15, 60]) {
        for (const nugget of [0, 0.4, 0.9]) {
          models.push({ theta, nugget, axis: random.uniform() < 0.5 ? 'step' : 'log-step', phi: 0, logLik: 0 });
        }
      }
      const dense = models.map((model) => {
        const levels = projectCovariance(noiseCorrelation(model, steps), x).a;
        return projectCovariance(scaledDifferenceCovariance(levels, u), [dOnes]);
      });
      const fast = models.map((model) => differenceTraces(model, steps, basis));
      models.forEach((_, i) => {
        const rel = Math.abs(fast[i].trace - dense[i].trace) / dense[i].trace;
        assert.ok(rel < 1e-10, `${name}: trace ${fast[i].trace} vs ${dense[i].trace}`);
      });
      for (let i = 0; i < models.length; i++) {
        for (let j = i; j < models.length; j++) {
          const want = projectedEffectiveN(dense[i], dense[j], 2, m);
          const got = differenceEffectiveN(fast[i], fast[j], basis, 2, m);
          const rel = Math.abs(got - want) / want;
          worst = Math.max(worst, rel);
          assert.ok(rel < 1e-10, `${name}, ${x.length} columns, models ${i} ${j}: ${got} vs ${want}`);
          pairs++;
          if (want < m / 2) below++;
        }
      }
    }
  }
  assert.equal(pairs, 960);
  assert.ok(below > 300, `${below} pairs with an effective n well below n`);
  assert.ok(worst < 1e-10, `worst ${worst}`);
});
