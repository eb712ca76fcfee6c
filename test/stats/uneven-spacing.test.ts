// The effective-n test on unevenly spaced checkpoints (stats/uneven-spacing.ts,
// uneven-pair-tests.ts): the schedule, the OU model's pieces, and its false-positive rate on the
// schedules where the even-spacing test failed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  correlatedOuInto, createRandom, levelsOrDifferencesPairs, ouInto, scaledTimes, spacingOf, unevenMatched,
} from '../../src/stats/index.ts';
import {
  fitOuTheta, ouCorrelation, projectCovariance, projectedEffectiveN, scaledDifferenceCovariance, scaledDifferences,
} from '../../src/stats/uneven-spacing.ts';
import { checkpointSteps } from '../../src/train/policy.ts';

const PYTHIA = [0, ...Array.from({ length: 10 }, (_, i) => 2 ** i), 1000, 3000, ...Array.from({ length: 14 }, (_, i) => 10000 * (i + 1)), 143000];

test('spacingOf: even schedules are even; Pythia\'s is uneven with a median gap of 7000 steps', () => {
  assert.deepEqual(spacingOf([0, 10, 20, 30]), { uneven: false, reference_gap: 10, min_gap: 10, max_gap: 10 });
  const p = spacingOf(PYTHIA);
  assert.equal(PYTHIA.length, 28);
  assert.deepEqual(p, { uneven: true, reference_gap: 7000, min_gap: 1, max_gap: 10000 });
  assert.equal(spacingOf([0, 100, 200, 400]).uneven, true, 'a missing checkpoint makes a schedule uneven');
  assert.deepEqual(Array.from(scaledTimes([5, 15, 25, 45])), [0, 1, 2, 4]);
});

test('ouInto: the correlation of two samples is exp(-gap / tau), whatever the gap', () => {
  const random = createRandom(7);
  const u = [0, 0.5, 3];
  const x = new Float64Array(3);
  const reps = 6000;
  const sums = { a01: 0, a02: 0, v0: 0, v2: 0 };
  for (let i = 0; i < reps; i++) {
    ouInto(x, u, 2, random);
    sums.a01 += x[0] * x[1]; sums.a02 += x[0] * x[2]; sums.v0 += x[0] * x[0]; sums.v2 += x[2] * x[2];
  }
  assert.ok(Math.abs(sums.v0 / reps - 1) < 0.06 && Math.abs(sums.v2 / reps - 1) < 0.06, 'stationary variance 1');
  assert.ok(Math.abs(sums.a01 / reps - Math.exp(-0.25)) < 0.04, `corr at gap 0.5: ${sums.a01 / reps}`);
  assert.ok(Math.abs(sums.a02 / reps - Math.exp(-1.5)) < 0.04, `corr at gap 3: ${sums.a02 / reps}`);
  // the correlated pair: corr(x_t, y_t) = rho at every t
  const y = new Float64Array(3);
  let xy = 0;
  for (let i = 0; i < reps; i++) { correlatedOuInto(x, y, u, 2, 0.5, random); xy += x[2] * y[2]; }
  assert.ok(Math.abs(xy / reps - 0.5) < 0.04, `cross-correlation ${xy / reps}`);
});

test('the scaled differences\' covariance is W D S D\' W, computed here the long way', () => {
  const u = Float64Array.from([0, 0.2, 1, 3, 3.5]);
  const s = ouCorrelation(u, 1.3);
  const n = u.length, m = n - 1;
  const d = Array.from({ length: m }, (_, i) => Array.from(
    { length: n }, (_, j) => (j === i + 1 ? 1 : j === i ? -1 : 0) / Math.sqrt(u[i + 1] - u[i]),
  ));
  const got = scaledDifferenceCovariance(s, u);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < m; j++) {
      let v = 0;
      for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) v += d[i][a] * s[a * n + b] * d[j][b];
      assert.ok(Math.abs(got[i * m + j] - v) < 1e-12, `[${i},${j}]`);
    }
  }
  assert.deepEqual(Array.from(scaledDifferences(Float64Array.from([1, 2, 4, 4, 5]), u)).map((v) => +v.toFixed(12)),
    [1 / Math.sqrt(0.2), 2 / Math.sqrt(0.8), 0, 1 / Math.sqrt(0.5)].map((v) => +v.toFixed(12)));
});

