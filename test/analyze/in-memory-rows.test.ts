// Rows a library caller builds in memory: where they were read and the run's attributes may be left
// out, and a row with a file's column names (test_set) is a user error saying what a row needs,
// not a duplicate of test set "undefined".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeRuns } from '../../src/analyze/analysis.ts';
import { buildRunSeries } from '../../src/analyze/run-series.ts';
import { UserError } from '../../src/errors.ts';
import { simulateScores } from '../support/simulated-scores.ts';

test('rows without origin or attributes analyse; a row shaped like a CSV line is refused naming testSet', () => {
  const sim = simulateScores({ seed: 2, runs: 1, steps: 14 });
  const rows = sim.map((r) => ({ run: r.run, step: r.step, testSet: r.test_set, metric: r.metric, value: r.value }));
  const result = analyzeRuns(buildRunSeries(rows, 'accuracy'), { control: 'in-domain', calibration: 0, robustness: false });
  assert.equal(result.runs[0].pairs.length, 10);
  const csvShaped = sim.map((r) => ({ ...r })) as unknown as Parameters<typeof buildRunSeries>[0];
  assert.throws(() => buildRunSeries(csvShaped, 'accuracy'), (e: Error) => e instanceof UserError &&
    new RegExp(/^rows\[0\]: a score row needs testSet \(rows are \{ run, step, testSet, metric, value \}, as readScores returns them\); /.source +
      /this one has run, step, test_set, metric, value/.source).test(e.message));
  const twice = [rows[0], rows[0]];
  assert.throws(() => buildRunSeries(twice, 'accuracy'),
    /: rows\[1\]: duplicate score for run "model-a", step 0, test set "in-domain", metric "accuracy" \(first given at rows\[0\]\)/);
});
