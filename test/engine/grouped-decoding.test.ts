// Decoding with a cache for grouped key-value heads (blocks.ts attention): each group of query
// heads attends to its key-value head as one block, the cache never repeated per query head. The
// logits of a decoding step equal the uncached pass's at that position, on the native path and on the
// wasm path, and no step copies the cache per head (tfjs's Tile only repeats the small mask).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend, loadModel } from '../../src/engine/index.ts';
import { nativeMatMulActive, setNativeMatMul } from '../../src/engine/builtin/native/matmul-kernel.ts';
import { tinyModelDir } from '../train/helpers.ts';
import { maxAbsDiff } from './helpers.ts';

test('a decoding step with grouped key-value heads gives the uncached logits and repeats no cache', async () => {
  await initBackend();
  // 4 query heads on 2 key-value heads; wide enough that the native path runs its products in onnxruntime.
  const model = await loadModel(await tinyModelDir('llama', { hidden: 128, layers: 2 }));
  const paths = nativeMatMulActive() ? [true, false] : [false];
  const { heads, kvHeads } = model.arch as unknown as { heads: number; kvHeads: number };
  try {
    assert.ok(kvHeads < heads);
    const prompt = [[3, 9, 4, 7, 5, 8, 2, 6], [4, 4, 9, 3, 7, 1, 5, 2]];
    const next = [[7], [1]];
    const full = prompt.map((p, i) => [...p, ...next[i]]);
    for (const native of paths) {
      setNativeMatMul(native);
      const want = await model.logits(full);
      const keyMask = prompt.map((p) => p.map(() => 1));
      const cache = tf.tidy(() => model.step(prompt, keyMask, 0).cache.map((c) => ({ k: tf.keep(c.k), v: tf.keep(c.v) })));
      const stepMask = keyMask.map((m) => [...m, 1]);
      let logits: Float32Array | undefined;
      const profile = await tf.profile(async () => {
        const out = tf.tidy(() => {
          const { hidden } = model.step(next, stepMask, prompt[0].length, cache);
          return model.logitsOf(tf.reshape(hidden, [-1, hidden.shape[2]]) as tf.Tensor2D);
        });
        logits = (await out.data()) as Float32Array;
        out.dispose();
        return [];
      });
      for (const c of cache) { c.k.dispose(); c.v.dispose(); }
      const vocab = model.arch.vocabSize;
      full.forEach((row, i) => {
        const diff = maxAbsDiff(logits!.subarray(i * vocab, (i + 1) * vocab), want[i].subarray((row.length - 1) * vocab));
        assert.ok(diff < 1e-4, `${native ? 'native' : 'wasm'} path, row ${i}: decoding step vs uncached ${diff}`);
      });
      const maskSize = prompt.length * (heads / kvHeads) * (prompt[0].length + 1);
      for (const k of profile.kernels.filter((x) => x.name === 'Tile')) {
        const size = (k.outputShapes[0] ?? []).reduce((a: number, x: number) => a * x, 1);
        assert.ok(size <= maskSize, `${native ? 'native' : 'wasm'} path: a Tile of ${size} values (the mask has ${maskSize})`);
      }
    }
  } finally {
    setNativeMatMul(true);
    model.dispose();
  }
});
