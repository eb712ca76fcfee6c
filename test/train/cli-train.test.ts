// genstudy train as a user runs it (its command line through main(), as the bin runs it): a tiny model
// from scratch on the synthetic suite, LoRA, a results store; run again, it resumes and finds nothing
// left to do; bad flags give one clear line.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ResultStore } from '../../src/store/result-store.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { tempDir } from './helpers.ts';

test('genstudy train --data synthetic --init gpt2 --method lora writes PEFT checkpoints, logs to the store, and resumes', async () => {
  const out = tempDir();
  const args = ['train', '--data', 'synthetic', '--synthetic-size', '64', '--init', 'gpt2', '--init-hidden', '16', '--init-layers', '1',
    '--method', 'lora', '--lora-r', '2', '--lora-alpha', '4', '--lr', '1e-2', '--steps', '4', '--batch-size', '8', '--save-every', '2',
    '--merge', '--out', out, '--store', path.join(out, 'results.sqlite'), '--run', 'cli-lora', '--format', 'json'];
  const r = await genstudy(args);
  assert.equal(r.code, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  assert.equal(summary.steps, 4);
  assert.deepEqual(summary.checkpoints.map((d: string) => path.basename(d)), ['checkpoint-0', 'checkpoint-2', 'checkpoint-4']);
  assert.match(r.stderr, /train: step 4\/4/);
  for (const f of ['adapter_config.json', 'adapter_model.safetensors', 'optimizer.safetensors', 'trainer_state.json', 'merged/model.safetensors']) {
    assert.ok(fs.existsSync(path.join(out, 'checkpoint-4', f)), f);
  }
  const store = ResultStore.open(path.join(out, 'results.sqlite'));
  assert.equal(store.trainingLog('cli-lora').length, 4);
  store.close();
  const again = await genstudy(args);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(JSON.parse(again.stdout).resumedFrom, 4);
});

test('genstudy train: missing data and bad numbers are one clear line, exit code 2', async () => {
  const out = tempDir();
  const a = await genstudy(['train', '--init', 'gpt2', '--lr', '1e-3', '--out', out]);
  assert.equal(a.code, 2);
  assert.match(a.stderr, /required option '--data <spec>' not specified/);
  const b = await genstudy(['train', '--data', 'synthetic', '--synthetic-size', '8', '--init', 'gpt2', '--init-hidden', '8', '--lr', '1e-3',
    '--batch-size', 'x', '--out', path.join(out, 'fresh')]);
  assert.equal(b.code, 2);
  assert.match(b.stderr, /--batch-size x: expected a whole number >= 1/);
  assert.ok(!fs.existsSync(path.join(out, 'fresh')), 'a bad value is found before anything is written');
  const c = await genstudy(['train', '--data', 'synthetic', '--init', 'gpt2', '--lr', '1e-3', '--task', 'study-c', '--out', out]);
  assert.equal(c.code, 2);
  assert.match(c.stderr, /--task study-c: not a preset \(study-a, study-b\/summary, .*synthetic\) and not a task spec file/);
  // A model too large to allocate: its size, before any allocation (was a RangeError and a stack trace).
  const d = await genstudy(['train', '--data', 'synthetic', '--synthetic-size', '8', '--init', 'gpt2', '--init-hidden', '100000', '--lr', '1e-3',
    '--out', path.join(out, 'big')]);
  assert.equal(d.code, 2, d.stderr);
  assert.match(d.stderr, /the model to initialise \(.*n_embd 100000.*\): tensor .* more than one tensor can hold/);
  assert.ok(!fs.existsSync(path.join(out, 'big', 'init-model')), 'no model folder for a model that was never made');
});
