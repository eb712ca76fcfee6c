// The realistic-runs generator behind `npm run bench -- realistic` measures what it says: seeded,
// real schedules, scores that are counts out of n with their sampling variance, and a tested pair
// whose deviations correlate when the truth says so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { binomialSample } from '../../bench/binomial-sample.ts';
import { ALL_CELLS, cellKey, QUICK_CELLS, selectCells } from '../../bench/realistic-cells.ts';
import { CONTROL, simulateRun, simulateStudy, TESTED_PAIR, type StudySpec } from '../../bench/realistic-runs.ts';
import { scheduleSteps } from '../../bench/realistic-schedules.ts';
import { createRandom, pearson } from '../../src/stats/index.ts';

const spec = (over: Partial<StudySpec> = {}): StudySpec =>
  ({ schedule: 'even', shape: 'convex', n: 250, idNoisy: true, models: 3, oodSets: 3, truth: 'null', ...over });

const valuesOf = (runs: ReturnType<typeof simulateStudy>) => runs.map((r) => [...r.series.values].map(([k, v]) => [k, [...v]]));

test('a study is the same for the same seed and differs for another', () => {
  for (const schedule of ['even', 'olmo'] as const) {
    const s = spec({ schedule });
    assert.deepEqual(valuesOf(simulateStudy(s, 7)), valuesOf(simulateStudy(s, 7)));
    assert.deepEqual(simulateStudy(s, 7).map((r) => r.series.steps), simulateStudy(s, 7).map((r) => r.series.steps));
    assert.notDeepEqual(valuesOf(simulateStudy(s, 7)), valuesOf(simulateStudy(s, 8)));
  }
});

test('the schedules have the stated checkpoints', () => {
  const random = createRandom(1);
  assert.deepEqual(scheduleSteps('even', random), Array.from({ length: 41 }, (_, i) => 500 * i));
  assert.deepEqual(scheduleSteps('trainer', random), [...Array.from({ length: 25 }, (_, i) => 800 * i), 20000]);
  const log = scheduleSteps('log', random);
  assert.deepEqual(log.slice(0, 3), [0, 1, 2]);
  assert.equal(log[log.length - 1], 20000);
  assert.ok(log.length > 20 && log.length <= 31, `${log.length} log-spaced checkpoints`);
  assert.ok(log.every((s, i) => i === 0 || s > log[i - 1]) && log.every(Number.isInteger));
  const olmos = Array.from({ length: 5 }, () => scheduleSteps('olmo', random));
  for (const olmo of olmos) {
    assert.equal(olmo[0], 0);
    assert.equal(olmo.length, 1 + 20 - 3, 'step 0 and 17 of the 20 later checkpoints');
    assert.ok(olmo.every((s, i) => s % 1000 === 0 && (i === 0 || s > olmo[i - 1])));
  }
  assert.ok(new Set(olmos.map((o) => o.join())).size > 1, 'each run loses different checkpoints');
});

test('scores are proportions out of n, with samplingVariance value (1 - value) / n', () => {
  for (const n of [250, 1000, 5000]) {
    for (const idNoisy of [true, false]) {
      const run = simulateRun(spec({ n, idNoisy, schedule: 'log' }), 0, createRandom(n));
      const variance = (run.series as { samplingVariance?: Map<string, Float64Array> }).samplingVariance!;
      for (const [set, values] of run.series.values) {
        assert.equal(values.length, run.series.steps.length);
        const v = variance.get(set)!;
        assert.equal(v.length, values.length);
        if (set === CONTROL && !idNoisy) {
          assert.deepEqual([...values], [...run.progress], 'an exact control is the true progress');
          assert.ok(v.every((x) => x === 0));
          continue;
        }
        for (let t = 0; t < values.length; t++) {
          assert.ok(values[t] >= 0 && values[t] <= 1);
          assert.ok(Math.abs(values[t] * n - Math.round(values[t] * n)) < 1e-9, `${set} ${values[t]} is a count out of ${n}`);
          assert.ok(Math.abs(v[t] - (values[t] * (1 - values[t])) / n) < 1e-15);
        }
      }
    }
  }
});

test('binomial draws have the binomial mean and variance', () => {
  const random = createRandom(3);
  for (const [n, p] of [[1000, 0.3], [250, 0.02], [5000, 0.9]]) {
    const draws = Array.from({ length: 4000 }, () => binomialSample(n, p, random));
    const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
    const variance = draws.reduce((a, b) => a + (b - mean) ** 2, 0) / (draws.length - 1);
    const sd = Math.sqrt(n * p * (1 - p));
    assert.ok(Math.abs(mean - n * p) < 5 * sd / Math.sqrt(draws.length), `mean ${mean} for n ${n}, p ${p}`);
    assert.ok(Math.abs(variance / (sd * sd) - 1) < 0.12, `variance ${variance} for n ${n}, p ${p}`);
  }
});

/** Correlation across many runs of the tested pair's deviations at one checkpoint. */
function deviationCorrelation(truth: StudySpec['truth'], runIndex: number): number {
  const random = createRandom(11);
  const a: number[] = [], b: number[] = [];
  for (let i = 0; i < 400; i++) {
    const run = simulateRun(spec({ truth, n: 250 }), runIndex, random);
    a.push(run.deviations.get(TESTED_PAIR[0])![20]);
    b.push(run.deviations.get(TESTED_PAIR[1])![20]);
  }
  return pearson(a, b) ?? Number.NaN;
}

test('the tested pair\'s deviations correlate under common, by sign under by-model, not under the null', () => {
  assert.ok(deviationCorrelation('common', 0) > 0.35);
  assert.ok(deviationCorrelation('by-model', 0) > 0.45);
  assert.ok(deviationCorrelation('by-model', 1) < -0.45);
  assert.ok(Math.abs(deviationCorrelation('null', 0)) < 0.15);
});

test('cells: the quick set by default, the full grid with all, key parts otherwise', () => {
  assert.equal(selectCells(undefined), QUICK_CELLS);
  assert.equal(selectCells('all'), ALL_CELLS);
  const all = new Set(ALL_CELLS.map(cellKey));
  assert.ok(QUICK_CELLS.every((c) => all.has(cellKey(c))), 'the full grid holds the quick set');
  assert.equal(all.size, ALL_CELLS.length, 'each cell once');
  const logConvex = selectCells('log/convex');
  assert.ok(logConvex.length >= 2 && logConvex.every((c) => c.schedule === 'log' && c.shape === 'convex'));
  assert.ok(selectCells('olmo+n250').every((c) => c.schedule === 'olmo' && c.n === 250));
  assert.equal(selectCells('olmo+n250').length, 2);
});
