// The sum of a float32 tensor's squares, accumulated in float64 by one WebAssembly SIMD pass over the
// wasm heap: global-norm clipping's measure (train/clip.ts). tfjs's composition squared every
// gradient into a new tensor and summed it in float32 one element after another: ~5% of a
// SmolLM-135M full fine-tuning step, and for the 28M-element embedding a sum whose rounding error
// can reach ~1e-3 of it. Two float64 accumulators per vector of four; the tail one element at a time.
import * as tf from '@tensorflow/tfjs-core';
import { byteEnds, encodeModule, offsetLoop, F64, I32, op, V128, type ValType } from './wasm-encoder.ts';
import { heapFunction } from './heap-function.ts';
import type { WasmBackend } from '../wasm-backend.ts';

// Locals: the address and the count (parameters), the byte offset, where the vector loop ends, where
// the scalar loop ends, the two vector accumulators, the scalar accumulator, a loaded vector.
const [X, N, OFF, END4, END, ACC_LOW, ACC_HIGH, ACC, V] = [0, 1, 2, 3, 4, 5, 6, 7, 8];

function sumOfSquaresModule(): Uint8Array<ArrayBuffer> {
  const params: ValType[] = [I32, I32];
  const locals: ValType[] = [I32, I32, I32, V128, V128, F64, V128];
  const square = [op.get(V), op.f64x2PromoteLowF32x4, op.get(V), op.f64x2PromoteLowF32x4, op.f64x2Mul];
  const body = [
    ...byteEnds(N, END4, END),
    ...offsetLoop(OFF, END4, 16, [
      op.get(X), op.get(OFF), op.i32Add, op.v128Load, op.set(V),
      op.get(ACC_LOW), ...square, op.f64x2Add, op.set(ACC_LOW),
      op.get(V), op.get(V), op.f32x4HighToLow, op.set(V),
      op.get(ACC_HIGH), ...square, op.f64x2Add, op.set(ACC_HIGH),
    ]),
    ...offsetLoop(OFF, END, 4, [
      op.get(ACC), op.get(X), op.get(OFF), op.i32Add, op.f32Load, op.f64PromoteF32,
      op.get(X), op.get(OFF), op.i32Add, op.f32Load, op.f64PromoteF32, op.f64Mul, op.f64Add, op.set(ACC),
    ]),
    op.get(ACC_LOW), op.get(ACC_HIGH), op.f64x2Add, op.set(V),
    op.get(V), op.f64x2ExtractLane(0), op.get(V), op.f64x2ExtractLane(1), op.f64Add, op.get(ACC), op.f64Add,
  ];
  return encodeModule([{ name: 'sumOfSquares', params, results: [F64], locals, body }]);
}

const sumOn = heapFunction<(at: number, n: number) => number>(sumOfSquaresModule, 'sumOfSquares');

/** Whether the kernel can run: the wasm backend is the current one. */
export function sumOfSquaresAvailable(): boolean {
  return tf.getBackend() === 'wasm';
}

/** The sum of x's squares (float32 tensor on the wasm backend), accumulated in float64. */
export function sumOfSquares(x: tf.Tensor): number {
  if (x.dtype !== 'float32') throw new Error(`sumOfSquares: expected a float32 tensor, got ${x.dtype}`);
  const backend = tf.backend() as unknown as WasmBackend;
  const view = backend.typedArrayFromHeap(x);
  return sumOn(backend)(view.byteOffset, view.length);
}
