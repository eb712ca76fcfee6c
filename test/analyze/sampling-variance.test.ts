// Each score's sampling noise as the inputs give it: an n or stderr column in a long table, a
// "_stderr" column beside a wide table's score, lm-eval's "<metric>_stderr" (0.3) and
// "<metric>_stderr,<filter>" with "n-samples" (0.4), the store's n; and the per-checkpoint sampling
// variances buildRunSeries derives from them (stderr^2, else p(1-p)/n for a proportion).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readScoreInput } from '../../src/analyze/read-scores.ts';
import { loadReportInput } from '../../src/report/report-data.ts';
import { studyA } from '../../src/report/study-a.ts';
import { buildRunSeries } from '../../src/analyze/run-series.ts';
import { UserError } from '../../src/errors.ts';
import { ResultStore } from '../../src/store/result-store.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { tempDir, writeCsv } from './helpers.ts';

const STEPS = [100, 200, 300];
const ACC: Record<string, number[]> = { mnli: [0.6, 0.7, 0.8], hans: [0.5, 0.52, 0.55], rte: [0.55, 0.6, 0.58] };

function longRows(extra: (set: string, i: number) => Record<string, unknown>): object[] {
  return Object.entries(ACC).flatMap(([set, values]) => values.map((value, i) => ({
    run: 'r1', step: STEPS[i], test_set: set, metric: 'accuracy', value, seed: 1, ...extra(set, i),
  })));
}

function assertClose(actual: Float64Array | undefined, expected: number[]): void {
  assert.ok(actual, 'a variance series');
  assert.equal(actual.length, expected.length);
  for (let i = 0; i < expected.length; i++) assert.ok(Math.abs(actual[i] - expected[i]) < 1e-15, `${actual[i]} vs ${expected[i]}`);
}

const binomial = (set: string, n: number) => ACC[set].map((p) => (p * (1 - p)) / n);

test('a long CSV with an n column gives p(1-p)/n per checkpoint, and n is not a run attribute', async (t) => {
  const file = join(tempDir(t), 'scores.csv');
  writeCsv(file, longRows((set) => ({ n: set === 'hans' ? 30000 : 2000 })));
  const { rows } = await readScoreInput(file);
  assert.equal(rows.find((r) => r.testSet === 'hans')!.n, 30000);
  assert.deepEqual(rows[0].attributes, { seed: '1' });
  const [series] = buildRunSeries(rows, 'accuracy');
  assertClose(series.samplingVariance!.get('hans'), binomial('hans', 30000));
  assertClose(series.samplingVariance!.get('mnli'), binomial('mnli', 2000));
});

test('a long CSV with a stderr (or se) column gives stderr^2; a set with one step lacking it is absent', async (t) => {
  const file = join(tempDir(t), 'scores.csv');
  const se = (set: string, i: number) => 0.01 * (i + 1) + (set === 'rte' ? 0.001 : 0);
  // rte's last step has no stderr (an empty cell), so rte has no variance series
  writeCsv(file, longRows((set, i) => ({ se: set === 'rte' && i === 2 ? '' : se(set, i) })));
  const { rows } = await readScoreInput(file);
  assert.equal(rows[0].stderr, 0.01);
  assert.ok(!('se' in rows[0].attributes));
  const [series] = buildRunSeries(rows, 'accuracy');
  assertClose(series.samplingVariance!.get('mnli'), STEPS.map((_, i) => se('mnli', i) ** 2));
  assert.deepEqual([...series.samplingVariance!.keys()].sort(), ['hans', 'mnli']);
});

test('--sample-size (sampleSize) applies only to scores without their own n or stderr', async (t) => {
  const file = join(tempDir(t), 'scores.csv');
  writeCsv(file, longRows((set) => ({ n: set === 'mnli' ? 9815 : '' })));
  const { rows } = await readScoreInput(file);
  assert.deepEqual([...buildRunSeries(rows, 'accuracy')[0].samplingVariance!.keys()], ['mnli']);
  const [series] = buildRunSeries(rows, 'accuracy', { sampleSize: 500 });
  assertClose(series.samplingVariance!.get('mnli'), binomial('mnli', 9815));
  assertClose(series.samplingVariance!.get('hans'), binomial('hans', 500));
});

test('a metric that is not a proportion gets no variance from n alone', async (t) => {
  const file = join(tempDir(t), 'scores.csv');
  writeCsv(file, longRows(() => ({ n: 100 })).map((r) => ({ ...r, metric: 'bleu', value: 20 })));
  const [series] = buildRunSeries((await readScoreInput(file)).rows, 'bleu', { sampleSize: 100 });
  assert.equal(series.samplingVariance!.size, 0);
});

