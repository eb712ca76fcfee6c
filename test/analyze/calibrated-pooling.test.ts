// The pooling across runs rests on each run's calibrated variance: where the run's calibration finds
// that null pairs like the run's scatter more than the test states (variance ratio above 1), the run
// enters the meta-analysis with the measured variance (src/analyze/fisher-z.ts). Checked on runs
// whose test is known to be liberal (the naive test on AR(1) noise) and on runs where it is right
// (white noise, an exact control, the line).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeRun, analyzeRuns, DEFAULT_OPTIONS, type AnalyzeOptions } from '../../src/analyze/analysis.ts';
import { fisherZVariance, runVarianceFactor } from '../../src/analyze/fisher-z.ts';
import type { RunSeries } from '../../src/analyze/run-series.ts';
import { ar1Into, createRandom, randomEffectsMeta } from '../../src/stats/index.ts';

function ar1Run(name: string, n: number, phi: number, seed: number): RunSeries {
  const random = createRandom(seed);
  const noise = [new Float64Array(n), new Float64Array(n)];
  noise.forEach((e) => ar1Into(e, phi, random));
  const id = Float64Array.from({ length: n }, (_, t) => 0.4 + 0.5 * (1 - Math.exp((-4 * t) / n)));
  return {
    run: name, steps: Array.from({ length: n }, (_, t) => t * 10), attributes: {}, incompleteSteps: [],
    values: new Map([['id', id], ['a', id.map((v, t) => 0.7 * v + 0.03 * noise[0][t])], ['b', id.map((v, t) => 0.2 + 0.3 * v + 0.03 * noise[1][t])]]),
  };
}

const base: AnalyzeOptions = { ...DEFAULT_OPTIONS, control: 'id', residualiser: 'linear', robustness: false, calibration: 400, seed: 5 };

test('a right test measures a variance ratio near 1; the naive test on AR(1) noise far above it', () => {
  const white = analyzeRun(ar1Run('w', 40, 0, 1), base).calibration!;
  // 400 null pairs: the mean of chi-square(1) draws has sd 0.07
  assert.ok(white.variance_ratio > 0.8 && white.variance_ratio < 1.25, `white noise: ${white.variance_ratio}`);
  assert.equal(white.variance_ratio_pairs, 400);
  const naive = analyzeRun(ar1Run('n', 40, 0.8, 2), { ...base, inference: 'naive' }).calibration!;
  // Bartlett: var(r) ~ (1 + phi^2) / (1 - phi^2) / n, 4.6 times the white-noise variance at phi 0.8
  assert.ok(naive.variance_ratio > 2.5, `naive on phi 0.8: ${naive.variance_ratio}`);
});

test('the variance ratio states its Monte Carlo error: its spread over seeds is about the standard error it states', () => {
  const run = ar1Run('w', 40, 0.5, 3);
  const seeds = [1, 2, 3, 4, 5, 6, 7, 8];
  const found = seeds.map((seed) => analyzeRun(run, { ...base, calibration: 200, seed }).calibration!);
  const ratios = found.map((c) => c.variance_ratio);
  const mean = ratios.reduce((a, b) => a + b, 0) / ratios.length;
  const sd = Math.sqrt(ratios.reduce((a, b) => a + (b - mean) ** 2, 0) / (ratios.length - 1));
  const stated = found.reduce((a, c) => a + c.variance_ratio_se, 0) / found.length;
  // 200 pairs of near chi-square(1) draws: about sqrt(2 / 200) = 0.1 of the ratio; 8 seeds know the sd to about 25%
  assert.ok(stated > 0.03 * mean && stated < 0.4 * mean, `stated se ${stated} of ratio ${mean}`);
  assert.ok(sd / stated > 0.4 && sd / stated < 2.5, `sd over seeds ${sd} against the stated se ${stated}`);
});

test('each run is pooled with its stated variance times its calibrated ratio when above 1, and the pair says so', () => {
  const runs = [1, 2, 3, 4, 5].map((i) => ar1Run(`r${i}`, 40, 0.8, 10 + i));
  const result = analyzeRuns(runs, { ...base, inference: 'naive' });
  const factors = result.runs.map(runVarianceFactor);
  assert.ok(factors.every((f) => f > 1.5), `factors ${factors}`);
  const pairs = result.runs.map((r) => r.pairs[0]);
  const z = (r: number) => Math.atanh(r);
  const want = randomEffectsMeta(pairs.map((p) => z(p.r!)), pairs.map((p, i) => fisherZVariance(p) * factors[i]), { hartungKnapp: true });
  const meta = result.meta.pairs[0];
  assert.equal(meta.se, want.se);
  assert.equal(meta.q, want.q);
  const scaledNote = /^5 runs pooled with the variance their calibration measured, \d\.\d\d-\d\.\d\d times the stated one$/;
  assert.ok(meta.notes.some((s) => scaledNote.test(s)), meta.notes.join('; '));
  // without the calibration the same runs are pooled with the stated variances: a larger Q, so more often "depends"
  const uncalibrated = analyzeRuns(runs, { ...base, inference: 'naive', calibration: 0 }).meta.pairs[0];
  assert.ok(uncalibrated.q! > meta.q!, `Q ${uncalibrated.q} uncalibrated, ${meta.q} calibrated`);
  assert.ok(!uncalibrated.notes.some((s) => /calibration measured/.test(s)));
});

test('a ratio below 1 never shrinks a run\'s variance', () => {
  assert.equal(runVarianceFactor({ calibration: { variance_ratio: 0.7 } }), 1);
  assert.equal(runVarianceFactor({ calibration: { variance_ratio: 1.3 } }), 1.3);
  assert.equal(runVarianceFactor({}), 1);
});
