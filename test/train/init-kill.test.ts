// A process SIGKILLed while a new model folder is being written (train --init, a study's
// from-scratch model) leaves nothing that blocks the next run: the folder appears only complete,
// and the rerun ends with the same model as a run never interrupted. GENSTUDY_PAUSE_AT stops the
// process at the named moment (src/pause-point.ts) so the kill lands there every time. Only the
// killed runs need a process of their own: the others run through main() in the test's process.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from './helpers.ts';
import { genstudy } from '../support/genstudy-in-process.ts';
import { genstudyKilledAt } from '../support/killed-at.ts';
import { tinyStudyYaml } from '../support/tiny-study.ts';

const trainArgs = (out: string) =>
  ['train', '--data', 'synthetic', '--synthetic-size', '16', '--init', 'gpt2', '--init-hidden', '16', '--init-layers', '1',
  '--lr', '1e-3', '--steps', '1', '--batch-size', '4', '--out', out];

test('train --init killed right after the new model\'s weights are written: the rerun starts cleanly and builds the same model', async () => {
  const whole = tempDir();
  const killed = tempDir();
  const [a, b] = await Promise.all([genstudy(trainArgs(whole)), genstudyKilledAt(trainArgs(killed), 'init-model:weights-written')]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.signal, 'SIGKILL', `killed at the pause point: ${b.stderr}`);
  assert.ok(!fs.existsSync(path.join(killed, 'init-model')), 'no init-model folder until it is complete');
  const c = await genstudy(trainArgs(killed));
  assert.equal(c.code, 0, c.stderr);
  for (const f of ['config.json', 'model.safetensors', 'tokenizer.json']) {
    assert.deepEqual(fs.readFileSync(path.join(killed, 'init-model', f)), fs.readFileSync(path.join(whole, 'init-model', f)), f);
  }
  assert.deepEqual(fs.readdirSync(killed).filter((n) => n.includes('.tmp')), [], 'the half-written folder was cleared');
  assert.deepEqual(fs.readFileSync(path.join(killed, 'checkpoint-1', 'model.safetensors')),
    fs.readFileSync(path.join(whole, 'checkpoint-1', 'model.safetensors')));
});

test('genstudy run killed while a from-scratch model is written to models/: the rerun completes', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'tiny.yaml');
  fs.writeFileSync(file, tinyStudyYaml({
    name: 'tiny', trainSize: 16, testSize: 4,
    methods: ['{ name: ft, kind: ft, lr: 0.01, steps: 1, batchSize: 4 }'],
    rest: `checkpoints: { atStart: false }
evaluation:
  testSets: ["synthetic:in-domain"]`,
  }));
  const b = await genstudyKilledAt(['run', file], 'init-model:weights-written');
  assert.equal(b.signal, 'SIGKILL', b.stderr);
  assert.ok(!fs.existsSync(path.join(dir, 'tiny', 'models', 'tiny')), 'no model folder until it is complete');
  const c = await genstudy(['run', file]);
  assert.equal(c.code, 0, c.stderr);
  assert.ok(fs.existsSync(path.join(dir, 'tiny', 'models', 'tiny', 'tokenizer.json')));
  assert.deepEqual(fs.readdirSync(path.join(dir, 'tiny', 'models')), ['tiny'], 'the half-written folder was cleared');
});
