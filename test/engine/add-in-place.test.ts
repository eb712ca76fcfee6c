// The SIMD in-place add (src/engine/builtin/simd/add-in-place-kernel.ts) against tfjs's Add: the same
// bits, with and without a scalar tail, special values included.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../src/engine/index.ts';
import { addInPlace } from '../../src/engine/builtin/simd/add-in-place-kernel.ts';

test('addInPlace gives the bits of tfjs\'s Add', async (t) => {
  await initBackend();
  if (tf.getBackend() !== 'wasm') {
    t.skip(`the kernel works on the wasm backend's heap (this is ${tf.getBackend()})`);
    return;
  }
  const specials = [NaN, Infinity, -Infinity, -0, 0, 1e-45, -1e-45, 3.4e38, 1e-38];
  for (const n of [1, 3, 4, 7, 64, 150_001]) {
    tf.tidy(() => {
      const a = tf.randomNormal([n], 0, 1e3, 'float32', n);
      const b = tf.randomNormal([n], 0, 1, 'float32', n + 1);
      const [av, bv] = [a.dataSync() as Float32Array, b.dataSync() as Float32Array];
      specials.forEach((s, i) => { if (i < n) { av[i] = s; bv[n - 1 - i] = specials[(i + 3) % specials.length]; } });
      const [x, y] = [tf.tensor1d(av), tf.tensor1d(bv)];
      const want = tf.add(x, y).dataSync();
      addInPlace(tf.backend(), x, y);
      const got = x.dataSync();
      for (let i = 0; i < n; i++) assert.ok(Object.is(got[i], want[i]), `n = ${n}, element ${i}: ${got[i]} vs ${want[i]}`);
    });
  }
});
