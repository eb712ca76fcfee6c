// analyze writes its JSON a run at a time (jsonParts): the text must be JSON.stringify's of the whole
// answer, byte for byte, whatever the run and test-set names hold.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeRuns, DEFAULT_OPTIONS, type AnalyzeOptions } from '../../src/analyze/analysis.ts';
import { ANALYSIS_JSON_VERSION, formatJson, jsonParts } from '../../src/analyze/format.ts';
import type { RunSeries } from '../../src/analyze/run-series.ts';
import { createRandom } from '../../src/stats/index.ts';

const whole = (result: ReturnType<typeof analyzeRuns>) => JSON.stringify({ format_version: ANALYSIS_JSON_VERSION, ...result }, null, 2) + '\n';

function run(name: string, sets: string[], seed: number): RunSeries {
  const random = createRandom(seed), n = 14;
  const id = Float64Array.from({ length: n }, (_, t) => 0.3 + 0.02 * t + 0.01 * random.normal());
  const values = new Map<string, Float64Array>([['id', id]]);
  for (const s of sets) values.set(s, id.map((v) => 0.1 + 0.5 * v + 0.01 * random.normal()));
  return { run: name, steps: Array.from({ length: n }, (_, t) => 10 * (t + 1)), attributes: {}, incompleteSteps: [], values };
}

test('the JSON in parts is the whole JSON, runs named to look like its own text included', () => {
  const opts: AnalyzeOptions = { ...DEFAULT_OPTIONS, control: 'id', calibration: 0, robustness: false, residualiser: 'linear' };
  const sets = ['runs', '"runs": [\n    "runs"', 'a\nb', 'plain'];
  const runs = [run('runs', sets, 1), run('"runs": [\n    "runs"', sets, 2), run('third', sets, 3), run('too short', sets, 4)];
  runs[3] = { ...runs[3], steps: runs[3].steps.slice(0, 3), values: new Map([...runs[3].values].map(([k, v]) => [k, v.slice(0, 3)])) };
  const results = [runs.slice(0, 3), runs.slice(0, 1), [runs[0], runs[3]]].map((chosen) => analyzeRuns(chosen, opts));
  assert.equal(results[2].left_out.length, 1);
  for (const result of [...results, { ...results[0], runs: [] }]) {
    const parts = [...jsonParts(result)];
    assert.equal(parts.join(''), whole(result));
    assert.equal(formatJson(result), whole(result));
    assert.equal(parts.length, result.runs.length === 0 ? 1 : result.runs.length + 2);
  }
});
