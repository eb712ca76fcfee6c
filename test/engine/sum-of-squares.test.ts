// The sum-of-squares kernel (one WebAssembly SIMD pass, float64 accumulators) against a float64 sum
// written out, and global-norm clipping through it: the norm of several gradients, one of them long
// enough that tfjs's float32 running sum was visibly low.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend, sumOfSquares, sumOfSquaresAvailable } from '../../src/engine/index.ts';
import { clipByGlobalNorm } from '../../src/train/index.ts';

function exactSum(x: tf.Tensor): number {
  let s = 0;
  for (const v of x.dataSync()) s += v * v;
  return s;
}

test('sumOfSquares equals the float64 sum at sizes with and without a scalar tail', async (t) => {
  await initBackend();
  if (!sumOfSquaresAvailable()) {
    t.skip(`the kernel needs the wasm backend (this is ${tf.getBackend()})`);
    return;
  }
  for (const n of [0, 1, 3, 4, 5, 8, 17, 1_000_003]) {
    const x = tf.randomNormal([n], 0.3, 2, 'float32', n + 7);
    const [got, want] = [sumOfSquares(x), exactSum(x)];
    assert.ok(Math.abs(got - want) <= 1e-12 * Math.max(1, want), `n = ${n}: ${got} vs ${want}`);
    x.dispose();
  }
  assert.throws(() => sumOfSquares(tf.tensor1d([1, 2], 'int32')), /float32/);
});

test('global-norm clipping measures the norm of all gradients to float64 precision', async (t) => {
  await initBackend();
  if (!sumOfSquaresAvailable()) {
    t.skip(`the kernel needs the wasm backend (this is ${tf.getBackend()})`);
    return;
  }
  const grads = new Map<string, tf.Tensor>([
    ['embedding', tf.randomNormal([3_000_000], 0, 1e-3, 'float32', 1)], ['w', tf.randomNormal([64, 33], 0, 1, 'float32', 2)],
    ['b', tf.randomNormal([7], 0, 1, 'float32', 3)],
  ]);
  const want = Math.sqrt([...grads.values()].reduce((s, g) => s + exactSum(g), 0));
  const clip = await clipByGlobalNorm(grads, 1);
  assert.ok(Math.abs(clip.norm - want) <= 1e-12 * want, `norm ${clip.norm} vs ${want}`);
  assert.ok(Math.abs(clip.scale - 1 / (want + 1e-6)) <= 1e-12, `scale ${clip.scale}`);
  const none = await clipByGlobalNorm(grads, 1000);
  assert.equal(none.scale, 1);
  tf.dispose([...grads.values()]);
});
