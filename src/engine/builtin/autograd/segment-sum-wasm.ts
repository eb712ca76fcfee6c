// The gradient of gather (embedding lookups, picking rows) is UnsortedSegmentSum, a kernel the wasm
// backend does not have. It is registered (enable.ts) for wasm as a scatter-add written in JS over
// the wasm heap: O(rows x width), a few milliseconds for a batch of embeddings. (The alternative,
// embedding lookup as oneHot x matMul, costs vocab x tokens x width flops: far slower for real
// vocabularies.)
import * as tf from '@tensorflow/tfjs-core';
import type { WasmBackend } from '../wasm-backend.ts';

/**
 * out[segmentIds[i], ...] += x[i, ...]; segment ids outside [0, numSegments) are dropped, as in TF.
 * Read and written where the tensors lie on the heap (an embedding's gradient is vocab x width).
 */
export function unsortedSegmentSumWasm(args: { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap }): tf.TensorInfo {
  const backend = args.backend as WasmBackend;
  const { x, segmentIds } = args.inputs as { x: tf.TensorInfo; segmentIds: tf.TensorInfo };
  const numSegments = (args.attrs as { numSegments: number }).numSegments;
  if (x.dtype !== 'float32') throw new Error(`UnsortedSegmentSum (wasm, genstudy): dtype ${x.dtype} is not supported`);
  const n = tf.util.sizeFromShape(segmentIds.shape);
  const width = n === 0 ? 0 : tf.util.sizeFromShape(x.shape) / n;
  const out = backend.makeOutput([numSegments, ...x.shape.slice(segmentIds.shape.length)], 'float32');
  // Views after makeOutput, which may grow (and so replace) the heap.
  const values = backend.typedArrayFromHeap(x);
  const ids = backend.typedArrayFromHeap(segmentIds);
  const dst = backend.typedArrayFromHeap(out);
  dst.fill(0);
  for (let i = 0; i < n; i++) {
    const s = ids[i];
    if (s < 0 || s >= numSegments) continue;
    const src = i * width;
    const at = s * width;
    for (let j = 0; j < width; j++) dst[at + j] += values[src + j];
  }
  return out;
}
