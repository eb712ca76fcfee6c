// y + t * s over float32 tensors of one shape, as one WebAssembly SIMD pass (kernel GenstudyAddScaled,
// 4 elements at a time, then the tail one at a time): a LoRA adapter's term added to its layer's output
// (lora.ts), where tfjs's Mul by the scale and Add were two passes, and the tape kept t for Mul's
// gradient (a [tokens, out] tensor per adapted layer until the backward pass). f32x4.mul then
// f32x4.add round as the wasm backend's Mul then Add do, so the bits are the same; the gradients are
// dy and dy * s, as Add's and Mul's were.
import * as tf from '@tensorflow/tfjs-core';
import { byteEnds, encodeModule, offsetLoop, F32, I32, op, V128 } from './wasm-encoder.ts';
import { heapFunction } from './heap-function.ts';
import type { WasmBackend } from '../wasm-backend.ts';

export const ADD_SCALED_KERNEL = 'GenstudyAddScaled';

// Parameters: the addresses of y, t and the output, the count, s; locals: the byte offset, where the
// vector loop ends, where the scalar loop ends, s splat.
const [Y, T, OUT, N, S, OFF, END4, END, VS] = [0, 1, 2, 3, 4, 5, 6, 7, 8];

function addScaledLoop(vector: boolean, end: number): number[][] {
  const [load, store, add, mul, s] = vector ? [op.v128Load, op.v128Store, op.f32x4Add, op.f32x4Mul, VS]
    : [op.f32Load, op.f32Store, op.f32Add, op.f32Mul, S];
  const at = (base: number) => [...op.get(base), ...op.get(OFF), ...op.i32Add];
  return offsetLoop(OFF, end, vector ? 16 : 4, [at(OUT), at(Y), load, at(T), load, op.get(s), mul, add, store]);
}

function addScaledModule(): Uint8Array<ArrayBuffer> {
  const body = [
    op.get(S), op.f32x4Splat, op.set(VS),
    ...byteEnds(N, END4, END),
    ...addScaledLoop(true, END4),
    ...addScaledLoop(false, END),
  ];
  return encodeModule([{ name: 'addScaled', params: [I32, I32, I32, I32, F32], locals: [I32, I32, I32, V128], body }]);
}

const addScaledOn = heapFunction<(y: number, t: number, out: number, n: number, s: number) => void>(addScaledModule, 'addScaled');

function addScaledKernel(args: Parameters<tf.KernelFunc>[0]): tf.TensorInfo {
  const backend = args.backend as unknown as WasmBackend;
  const { y, t } = args.inputs as { y: tf.TensorInfo; t: tf.TensorInfo };
  const { s } = args.attrs as unknown as { s: number };
  const out = backend.makeOutput(y.shape, 'float32');
  // Views after makeOutput (which may grow the heap).
  const [vy, vt, vo] = [y, t, out].map((x) => backend.typedArrayFromHeap(x));
  addScaledOn(backend)(vy.byteOffset, vt.byteOffset, vo.byteOffset, vo.length, s);
  return out;
}

/** Registers the kernel for the wasm backend. */
export function registerAddScaledKernel(): void {
  if (!tf.getKernel(ADD_SCALED_KERNEL, 'wasm')) {
    tf.registerKernel({ kernelName: ADD_SCALED_KERNEL, backendName: 'wasm', kernelFunc: addScaledKernel as tf.KernelFunc });
  }
}

/** y + t * s, differentiable (float32 y and t of one shape); off wasm tfjs's Add and Mul. */
export function addScaled(y: tf.Tensor, t: tf.Tensor, s: number): tf.Tensor {
  if (y.dtype !== 'float32' || t.dtype !== 'float32' || !tf.util.arraysEqual(y.shape, t.shape) || tf.getBackend() !== 'wasm'
    || !tf.getKernel(ADD_SCALED_KERNEL, 'wasm')) {
    return tf.add(y, tf.mul(t, s));
  }
  const fn = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [yi, ti] = args as tf.Tensor[];
    return {
      value: tf.engine().runKernel(ADD_SCALED_KERNEL, { y: yi, t: ti }, { s } as unknown as tf.NamedAttrMap) as tf.Tensor,
      gradFunc: (dy: tf.Tensor) => [tf.reshape(dy, yi.shape), tf.mul(dy, s)],
    };
  });
  return fn(y, t);
}
