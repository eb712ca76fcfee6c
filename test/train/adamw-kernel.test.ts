// The engine's AdamW kernel (one WebAssembly SIMD pass over the wasm heap) against the tfjs
// composition it replaces: the same operations in the same order, so the same bits, at sizes with and
// without a scalar tail, with and without weight decay and clipping's scale, and after the heap grows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs-core';
import { adamwKernelAvailable, adamwUpdate, initBackend } from '../../src/engine/index.ts';
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
