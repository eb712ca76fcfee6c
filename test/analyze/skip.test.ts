// "Not analysable yet" is a value callers branch on (a study still running, watch, the report's
// skipped runs), not an error they catch and parse; analyzeRuns still throws it for direct callers.
// A run too short to analyse is left out with its reason while another run can be analysed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analysisProblem, analyzeOrSkip, analyzeRuns, DEFAULT_OPTIONS, runProblem, tooFewCheckpoints } from '../../src/analyze/analysis.ts';
import type { RunSeries } from '../../src/analyze/run-series.ts';
import { UserError } from '../../src/errors.ts';

function run(name: string, steps: number, sets: string[]): RunSeries {
  const values = new Map<string, Float64Array>();
  sets.forEach((set, k) => values.set(set, Float64Array.from({ length: steps }, (_, i) => Math.sin(i * (k + 1)) + i / steps)));
  return { run: name, steps: Array.from({ length: steps }, (_, i) => i * 10), values, attributes: {}, incompleteSteps: [] };
}

const opts = { ...DEFAULT_OPTIONS, control: 'id' };

test('each reason a run cannot be analysed is returned as a value', () => {
  assert.equal(analysisProblem([], opts), 'no runs to analyse: the input has no scores for the chosen metric');
  assert.match(runProblem(run('r', 10, ['a', 'b']), opts) ?? '', /^no scores for the control test set "id" \(it has: a, b\)$/);
  assert.match(runProblem(run('r', 10, ['id', 'a']), opts) ?? '', /needs at least two OOD test sets/);
  assert.match(runProblem(run('r', 10, ['id', 'a', 'b']), { ...opts, testSets: ['a', 'c'] }) ?? '', /no scores for test set "c"/);
  assert.match(runProblem(run('r', 3, ['id', 'a', 'b']), opts) ?? '', /^3 checkpoints with every test set scored; .* needs at least 5$/);
  assert.match(runProblem(run('r', 5, ['id', 'a', 'b']), { ...opts, representation: 'differences' }) ?? '', /^4 differences between checkpoints/);
  assert.equal(runProblem(run('r', 10, ['id', 'a', 'b']), opts), undefined);
});

test('a short run is left out with its reason and the others analysed; only when every run is short is there no analysis', () => {
  const good = run('good', 12, ['id', 'a', 'b', 'c']);
  const short = run('short', 3, ['id', 'a', 'b']);
  const both = analyzeOrSkip([good, short], opts);
  assert.ok('analysis' in both);
  assert.deepEqual(both.analysis.runs.map((r) => r.run), ['good']);
  assert.equal(both.analysis.left_out.length, 1);
  assert.equal(both.analysis.left_out[0].run, 'short');
  assert.match(both.analysis.left_out[0].reason, /^3 checkpoints with every test set scored; .* needs at least 5$/);
  assert.match(both.analysis.headline.sentence, / 1 run with too few checkpoints was left out \(short\)\.$/);
  assert.equal(both.analysis.headline.runs_left_out, 1);
  // all short: skipped (a study still running), and analyzeRuns throws the same one line
  const none = analyzeOrSkip([short, run('short2', 4, ['id', 'a', 'b'])], opts);
  assert.ok('skipped' in none);
  assert.match(none.skipped, /^no run has enough checkpoints: run "short": 3 checkpoints.*; run "short2": 4 checkpoints/);
  assert.doesNotMatch(none.skipped, /\n/);
  assert.throws(() => analyzeRuns([short, run('short2', 4, ['id', 'a', 'b'])], opts),
    (err: unknown) => err instanceof UserError && err.message === none.skipped);
  // a run without the control set is still an error, whatever the others
  const broken = analyzeOrSkip([good, run('broken', 12, ['a', 'b'])], opts);
  assert.ok('skipped' in broken);
  assert.match(broken.skipped, /^run "broken": no scores for the control test set/);
  const ok = analyzeOrSkip([good], opts);
  assert.ok('analysis' in ok);
  assert.equal(ok.analysis.runs[0].pairs.length, 3);
  assert.deepEqual(ok.analysis.left_out, []);
});

test('minCheckpoints leaves out runs above the residualiser\'s minimum but below it', () => {
  const runs = [run('r10', 10, ['id', 'a', 'b']), run('r20', 20, ['id', 'a', 'b']), run('r8', 8, ['id', 'a', 'b'])];
  assert.equal(tooFewCheckpoints(runs[0], opts), undefined, 'the default: the linear residualiser\'s 5');
  const o = { ...opts, minCheckpoints: 9, calibration: 0, robustness: false };
  assert.equal(tooFewCheckpoints(runs[2], o), '8 checkpoints with every test set scored, fewer than --min-checkpoints 9');
  const result = analyzeRuns(runs, o);
  assert.deepEqual(result.runs.map((r) => r.run), ['r10', 'r20']);
  assert.deepEqual(result.left_out.map((r) => r.run), ['r8']);
  assert.match(tooFewCheckpoints(runs[0], { ...opts, residualiser: 'spline' }) ?? '', /the spline residualiser needs at least 12$/);
});
