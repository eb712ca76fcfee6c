// a += b over float32 tensors on tfjs-backend-wasm's heap, as one WebAssembly SIMD loop (4 elements at
// a time, then the tail one at a time): the in-place sum of an input's gradients
// (autograd/gradient-sum.ts). A JavaScript loop there cost ~3-5% of a LoRA training step at
// SmolLM-135M's shape (every adapted layer's input has two gradients to sum). f32x4.add and f32.add are
// IEEE single-precision additions: the bits of the wasm backend's Add.
import type * as tf from '@tensorflow/tfjs-core';
import { byteEnds, encodeModule, offsetLoop, I32, op } from './wasm-encoder.ts';
import { heapFunction } from './heap-function.ts';
import type { WasmBackend } from '../wasm-backend.ts';

// Locals: the two addresses and the count, then the byte offset, where the vector loop ends, where the scalar loop ends.
const [A, B, N, OFF, END4, END] = [0, 1, 2, 3, 4, 5];

function addLoop(vector: boolean, end: number): number[][] {
  const [load, store, add] = vector ? [op.v128Load, op.v128Store, op.f32x4Add] : [op.f32Load, op.f32Store, op.f32Add];
  const at = (base: number) => [...op.get(base), ...op.get(OFF), ...op.i32Add];
  return offsetLoop(OFF, end, vector ? 16 : 4, [at(A), at(A), load, at(B), load, add, store]);
}

function addModule(): Uint8Array<ArrayBuffer> {
  const body = [
    ...byteEnds(N, END4, END),
    ...addLoop(true, END4),
    ...addLoop(false, END),
  ];
  return encodeModule([{ name: 'add', params: [I32, I32, I32], locals: [I32, I32, I32], body }]);
}

const addOn = heapFunction<(a: number, b: number, n: number) => void>(addModule, 'add');

/** a's values become a + b (float32 tensors of one size on the wasm backend's heap; a written in place). */
export function addInPlace(backend: unknown, a: tf.TensorInfo, b: tf.TensorInfo): void {
  const wb = backend as WasmBackend;
  const [x, y] = [wb.typedArrayFromHeap(a), wb.typedArrayFromHeap(b)];
  if (x.length !== y.length) throw new Error('internal: addInPlace on tensors of different sizes');
  addOn(backend)(x.byteOffset, y.byteOffset, x.length);
}
