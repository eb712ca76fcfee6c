// Dropout's keep-mask kernel (one WebAssembly SIMD pass over a counter-based hash) against the same
// hash written in JavaScript, and the masks' statistics: the kept fraction, no correlation between
// neighbouring elements, and masks of different seeds as unrelated as independent draws.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { initBackend } from '../../src/engine/index.ts';
import * as tf from '@tensorflow/tfjs-core';
import { enableTrainingGradients } from '../../src/engine/builtin/autograd/enable.ts';
import { applyDropout, dropoutMask, dropoutMaskValues } from '../../src/engine/builtin/simd/dropout-mask-kernel.ts';

test('the dropout mask kernel gives the JavaScript hash\'s mask at sizes with and without a tail', async () => {
  await initBackend();
  for (const [n, rate, seed] of [[1, 0.1, 5], [7, 0.5, 123_456_789_012], [1_000_003, 0.1, 42], [4096, 0.9, 2 ** 52 + 3]]) {
    const mask = dropoutMask([n], rate, seed);
    const got = mask.dataSync();
    const want = dropoutMaskValues(n, rate, seed);
    const first = got.findIndex((x, i) => x !== want[i]);
    assert.equal(first, -1, `n ${n}, seed ${seed}: element ${first} is ${got[first]}, not ${want[first]}`);
    mask.dispose();
  }
  const shaped = dropoutMask([3, 5, 7], 0.2, 9);
  assert.deepEqual(shaped.shape, [3, 5, 7]);
  shaped.dispose();
  assert.throws(() => dropoutMask([4], 0, 1), /rate/);
  assert.throws(() => dropoutMask([4], 0.1, -1), /seed/);
});

test('applyDropout gives tfjs\'s x * mask and gradient dy * mask, the same bits, with and without a tail', async () => {
  await initBackend();
  enableTrainingGradients();
  for (const [n, rate, seed] of [[1, 0.1, 5], [4099, 0.5, 123_456_789_012], [65_536, 0.1, 42]]) {
    const x = tf.randomNormal([n], 0, 1, 'float32', seed % 1000);
    const dy = tf.randomNormal([n], 0, 1, 'float32', 7);
    const mask = tf.tensor1d(dropoutMaskValues(n, rate, seed));
    const fused = tf.grad((v: tf.Tensor) => tf.sum(tf.mul(applyDropout(v, rate, seed), dy)))(x);
    const plain = tf.grad((v: tf.Tensor) => tf.sum(tf.mul(tf.mul(v, mask), dy)))(x);
    const [y, want] = [applyDropout(x, rate, seed).dataSync(), tf.mul(x, mask).dataSync()];
    assert.ok(y.every((v, i) => Object.is(v, want[i])), `n ${n}: x * mask differs`);
    const [g, wantG] = [fused.dataSync(), plain.dataSync()];
    assert.ok(g.every((v, i) => Object.is(v, wantG[i])), `n ${n}: the gradient differs`);
    tf.dispose([x, dy, mask, fused, plain]);
  }
});

test('dropout masks keep 1 - rate of the elements, scaled, with no pattern between neighbours or seeds', () => {
  const n = 1 << 20;
  for (const rate of [0.1, 0.5]) {
    const a = dropoutMaskValues(n, rate, 1);
    const b = dropoutMaskValues(n, rate, 2);
    const scale = Math.fround(1 / (1 - rate));
    assert.ok(a.every((x) => x === 0 || x === scale), 'values are 0 or 1 / (1 - rate)');
    const keep = (m: Float32Array, i: number) => (m[i] > 0 ? 1 : 0);
    let kept = 0, bothNeighbours = 0, agree = 0;
    for (let i = 0; i < n; i++) {
      kept += keep(a, i);
      if (i > 0) bothNeighbours += keep(a, i) * keep(a, i - 1);
      agree += keep(a, i) === keep(b, i) ? 1 : 0;
    }
    const p = 1 - rate;
    const sd = Math.sqrt(p * (1 - p) / n);
    // Six standard deviations: a fair mask fails one of these about once in 10^8 runs.
    assert.ok(Math.abs(kept / n - p) < 6 * sd, `rate ${rate}: kept ${kept / n}`);
    assert.ok(Math.abs(bothNeighbours / (n - 1) - p * p) < 6 * Math.sqrt(p * p * (1 - p * p) / n) * 2, `neighbours ${bothNeighbours / (n - 1)}`);
    const q = p * p + (1 - p) * (1 - p);
    assert.ok(Math.abs(agree / n - q) < 6 * Math.sqrt(q * (1 - q) / n), `seeds 1 and 2 agree on ${agree / n}`);
  }
  assert.deepEqual(dropoutMaskValues(100, 0.3, 77), dropoutMaskValues(100, 0.3, 77));
});
