// Writing over a tensor's memory on tfjs-backend-wasm. The backend's C++ side keeps, by tensor id,
// what it derives from a tensor on the rule that tensors never change: its product packs the second
// operand's values into an XNNPACK operator cached under that operand's id (batch_mat_mul_impl.cc),
// so values written under the same id would be multiplied stale (a training run diverged at its third
// step when AdamW wrote the parameters in place). Unregistering the id and registering it again at
// the same memory runs its disposal callbacks, which drop those caches; the JS side is untouched. The
// native path's packed copies of the weight (native/packed-weights.ts) are freed as well.
import type * as tf from '@tensorflow/tfjs-core';
import type { WasmBackend } from './wasm-backend.ts';
import { forgetPackedWeight } from './native/packed-weights.ts';

/** Call after writing over `dataId`'s memory in place: the wasm backend forgets what it derived from the old values. */
export function forgetDerivedData(backend: unknown, dataId: tf.DataId): void {
  const b = backend as WasmBackend;
  const d = b.dataIdMap.get(dataId);
  if (!d) throw new Error('internal: forgetDerivedData on a tensor the wasm backend does not hold');
  const size = d.shape.reduce((n, k) => n * k, 1);
  b.wasm.tfjs.disposeData(d.id);
  b.wasm.tfjs.registerTensor(d.id, size, d.memoryOffset);
  forgetPackedWeight(dataId);
}
