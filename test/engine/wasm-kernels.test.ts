// The replacement Slice/SplitV kernels (src/engine/builtin/wasm-kernels.ts) against a naive index loop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../src/engine/index.ts';

function naiveSlice(data: Float32Array, shape: number[], begin: number[], size: number[]): number[] {
  const strides = shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
  const out: number[] = [];
  const idx = new Array(shape.length).fill(0);
  const total = size.reduce((a, b) => a * b, 1);
  for (let n = 0; n < total; n++) {
    out.push(data[idx.reduce((off, i, d) => off + (begin[d] + i) * strides[d], 0)]);
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++idx[d] < size[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

test('slice and split equal a naive index loop on ranks 1-5, every axis, int32 too', async () => {
  await initBackend();
  let seed = 3;
  const rand = (n: number) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  for (let c = 0; c < 200; c++) {
    const rank = 1 + rand(5);
    const shape = Array.from({ length: rank }, () => 1 + rand(5));
    const data = Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => i + 0.5);
    const begin = shape.map((n) => rand(n));
    const size = shape.map((n, d) => 1 + rand(n - begin[d]));
    const x = tf.tensor(data, shape);
    const s = tf.slice(x, begin, size);
    assert.deepEqual(s.shape, size);
    assert.deepEqual(Array.from(s.dataSync()), naiveSlice(data, shape, begin, size), `slice ${JSON.stringify({ shape, begin, size })}`);
    const axis = rand(rank);
    const parts = tf.split(x, shape[axis], axis);
    parts.forEach((part, i) => {
      const b = new Array(rank).fill(0); b[axis] = i;
      const sz = [...shape]; sz[axis] = 1;
      assert.deepEqual(Array.from(part.dataSync()), naiveSlice(data, shape, b, sz), `split axis ${axis} part ${i} of ${JSON.stringify(shape)}`);
    });
    tf.dispose([x, s, ...parts]);
  }
  const ints = tf.tensor2d([[1, 2, 3], [4, 5, 6]], undefined, 'int32');
  const col = tf.slice(ints, [0, 1], [2, 1]);
  assert.equal(col.dtype, 'int32');
  assert.deepEqual(Array.from(col.dataSync()), [2, 5]);
  tf.dispose([ints, col]);
});

test('gather equals a naive index loop on ranks 1-4, every axis, index tensors of rank 1-2, int32 too; a bad index is an error', async () => {
  await initBackend();
  let seed = 5;
  const rand = (n: number) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  for (let c = 0; c < 150; c++) {
    const rank = 1 + rand(4);
    const shape = Array.from({ length: rank }, () => 1 + rand(5));
    const size = shape.reduce((a, b) => a * b, 1);
    const dtype = c % 3 === 0 ? 'int32' : 'float32';
    const data = Array.from({ length: size }, (_, i) => (dtype === 'int32' ? i * 3 : i + 0.25));
    const axis = rand(rank);
    const idxShape = rand(2) === 0 ? [1 + rand(6)] : [1 + rand(3), 1 + rand(3)];
    const ids = Array.from({ length: idxShape.reduce((a, b) => a * b, 1) }, () => rand(shape[axis]));
    const x = tf.tensor(data, shape, dtype);
    const g = tf.gather(x, tf.tensor(ids, idxShape, 'int32'), axis);
    // out[before..., idx..., after...] = x[before..., ids[idx], after...]
    const outer = shape.slice(0, axis).reduce((a, b) => a * b, 1);
    const inner = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
    const want: number[] = [];
    for (let o = 0; o < outer; o++) for (const id of ids) for (let j = 0; j < inner; j++) want.push(data[(o * shape[axis] + id) * inner + j]);
    assert.deepEqual(g.shape, [...shape.slice(0, axis), ...idxShape, ...shape.slice(axis + 1)]);
    assert.equal(g.dtype, dtype);
    assert.deepEqual(Array.from(g.dataSync()), want, `gather ${JSON.stringify({ shape, axis, ids })}`);
    tf.dispose([x, g]);
  }
  const x = tf.tensor2d([[1, 2], [3, 4]]);
  assert.throws(() => tf.gather(x, tf.tensor1d([0, 2], 'int32')), /index value 2 is not in \[0, 1\]/);
  x.dispose();
});

test('clone and a same-dtype cast share their input data on wasm (no copy) and stay readable after either is disposed', async (t) => {
  await initBackend();
  if (tf.getBackend() !== 'wasm') { t.skip(`the backend is ${tf.getBackend()}, not wasm: clone's sharing is a wasm kernel's behaviour`); return; }
  const backend = tf.backend() as unknown as { refCount(dataId: tf.DataId): number };
  const x = tf.tensor1d([1, 2, 3]);
  const y = tf.clone(x);
  assert.equal(y.dataId, x.dataId, 'the clone has its own data (Identity copied)');
  assert.equal(backend.refCount(x.dataId), 2);
  x.dispose();
  assert.deepEqual(Array.from(await y.data()), [1, 2, 3]);
  // A cast to the dtype it has shares the data too; to another dtype it converts.
  const same = tf.cast(y, 'float32');
  assert.equal(same.dataId, y.dataId, 'a float32 cast of float32 has its own data (Cast copied)');
  const ints = tf.cast(tf.tensor1d([1.5, -2.5]), 'int32');
  assert.deepEqual([ints.dtype, Array.from(await ints.data())], ['int32', [1, -2]]);
  y.dispose();
  assert.deepEqual(Array.from(await same.data()), [1, 2, 3]);
  tf.dispose([same, ints]);
});