test('a bad n or stderr is a one-line error naming the file, line and column', async (t) => {
  const dir = tempDir(t);
  for (const [column, bad, expected] of [['n', '-3', /scores\.csv:2: column "n": expected a whole number of examples >= 1, got "-3"/],
    ['n_examples', '1.5', /scores\.csv:2: column "n_examples": expected a whole number/],
    ['stderr', '-0.1', /scores\.csv:2: column "stderr": expected a standard error >= 0/],
    ['se', 'abc', /scores\.csv:2: column "se": expected a finite number/]] as const) {
    const file = join(dir, 'scores.csv');
    writeCsv(file, longRows((_, i) => ({ [column]: i === 0 ? bad : 1000 })));
    await assert.rejects(readScoreInput(file), (err: Error) => {
      assert.ok(err instanceof UserError);
      assert.match(err.message, expected);
      assert.ok(!err.message.includes('\n'));
      return true;
    });
  }
});

test('a wide CSV: "<column>_stderr" and "<column> stderr" give the stderr of the score beside them, and are not scores', async (t) => {
  const file = join(tempDir(t), 'wide.csv');
  const lines = ['step,eval/mnli_accuracy,eval/mnli_accuracy_stderr,hans/acc,hans/acc stderr,rte/acc,train/loss,train/loss_stderr'];
  STEPS.forEach((s, i) => lines.push([s, ACC.mnli[i], 0.005, ACC.hans[i], i === 1 ? 'NaN' : 0.003, ACC.rte[i], 0.5, 0.01].join(',')));
  writeFileSync(file, lines.join('\n') + '\n');
  const reading = await readScoreInput(file);
  assert.deepEqual([...new Set(reading.rows.map((r) => `${r.testSet}:${r.metric}`))].sort(), ['hans:acc', 'mnli:accuracy', 'rte:acc']);
  assert.match(reading.description, /stderr of 2 from their "_stderr" column\(s\)/);
  assert.match(reading.notes.join('\n'), /left out: train\/loss, train\/loss_stderr/);
  assert.equal(reading.rows.find((r) => r.testSet === 'mnli')!.stderr, 0.005);
  const hans = reading.rows.filter((r) => r.testSet === 'hans').map((r) => r.stderr);
  assert.deepEqual(hans, [0.003, undefined, 0.003]);
  const [series] = buildRunSeries(reading.rows.filter((r) => r.testSet === 'mnli'), 'accuracy');
  assertClose(series.samplingVariance!.get('mnli'), [0.005 ** 2, 0.005 ** 2, 0.005 ** 2]);
});

/** lm-eval 0.3 as EleutherAI published Pythia's evaluations: `<size>_step<N>.json`. */
function lmEval03(step: number, i: number): object {
  return {
    results: {
      lambada_openai: { ppl: 24.8 - i, ppl_stderr: 0.88, acc: 0.39 + i / 100, acc_stderr: 0.0068 },
      piqa: { acc: 0.63 + i / 100, acc_stderr: i === 2 ? 'N/A' : 0.0112, acc_norm: 0.62, acc_norm_stderr: 0.0113 },
    },
    versions: { lambada_openai: 0, piqa: 0 },
    config: { model: 'gpt2', model_args: `pretrained=EleutherAI/pythia-160m,revision=step${step}`, num_fewshot: 0, batch_size: 16 },
  };
}

test('lm-eval 0.3: "<metric>_stderr" is that metric\'s stderr; "N/A" is none', async (t) => {
  const folder = join(tempDir(t), 'pythia-160m');
  mkdirSync(folder);
  STEPS.forEach((s, i) => writeFileSync(join(folder, `160m_step${s}.json`), JSON.stringify(lmEval03(s, i), null, 2)));
  const { rows } = await readScoreInput(folder);
  const lambada = rows.filter((r) => r.testSet === 'lambada_openai' && r.metric === 'acc');
  assert.deepEqual(lambada.map((r) => [r.step, r.stderr, r.n]), STEPS.map((s) => [s, 0.0068, undefined]));
  assert.equal(rows.find((r) => r.metric === 'ppl')!.stderr, 0.88);
  const [series] = buildRunSeries(rows, 'acc');
  assertClose(series.samplingVariance!.get('lambada_openai'), [0.0068 ** 2, 0.0068 ** 2, 0.0068 ** 2]);
  assert.ok(!series.samplingVariance!.has('piqa'), 'piqa\'s last stderr is N/A');
  assert.ok(buildRunSeries(rows, 'acc_norm')[0].samplingVariance!.has('piqa'));
});

/** lm-eval 0.4's results_<timestamp>.json for a local checkpoint, evaluated with --limit on hans. */
function lmEval04(step: number, i: number): object {
  const model = `/scratch/me/run/checkpoint-${step}`;
  return {
    results: {
      mnli: { alias: 'mnli', 'acc,none': ACC.mnli[i], 'acc_stderr,none': 0.0049 },
      hans: { alias: 'hans', 'acc,none': ACC.hans[i], 'acc_stderr,none': 'N/A' },
      gsm8k: { alias: 'gsm8k', 'exact_match,strict-match': 0.07, 'exact_match_stderr,strict-match': 0.007 },
    },
    group_subtasks: { mnli: [], hans: [], gsm8k: [] },
    configs: {},
    versions: { mnli: 1.0, hans: 1.0, gsm8k: 3.0 },
    'n-shot': { mnli: 0, hans: 0, gsm8k: 5 },
    'n-samples': { mnli: { original: 9815, effective: 9815 }, hans: { original: 30000, effective: 2000 },
      gsm8k: { original: 1319, effective: 1319 } },
    config: { model: 'hf', model_args: `pretrained=${model}`, batch_size: 'auto' },
    lm_eval_version: '0.4.5',
    model_name: model,
    model_name_sanitized: model.replaceAll('/', '__'),
  };
}

