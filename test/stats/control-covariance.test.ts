// The control's sampling errors' covariance across checkpoints (stats/control-residuals.ts,
// RunSeries.samplingCovariance): a fixed test set's errors persist between checkpoints, and a
// correction that takes them as independent over-corrects. On null runs scored on one fixed test
// set (bench/realistic-runs.ts, rho 0.9: 86% of answers persist at a steady accuracy) the method of
// moments with independent errors read z^2 / v 4.3 and mean r -0.25 here (5.1 and -0.25 over 28 pairs); with the
// covariance estimated from the per-example results, about 1 (docs/analyze.md, "fixed test sets").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeRuns, DEFAULT_OPTIONS } from '../../src/analyze/analysis.ts';
import { clippedFisherZ, fisherZVariance } from '../../src/analyze/fisher-z.ts';
import { hashString } from '../../src/seeded-random.ts';
import { CONTROL, simulateStudy, type StudySpec } from '../../bench/realistic-runs.ts';

const spec: StudySpec = {
  schedule: 'even', shape: 'linear', n: 1000, idNoisy: true, models: 5, oodSets: 4, truth: 'null', persistence: 0.9, examples: true,
};

function scatter(withCovariance: boolean): { ratio: number; meanR: number; pairs: number } {
  let sum = 0, rSum = 0, pairs = 0;
  for (let i = 0; i < 8; i++) {
    const series = simulateStudy(spec, hashString(`control-covariance/${i}`)).map((r) => r.series);
    if (!withCovariance) for (const s of series) s.samplingCovariance = undefined;
    const result = analyzeRuns(series, { ...DEFAULT_OPTIONS, control: CONTROL, robustness: false, calibration: 0, residualiser: 'linear' });
    for (const run of result.runs) {
      for (const p of run.pairs) {
        if (p.r === null || p.df <= 1) continue;
        sum += clippedFisherZ(p.r) ** 2 / fisherZVariance(p);
        rSum += p.r;
        pairs++;
      }
    }
  }
  return { ratio: sum / pairs, meanR: rSum / pairs, pairs };
}

test('with the covariance of a fixed test set\'s errors, null runs scatter as their test states; taken as independent, they do not', () => {
  const known = scatter(true), independent = scatter(false);
  assert.ok(known.pairs >= 200 && independent.pairs >= 200, `${known.pairs} and ${independent.pairs} pairs tested`);
  // measured: 240 pairs each read 0.98 / 4.32 (z^2 / v) and -0.017 / -0.245 (mean r) when this test was written
  assert.ok(known.ratio < 1.4 && known.ratio > 0.6, `with the covariance: z^2/v ${known.ratio.toFixed(2)}`);
  assert.ok(Math.abs(known.meanR) < 0.06, `with the covariance: mean r ${known.meanR.toFixed(3)}`);
  assert.ok(independent.ratio > 2.5, `errors taken as independent: z^2/v ${independent.ratio.toFixed(2)}`);
  assert.ok(independent.meanR < -0.15, `errors taken as independent: mean r ${independent.meanR.toFixed(3)}`);
});
