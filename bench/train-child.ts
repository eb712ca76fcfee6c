// Child process of bench/train.ts (so its peak memory is measured alone): trains the bench model
// for WARMUP + STEPS optimiser steps with genstudy's optimiserStep and prints JSON.
// Usage: node --import tsx bench/train-child.ts DIR full|lora STEPS BATCH
import fs from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { enginePath, loadModel } from '../src/engine/index.ts';
import { enableTrainingGradients } from '../src/engine/builtin/autograd/enable.ts';
import { LoraAdapters } from '../src/engine/builtin/lora.ts';
import { BuiltinModel } from '../src/engine/builtin/model.ts';
import { Params } from '../src/engine/builtin/params.ts';
import { AdamW, optimiserStep, type TrainSequence } from '../src/train/index.ts';

const [dir, method, stepsArg, batchArg] = process.argv.slice(-4);
const STEPS = Number(stepsArg), BATCH = Number(batchArg), WARMUP = 2;
const ids = JSON.parse(fs.readFileSync(path.join(dir, 'ids.json'), 'utf8')) as number[][];
const seqs: TrainSequence[] = ids.map((r, i) => ({
  exampleId: String(i), ids: r.slice(0, -1), lossPositions: r.slice(0, -1).map((_, j) => j), targets: r.slice(1),
}));
const base = await loadModel(dir);
enableTrainingGradients();
let model = base;
let trainable: Map<string, tf.Variable>;
let adapters: LoraAdapters | undefined;
const noDecay = new Set<string>();
if (method === 'full') {
  trainable = new Map();
  for (const [n, t] of base.params.tensors) {
    trainable.set(n, tf.variable(t, true));
    if (n.endsWith('.bias') || t.rank === 1) noDecay.add(n);
  }
  // As the trainer does (train/trainer.ts): the variables replace the loaded tensors.
  base.params.dispose();
  const params = new Params(trainable as Map<string, tf.Tensor>, false);
  model = new BuiltinModel(base.id, base.dir, base.family, base.arch, params, base.tokenizer, base.config);
} else {
  adapters = LoraAdapters.create(base, { r: 8, alpha: 16, dropout: 0.1, targetModules: [...base.family.loraTargets] }, 1);
  trainable = adapters.namedVariables();
}
const optimizer = new AdamW(trainable, { weightDecay: 0.01, noDecay });
const ctx = { model, trainable, optimizer, adapters, maxGradNorm: 1, seed: 1 };
const batchAt = (s: number) => [seqs.slice((s * BATCH) % seqs.length, (s * BATCH) % seqs.length + BATCH)];
let firstLoss = NaN;
for (let s = 0; s < WARMUP; s++) {
  const r = await optimiserStep(ctx, batchAt(s), s, 1e-4);
  if (s === 0) firstLoss = r.loss;
}
const t0 = performance.now();
const c0 = process.cpuUsage();
let tokens = 0;
for (let s = WARMUP; s < WARMUP + STEPS; s++) tokens += (await optimiserStep(ctx, batchAt(s), s, 1e-4)).tokens;
const wall = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(c0);
console.log(JSON.stringify({
  tokens_per_s: tokens / wall, tokens_per_cpu_s: tokens / ((cpu.user + cpu.system) / 1e6), first_loss: firstLoss,
  peak_rss_mb: process.resourceUsage().maxRSS / 1024, path: enginePath(), tensors: tf.memory().numTensors,
}));
