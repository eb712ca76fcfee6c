// The hf backend against the built-in trainer: the same tiny model, data and
// settings (no shuffling, no dropout, float32) give the same loss at every step and the same
// weights at the end, for OPT (byte-level BPE) and a Llama-like model, both objectives, FTICL, full
// fine-tuning and LoRA; a killed launch resumes from its last checkpoint; the SLURM script runs.
// Slow (a Python environment, minutes of training): test/e2e, `npm run test:e2e`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readSafetensors } from '../../src/engine/hf/safetensors.ts';
import { studyBTask } from '../../src/tasks/index.ts';
import { train, type TrainOptions } from '../../src/train/index.ts';
import { prepareHfRun, readLogHistory, runLaunch, submitSlurm, trainHf } from '../../src/train/hf/index.ts';
import type { Example } from '../../src/types.ts';
import { repoRoot, tempDir } from '../train/helpers.ts';
import { hfPython } from './hf-python.ts';

const env = hfPython();
const skip = 'skip' in env ? env.skip : false;
if ('versions' in env) process.stderr.write(`hf parity: torch, transformers, peft, accelerate = ${env.versions}\n`);
const python = 'python' in env ? env.python : '';

const words = ['good', 'bad', 'great', 'awful', 'fine', 'poor', 'nice', 'sad'];
const examples: Example[] = Array.from({ length: 24 }, (_, i) => ({
  id: `e${i}`, fields: { input: `${words[i % 8]} ${words[(i * 3) % 8]} item ${i}` }, label: i % 2 ? 'negative' : 'positive',
}));

type Family = 'opt' | 'llama-variants';
interface Case {
  family: Family; method: 'full' | 'lora'; objective: 'label-token' | 'supervised'; fticl?: 'first-k' | 'sampled';
  /** protocol: official's training settings (docs/studies.md rows 14-15): no clipping, each micro-batch's own mean. */
  official?: boolean;
}

function settings(c: Case, outDir: string): TrainOptions {
  const model = path.join(repoRoot, 'test/engine/fixtures', c.family);
  return {
    model, outDir, task: studyBTask('sentiment'), train: examples, method: c.method, objective: c.objective,
    lora: c.method === 'lora' ? { r: 4, alpha: 8, dropout: 0,
      targetModules: c.family === 'opt' ? ['q_proj', 'v_proj', 'out_proj', 'fc1'] : ['q_proj', 'k_proj', 'o_proj', 'down_proj'] } : undefined,
    demonstrations: c.fticl === undefined ? undefined
      : { pool: examples, selection: c.fticl === 'first-k' ? { kind: 'first-k', k: 1 } : { kind: 'sampled', k: 2, seed: 3 } },
    // batch 3 x 2 micro-batches, warmup, decay, clipping: every mapped setting is exercised. Adam's
    // eps 1e-6 rather than 1e-8: the key biases' gradient is zero in exact arithmetic (softmax does
    // not see a constant added to every score), so both sides hold float noise of ~1e-9 there, which
    // eps 1e-8 would blow up into full-size, noise-signed updates.
    lr: 3e-4, weightDecay: 0.01, warmupSteps: 2, adamEps: 1e-6, batchSize: 3, gradAccum: 2, maxSteps: 10, seed: 5,
    shuffle: false, modelDropout: false, checkpoints: { every: 5 },
    ...(c.official ? { maxGradNorm: 0, lossWeighting: 'micro-batch-mean' as const } : {}),
  };
}

function weightsOf(dir: string, method: 'full' | 'lora'): Map<string, Float32Array> {
  const file = path.join(dir, method === 'lora' ? 'adapter_model.safetensors' : 'model.safetensors');
  return new Map([...readSafetensors(file).tensors].map(([n, t]) => [n, t.data]));
}

function maxWeightDiff(a: Map<string, Float32Array>, b: Map<string, Float32Array>): number {
  assert.deepEqual([...b.keys()].sort(), [...a.keys()].sort(), 'the same tensors');
  let d = 0;
  for (const [n, x] of a) {
    const y = b.get(n)!;
    assert.equal(y.length, x.length, n);
    for (let i = 0; i < x.length; i++) d = Math.max(d, Math.abs(x[i] - y[i]));
  }
  return d;
}