test('lm-eval 0.4: "<metric>_stderr,<filter>" gives the stderr, n-samples\' effective gives n', async (t) => {
  const root = tempDir(t);
  STEPS.forEach((s, i) => {
    const folder = join(root, `__scratch__me__run__checkpoint-${s}`);
    mkdirSync(folder);
    writeFileSync(join(folder, 'results_2024-11-02T10-00-00.000000.json'), JSON.stringify(lmEval04(s, i), null, 2));
  });
  const { rows } = await readScoreInput(root);
  const mnli = rows.find((r) => r.testSet === 'mnli')!;
  assert.deepEqual([mnli.run, mnli.stderr, mnli.n], ['/scratch/me/run', 0.0049, 9815]);
  const hans = rows.find((r) => r.testSet === 'hans')!;
  assert.deepEqual([hans.stderr, hans.n], [undefined, 2000]);
  assert.equal(rows.find((r) => r.metric === 'exact_match,strict-match')!.stderr, 0.007);
  const [series] = buildRunSeries(rows, 'acc');
  assertClose(series.samplingVariance!.get('mnli'), [0.0049 ** 2, 0.0049 ** 2, 0.0049 ** 2]);
  assertClose(series.samplingVariance!.get('hans'), binomial('hans', 2000));

  const dry = await genstudy(['analyze', root, '--control', 'mnli', '--dry-run']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /; sampling variance: from stderr for 2 test set\(s\), from n for 1\n/);
  assert.doesNotMatch(dry.stdout, /look like proportions/);
});

test('a genstudy store: the stored n of each score', async (t) => {
  const storePath = join(tempDir(t), 'results.sqlite');
  const store = ResultStore.open(storePath);
  store.writeScores(Object.entries(ACC).flatMap(([testSet, values]) => values.map((value, i) => ({
    run: 'r1', step: STEPS[i], testSet, metric: 'accuracy', value, n: testSet === 'hans' ? 30000 : 800,
  }))));
  store.close();
  const { rows } = await readScoreInput(storePath);
  assert.equal(rows.find((r) => r.testSet === 'hans')!.n, 30000);
  const [series] = buildRunSeries(rows, 'accuracy');
  assertClose(series.samplingVariance!.get('rte'), binomial('rte', 800));
});

test('the reading says when proportions come without n or stderr, and --sample-size answers it', async (t) => {
  const file = join(tempDir(t), 'scores.csv');
  writeCsv(file, longRows(() => ({})));
  const bare = await genstudy(['analyze', file, '--control', 'mnli', '--dry-run']);
  assert.equal(bare.code, 0, bare.stderr);
  assert.match(bare.stdout, /note: scores look like proportions but no test-set size \(n\) or stderr is given: .*--sample-size N\n/);
  assert.doesNotMatch(bare.stdout, /sampling variance:/);
  const sized = await genstudy(['analyze', file, '--control', 'mnli', '--dry-run', '--sample-size', '1000']);
  assert.equal(sized.code, 0, sized.stderr);
  assert.match(sized.stdout, /; sampling variance: from --sample-size 1000 for 3 test set\(s\)\n/);
  assert.doesNotMatch(sized.stdout, /look like proportions/);
  const bad = await genstudy(['analyze', file, '--control', 'mnli', '--sample-size', '0']);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /--sample-size 0: expected a whole number/);
});

test('the report\'s study A carries a table\'s stderr, and --sample-size for the scores without one', async (t) => {
  const file = join(tempDir(t), 'scores.csv');
  const value = (set: string, step: number) => 0.5 + 0.04 * step + (set === 'hans' ? 0.01 * Math.sin(step) : 0.01 * Math.cos(3 * step));
  const rows = ['mnli', 'hans', 'rte'].flatMap((set) => Array.from({ length: 10 }, (_, step) => ({
    run: 'r1', step, test_set: set, metric: 'accuracy', value: value(set, step), stderr: set === 'mnli' ? 0.004 : '',
  })));
  writeCsv(file, rows);
  const a = studyA(await loadReportInput(file), { control: 'mnli', sampleSize: 400, analysis: { calibration: 0, robustness: false } });
  assert.deepEqual(a.skipped, []);
  const variances = a.series[0].samplingVariance!;
  assertClose(variances.get('mnli'), Array(10).fill(0.004 ** 2));
  assertClose(variances.get('rte'), Array.from({ length: 10 }, (_, s) => (value('rte', s) * (1 - value('rte', s))) / 400));
});
