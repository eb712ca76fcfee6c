// The modelled test's effective n on levels in O(n) (stats/projected-traces.ts) against the dense
// reference it replaces in the analysis (uneven-spacing.ts: projectCovariance of the model's n x n
// correlation matrix, then projectedEffectiveN): equal to 1e-10 relative on even, uneven and
// Pythia's schedules, white, drifting and mixed models on either time axis, one or two columns.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { orthonormalise } from '../../src/stats/linalg.ts';
import { noiseCorrelation, type NoiseModel } from '../../src/stats/noise-model.ts';
import { modelTraces, tracesEffectiveN } from '../../src/stats/projected-traces.ts';
import { createRandom } from '../../src/stats/random.ts';
import { projectCovariance, projectedEffectiveN } from '../../src/stats/uneven-spacing.ts';

const pythia = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, ...Array.from({ length: 143 }, (_, i) => 1000 * (i + 1))];
const SCHEDULES: Record<string, number[]> = {
  even: Array.from({ length: 80 }, (_, i) => 10 * i),
  uneven: Array.from({ length: 50 }, (_, i) => Math.round(3 * i + 0.4 * i * i)),
  pythia,
};

test('tracesEffectiveN equals the dense projectedEffectiveN (and tr(M S) the dense trace) to 1e-10', () => {
  const random = createRandom(3);
  let worst = 0, pairs = 0, below = 0;
  for (const [name, steps] of Object.entries(SCHEDULES)) {
    const n = steps.length;
    const control = Float64Array.from({ length: n }, (_, i) => 0.4 + 0.4 * (1 - Math.exp(-5 * i / n)) + 0.01 * random.normal());
    const ones = new Float64Array(n).fill(1);
    for (const x of [[ones], [ones, control]]) {
      const q = orthonormalise(x).q;
      const models: NoiseModel[] = [];
      for (const theta of [0, 0.3, 2, 15, 60]) {
        for (const nugget of [0, 0.4, 0.9]) {
          models.push({ theta, nugget, axis: random.uniform() < 0.5 ? 'step' : 'log-step', phi: 0, logLik: 0 });
        }
      }
      const dense = models.map((m) => projectCovariance(noiseCorrelation(m, steps), x));
      const fast = models.map((m) => modelTraces(m, steps, q));
      models.forEach((_, i) => {
        const rel = Math.abs(fast[i].trace - dense[i].trace) / dense[i].trace;
        assert.ok(rel < 1e-10, `${name}: trace ${fast[i].trace} vs ${dense[i].trace}`);
      });
      for (let i = 0; i < models.length; i++) {
        for (let j = i; j < models.length; j++) {
          const want = projectedEffectiveN(dense[i], dense[j], x.length, n);
          const got = tracesEffectiveN(fast[i], fast[j], x.length, n);
          const rel = Math.abs(got - want) / want;
          worst = Math.max(worst, rel);
          assert.ok(rel < 1e-10, `${name}, ${x.length} columns, models ${i} ${j}: ${got} vs ${want}`);
          pairs++;
          if (want < n / 2) below++;
        }
      }
    }
  }
  assert.equal(pairs, 720);
  assert.ok(below > 80, `${below} pairs with an effective n well below n`);
  assert.ok(worst < 1e-10, `worst ${worst}`);
});
