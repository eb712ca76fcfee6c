// Summing an input's gradients in place. Where a tensor feeds several nodes (the residual stream, a
// tied embedding: the lm head's gradient and the embedding lookup's), tfjs's backward walk stores its
// first gradient and, for each later one, makes a third tensor add(earlier, later) and then disposes
// the earlier (tape.ts backpropagateGradients). For a tied 49152 x 576 embedding that is three
// 113 MB tensors alive at once at the end of the pass. tape-memory.ts announces each later gradient
// (the Add that follows is that sum); on wasm, when the earlier gradient's data is its alone, the
// later one is added into it and the result shares that data: the same float32 sums, one tensor fewer.
import * as tf from '@tensorflow/tfjs-core';
import { replaceWasmKernel } from '../replace-kernel.ts';
import { forgetDerivedData } from '../written-in-place.ts';
import { addInPlace } from '../simd/add-in-place-kernel.ts';
import type { WasmBackend } from '../wasm-backend.ts';

/** The later gradient whose sum with the stored one is the next Add, if any. */
let announced: tf.Tensor | null = null;

/** Called by the backward walk with a gradient tfjs is about to add to the input's stored one (null: none). */
export function announceGradientSum(dx: tf.Tensor | null): void {
  announced = dx;
}

/** Replaces the wasm backend's Add (idempotent through replaceWasmKernel's caller, enable.ts). */
export function registerGradientSumInPlace(): boolean {
  return replaceWasmKernel(tf.Add, (args, original) => {
    const later = announced;
    announced = null;
    const { a, b } = args.inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
    const backend = args.backend as unknown as WasmBackend;
    if (!later || b.dataId !== later.dataId || a.dataId === b.dataId || a.dtype !== 'float32' || b.dtype !== 'float32'
      || !tf.util.arraysEqual(a.shape, b.shape) || backend.refCount(a.dataId) !== 1) {
      return original(args);
    }
    addInPlace(backend, a, b);
    forgetDerivedData(backend, a.dataId);
    backend.incRef(a.dataId);
    return { dataId: a.dataId, shape: [...a.shape], dtype: a.dtype };
  });
}
