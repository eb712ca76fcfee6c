// The LoRA term's add (simd/add-scaled-kernel.ts) against tfjs's Add and Mul it replaces: the same
// bits in the value and both gradients, at sizes with and without a tail.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../src/engine/index.ts';
import { enableTrainingGradients } from '../../src/engine/builtin/autograd/enable.ts';
import { addScaled } from '../../src/engine/builtin/simd/add-scaled-kernel.ts';

const sameBits = (a: tf.Tensor, b: tf.Tensor) => {
  const [x, y] = [a.dataSync(), b.dataSync()];
  return x.length === y.length && x.every((v, i) => Object.is(v, y[i]));
};

test('addScaled gives tfjs\'s y + t * s and its gradients dy and dy * s, the same bits, with and without a tail', async () => {
  await initBackend();
  enableTrainingGradients();
  for (const [shape, s] of [[[1], 2], [[3, 7], 0.3], [[64, 129], 1 / 3]] as [number[], number][]) {
    tf.tidy(() => {
      const [y, t, dy] = [1, 2, 3].map((seed) => tf.randomNormal(shape, 0, 1, 'float32', seed));
      assert.ok(sameBits(addScaled(y, t, s), tf.add(y, tf.mul(t, s))), `${shape}: the value differs`);
      const grads = (f: (a: tf.Tensor, b: tf.Tensor) => tf.Tensor) => tf.grads((a: tf.Tensor, b: tf.Tensor) => tf.sum(tf.mul(f(a, b), dy)))([y, t]);
      const [fused, plain] = [grads((a, b) => addScaled(a, b, s)), grads((a, b) => tf.add(a, tf.mul(b, s)))];
      assert.ok(sameBits(fused[0], plain[0]) && sameBits(fused[1], plain[1]), `${shape}: a gradient differs`);
    });
  }
});
