// lm-evaluation-harness 0.4.12 and later write their own bookkeeping beside every task's scores:
// "name", "alias" and "sample_len" (the examples scored), and a group's "sample_count" per metric
// (lm_eval/evaluator_utils.py _collect_results, lm_eval/api/group.py aggregate). sample_len is a
// number and was read as a metric, landing in the scores; it is left out, with one note counting
// and naming what was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readScoreInput } from '../../src/analyze/read-scores.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { tempDir } from './helpers.ts';

const STEPS = [0, 100, 200, 300, 400, 500];
const TASKS = ['mmlu_anatomy', 'mmlu_virology', 'hans'];

/** One results file per checkpoint, shaped as lm-eval 0.4.12's EvalAcc._to_eval_results writes it. */
function writeLmEval0412(dir: string): void {
  STEPS.forEach((step, i) => {
    const task = (name: string, acc: number, n: number) => ({
      name, alias: name, sample_len: n, 'acc,none': acc, 'acc_stderr,none': 0.01,
    });
    const results: Record<string, unknown> = {
      mmlu: { name: 'mmlu', alias: 'mmlu', sample_len: 270, 'acc,none': 0.3 + 0.01 * i, 'acc_stderr,none': 0.02,
        sample_count: { 'acc,none': 270 } },
      mmlu_anatomy: task(' - anatomy', 0.25 + 0.02 * i, 135),
      mmlu_virology: task(' - virology', 0.35 + 0.01 * (i % 3), 135),
      hans: task('hans', 0.5 + 0.015 * ((i * 7) % 5), 30000),
    };
    const folder = join(dir, `__scratch__me__runs__pythia-410m__checkpoint-${step}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'results_2026-12-01T00-00-00.json'), JSON.stringify({
      results,
      groups: { mmlu: results.mmlu },
      group_subtasks: { mmlu: ['mmlu_anatomy', 'mmlu_virology'], hans: [] },
      'n-samples': Object.fromEntries(TASKS.map((t) => [t, { original: 30000, effective: 135 }])),
      config: { model: 'hf', model_args: `pretrained=/scratch/me/runs/pythia-410m/checkpoint-${step}` },
      model_name: `/scratch/me/runs/pythia-410m/checkpoint-${step}`,
      lm_eval_version: '0.4.12',
    }, null, 2));
  });
}

test('lm-eval 0.4.12\'s sample_len and sample_count are not scores: left out, counted and named in one note', async (t) => {
  const dir = tempDir(t);
  writeLmEval0412(dir);
  const reading = await readScoreInput(dir);
  assert.deepEqual([...new Set(reading.rows.map((r) => r.metric))], ['acc'], 'only the scores are read');
  assert.equal(reading.rows.length, STEPS.length * 4);
  const notes = reading.notes.filter((n) => /not scores/.test(n));
  assert.equal(notes.length, 1, reading.notes.join('\n'));
  // 4 tasks' sample_len per file, and the group's sample_count; the labels (name, alias) are not named
  assert.match(notes[0],
    new RegExp(`^${STEPS.length * 5} field\\(s\\) in "results" that are not scores left out: sample_len \\(${STEPS.length * 4}\\), ` +
    `sample_count \\(${STEPS.length}\\) .*first at .*checkpoint-0/results_2026-12-01T00-00-00\\.json, field "results\\.mmlu\\["sample_len"\\]"\\)$`));
  assert.doesNotMatch(notes[0], /alias|name \(/);

  const dry = await genstudy(['analyze', dir, '--control', 'hans', '--dry-run']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /metrics acc(;|$)/m, 'the reading line lists acc alone');
  assert.match(dry.stdout, /^note: 30 field\(s\) in "results" that are not scores left out: sample_len \(24\)/m);
});

test('a score\'s "<metric>,<filter>" key holding text is named in the same note, not silently skipped', async (t) => {
  const dir = tempDir(t);
  const folder = join(dir, '__scratch__me__runs__opt-125m__checkpoint-10');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'results_2026-12-01T00-00-00.json'), JSON.stringify({
    results: { hans: { alias: 'hans', 'acc,none': 0.5, 'acc_stderr,none': 'N/A', 'bleu,none': 'N/A' } },
    lm_eval_version: '0.4.12',
  }));
  const reading = await readScoreInput(dir);
  assert.deepEqual(reading.rows.map((r) => r.metric), ['acc']);
  assert.ok(reading.notes.some((n) => /^1 field\(s\) in "results" that are not scores left out: bleu,none \(1\)/.test(n)), reading.notes.join('\n'));
});
