// "Not analysable yet" is a value callers branch on (a study still running, watch, the report's
// skipped runs), not an error they catch and parse; analyzeRuns still throws it for direct callers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analysisProblem, analyzeOrSkip, analyzeRuns, DEFAULT_OPTIONS, runProblem } from '../../src/analyze/analysis.ts';
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

test('analyzeOrSkip returns the analysis or the first run\'s reason; analyzeRuns throws the same reason', () => {
  const good = run('good', 12, ['id', 'a', 'b', 'c']);
  const short = run('short', 3, ['id', 'a', 'b']);
  const both = analyzeOrSkip([good, short], opts);
  assert.ok('skipped' in both);
  assert.match(both.skipped, /^run "short": 3 checkpoints/);
  assert.throws(() => analyzeRuns([good, short], opts), (err: unknown) => err instanceof UserError && err.message === both.skipped);
  const ok = analyzeOrSkip([good], opts);
  assert.ok('analysis' in ok);
  assert.equal(ok.analysis.runs[0].pairs.length, 3);
});
