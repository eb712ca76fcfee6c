// Smaller pieces of the trainer: initModel, gradient accumulation, LoRA target matching, the
// checkpoint policy, the data order.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs-core';
import { defaultLoraTargetsOf, loadModel, LoraAdapters } from '../../src/engine/index.ts';
import { enableTrainingGradients } from '../../src/engine/builtin/autograd/enable.ts';
import { readSafetensors } from '../../src/engine/hf/safetensors.ts';
import { AdamW, checkpointSteps, loraTargets, optimiserStep, type TrainSequence } from '../../src/train/index.ts';
import { stepMicroBatches, totalSteps } from '../../src/train/order.ts';
import { BuiltinModel } from '../../src/engine/builtin/model.ts';
import { Params } from '../../src/engine/builtin/params.ts';
import { TrainingContext } from '../../src/engine/builtin/training-context.ts';
import { maxAbsDiff, repoRoot, tempDir, tinyModelDir } from './helpers.ts';

test('initModel: same seed, same bytes; transformers-style initialisation; loads with the engine', async () => {
  const a = await tinyModelDir('gpt2', { hidden: 32, layers: 2, seed: 9 });
  const b = await tinyModelDir('gpt2', { hidden: 32, layers: 2, seed: 9 });
  assert.deepEqual(fs.readFileSync(path.join(a, 'model.safetensors')), fs.readFileSync(path.join(b, 'model.safetensors')));
  const w = readSafetensors(path.join(a, 'model.safetensors')).tensors;
  const std = (x: Float32Array) => Math.sqrt(x.reduce((s, v) => s + v * v, 0) / x.length);
  assert.ok(Math.abs(std(w.get('transformer.h.0.mlp.c_fc.weight')!.data) - 0.02) < 0.002);
  assert.ok(Math.abs(std(w.get('transformer.h.0.mlp.c_proj.weight')!.data) - 0.02 / Math.sqrt(4)) < 0.001,
    'residual projections scaled by 1/sqrt(2 n_layer)');
  assert.ok(w.get('transformer.h.0.ln_1.weight')!.data.every((v) => v === 1));
  assert.ok(w.get('transformer.h.0.attn.c_attn.bias')!.data.every((v) => v === 0));
  const m = await loadModel(a);
  assert.equal(m.arch.layers, 2);
  m.dispose();
});

test('gradient accumulation: two micro-batches of 2 make the same update as one batch of 4', async () => {
  enableTrainingGradients();
  const base = await loadModel(await tinyModelDir('gpt2', { hidden: 16, layers: 1 }));
  const seqs: TrainSequence[] = [[1, 5, 9, 7], [1, 8, 5, 40, 41], [1, 30], [1, 22, 23, 24]].map((ids, i) => ({
    exampleId: String(i), ids, lossPositions: ids.map((_, j) => j), targets: ids.map((t) => (t + 3) % 60),
  }));
  const after = async (batches: TrainSequence[][]) => {
    const vars = new Map<string, tf.Variable>();
    for (const [n, t] of base.params.tensors) vars.set(n, tf.variable(tf.clone(t), true));
    const model = new BuiltinModel(base.id, base.dir, base.family, base.arch, new Params(vars as Map<string, tf.Tensor>, false),
      base.tokenizer, base.config);
    const optimizer = new AdamW(vars, { weightDecay: 0.1 });
    const r = await optimiserStep({ model, trainable: vars, optimizer, maxGradNorm: 0.5, seed: 1 }, batches, 0, 1e-2);
    const w = (await vars.get('transformer.h.0.attn.c_attn.weight')!.data()) as Float32Array;
    optimizer.dispose();
    for (const v of vars.values()) v.dispose();
    return { ...r, w };
  };
  const one = await after([seqs]);
  const two = await after([seqs.slice(0, 2), seqs.slice(2)]);
  assert.ok(Math.abs(one.loss - two.loss) < 1e-5, `loss ${one.loss} vs ${two.loss}`);
  assert.ok(Math.abs(one.gradNorm - two.gradNorm) < 1e-5 * one.gradNorm);
  assert.ok(maxAbsDiff(one.w, two.w) < 1e-6);
  assert.equal(one.tokens, two.tokens);
  base.dispose();
});

