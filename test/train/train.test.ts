// The trainer end to end on tiny models built from scratch for the synthetic suite.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs-core';
import { loadModel } from '../../src/engine/index.ts';
import type { BuiltinModel } from '../../src/engine/index.ts';
import { readSafetensors } from '../../src/engine/hf/safetensors.ts';
import { ResultStore } from '../../src/store/result-store.ts';
import { listCheckpoints, readState, train, type TrainOptions } from '../../src/train/index.ts';
import { maxAbsDiff, smallSuite, tempDir, tinyModelDir } from './helpers.ts';

const rows = [[1, 5, 9, 12, 7, 30, 22], [1, 8, 5, 40]];

async function logits(m: BuiltinModel): Promise<Float32Array[]> {
  return m.logits(rows);
}

test('full fine-tuning from scratch: the loss falls; checkpoints load back with identical logits; the store gets the log', async () => {
  const { suite } = await smallSuite();
  const model = await tinyModelDir('gpt2', { hidden: 32, layers: 2, seed: 2 });
  const out = tempDir();
  const store = ResultStore.open(path.join(out, 'results.sqlite'));
  const live = new Map<number, Float32Array[]>();
  const r = await train({
    model, outDir: out, task: suite.task, train: suite.train, method: 'full', lr: 3e-3, batchSize: 8, maxSteps: 20,
    warmupSteps: 2, weightDecay: 0.01, checkpoints: { every: 10, logSpaced: 3 }, store, run: 'tiny-full', dataName: 'synthetic',
    onCheckpoint: async ({ step, model: m }) => { live.set(step, await logits(m)); },
  });
  assert.equal(r.steps, 20);
  assert.deepEqual(r.checkpoints.map((c) => c.step), [0, 1, 4, 10, 20]);
  const first = r.log.slice(0, 3).reduce((a, e) => a + e.loss, 0) / 3;
  const last = r.log.slice(-3).reduce((a, e) => a + e.loss, 0) / 3;
  assert.ok(last < 0.7 * first, `loss fell from ${first} to ${last}`);
  for (const c of r.checkpoints) {
    const m = await loadModel(c.dir);
    const got = await logits(m);
    m.dispose();
    const want = live.get(c.step)!;
    for (let i = 0; i < rows.length; i++) assert.equal(maxAbsDiff(got[i], want[i]), 0, `checkpoint-${c.step} row ${i}`);
  }
  const log = store.trainingLog('tiny-full');
  assert.equal(log.length, 20);
  assert.ok(log.every((e) => Number.isFinite(e.loss) && e.learningRate! >= 0 && e.gradNorm! > 0 && e.tokensPerSecond! > 0));
  assert.deepEqual(store.checkpoints('tiny-full').map((c) => c.step), [0, 1, 4, 10, 20]);
  assert.equal(store.runs().find((x) => x.id === 'tiny-full')?.method, 'full');
  store.close();
  assert.equal(readState(r.checkpoints.at(-1)!.dir).global_step, 20);
});

