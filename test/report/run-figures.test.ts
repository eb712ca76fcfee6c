// The pieces behind the report's new figures and run summaries: the step axis turns to a log scale
// only for log-spaced checkpoints; the residuals drawn are the ones whose correlation the analysis
// reports (same residualiser, ranks, representation); run summaries show the epochs a run's steps
// make and leave out what a run does not have; the tokenizer library's version is found.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeRun, DEFAULT_OPTIONS, type AnalyzeOptions } from '../../src/analyze/analysis.ts';
import { pairResiduals } from '../../src/analyze/pair-residuals.ts';
import { buildRunSeries } from '../../src/analyze/run-series.ts';
import { pearson } from '../../src/stats/index.ts';
import { simulateScores } from '../support/simulated-scores.ts';
import { seriesSizes, seriesStyles, stepAxis } from '../../src/report/charts.ts';
import { runFields } from '../../src/report/run-summary.ts';
import { observationsText } from '../../src/report/study-a-section.ts';
import { installedVersion, studyVersions } from '../../src/pipeline/versions.ts';
import type { ReportRun } from '../../src/report/report-data.ts';

test('the step axis is a log scale for log-spaced checkpoints (the demo\'s) and linear for regular ones', () => {
  const logSpaced = [0, 1, 2, 3, 5, 8, 12, 19, 29, 44, 50, 67, 100, 150, 200, 250, 300, 350, 400];
  assert.equal(stepAxis(logSpaced).logSpaced, true);
  assert.deepEqual(stepAxis(logSpaced).axis.values, [0, 1, 2, 5, 10, 20, 50, 100, 200, 400], 'round ticks, and the last step');
  assert.deepEqual(stepAxis([...logSpaced.filter((s) => s <= 200), 220]).axis.values, [0, 1, 2, 5, 10, 20, 50, 100, 220],
    'a round tick too close to the last step gives way to it');
  assert.equal(stepAxis(Array.from({ length: 30 }, (_, i) => i * 100)).logSpaced, false);
  assert.deepEqual(stepAxis(Array.from({ length: 30 }, (_, i) => i * 100)).axis.values, [0, 500, 1000, 1500, 2000, 2500, 2900],
    'linear: the last step (2900) ticked');
  assert.deepEqual(stepAxis([0, 25, 50, 75, 100]).axis.values, [0, 20, 40, 60, 80, 100]);
  assert.equal(stepAxis([0, 10, 250]).logSpaced, false, 'too few checkpoints to call log-spaced');
});

test('every series of a trajectory has its own colour, dash and marker; series equal to later ones are drawn wider so both show', () => {
  const style = seriesStyles(['b', 'id', 'a', 'c'], 'id');
  assert.deepEqual(style.domain, ['id', 'a', 'b', 'c'], 'the control first');
  assert.equal(style.colour[0], '#111111');
  for (const key of ['colour', 'dash', 'shape'] as const) {
    assert.equal(new Set(style[key].map((v) => JSON.stringify(v))).size, 4, `distinct ${key}`);
  }
  const steps = [0, 1, 2, 3];
  const points = [
    ...steps.map((step) => ({ series: 'id', step, value: step / 10 })),
    ...steps.map((step) => ({ series: 'a', step, value: 0.5 })),
    ...steps.map((step) => ({ series: 'b', step, value: step === 3 ? 0.6 : 0.5 })), // equal to a at 3 of 4 steps
    ...steps.map((step) => ({ series: 'c', step, value: 0.1 * step + 0.3 })),
  ];
  const sizes = seriesSizes(style.domain, points, 'id');
  assert.ok(sizes.get('a')!.lineWidth > sizes.get('b')!.lineWidth, 'a, under b, shows at its edges');
  assert.ok(sizes.get('a')!.markerSize > sizes.get('b')!.markerSize);
  assert.equal(sizes.get('b')!.lineWidth, sizes.get('c')!.lineWidth, 'b and c have nothing drawn over them');
});

