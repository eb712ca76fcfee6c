// The engine's AdamW kernel (one WebAssembly SIMD pass over the wasm heap) against the tfjs
// composition it replaces: the same operations in the same order, so the same bits, at sizes with and
// without a scalar tail, with and without weight decay and clipping's scale, and after the heap grows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs-core';
import { adamwKernelAvailable, adamwUpdate, adamwUpdateInPlace, initBackend } from '../../src/engine/index.ts';
import { adamwComposition } from '../../src/train/adamw.ts';

function constants(lr: number, decay: number, t: number, gradScale: number): number[] {
  const [b1, b2] = [0.9, 0.999];
  return [1 - lr * decay, b1, 1 - b1, b2, 1 - b2, Math.sqrt(1 - b2 ** t), 1e-8, lr / (1 - b1 ** t), gradScale];
}

function firstDifference(a: tf.Tensor[], b: tf.Tensor[]): string | undefined {
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i].dataSync(), b[i].dataSync()];
    for (let j = 0; j < x.length; j++) {
      if (!Object.is(x[j], y[j])) return `output ${i}, element ${j}: ${x[j]} vs ${y[j]}`;
    }
  }
  return undefined;
}

test('the AdamW kernel gives the bits of the tfjs composition', async (t) => {
  await initBackend();
  if (!adamwKernelAvailable()) {
    t.skip(`the AdamW kernel needs the wasm backend (this is ${tf.getBackend()})`);
    return;
  }
  const cases: [number, number[]][] = [
    [1, constants(1e-3, 0.1, 1, 1)], [3, constants(1e-3, 0.1, 2, 0.37)], [4, constants(5e-4, 0, 3, 1)],
    [7, constants(2e-2, 0.01, 10, 0.5)], [150_001, constants(1e-4, 0.01, 3, 0.83)], [65_536, constants(1e-4, 0, 1000, 1)],
  ];
  let grown: tf.Tensor | undefined;
  for (const [n, k] of cases) {
    tf.tidy(() => {
      const p = tf.randomNormal([n], 0, 1, 'float32', n + 1);
      const g = tf.randomNormal([n], 0, 3, 'float32', n + 2);
      const m = tf.randomNormal([n], 0, 0.1, 'float32', n + 3);
      const v = tf.abs(tf.randomNormal([n], 0, 0.01, 'float32', n + 4));
      const diff = firstDifference(adamwUpdate(p, g, m, v, k), adamwComposition(p, g, m, v, k));
      assert.equal(diff, undefined, `n = ${n}: ${diff}`);
    });
    // The heap grows between calls at least once (the kernel reads the same memory, resized).
    grown ??= tf.zeros([16_000_000]);
  }
  grown?.dispose();
});

test('the AdamW kernel refuses tensors of different sizes', async (t) => {
  await initBackend();
  if (!adamwKernelAvailable()) {
    t.skip(`the AdamW kernel needs the wasm backend (this is ${tf.getBackend()})`);
    return;
  }
  const [p, g] = [tf.zeros([8]), tf.zeros([7])];
  assert.throws(() => adamwUpdate(p, g, p, p, constants(1e-3, 0, 1, 1)), /one size/);
  tf.dispose([p, g]);
});

test('the AdamW kernel in place: the bits of the update, no new tensors, and products read the new values', async (t) => {
  await initBackend();
  if (!adamwKernelAvailable()) {
    t.skip(`the AdamW kernel needs the wasm backend (this is ${tf.getBackend()})`);
    return;
  }
  // [32, 8]: a product x p this small runs on the wasm kernel, whose XNNPACK operator packs p's values
  // once and is cached under p's tensor id.
  const [p, g, m, v] = [[32, 8], [32, 8], [32, 8], [32, 8]].map((shape, i) =>
    tf.tidy(() => tf.variable(i === 3 ? tf.abs(tf.randomNormal(shape, 0, 0.01, 'float32', 9)) : tf.randomNormal(shape, 0, 1, 'float32', i + 5))));
  const x = tf.randomNormal([2, 32], 0, 1, 'float32', 4);
  const k = constants(1e-1, 0.1, 1, 0.5);
  const before = tf.tidy(() => tf.matMul(x, p));
  const expected = adamwUpdate(p, g, m, v, k);
  const ids = [p, m, v].map((t) => t.dataId);
  const count = tf.memory().numTensors;
  assert.equal(adamwUpdateInPlace(p, g, m, v, k), true);
  assert.equal(tf.memory().numTensors, count);
  assert.deepEqual([p, m, v].map((t) => t.dataId), ids);
  assert.equal(firstDifference([p, m, v], expected), undefined);
  // Without the wasm backend forgetting p's cached operator, this product used the old values.
  const after = tf.tidy(() => tf.matMul(x, p));
  const fresh = tf.tidy(() => tf.matMul(x, tf.add(p, 0)));
  assert.equal(firstDifference([after], [fresh]), undefined);
  assert.notEqual(firstDifference([after], [before]), undefined);
  tf.dispose([p, g, m, v, x, before, after, fresh, ...expected]);
});

test('the AdamW kernel does not write in place over data another tensor shares', async (t) => {
  await initBackend();
  if (!adamwKernelAvailable()) {
    t.skip(`the AdamW kernel needs the wasm backend (this is ${tf.getBackend()})`);
    return;
  }
  const shared = tf.ones([16]);
  const p = tf.variable(shared);
  const [g, m, v] = [tf.ones([16]), tf.zeros([16]), tf.zeros([16])];
  assert.equal(adamwUpdateInPlace(p, g, m, v, constants(1e-1, 0, 1, 1)), false);
  assert.deepEqual([...shared.dataSync()], new Array(16).fill(1));
  tf.dispose([shared, p, g, m, v]);
});