test('LoRA: base weights untouched, PEFT files, merged model = base + B A alpha/r', async () => {
  const { suite } = await smallSuite();
  const model = await tinyModelDir('llama', { hidden: 32, layers: 2, seed: 3 });
  const baseBytes = fs.readFileSync(path.join(model, 'model.safetensors'));
  const base = await loadModel(model);
  const baseLogits = await logits(base);
  const out = tempDir();
  const live = new Map<number, { logits: Float32Array[]; base: Map<string, Float32Array> }>();
  const r = await train({
    model, outDir: out, task: suite.task, train: suite.train, method: 'lora', lr: 1e-2, batchSize: 16, maxSteps: 6,
    lora: { r: 4, alpha: 8, dropout: 0.1, targetModules: ['q_proj', 'v_proj', 'o_proj'] }, mergeLora: true, checkpoints: { every: 3 },
    onCheckpoint: async ({ step, model: m }) => {
      const weights = new Map<string, Float32Array>();
      for (const [n, t] of m.params.tensors) weights.set(n, (await t.data()) as Float32Array);
      live.set(step, { logits: await logits(m), base: weights });
    },
  });
  assert.deepEqual(fs.readFileSync(path.join(model, 'model.safetensors')), baseBytes, 'the base folder is unchanged');
  for (const [n, t] of base.params.tensors) {
    assert.equal(maxAbsDiff(live.get(6)!.base.get(n)!, (await t.data()) as Float32Array), 0, `base weight ${n} unchanged in memory`);
  }
  const last = r.checkpoints.at(-1)!.dir;
  const cfg = JSON.parse(fs.readFileSync(path.join(last, 'adapter_config.json'), 'utf8'));
  assert.equal(cfg.peft_type, 'LORA');
  assert.equal(cfg.r, 4);
  assert.equal(cfg.lora_alpha, 8);
  assert.deepEqual(cfg.target_modules, ['o_proj', 'q_proj', 'v_proj']);
  const adapter = readSafetensors(path.join(last, 'adapter_model.safetensors')).tensors;
  assert.equal(adapter.size, 2 * 3 * 2);
  assert.deepEqual(adapter.get('base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight')?.shape, [4, 32]);
  assert.deepEqual(adapter.get('base_model.model.model.layers.1.self_attn.o_proj.lora_B.weight')?.shape, [32, 4]);
  // Step 0: B = 0, the adapted model is the base model.
  for (let i = 0; i < rows.length; i++) assert.ok(maxAbsDiff(live.get(0)!.logits[i], baseLogits[i]) < 1e-6);
  // The merged folder: base + B A alpha / r, checked both against the live adapted model and by hand from the files.
  const merged = await loadModel(path.join(last, 'merged'));
  const mergedLogits = await logits(merged);
  for (let i = 0; i < rows.length; i++) {
    const d = maxAbsDiff(mergedLogits[i], live.get(6)!.logits[i]);
    assert.ok(d < 1e-4, `merged vs adapted logits differ by ${d}`);
    assert.ok(maxAbsDiff(mergedLogits[i], baseLogits[i]) > 1e-4, 'training changed the adapted model');
  }
  const name = 'model.layers.1.self_attn.v_proj';
  const a = adapter.get(`base_model.model.${name}.lora_A.weight`)!;
  const b = adapter.get(`base_model.model.${name}.lora_B.weight`)!;
  const w0 = readSafetensors(path.join(model, 'model.safetensors')).tensors.get(`${name}.weight`)!;
  const wm = readSafetensors(path.join(last, 'merged', 'model.safetensors')).tensors.get(`${name}.weight`)!;
  const expected = tf.tidy(() => tf.add(tf.tensor2d(w0.data, w0.shape as [number, number]),
    tf.mul(tf.matMul(tf.tensor2d(b.data, b.shape as [number, number]), tf.tensor2d(a.data, a.shape as [number, number])), 8 / 4)));
  assert.ok(maxAbsDiff(expected.dataSync(), wm.data) < 1e-6, 'merged weight = W + B A alpha / r');
  expected.dispose();
  base.dispose();
  merged.dispose();
});

test('LoRA and model dropout: a run stopped after a checkpoint and resumed ends with the same adapter as an uninterrupted one', async () => {
  const { suite } = await smallSuite();
  const model = await tinyModelDir('gpt2', { hidden: 32, layers: 1, seed: 4, dropout: 0.1 });
  const opts = (outDir: string): TrainOptions => ({
    model, outDir, task: suite.task, train: suite.train, method: 'lora', lr: 1e-2, batchSize: 8, gradAccum: 2, maxSteps: 6,
    schedule: 'cosine', warmupRatio: 0.2, lora: { r: 2, alpha: 4, dropout: 0.2, targetModules: ['c_attn', 'c_fc'] }, checkpoints: { every: 2 },
  });
  const whole = tempDir();
  await train(opts(whole));
  const broken = tempDir();
  await assert.rejects(train({ ...opts(broken), onStep: (e) => { if (e.step === 3) throw new Error('simulated crash'); } }), /simulated crash/);
  assert.deepEqual(listCheckpoints(broken).map((c) => c.step), [0, 2]);
  const resumed = await train(opts(broken));
  assert.equal(resumed.resumedFrom, 2);
  const file = 'checkpoint-6/adapter_model.safetensors';
  assert.deepEqual(fs.readFileSync(path.join(broken, file)), fs.readFileSync(path.join(whole, file)));
  assert.deepEqual(fs.readFileSync(path.join(broken, 'checkpoint-6/optimizer.safetensors')),
    fs.readFileSync(path.join(whole, 'checkpoint-6/optimizer.safetensors')));
  // Dropout is on (the same run without it ends elsewhere), and the logits of a checkpoint are not dropped out.
  const plain = tempDir();
  await train({ ...opts(plain), modelDropout: false });
  assert.notDeepEqual(fs.readFileSync(path.join(plain, file)), fs.readFileSync(path.join(whole, file)));
  // Other settings in the same folder are refused rather than mixed.
  await assert.rejects(train({ ...opts(broken), lr: 2e-2 }), /belongs to a run with other settings/);
});

test('resuming with another method in the same folder is refused with the checkpoint named', async () => {
  const { suite } = await smallSuite();
  const model = await tinyModelDir('gpt2', { hidden: 16, layers: 1, seed: 6 });
  const out = tempDir();
  await train({ model, outDir: out, task: suite.task, train: suite.train.slice(0, 16), method: 'full', lr: 1e-3, batchSize: 8, maxSteps: 1 });
  await assert.rejects(
    train({ model, outDir: out, task: suite.task, train: suite.train.slice(0, 16), method: 'lora', lr: 1e-3, batchSize: 8, maxSteps: 1,
    lora: { r: 2, alpha: 4, dropout: 0, targetModules: ['c_attn'] } }),
      /checkpoint-1\/trainer_state.json: this checkpoint belongs to a run with other settings or data \(method full, now lora\)/);
});