test('LoRA targets: PEFT suffix matching on GPT-2, Llama and OPT; unknown names are refused', async () => {
  const gpt2 = await loadModel(await tinyModelDir('gpt2', { hidden: 16, layers: 2 }));
  assert.deepEqual(loraTargets(gpt2, ['c_proj']).map((t) => t.module), [
    'transformer.h.0.attn.c_proj', 'transformer.h.0.mlp.c_proj', 'transformer.h.1.attn.c_proj', 'transformer.h.1.mlp.c_proj']);
  assert.deepEqual(loraTargets(gpt2, ['c_attn'])[0], {
    module: 'transformer.h.0.attn.c_attn', weight: 'transformer.h.0.attn.c_attn.weight', inFeatures: 16, outFeatures: 48, conv1d: true,
  });
  assert.throws(() => loraTargets(gpt2, ['q_proj']), /"q_proj" match no linear layer of this gpt2 model; its linear layers are c_attn, c_proj, c_fc/);
  const opt = await loadModel(path.join(repoRoot, 'test/engine/fixtures/opt'));
  const t = loraTargets(opt, ['q_proj', 'out_proj']);
  assert.ok(t.some((x) => x.module === 'model.decoder.layers.0.self_attn.out_proj'));
  assert.ok(t.every((x) => /self_attn\.(q_proj|out_proj)$/.test(x.module) && !x.conv1d));
  gpt2.dispose();
  opt.dispose();
});

test('LoRA defaults per family: the target modules when none are named, and fan_in_fan_out for Conv1D layers as PEFT saves it', async () => {
  const dirs = {
    gpt2: await tinyModelDir('gpt2', { hidden: 16, layers: 1 }),
    opt: path.join(repoRoot, 'test/engine/fixtures/opt'),
    llama: await tinyModelDir('llama', { hidden: 16, layers: 1 }),
  };
  const expected = {
    gpt2: { targets: ['c_attn', 'c_proj'], fanInFanOut: true },
    opt: { targets: ['q_proj', 'k_proj', 'v_proj', 'out_proj'], fanInFanOut: false },
    llama: { targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj'], fanInFanOut: false },
  };
  for (const [kind, dir] of Object.entries(dirs) as [keyof typeof expected, string][]) {
    const targets = defaultLoraTargetsOf(dir);
    assert.deepEqual(targets, expected[kind].targets, kind);
    const base = await loadModel(dir);
    const adapters = LoraAdapters.create(base, { r: 2, alpha: 4, dropout: 0, targetModules: targets }, 1);
    const out = tempDir();
    await adapters.save(out, dir);
    const cfg = JSON.parse(fs.readFileSync(path.join(out, 'adapter_config.json'), 'utf8'));
    assert.equal(cfg.fan_in_fan_out, expected[kind].fanInFanOut, kind);
    assert.deepEqual(cfg.target_modules, [...targets].sort(), kind);
    adapters.dispose();
    base.dispose();
  }
  // A model type the built-in engine does not implement (trained by transformers) gets the usual attention names.
  const other = tempDir();
  fs.writeFileSync(path.join(other, 'config.json'), JSON.stringify({ model_type: 'mistral' }));
  assert.deepEqual(defaultLoraTargetsOf(other), ['q_proj', 'k_proj', 'v_proj', 'o_proj']);
});

test('checkpoint policy and data order', () => {
  assert.deepEqual(checkpointSteps({}, 10), [0, 10]);
  assert.deepEqual(checkpointSteps({ every: 4, atStart: false }, 10), [4, 8, 10]);
  assert.deepEqual(checkpointSteps({ logSpaced: 4, atEnd: false, atStart: false }, 1000), [1, 10, 100, 1000]);
  const o = { examples: 10, batchSize: 4, gradAccum: 2, epochs: 2, shuffle: true, seed: 3 };
  assert.equal(totalSteps(o), 3); // 3 micro-batches per epoch, 6 in all, 2 per step
  const seen = [0, 1, 2].flatMap((s) => stepMicroBatches(o, s)).flatMap((m) => m.indices);
  assert.equal(seen.length, 20);
  assert.deepEqual([...seen.slice(0, 10)].sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.notDeepEqual(seen.slice(0, 10), seen.slice(10), 'each epoch has its own order');
  assert.deepEqual(stepMicroBatches({ ...o, shuffle: false }, 0).map((m) => m.indices), [[0, 1, 2, 3], [4, 5, 6, 7]]);
  assert.equal(totalSteps({ ...o, maxSteps: 7 }), 7);
});

test('model dropout: the identity outside training; inverted dropout at the configured rate while the trainer starts it', async () => {
  const training = new TrainingContext();
  const x = tf.ones([100, 100]);
  assert.equal(training.dropout(x, 0.1), x);
  training.startDropout(5);
  const y = (await training.dropout(x, 0.1).data()) as Float32Array;
  training.startDropout(5);
  const again = (await training.dropout(x, 0.1).data()) as Float32Array;
  const next = (await training.dropout(x, 0.1).data()) as Float32Array;
  training.stopDropout();
  assert.equal(training.dropout(x, 0.1), x);
  const zeros = y.filter((v) => v === 0).length;
  assert.ok(zeros > 800 && zeros < 1200, `${zeros} of 10000 dropped at rate 0.1`);
  assert.ok(y.every((v) => v === 0 || Math.abs(v - 1 / 0.9) < 1e-6));
  assert.deepEqual(again, y, 'the same seed and call number give the same mask');
  assert.notDeepEqual(next, y, 'each call draws its own mask');
  x.dispose();
});
