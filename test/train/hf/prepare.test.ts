// The hf backend's side that needs no Python: what it prepares is what the built-in trainer trains
// on (same calls, same sequences, same order), the settings it refuses, the launch command lines,
// and the SLURM batch script (sbatch itself is absent here).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadModel } from '../../../src/engine/index.ts';
import { studyBTask } from '../../../src/tasks/index.ts';
import { encodeForTraining, runPieces, type TrainOptions } from '../../../src/train/index.ts';
import { stepMicroBatches, totalSteps } from '../../../src/train/order.ts';
import { launchCommand, prepareHfRun, RUNNER, slurmScript, submitSlurm, trainHf } from '../../../src/train/hf/index.ts';
import { ResultStore } from '../../../src/store/result-store.ts';
import type { Example } from '../../../src/types.ts';
import { genstudy } from '../../support/genstudy-in-process.ts';
import { repoRoot, tempDir } from '../helpers.ts';

const model = path.join(repoRoot, 'test/engine/fixtures/opt');
const examples: Example[] = Array.from({ length: 10 },
  (_, i) => ({ id: `e${i}`, fields: { input: `text number ${i}` }, label: i % 3 ? 'negative' : 'positive' }));
const base = (outDir: string): TrainOptions => ({
  model, outDir, task: studyBTask('sentiment'), train: examples, method: 'full', lr: 1e-4, batchSize: 3, gradAccum: 2, epochs: 2, seed: 9,
  demonstrations: { pool: examples, selection: { kind: 'sampled', k: 2, seed: 4 } }, schedule: 'constant', warmupRatio: 0.25,
  checkpoints: { logSpaced: 3 },
});

