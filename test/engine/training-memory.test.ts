// What the backward pass keeps alive (src/engine/builtin/autograd/tape-memory.ts, gradient-sum.ts,
// the native norms' gradients): counted with tf.memory() where the walk ends, by a probe op placed
// first in the forward pass (so walked last), and with tf.profile's peak bytes. No timing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tf from '@tensorflow/tfjs-core';
import { enableTrainingGradients, initBackend } from '../../src/engine/index.ts';
import { fusedOpsAvailable } from '../../src/engine/builtin/native/fused-ops.ts';
import { nativeRmsNormTrainable } from '../../src/engine/builtin/native/training-ops.ts';

/** Live tensors and bytes when the backward walk of `body(probe(x))` reaches its first op, less those before the call. */
function liveAtWalkEnd(x: tf.Variable, body: (h: tf.Tensor) => tf.Tensor): { tensors: number; bytes: number } {
  let atEnd = { tensors: 0, bytes: 0 };
  const probe = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => ({
    value: tf.mul(args[0] as tf.Tensor, 1),
    gradFunc: (dy: tf.Tensor) => {
      atEnd = { tensors: tf.memory().numTensors, bytes: tf.memory().numBytes };
      return tf.mul(dy, 1);
    },
  }));
  const before = tf.memory();
  const { value, grads } = tf.variableGrads(() => tf.sum(body(probe(x) as tf.Tensor)) as tf.Scalar, [x]);
  tf.dispose([value, ...Object.values(grads)]);
  assert.equal(tf.memory().numTensors, before.numTensors, 'the walk leaves nothing behind');
  return { tensors: atEnd.tensors - before.numTensors, bytes: atEnd.bytes - before.numBytes };
}

test('a gradient summed into an earlier one is released during the walk, not kept to its end', async () => {
  await initBackend();
  enableTrainingGradients();
  const x = tf.variable(tf.randomNormal([64, 64], 0, 1, 'float32', 1));
  // Each layer reads h twice (the residual pattern): its two gradients are summed.
  const layers = (n: number) => (h: tf.Tensor) => {
    for (let i = 0; i < n; i++) h = tf.add(h, tf.mul(h, 0.5));
    return h;
  };
  const [few, many] = [liveAtWalkEnd(x, layers(2)), liveAtWalkEnd(x, layers(12))];
  assert.equal(many.tensors, few.tensors, `tensors alive at the walk's end: ${few.tensors} with 2 layers, ${many.tensors} with 12`);
  x.dispose();
});

test('what nodes off the variables\' path saved (dropout masks) is released as they are recorded', async () => {
  await initBackend();
  enableTrainingGradients();
  const x = tf.variable(tf.randomNormal([64, 64], 0, 1, 'float32', 1));
  // Inverted dropout as the engine draws it: the uniform draw, the comparison and the cast depend on
  // no variable, so tfjs never walks them, but it kept what they saved until the whole pass ended.
  const masked = (n: number) => (h: tf.Tensor) => {
    for (let i = 0; i < n; i++) {
      const keep = tf.cast(tf.greaterEqual(tf.randomUniform(h.shape, 0, 1, 'float32', i), 0.1), 'float32');
      h = tf.mul(h, tf.mul(keep, 1 / 0.9));
    }
    return h;
  };
  const [few, many] = [liveAtWalkEnd(x, masked(2)), liveAtWalkEnd(x, masked(12))];
  assert.equal(many.tensors, few.tensors, `tensors alive at the walk's end: ${few.tensors} with 2 masks, ${many.tensors} with 12`);
  x.dispose();
});

test('the native norms\' gradients keep no views of dy or dx to the walk\'s end', async (t) => {
  await initBackend();
  enableTrainingGradients();
  if (!fusedOpsAvailable()) {
    t.skip('the native path is off');
    return;
  }
  const x = tf.variable(tf.randomNormal([8, 16, 64], 0, 1, 'float32', 2));
  const w = tf.tidy(() => tf.ones([64]));
  const norms = (n: number) => (h: tf.Tensor) => {
    for (let i = 0; i < n; i++) h = nativeRmsNormTrainable(h, w, 1e-6);
    return h;
  };
  const [few, many] = [liveAtWalkEnd(x, norms(2)), liveAtWalkEnd(x, norms(12))];
  // Each norm leaves only its weight's gradient (computed whether asked for or not): 256 bytes, where
  // views of dy and dx kept two of x's 32 kB.
  assert.ok(many.bytes - few.bytes <= 10 * 64 * 4, `bytes alive at the walk's end: ${few.bytes} with 2 norms, ${many.bytes} with 12`);
  tf.dispose([x, w]);
});

/** The most bytes `fn` had allocated at once on the wasm heap (through the backend's malloc). */
function wasmHeapPeak(fn: () => void): number {
  const wasm = (tf.backend() as unknown as { wasm: { _malloc(n: number): number; _free(p: number): void } }).wasm;
  const [malloc, free] = [wasm._malloc, wasm._free];
  const sizes = new Map<number, number>();
  let [live, peak] = [0, 0];
  wasm._malloc = (n: number) => {
    const at = malloc(n);
    sizes.set(at, n);
    live += n;
    peak = Math.max(peak, live);
    return at;
  };
  wasm._free = (at: number) => {
    live -= sizes.get(at) ?? 0;
    sizes.delete(at);
    free(at);
  };
  try {
    fn();
  } finally {
    [wasm._malloc, wasm._free] = [malloc, free];
  }
  return peak;
}

test('a tied input\'s gradients are summed without a third tensor of its size, to the right values', async (t) => {
  await initBackend();
  enableTrainingGradients();
  if (tf.getBackend() !== 'wasm') {
    t.skip(`the sum in place is the wasm backend's (this is ${tf.getBackend()})`);
    return;
  }
  const [rows, width] = [4096, 64];
  const w = tf.tidy(() => tf.variable(tf.randomNormal([rows, width], 0, 1, 'float32', 3)));
  const ids = [5, 17, 17, 4000];
  // As a tied embedding: looked up at ids, then the lm head's product with the same matrix.
  const loss = () => tf.sum(tf.matMul(tf.gather(w, tf.tensor1d(ids, 'int32')), w, false, true)) as tf.Scalar;
  let grad: tf.Tensor | undefined;
  const peak = wasmHeapPeak(() => {
    const { value, grads } = tf.variableGrads(loss, [w]);
    value.dispose();
    grad = grads[w.name];
  });
  // Its two gradients (the head's, the lookup's) are alive at once; their sum is not a third.
  const size = rows * width * 4;
  assert.ok(peak < 2.5 * size, `peak ${peak} bytes allocated for a ${size}-byte input`);
  // d/dw[j] of sum_{r, j} w[ids[r]] . w[j]: sum_r w[ids[r]] for every row, plus sum_j w[j] at each id's row.
  const W = await w.data();
  const [picked, all] = [new Float64Array(width), new Float64Array(width)];
  for (const r of ids) for (let c = 0; c < width; c++) picked[c] += W[r * width + c];
  for (let r = 0; r < rows; r++) for (let c = 0; c < width; c++) all[c] += W[r * width + c];
  const got = await grad!.data();
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < width; c++) {
      const want = picked[c] + ids.filter((i) => i === r).length * all[c];
      assert.ok(Math.abs(got[r * width + c] - want) < 1e-2, `[${r}, ${c}]: ${got[r * width + c]} vs ${want}`);
    }
  }
  tf.dispose([w, grad!]);
});
