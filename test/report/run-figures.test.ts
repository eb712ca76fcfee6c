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
import { stepAxis } from '../../src/report/charts.ts';
import { runFields } from '../../src/report/run-summary.ts';
import { installedVersion, studyVersions } from '../../src/pipeline/versions.ts';
import type { ReportRun } from '../../src/report/report-data.ts';

test('the step axis is a log scale for log-spaced checkpoints (the demo\'s) and linear for regular ones', () => {
  const logSpaced = [0, 1, 2, 3, 5, 8, 12, 19, 29, 44, 50, 67, 100, 150, 200, 250, 300, 350, 400];
  assert.equal(stepAxis(logSpaced).logSpaced, true);
  assert.deepEqual(stepAxis(logSpaced).axis.values, [0, 1, 2, 5, 10, 20, 50, 100, 200]);
  assert.equal(stepAxis(Array.from({ length: 30 }, (_, i) => i * 100)).logSpaced, false);
  assert.equal(stepAxis([0, 10, 250]).logSpaced, false, 'too few checkpoints to call log-spaced');
});

test('the residuals drawn correlate to the partial r the analysis reports, on levels and on differences, Pearson and Spearman', () => {
  const rows = simulateScores({ seed: 5, runs: 1, steps: 25 });
  const [series] = buildRunSeries(rows.map((r) => ({ run: r.run, step: r.step, testSet: r.test_set, metric: r.metric, value: r.value, attributes: {}, origin: 'sim' })), 'accuracy');
  for (const method of ['pearson', 'spearman'] as const) {
    for (const differences of [false, true]) {
      const opts: AnalyzeOptions = { ...DEFAULT_OPTIONS, control: 'in-domain', method, representation: differences ? 'differences' : 'levels', inference: 'naive' };
      const run = analyzeRun(series, opts);
      for (const p of run.pairs.slice(0, 4)) {
        const res = pairResiduals(series, p.a, p.b, opts, p.representation)!;
        assert.equal(res.steps.length, differences ? 24 : 25);
        assert.ok(Math.abs(pearson(res.a, res.b)! - p.r!) < 1e-9, `${method} ${differences ? 'differences' : 'levels'} ${p.a}/${p.b}: ${pearson(res.a, res.b)} vs ${p.r}`);
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
  const full = Object.fromEntries(runFields(run({ lr: 0.003, schedule: 'linear', steps: 400, epochs: 3.2, batchSize: 16, gradAccum: 1, trainExamples: 2000, finetune: 'full', prompt_variant: '', shots: 0, lora: null })));
  assert.equal(full.trained, '400 steps = 3.2 epochs');
  assert.equal(full.method, 'ft, full fine-tuning');
  assert.equal(full['learning rate'], '0.003 (linear)');
  assert.equal(full.checkpoints, '3 (steps 0 to 400)');
  for (const k of ['LoRA', 'prompt variant', 'shots']) assert.ok(!(k in full), `${k} is left out`);
  assert.doesNotMatch(JSON.stringify(full), /null|undefined/);
  // A store from before the trainer recorded its steps: its "epochs" was a default a steps-limited run did not do.
  assert.equal(Object.fromEntries(runFields(run({ epochs: 1, maxSteps: 400 }))).trained, '400 steps');
  const lora = Object.fromEntries(runFields(run({ finetune: 'lora', lora: { r: 8, alpha: 32, dropout: 0.1, targetModules: ['c_attn'] }, shots: 2, prompt_variant: '2-shot' })));
  assert.equal(lora.LoRA, 'r 8, alpha 32, dropout 0.1, on c_attn');
  assert.equal(lora['prompt variant'], '2-shot');
});

test('the versions recorded with a run include the tokenizer library\'s (its package.json is not exported)', () => {
  assert.match(installedVersion('@huggingface/tokenizers'), /^\d+\.\d+\.\d+/);
  for (const [pkg, v] of Object.entries(studyVersions())) assert.notEqual(v, 'unknown', pkg);
});
