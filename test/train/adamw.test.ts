// AdamW, clipping and schedules against PyTorch (golden/make_adamw.py wrote golden/adamw.json).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../src/engine/index.ts';
import { AdamW, clipByGlobalNorm, lrMultiplier, warmupStepsOf } from '../../src/train/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const golden = JSON.parse(fs.readFileSync(path.join(here, 'golden/adamw.json'), 'utf8'));

function close(actual: ArrayLike<number>, expected: number[], tol: number, what: string): void {
  assert.equal(actual.length, expected.length, what);
  for (let i = 0; i < expected.length; i++) {
    assert.ok(Math.abs(actual[i] - expected[i]) <= tol * (1 + Math.abs(expected[i])), `${what}[${i}]: ${actual[i]} vs ${expected[i]}`);
  }
}

for (const schedule of ['linear', 'cosine'] as const) {
  test(`AdamW + clip_grad_norm_ + ${schedule} warmup schedule match PyTorch`, async () => {
    await initBackend();
    const s = golden.settings;
    const run = golden.runs[schedule];
    const w = tf.variable(tf.tensor2d(golden.w0, [3, 4]));
    const b = tf.variable(tf.tensor1d(golden.b0));
    const opt = new AdamW(new Map<string, tf.Variable>([['w', w], ['b', b]]),
      { betas: s.betas, eps: s.eps, weightDecay: s.weight_decay, noDecay: new Set(['b']) });
    for (let step = 0; step < s.steps; step++) {
      const lr = s.lr * lrMultiplier(schedule, step, s.steps, s.warmup);
      assert.ok(Math.abs(lr - run.lrs[step]) < 1e-12, `lr at step ${step}: ${lr} vs ${run.lrs[step]}`);
      const grads = new Map<string, tf.Tensor>([['w', tf.tensor2d(golden.grads[step][0], [3, 4])], ['b', tf.tensor1d(golden.grads[step][1])]]);
      const { norm, scale } = await clipByGlobalNorm(grads, s.max_norm);
      assert.ok(Math.abs(norm - run.grad_norms[step]) < 1e-5 * run.grad_norms[step], `grad norm at step ${step}`);
      opt.step(grads, lr, scale);
      for (const g of grads.values()) g.dispose();
    }
    close(await w.data(), run.w, 1e-5, 'w');
    close(await b.data(), run.b, 1e-5, 'b');
    close(await opt.m.get('w')!.data(), run.exp_avg_w, 1e-5, 'exp_avg');
    close(await opt.v.get('w')!.data(), run.exp_avg_sq_w, 1e-5, 'exp_avg_sq');
    opt.dispose();
    w.dispose();
    b.dispose();
  });
}

test('schedules: warmup ramps from 0, linear ends at 0, constant holds, ratio rounds up', () => {
  assert.equal(lrMultiplier('linear', 0, 10, 4), 0);
  assert.equal(lrMultiplier('constant', 2, 10, 4), 0.5);
  assert.equal(lrMultiplier('constant', 7, 10, 4), 1);
  assert.equal(lrMultiplier('linear', 10, 10, 4), 0);
  assert.equal(lrMultiplier('linear', 4, 10, 4), 1);
  assert.equal(lrMultiplier('cosine', 4, 10, 4), 1);
  assert.equal(warmupStepsOf(95, 0, 0.1), 10);
  assert.equal(warmupStepsOf(95, 3, 0.1), 3);
  assert.throws(() => lrMultiplier('nope' as 'linear', 5, 10, 0), /schedule "nope"/);
});

test('AdamW holds three tensors per parameter after an update (its initial zeros are released)', async () => {
  await initBackend();
  const before = tf.memory();
  const w = tf.tidy(() => tf.variable(tf.ones([64, 32])));
  const opt = new AdamW(new Map([['w', w]]), { weightDecay: 0.01 });
  const g = tf.ones([64, 32]);
  opt.step(new Map([['w', g]]), 1e-3);
  g.dispose();
  // w, m and v: the zeros a variable was made from stayed alive under the first update's new data.
  assert.equal(tf.memory().numTensors - before.numTensors, 3);
  assert.equal(tf.memory().numBytes - before.numBytes, 3 * 64 * 32 * 4);
  opt.dispose();
  w.dispose();
  assert.equal(tf.memory().numBytes, before.numBytes);
});

test('AdamW.step with releaseGradients disposes every gradient it is given, and updates as without', async () => {
  await initBackend();
  const make = () => new Map([['w', tf.tidy(() => tf.variable(tf.ones([8, 4])))], ['b', tf.tidy(() => tf.variable(tf.ones([4])))]]);
  const [kept, released] = [make(), make()];
  const grads = () => new Map<string, tf.Tensor>([['w', tf.fill([8, 4], 0.5)], ['b', tf.fill([4], -2)], ['unknown', tf.ones([3])]]);
  const [g1, g2] = [grads(), grads()];
  const [o1, o2] = [new AdamW(kept, { weightDecay: 0.1 }), new AdamW(released, { weightDecay: 0.1 })];
  o1.step(g1, 1e-2, 0.5);
  o2.step(g2, 1e-2, 0.5, true);
  assert.ok([...g1.values()].every((g) => !g.isDisposed));
  assert.ok([...g2.values()].every((g) => g.isDisposed));
  for (const name of ['w', 'b']) assert.deepEqual(await released.get(name)!.data(), await kept.get(name)!.data());
  for (const g of g1.values()) g.dispose();
  for (const o of [o1, o2]) o.dispose();
  for (const v of [...kept.values(), ...released.values()]) v.dispose();
});

test('clipByGlobalNorm squares one gradient at a time', async () => {
  await initBackend();
  const grads = new Map(Array.from({ length: 8 }, (_, i) => [`g${i}`, tf.randomNormal([256, 256], 0, 1, 'float32', i)] as const));
  const start = tf.memory().numBytes;
  let norm = 0;
  const profile = await tf.profile(async () => { norm = (await clipByGlobalNorm(grads, 1)).norm; });
  // One square (and a few scalars) at a time, where one scope over them all held eight.
  assert.ok(profile.peakBytes - start < 2 * 256 * 256 * 4, `peak ${profile.peakBytes - start} bytes over the gradients`);
  let expected = 0;
  for (const g of grads.values()) for (const x of await g.data()) expected += x * x;
  assert.ok(Math.abs(norm - Math.sqrt(expected)) < 1e-3 * Math.sqrt(expected), `${norm} vs ${Math.sqrt(expected)}`);
  for (const g of grads.values()) g.dispose();
});