test('the residuals drawn correlate to the partial r the analysis reports, on levels and on differences, Pearson and Spearman', () => {
  const rows = simulateScores({ seed: 5, runs: 1, steps: 25 });
  const [series] = buildRunSeries(rows.map((r) =>
    ({ run: r.run, step: r.step, testSet: r.test_set, metric: r.metric, value: r.value, attributes: {}, origin: 'sim' })), 'accuracy');
  for (const method of ['pearson', 'spearman'] as const) {
    for (const differences of [false, true]) {
      const opts: AnalyzeOptions = { ...DEFAULT_OPTIONS, control: 'in-domain', method, representation: differences ? 'differences' : 'levels',
        inference: 'naive' };
      const run = analyzeRun(series, opts);
      for (const p of run.pairs.slice(0, 4)) {
        const res = pairResiduals(series, p.a, p.b, opts, p.representation)!;
        assert.equal(res.steps.length, differences ? 24 : 25);
        assert.ok(Math.abs(pearson(res.a, res.b)! - p.r!) < 1e-9,
          `${method} ${differences ? 'differences' : 'levels'} ${p.a}/${p.b}: ${pearson(res.a, res.b)} vs ${p.r}`);
      }
    }
  }
});

function run(attributes: Record<string, unknown>): ReportRun {
  return {
    id: 'r', model: 'tiny', trainingSet: 'synthetic', method: 'ft', seed: 1, attributes, versions: {},
    checkpoints: [0, 200, 400].map((step) => ({ step, path: null, contentHash: null })), trainingLog: [],
  } as ReportRun;
}

test('run summaries: the epochs the steps make, no empty or null fields, LoRA only for LoRA runs', () => {
  const full = Object.fromEntries(runFields(run({ lr: 0.003, schedule: 'linear', steps: 400, epochs: 3.2, batchSize: 16, gradAccum: 1,
    trainExamples: 2000, finetune: 'full', prompt_variant: '', shots: 0, lora: null })));
  assert.equal(full.trained, '400 steps = 3.2 epochs');
  assert.equal(full.method, 'ft, full fine-tuning');
  assert.equal(full['learning rate'], '0.003 (linear)');
  assert.equal(full.checkpoints, '3 (steps 0 to 400)');
  for (const k of ['LoRA', 'prompt variant', 'shots']) assert.ok(!(k in full), `${k} is left out`);
  assert.doesNotMatch(JSON.stringify(full), /null|undefined/);
  // A store from before the trainer recorded its steps: its "epochs" was a default a steps-limited run did not do.
  assert.equal(Object.fromEntries(runFields(run({ epochs: 1, maxSteps: 400 }))).trained, '400 steps');
  const lora = Object.fromEntries(
    runFields(run({ finetune: 'lora', lora: { r: 8, alpha: 32, dropout: 0.1, targetModules: ['c_attn'] }, shots: 2, prompt_variant: '2-shot' })));
  assert.equal(lora.LoRA, 'r 8, alpha 32, dropout 0.1, on c_attn');
  assert.equal(lora['prompt variant'], '2-shot');
});

test('the versions recorded with a run include the tokenizer library\'s (its package.json is not exported)', () => {
  assert.match(installedVersion('@huggingface/tokenizers'), /^\d+\.\d+\.\d+/);
  for (const [pkg, v] of Object.entries(studyVersions())) assert.notEqual(v, 'unknown', pkg);
});

test('a run\'s heatmap caption says what its pairs were tested on and their effective n, not only its checkpoints', () => {
  const pair = (representation: 'levels' | 'differences', nEff: number) =>
    ({ a: 'x', b: 'y', r: 0.3, n_eff: nEff, df: nEff - 3, p: 0.1, p_adjusted: 0.2, ci95: [0, 0.5] as [number, number], representation });
  const run = (pairs: ReturnType<typeof pair>[], n = 21) => ({ run: 'r', n, control: 'id', distinct: n, pairs });
  assert.equal(observationsText(run([pair('differences', 11.2), pair('differences', 15.8)]), 'auto'),
    'across 21 checkpoints, on first differences, effective n 11–16');
  assert.equal(observationsText(run([pair('differences', 12), pair('levels', 19)]), 'auto'),
    'across 21 checkpoints, 1 pair on first differences, 1 on levels, effective n 12–19');
  assert.equal(observationsText(run([pair('levels', 21)]), 'levels'), 'across 21 checkpoints, on levels, effective n 21');
  assert.equal(observationsText(run([pair('differences', 9)], 20), 'differences'),
    'across 20 differences between 21 checkpoints, on first differences, effective n 9');
});
