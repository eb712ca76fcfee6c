// lm-evaluation-harness 0.4's per-example samples (analyze/lm-eval-samples.ts), read from output
// written by lm-eval 0.4.13's own EvaluationTracker (fixtures/make_lm_eval_04_samples.py): the
// control's errors' covariance across checkpoints comes from them as it does from a store.
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readScoreInput } from '../../src/analyze/read-scores.ts';
import { buildRunSeries } from '../../src/analyze/run-series.ts';
import { attachErrorCovariance } from '../../src/analyze/error-covariance.ts';
import { shareCovariance } from '../../src/stats/example-covariance.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { tempDir } from './helpers.ts';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'lm-eval-04-samples');
const truth = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'lm-eval-04-samples.right.json'), 'utf8')) as {
  task: string; runs: Record<string, Record<string, number[]>>;
};

async function covarianceOf(folder: string, control: string, metric: string) {
  const reading = await readScoreInput(folder);
  const series = buildRunSeries(reading.scores, metric);
  const notes = reading.exampleResults ? attachErrorCovariance(series, reading.exampleResults, { metric, testSets: [control] }) : [];
  return { reading, series, notes };
}

test('the samples files give each run\'s control the covariance of its per-example results', async () => {
  const { reading, series, notes } = await covarianceOf(FIXTURE, truth.task, 'acc');
  assert.match(reading.description, /14 file\(s\) \(and the per-example samples of 14\)/);
  assert.deepEqual(notes, []);
  assert.equal(series.length, 2);
  for (const s of series) {
    const byStep = truth.runs[s.run];
    const right = s.steps.map((step) => Uint8Array.from(byStep[String(step)]));
    assert.deepEqual([...s.samplingCovariance!.get('mnli')!], [...shareCovariance(right)]);
  }
});

test('a filtered metric reads its own filter\'s lines', async () => {
  for (const metric of ['exact_match,strict-match', 'exact_match,flexible-extract']) {
    const { series, notes } = await covarianceOf(FIXTURE, 'gsm8k', metric);
    assert.deepEqual(notes, []);
    assert.ok(series.every((s) => s.samplingCovariance?.has('gsm8k')), metric);
  }
  const strict = (await covarianceOf(FIXTURE, 'gsm8k', 'exact_match,strict-match')).series[0].samplingCovariance!.get('gsm8k')!;
  const flexible = (await covarianceOf(FIXTURE, 'gsm8k', 'exact_match,flexible-extract')).series[0].samplingCovariance!.get('gsm8k')!;
  assert.notDeepEqual([...strict], [...flexible]);
});

test('a samples file without its results file is named; values that are not right/wrong give no covariance', async (t) => {
  const dir = tempDir(t);
  cpSync(FIXTURE, dir, { recursive: true });
  const folder = readdirSync(dir).sort()[0];
  const file = readdirSync(join(dir, folder)).find((f) => f.startsWith('samples_hans_'))!;
  renameSync(join(dir, folder, file), join(dir, folder, 'samples_hans_2020-01-01T00-00-00.000001.jsonl'));
  const { reading } = await covarianceOf(dir, 'mnli', 'acc');
  const orphan = /^1 lm-eval samples file\(s\) not read: no results_<date_id>\.json of the same evaluation beside them \(.*samples_hans_2020/;
  assert.ok(reading.notes.some((n) => orphan.test(n)), reading.notes.join('\n'));
  // one checkpoint's mnli answers scored 0.5 each: not a share of right answers, so no covariance and no note
  const mnli = readdirSync(join(dir, folder)).find((f) => f.startsWith('samples_mnli_'))!;
  const lines = readFileSync(join(dir, folder, mnli), 'utf8').trim().split('\n').map((l) => ({ ...JSON.parse(l), acc: 0.5 }));
  writeFileSync(join(dir, folder, mnli), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const { series, notes } = await covarianceOf(dir, 'mnli', 'acc');
  assert.deepEqual(notes, []);
  const run = series.find((s) => folder.includes(`__${s.run.split('/').pop()!}__checkpoint-`))!;
  assert.equal(run.samplingCovariance, undefined);
  assert.ok(series.find((s) => s !== run)!.samplingCovariance?.has('mnli'), 'the other run keeps its covariance');
});

test('genstudy analyze of an lm-eval folder with samples corrects with their covariance, and without them does not', async () => {
  const args = ['--control', 'mnli', '--metric', 'acc', '--format', 'json', '--calibration', '0', '--no-robustness'];
  const out = await genstudy(['analyze', FIXTURE, ...args]);
  assert.equal(out.code, 0, out.stderr);
  for (const run of JSON.parse(out.stdout).runs) assert.equal(run.control_noise.error_covariance, true, run.run);
  const without = await genstudy(['analyze', join(import.meta.dirname, 'fixtures', 'lm-eval-04'), ...args.slice(0, 1), 'mnli', ...args.slice(2)]);
  assert.equal(without.code, 0, without.stderr);
  for (const run of JSON.parse(without.stdout).runs) assert.equal(run.control_noise.error_covariance, undefined, run.run);
  // the table says it per run, under the run's line
  const table = await genstudy(['analyze', FIXTURE, ...args.slice(0, 4), '--calibration', '0', '--no-robustness']);
  const corrected = /\n {2}control's sampling noise corrected by the method of moments, reliability -?[\d.]+.*; /.source;
  assert.match(table.stdout, new RegExp(`${corrected}its errors' covariance across checkpoints estimated from per-example results\n`));
  const tableWithout = await genstudy(['analyze', join(import.meta.dirname, 'fixtures', 'lm-eval-04'), '--control', 'mnli', '--metric', 'acc',
    '--calibration', '0', '--no-robustness']);
  assert.match(tableWithout.stdout, /\n {2}control's sampling noise corrected by .*; its errors taken as independent between checkpoints\n/);
});

test('a samples file that is not JSON lines is an error naming its line, when the control\'s results are read', async (t) => {
  const dir = tempDir(t);
  cpSync(FIXTURE, dir, { recursive: true });
  const folder = readdirSync(dir).sort()[0];
  const mnli = readdirSync(join(dir, folder)).find((f) => f.startsWith('samples_mnli_'))!;
  writeFileSync(join(dir, folder, mnli), readFileSync(join(dir, folder, mnli), 'utf8') + '{"doc_id": 99, "acc": \n');
  const out = await genstudy(['analyze', dir, '--control', 'mnli', '--metric', 'acc', '--calibration', '0', '--no-robustness']);
  assert.equal(out.code, 2);
  assert.match(out.stderr, new RegExp(`${mnli.replace(/\./g, '\\.')}:21(:\\d+)?: invalid JSON`));
});
