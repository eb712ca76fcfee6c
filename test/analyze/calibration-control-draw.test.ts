// The calibration's simulated measurement of the control (analyze/calibration.ts, controlNoiseDraw):
// drawn from the errors' covariance across checkpoints where it is known (a fixed test set's answers
// in a store or lm-eval's samples), else independent at each checkpoint with the stated variance
// capped at the control's jitter around its smoothed curve.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { controlNoiseDraw } from '../../src/analyze/calibration.ts';
import { createRandom } from '../../src/stats/random.ts';

function sampleCovariance(draw: (r: ReturnType<typeof createRandom>) => Float64Array, n: number, draws: number): Float64Array {
  const random = createRandom(11);
  const out = new Float64Array(n * n);
  for (let d = 0; d < draws; d++) {
    const x = draw(random);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) out[i * n + j] += (x[i] * x[j]) / draws;
  }
  return out;
}

test('with the errors\' covariance, the simulated control\'s errors have that covariance', () => {
  // a fixed test set: most of each checkpoint's error persists into the next
  const n = 4, v = [0.0025, 0.0024, 0.0021, 0.0016];
  const S = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) S[i * n + j] = 0.9 ** Math.abs(i - j) * Math.sqrt(v[i] * v[j]);
  const got = sampleCovariance(controlNoiseDraw({ control: Float64Array.from(v), controlCovariance: S }, 1e-9), n, 40000);
  for (let k = 0; k < n * n; k++) assert.ok(Math.abs(got[k] - S[k]) < 0.03 * v[0], `entry ${k}: ${got[k]} vs ${S[k]}`);
});

test('without it, independent errors with the stated variance, capped at the control\'s own jitter', () => {
  const n = 3, v = Float64Array.from([0.004, 0.004, 0.004]);
  for (const [jitter, scale] of [[1, 1], [0.001, 0.25]]) {
    const got = sampleCovariance(controlNoiseDraw({ control: v }, jitter), n, 40000);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const want = i === j ? scale * 0.004 : 0;
        assert.ok(Math.abs(got[i * n + j] - want) < 0.03 * 0.004, `jitter ${jitter}, entry ${i},${j}: ${got[i * n + j]} vs ${want}`);
      }
    }
  }
});