test('projected n_eff: white noise keeps n; two evenly spaced AR(1) series give about Bartlett\'s n (1 - phi^2) / (1 + phi^2)', () => {
  const n = 200;
  const u = Float64Array.from({ length: n }, (_, i) => i);
  const ones = new Float64Array(n).fill(1), trend = Float64Array.from(u);
  const white = projectCovariance(ouCorrelation(u, 0), [ones, trend]);
  assert.ok(Math.abs(projectedEffectiveN(white, white, 2, n) - n) < 1e-9);
  const phi = 0.8;
  const ar = projectCovariance(ouCorrelation(u, -1 / Math.log(phi)), [ones]);
  const bartlett = n * (1 - phi * phi) / (1 + phi * phi);
  const got = projectedEffectiveN(ar, ar, 1, n);
  assert.ok(Math.abs(got - bartlett) / bartlett < 0.05, `n_eff ${got} against Bartlett's ${bartlett}`);
});

test('the REML fit recovers the time constant on an irregular schedule', () => {
  const random = createRandom(11);
  const n = 300;
  const u = new Float64Array(n);
  for (let i = 1; i < n; i++) u[i] = u[i - 1] + 0.2 + 2 * random.uniform();
  const ones = new Float64Array(n).fill(1);
  const e = new Float64Array(n);
  let logSum = 0;
  const reps = 20;
  for (let r = 0; r < reps; r++) {
    ouInto(e, u, 3, random);
    const m = e.reduce((s, v) => s + v, 0) / n;
    logSum += Math.log(fitOuTheta(e.map((v) => v - m), [ones], u));
  }
  const theta = Math.exp(logSum / reps);
  assert.ok(Math.abs(theta - 3) / 3 < 0.2, `fitted theta ${theta} for a true 3`);
  // white noise: a fit near 0 (a typical gap, about 1.2, decorrelates)
  const white = Float64Array.from({ length: n }, () => random.normal());
  const whiteTheta = fitOuTheta(white, [ones], u);
  assert.ok(Math.exp(-1 / whiteTheta) < 0.2, `white noise fitted with theta ${whiteTheta}`);
});

/** Share of null pairs (OU noise at the steps, learning-curve control) each test rejects at 5%. */
function nullRejections(steps: number[], tauFraction: number, reps: number, seed: number): { gaps: number; even: number } {
  const random = createRandom(seed);
  const n = steps.length, last = steps[n - 1];
  const e = new Float64Array(n), v = new Float64Array(n);
  const opts = { method: 'pearson' as const, residualiser: 'linear' as const, inference: 'effective-n' as const };
  let gaps = 0, even = 0;
  for (let r = 0; r < reps; r++) {
    ouInto(e, steps, tauFraction * last, random);
    ouInto(v, steps, tauFraction * last, random);
    const c = Float64Array.from(steps, (t) => 0.3 + 0.5 * (1 - Math.exp(-4 * t / last)) + 0.02 * random.normal());
    const a = c.map((cv, t) => 0.8 * cv + 0.05 * e[t]), b = c.map((cv, t) => -0.3 * cv + 0.05 * v[t]);
    const pGaps = unevenMatched([a], [b], c, steps, opts, opts, 'auto')[0].result.p;
    const pEven = levelsOrDifferencesPairs({ a, b }, [c], opts)[0].result.p;
    if (pGaps !== null && pGaps < 0.05) gaps++;
    if (pEven !== null && pEven < 0.05) even++;
  }
  return { gaps: gaps / reps, even: even / reps };
}

test('on Pythia\'s schedule and a log-spaced one the gap-aware test holds about 5% where the even-spacing test did not', () => {
  const reps = 400; // a rate of 5% is known to about +-2.1 points (95%)
  for (const [steps, fraction] of [[PYTHIA, 0.3], [checkpointSteps({ logSpaced: 24 }, 100000), 0.3]] as const) {
    const rates = nullRejections([...steps], fraction, reps, 5);
    assert.ok(rates.gaps <= 0.075, `gap-aware test: ${rates.gaps} of nulls rejected on ${steps.length} checkpoints`);
    assert.ok(rates.even > 0.1, `the even-spacing test, for contrast, rejects ${rates.even}`);
  }
});
