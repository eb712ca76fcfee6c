// A report drawn from Hugging Face Trainer run folders shows each run's training loss as a study's
// report does: trainer_state.json's log_history entries with "loss" (and learning_rate, grad_norm)
// are the run's training log. Before, training_log.csv was a header only and no loss curve was drawn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { loadReportInput } from '../../src/report/report-data.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { repoRoot, tempDir } from './helpers.ts';

const fixture = join(repoRoot, 'test/analyze/fixtures/trainer-runs');

/** The loss entries of the file the reader takes per run: the run folder's own, else its latest checkpoint's. */
function lossEntries(file: string): { step: number; loss: number; learning_rate: number; grad_norm: number }[] {
  const state = JSON.parse(readFileSync(file, 'utf8')) as { log_history: Record<string, number>[] };
  return state.log_history.filter((e) => 'loss' in e) as never;
}

test('Trainer folders hand their log_history losses to the report as each run\'s training log', async (t) => {
  const dir = tempDir(t);
  const runs = join(dir, 'runs');
  cpSync(fixture, runs, { recursive: true });
  const expected = {
    'seed-1': lossEntries(join(runs, 'seed-1/trainer_state.json')),
    'seed-2': lossEntries(join(runs, 'seed-2/checkpoint-40/trainer_state.json')),
  };
  assert.ok(expected['seed-1'].length >= 4 && expected['seed-2'].length >= 4, 'the fixture logs the training loss');

  const data = await loadReportInput(runs);
  for (const run of data.runs) {
    const want = expected[run.id as keyof typeof expected];
    assert.deepEqual(run.trainingLog.map((l) => [l.run, l.step, l.loss, l.learningRate, l.gradNorm]),
      want.map((e) => [run.id, e.step, e.loss, e.learning_rate, e.grad_norm]), run.id);
  }

  const out = join(dir, 'report');
  const r = await genstudy(['report', runs, '--control', 'in_domain', '--metric', 'accuracy', '--out', out, '--calibration', '0', '--no-robustness']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /training log from log_history's "loss" entries \(\d+\)/);
  const log = parse(readFileSync(join(out, 'training_log.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
  assert.equal(log.length, expected['seed-1'].length + expected['seed-2'].length);
  assert.deepEqual([...new Set(log.map((l) => l.run))], ['seed-1', 'seed-2']);
  assert.equal(Number(log[0].loss), expected['seed-1'][0].loss);
});