const cases: Case[] = [
  { family: 'opt', method: 'full', objective: 'label-token' },
  { family: 'opt', method: 'lora', objective: 'supervised', fticl: 'first-k' },
  { family: 'llama-variants', method: 'lora', objective: 'label-token', fticl: 'sampled' },
  { family: 'llama-variants', method: 'full', objective: 'supervised' },
  // The Trainer with model_accepts_loss_kwargs off (PyTorch's per-micro-batch mean / accumulation steps,
  // the releases' weighting) against the built-in micro-batch-mean; "positive" and "negative" differ in tokens.
  { family: 'opt', method: 'full', objective: 'supervised', official: true },
];

for (const c of cases) {
  test(`parity: ${c.family}, ${c.method}, ${c.objective}${c.fticl ? `, FTICL ${c.fticl}` : ''}` +
    `${c.official ? ', official (no clipping, micro-batch means)' : ''}: ` +
    'same loss every step and same weights after 10 steps', { skip }, async () => {
    const root = tempDir('genstudy-hf-parity-');
    const builtin = await train(settings(c, path.join(root, 'builtin')));
    // LoRA starts from the built-in trainer's initial adapter (the draws of A differ between RNGs).
    const hf = await trainHf(
      { ...settings(c, path.join(root, 'hf')), loraInit: c.method === 'lora' ? path.join(root, 'builtin/checkpoint-0') : undefined },
      { launcher: 'python', python }, { onOutput: () => undefined });
    assert.deepEqual(hf.log.map((e) => e.step), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const lossDiff = Math.max(...hf.log.map((e, i) => Math.abs(e.loss - builtin.log[i].loss)));
    for (let i = 0; i < 10; i++) {
      const a = builtin.log[i];
      const b = hf.log[i];
      assert.ok(Math.abs(a.loss - b.loss) < 1e-4, `step ${i + 1}: loss ${a.loss} (built-in) vs ${b.loss} (hf)`);
      assert.ok(Math.abs(a.learningRate - b.learningRate) < 1e-12, `step ${i + 1}: lr ${a.learningRate} vs ${b.learningRate}`);
      assert.ok(Math.abs(a.gradNorm - b.gradNorm) < 1e-3 * Math.max(1, a.gradNorm), `step ${i + 1}: grad norm ${a.gradNorm} vs ${b.gradNorm}`);
    }
    assert.deepEqual(hf.checkpoints.map((x) => x.step), [5, 10]);
    const d = maxWeightDiff(weightsOf(path.join(root, 'builtin/checkpoint-10'), c.method), weightsOf(path.join(root, 'hf/checkpoint-10'), c.method));
    process.stderr.write(`hf parity ${c.family} ${c.method} ${c.objective} ${c.fticl ?? ''}${c.official ? ' official' : ''}: ` +
      `max |loss difference| ${lossDiff.toExponential(2)}, max |weight difference| ${d.toExponential(2)}\n`);
    assert.ok(d < 1e-4, `final weights differ by ${d}`);
  });
}

test('a killed hf launch resumes from its last checkpoint and ends as an uninterrupted run', { skip }, async () => {
  const c: Case = { family: 'opt', method: 'lora', objective: 'label-token' };
  const root = tempDir('genstudy-hf-resume-');
  const whole = await trainHf({ ...settings(c, path.join(root, 'whole')), checkpoints: { every: 3 } }, { launcher: 'python', python },
    { onOutput: () => undefined });
  const out = path.join(root, 'killed');
  const o = { ...settings(c, out), checkpoints: { every: 3 } };
  const prepared = prepareHfRun(o);
  const controller = new AbortController();
  const poll = setInterval(() => { if (fs.existsSync(path.join(out, 'checkpoint-3', 'trainer_state.json'))) controller.abort(); }, 50);
  await assert.rejects(runLaunch(prepared.runFile, { launcher: 'python', python }, { signal: controller.signal, onOutput: () => undefined }));
  clearInterval(poll);
  assert.ok(!fs.existsSync(path.join(out, 'checkpoint-10')), 'the launch was stopped before the end');
  let said = '';
  const resumed = await trainHf(o, { launcher: 'python', python }, { onOutput: (s) => { said += s; } });
  assert.match(said, /resuming from .*checkpoint-(3|6|9)/);
  assert.deepEqual(resumed.log.map((e) => e.step), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  for (let i = 0; i < 10; i++) assert.ok(Math.abs(resumed.log[i].loss - whole.log[i].loss) < 1e-6, `step ${i + 1}`);
  const d = maxWeightDiff(weightsOf(path.join(root, 'whole/checkpoint-10'), 'lora'), weightsOf(path.join(out, 'checkpoint-10'), 'lora'));
  assert.ok(d < 1e-6, `resumed weights differ by ${d}`);
});

test('the SLURM batch script runs the Trainer under accelerate launch (sbatch itself is absent here)', { skip }, async () => {
  const c: Case = { family: 'llama-variants', method: 'lora', objective: 'label-token' };
  const root = tempDir('genstudy-hf-slurm-');
  const o = { ...settings(c, path.join(root, 'run')), maxSteps: 4, checkpoints: { every: 2 } };
  const prepared = prepareHfRun(o);
  const written = submitSlurm(prepared.runFile, { launcher: 'slurm', python, jobName: 'parity', noSubmit: true, sbatch: ['partition=gpu'] });
  const text = fs.readFileSync(written.script!, 'utf8');
  assert.match(text, /#SBATCH --partition=gpu/);
  assert.match(text, /-m accelerate\.commands\.launch --num_processes 1 /);
  // What the node would run: the script itself (its #SBATCH lines are comments to bash).
  const r = spawnSync('bash', [written.script!], { encoding: 'utf8', timeout: 10 * 60_000, env: { ...process.env, ACCELERATE_USE_CPU: 'true' } });
  assert.equal(r.status, 0, r.stderr.slice(-2000));
  assert.deepEqual(readLogHistory(path.join(root, 'run')).map((e) => e.step), [1, 2, 3, 4]);
  assert.ok(fs.existsSync(path.join(root, 'run/checkpoint-4/adapter_model.safetensors')));
  assert.ok(fs.existsSync(path.join(root, 'run/checkpoint-4/tokenizer.json')), 'the tokenizer is copied beside each checkpoint');
});

test('parity across 2 processes (torchrun, DDP over gloo on the CPU): an optimiser step\'s micro-batches are spread over ' +
  'the processes', { skip }, async () => {
  const c: Case = { family: 'opt', method: 'lora', objective: 'label-token' };
  const root = tempDir('genstudy-hf-ddp-');
  const builtin = await train(settings(c, path.join(root, 'builtin')));
  // gradAccum 2 over 2 processes: one micro-batch of 3 on each per step, the same 6 examples per step as the built-in trainer.
  // useCpu: without it the Trainer does not set up its process group on a machine without GPUs.
  // The 2-process launch failed once in 9 runs here (2026-12-01, in a fresh clone's CI run, its output
  // not kept; likely torchrun --standalone's rendezvous port, chosen free and bound again later, taken
  // in between). One more try, the first failure's output written out; a second failure fails with its.
  const launch = async () => {
    let output = '';
    return trainHf({ ...settings(c, path.join(root, 'hf')), loraInit: path.join(root, 'builtin/checkpoint-0'), useCpu: true },
      { launcher: 'torchrun', python, processes: 2 }, { onOutput: (chunk) => { output += chunk; } })
      .catch((err: Error) => { throw new Error(`${err.message}\nthe launcher's output:\n${output.slice(-4000)}`); });
  };
  const hf = await launch().catch((err: Error) => {
    process.stderr.write(`first 2-process launch failed; trying once more:\n${err.message}\n`);
    fs.rmSync(path.join(root, 'hf'), { recursive: true, force: true });
    return launch();
  });
  assert.equal(JSON.parse(fs.readFileSync(hf.prepared.runFile, 'utf8')).settings.grad_accum_per_process, 1);
  assert.deepEqual(hf.log.map((e) => e.step), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  for (let i = 0; i < 10; i++)
    assert.ok(Math.abs(builtin.log[i].loss - hf.log[i].loss) < 1e-4, `step ${i + 1}: ${builtin.log[i].loss} vs ${hf.log[i].loss}`);
  const d = maxWeightDiff(weightsOf(path.join(root, 'builtin/checkpoint-10'), 'lora'), weightsOf(path.join(root, 'hf/checkpoint-10'), 'lora'));
  process.stderr.write(`hf parity, 2 processes: max |weight difference| ${d.toExponential(2)}\n`);
  assert.ok(d < 1e-4, `final weights differ by ${d}`);
});
