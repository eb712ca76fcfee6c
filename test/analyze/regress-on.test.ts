// `--regress-on log-step` (analyze/regressor.ts): ln(1 + step) is regressed out of each OOD series
// in place of the control's scores, so the control's values (and their sampling noise) no longer
// enter any pair's r or p; the result equals the analysis of the same runs with ln(1 + step) given
// as the control, and the headline and table name what was regressed out.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { analyzeRuns, DEFAULT_OPTIONS } from '../../src/analyze/analysis.ts';
import type { RunSeries } from '../../src/analyze/run-series.ts';
import { simulateScores } from '../support/simulated-scores.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { tempDir, writeCsv } from './helpers.ts';

const CHEAP = ['--format', 'json', '--calibration', '0', '--no-robustness'];
type Json = { headline: { sentence: string }; runs: { control_noise?: unknown; pairs: { a: string; b: string; r: number; p: number }[] }[] };

async function analyze(file: string, extra: string[]): Promise<Json> {
  const r = await genstudy(['analyze', file, '--control', 'in-domain', '--sample-size', '500', ...CHEAP, ...extra]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as Json;
}

test('with --regress-on log-step the control\'s scores enter no pair; with the default they do', async (t) => {
  const dir = tempDir(t);
  const rows = simulateScores({ seed: 3, runs: 3, steps: 30 });
  const original = join(dir, 'scores.csv'), scrambled = join(dir, 'scrambled.csv');
  writeCsv(original, rows);
  let k = 0;
  writeCsv(scrambled, rows.map((r) => (r.test_set === 'in-domain' ? { ...r, value: ((k++ * 0.6180339887) % 1).toFixed(4) } : r)));
  const [timeA, timeB] = [await analyze(original, ['--regress-on', 'log-step']), await analyze(scrambled, ['--regress-on', 'log-step'])];
  assert.deepEqual(timeB.runs.map((r) => r.pairs), timeA.runs.map((r) => r.pairs));
  assert.ok(timeA.runs.every((r) => r.control_noise === undefined), 'no control noise: ln(1 + step) carries none');
  assert.match(timeA.headline.sentence, /partial correlations with ln\(1 \+ step\) \(training time\) regressed out/);
  const [scoreA, scoreB] = [await analyze(original, []), await analyze(scrambled, [])];
  assert.notDeepEqual(scoreB.runs.map((r) => r.pairs), scoreA.runs.map((r) => r.pairs));
  assert.match(scoreA.headline.sentence, /partial correlations with "in-domain" regressed out/);
  const table = await genstudy(['analyze', original, '--control', 'in-domain', '--calibration', '0', '--no-robustness', '--regress-on', 'log-step']);
  assert.match(table.stdout, /residualiser on ln\(1 \+ step\) \(training time\)/);
});

test('--regress-on log-step equals the analysis with ln(1 + step) given as the control', () => {
  const rows = simulateScores({ seed: 5, runs: 3, steps: 30 });
  const series = (logStepControl: boolean): RunSeries[] => [...new Set(rows.map((r) => r.run))].map((run) => {
    const mine = rows.filter((r) => r.run === run);
    const steps = [...new Set(mine.map((r) => r.step))].sort((a, b) => a - b);
    const values = new Map<string, Float64Array>();
    for (const set of new Set(mine.map((r) => r.test_set))) {
      values.set(set, Float64Array.from(steps, (s) => Number(mine.find((r) => r.test_set === set && r.step === s)!.value)));
    }
    if (logStepControl) values.set('in-domain', Float64Array.from(steps, (s) => Math.log1p(s)));
    return { run, steps, values, attributes: {}, incompleteSteps: [] };
  });
  const opts = { ...DEFAULT_OPTIONS, control: 'in-domain', calibration: 0, robustness: false };
  const viaOption = analyzeRuns(series(false), { ...opts, regressOn: 'log-step' });
  const viaControl = analyzeRuns(series(true), opts);
  assert.deepEqual(viaOption.runs.map((r) => r.pairs), viaControl.runs.map((r) => r.pairs));
  assert.deepEqual(viaOption.meta, viaControl.meta);
});