function readJsonl(file: string): { id: string; input_ids: number[]; loss_positions: number[]; targets: number[] }[] {
  return fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

test('prepared run = the built-in trainer\'s sequences (FTICL, objective, truncation) and its shuffled micro-batch order', async () => {
  const out = tempDir('genstudy-hf-');
  for (const objective of ['label-token', 'supervised'] as const) {
    const o = { ...base(out), objective };
    const p = prepareHfRun(o);
    const m = await loadModel(model);
    const want = encodeForTraining(m.tokenizer, runPieces(o), objective, m.maxLength);
    m.dispose();
    assert.deepEqual(readJsonl(path.join(p.dir, 'sequences.jsonl')).map((s) => [s.id, s.input_ids, s.loss_positions, s.targets]),
      want.map((s) => [s.exampleId, s.ids, s.lossPositions, s.targets]));
    const order = { examples: 10, batchSize: 3, gradAccum: 2, epochs: 2, shuffle: true, seed: 9 };
    const total = totalSteps(order);
    assert.equal(p.totalSteps, total);
    const stream = JSON.parse(fs.readFileSync(path.join(p.dir, 'batches.json'), 'utf8')) as number[][];
    assert.deepEqual(stream, Array.from({ length: total }, (_, s) => stepMicroBatches(order, s).map((b) => b.indices)).flat());
    assert.deepEqual(stream.map((b) => b.length), [3, 3, 3, 1, 3, 3, 3, 1], 'micro-batches never cross an epoch');
    const run = JSON.parse(fs.readFileSync(p.runFile, 'utf8'));
    assert.equal(run.settings.schedule, 'constant_with_warmup');
    assert.equal(run.settings.warmup_steps, 1, 'ceil(0.25 x 4 steps)');
    assert.deepEqual(run.save_steps, [1, 2, 4], 'log-spaced and the end; step 0 is the base model');
    assert.equal(run.settings.grad_accum_per_process, 2);
  }
});

test('settings the Trainer cannot honour are refused before anything is launched', () => {
  const out = tempDir('genstudy-hf-');
  const lora = { ...base(out), method: 'lora' as const, lora: { r: 2, alpha: 4, dropout: 0, targetModules: ['q_proj'] } };
  assert.throws(() => prepareHfRun({ ...lora, mergeLora: true }), /does not write merged\/ models/);
  assert.throws(() => prepareHfRun({ ...base(out), gradAccum: 3, processes: 2 }), /not a multiple of 2 processes/);
  assert.throws(() => prepareHfRun({ ...base(out), batchSize: 4, epochs: 1, gradAccum: 2, processes: 2 }),
    /3 micro-batches, not a multiple of 2 processes/);
  assert.throws(() => prepareHfRun({ ...base(out), trainingArguments: { learning_rate: 1 } }), /learning_rate: genstudy sets these/);
  assert.throws(() => prepareHfRun({ ...base(out), loraInit: out }), /loraInit is for method "lora"/);
  // An earlier run's checkpoints in the folder: other settings are refused, the same ones go on.
  prepareHfRun(base(out));
  fs.mkdirSync(path.join(out, 'checkpoint-2'));
  assert.throws(() => prepareHfRun({ ...base(out), lr: 2e-4 }), /other settings or data/);
  prepareHfRun(base(out));
  prepareHfRun({ ...base(out), lr: 2e-4, resume: false });
});

test('launch command lines: python, accelerate (config file passed through), torchrun', () => {
  assert.deepEqual(launchCommand('/r/run.json', { launcher: 'python', python: 'py' }), ['py', RUNNER, '/r/run.json']);
  assert.deepEqual(launchCommand('/r/run.json', { launcher: 'accelerate', python: 'py', processes: 8, accelerateConfig: '/c/zero3.yaml' }),
    ['py', '-m', 'accelerate.commands.launch', '--config_file', '/c/zero3.yaml', '--num_processes', '8', RUNNER, '/r/run.json']);
  assert.deepEqual(launchCommand('/r/run.json', { launcher: 'torchrun', python: 'py', processes: 4, launcherArgs: ['--master_port', '29600'] }),
    ['py', '-m', 'torch.distributed.run', '--standalone', '--nproc_per_node', '4', '--master_port', '29600', RUNNER, '/r/run.json']);
  assert.throws(() => launchCommand('/r/run.json', { launcher: 'python', processes: 2 }), /runs one process/);
  assert.ok(fs.existsSync(RUNNER), 'runner.py ships beside the module');
});

test('SLURM: the batch script asks for one node with the GPUs and runs accelerate; without sbatch the error says where the script is', () => {
  const text = slurmScript('/r/run.json', { launcher: 'slurm', python: '/env/bin/python', processes: 4, jobName: 'genstudy-a b', logDir: '/r',
    sbatch: ['partition=gpu', '--time=24:00:00'] });
  const lines = text.split('\n');
  assert.equal(lines[0], '#!/bin/bash');
  for (const l of ['#SBATCH --job-name=genstudy-a_b', '#SBATCH --nodes=1', '#SBATCH --gpus-per-node=4', '#SBATCH --output=/r/slurm-%j.out',
    '#SBATCH --partition=gpu', '#SBATCH --time=24:00:00']) {
    assert.ok(lines.includes(l), l);
  }
  assert.ok(lines.includes(`exec /env/bin/python -m accelerate.commands.launch --num_processes 4 ${RUNNER} /r/run.json`));
  const hasSbatch = spawnSync('sh', ['-c', 'command -v sbatch']).status === 0;
  if (hasSbatch) return; // a real cluster: do not submit from a test
  const out = tempDir('genstudy-hf-');
  const p = prepareHfRun(base(out));
  assert.throws(() => submitSlurm(p.runFile, { launcher: 'slurm', jobName: 'x' }), (err: Error) => {
    assert.match(err.message, /sbatch: not found/);
    assert.ok(err.message.includes(path.join(p.dir, 'train.sbatch')));
    return true;
  });
  assert.ok(fs.existsSync(path.join(p.dir, 'train.sbatch')));
});

test('the processes given with the settings alone are those of the prepared batches, the launch and the run\'s record', async () => {
  const out = tempDir('genstudy-hf-processes-');
  const store = ResultStore.open(path.join(out, 'results.sqlite'));
  try {
    const r = await trainHf({ ...base(out), gradAccum: 4, maxSteps: 2, processes: 2, store, run: 'r' }, { launcher: 'slurm', noSubmit: true });
    assert.equal(r.prepared.gradAccumPerProcess, 2);
    assert.match(fs.readFileSync(r.launch.script!, 'utf8'), /^#SBATCH --gpus-per-node=2$/m);
    assert.match(fs.readFileSync(r.launch.script!, 'utf8'), / --num_processes 2 /);
    assert.equal(store.runs().find((x) => x.id === 'r')?.attributes?.processes, 2);
  } finally {
    store.close();
  }
});

test('genstudy train --backend hf --launcher slurm --no-submit writes the script; hf flags without --backend hf are refused', async () => {
  const out = tempDir('genstudy-hf-cli-');
  const r = await genstudy(['train', '--backend', 'hf', '--launcher', 'slurm', '--no-submit', '--processes', '2', '--sbatch', 'partition=gpu',
    '--model', model, '--data', 'synthetic', '--synthetic-size', '12', '--lr', '1e-4', '--steps', '4', '--grad-accum', '2', '--out', out,
    '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const printed = JSON.parse(r.stdout);
  assert.equal(printed.backend, 'hf');
  assert.equal(printed.finished, false);
  assert.equal(printed.steps, 4);
  assert.match(fs.readFileSync(printed.script, 'utf8'), /--gpus-per-node=2/);
  const stray = await genstudy(['train', '--launcher', 'python', '--model', model, '--data', 'synthetic', '--lr', '1e-4', '--out', out]);
  assert.notEqual(stray.code, 0);
  assert.match(stray.stderr, /--launcher: only with --backend hf/);
  const merge = await genstudy(
    ['train', '--backend', 'hf', '--method', 'lora', '--merge', '--model', model, '--data', 'synthetic', '--lr', '1e-4', '--out', tempDir()]);
  assert.notEqual(merge.code, 0);
  assert.match(merge.stderr, /does not write merged/);
});
