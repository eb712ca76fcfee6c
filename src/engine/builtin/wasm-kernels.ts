// Replacement Slice, SplitV and GatherV2 kernels for tfjs-backend-wasm 4.22. Its own Slice and SplitV
// copy the whole input tensor out of the wasm heap (readSync) for every slice, so splitting a
// [32, 127, 64] tensor into 32 pieces copies it 32 times (~18 ms where a transpose of it takes
// ~0.5 ms); its Gather computes every element's address on its own (~11 ms for 1024 embedding rows of
// 256, where copying the rows takes well under 1 ms). These read the input through a view of the heap
// and copy whole runs. Strings (and Gather with batch dimensions) go to the original kernels.
//
// Identity (tf.clone, and every tensor the gradient tape saves for the backward pass) copies its
// input; here it shares the input's data, as Reshape does: tfjs tensors are immutable (a Variable's
// assign points it at new data), so a copy buys nothing. In a training step of the bench's GPT-2
// model that was ~1000 copies, 7% of the step's CPU time. Cast to the dtype a tensor already has
// shares its data the same way: the gradient of every product with a constant (tfjs's Mul gradient
// casts its other input to float32) copied it, 238 copies a SmolLM-135M LoRA step.
import * as tf from '@tensorflow/tfjs-core';
import { replaceWasmKernel } from './replace-kernel.ts';
import type { HeapArray, WasmBackend } from './wasm-backend.ts';

/** Copies x[begin : begin + size] into out, one contiguous run at a time. */
function copySlice(x: HeapArray, shape: number[], begin: number[], size: number[], out: HeapArray): void {
  const rank = shape.length;
  const strides = new Array<number>(rank);
  let s = 1;
  for (let d = rank - 1; d >= 0; d--) { strides[d] = s; s *= shape[d]; }
  // Trailing axes taken whole, plus the first one that is not, form one contiguous run.
  let d = rank - 1;
  while (d >= 0 && size[d] === shape[d]) d--;
  if (d < 0) { out.set(x.subarray(0, out.length)); return; }
  const run = size[d] * strides[d];
  const inner = begin[d] * strides[d];
  const outer = size.slice(0, d);
  const count = outer.reduce((a, b) => a * b, 1);
  const idx = new Array<number>(d).fill(0);
  for (let n = 0; n < count; n++) {
    let off = inner;
    for (let a = 0; a < d; a++) off += (begin[a] + idx[a]) * strides[a];
    out.set(x.subarray(off, off + run), n * run);
    for (let a = d - 1; a >= 0; a--) {
      if (++idx[a] < outer[a]) break;
      idx[a] = 0;
    }
  }
}

function sliceOnHeap(backend: WasmBackend, x: tf.TensorInfo, begin: number[], size: number[]): tf.TensorInfo {
  const out = backend.makeOutput(size, x.dtype);
  // Views are taken after makeOutput, which may grow (and so replace) the heap.
  if (size.every((n) => n > 0)) copySlice(backend.typedArrayFromHeap(x), x.shape, begin, size, backend.typedArrayFromHeap(out));
  return out;
}

/**
 * gather along `axis` (no batch dimensions): x viewed as [outer, dim, inner], indices flattened;
 * out[o, i, :] = x[o, indices[i], :]. An index outside [0, dim) is an error, as in tfjs.
 */
function gatherOnHeap(backend: WasmBackend, x: tf.TensorInfo, indices: tf.TensorInfo, axis: number): tf.TensorInfo {
  const dim = x.shape[axis];
  const outer = x.shape.slice(0, axis).reduce((a, b) => a * b, 1);
  const inner = x.shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  const outShape = [...x.shape.slice(0, axis), ...indices.shape, ...x.shape.slice(axis + 1)];
  const out = backend.makeOutput(outShape, x.dtype);
  const ids = backend.typedArrayFromHeap(indices);
  const n = ids.length;
  for (let i = 0; i < n; i++) {
    if (!(ids[i] >= 0 && ids[i] < dim)) throw new Error(`GatherV2: the index value ${ids[i]} is not in [0, ${dim - 1}]`);
  }
  if (outer * n * inner === 0) return out;
  const src = backend.typedArrayFromHeap(x);
  const dst = backend.typedArrayFromHeap(out);
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < n; i++) {
      const from = (o * dim + ids[i]) * inner;
      dst.set(src.subarray(from, from + inner), (o * n + i) * inner);
    }
  }
  return out;
}

let registered = false;

export function registerWasmKernels(): void {
  if (registered) return;
  registered = true;
  replaceWasmKernel('Slice', (args, original) => {
    const x = args.inputs.x as tf.TensorInfo;
    if (x.dtype === 'string') return original(args);
    const { begin, size } = args.attrs as unknown as { begin: number | number[]; size: number | number[] };
    const [b, s] = tf.slice_util.parseSliceParams(x as tf.Tensor, begin, size);
    return sliceOnHeap(args.backend as unknown as WasmBackend, x, b, s);
  });
  replaceWasmKernel('GatherV2', (args, original) => {
    const { x, indices } = args.inputs as { x: tf.TensorInfo; indices: tf.TensorInfo };
    const { axis, batchDims } = args.attrs as unknown as { axis: number; batchDims: number };
    if (x.dtype === 'string' || batchDims || indices.dtype !== 'int32') return original(args);
    return gatherOnHeap(args.backend as unknown as WasmBackend, x, indices, tf.util.parseAxisParam(axis, x.shape)[0]);
  });
  replaceWasmKernel('Identity', (args, original) => {
    const x = args.inputs.x as tf.TensorInfo;
    if (x.dtype === 'string') return original(args);
    (args.backend as unknown as WasmBackend).incRef(x.dataId);
    return { dataId: x.dataId, shape: [...x.shape], dtype: x.dtype };
  });
  replaceWasmKernel('Cast', (args, original) => {
    const x = args.inputs.x as tf.TensorInfo;
    const { dtype } = args.attrs as unknown as { dtype: tf.DataType };
    if (x.dtype !== dtype || dtype === 'string') return original(args);
    (args.backend as unknown as WasmBackend).incRef(x.dataId);
    return { dataId: x.dataId, shape: [...x.shape], dtype };
  });
  // A transpose that only moves axes of size 1 keeps the elements' order: the wasm kernel copies
  // (its internal identity, not the kernel above); here it shares the data, as Reshape does. Such
  // transposes come from gradients of head splits with one key-value head or one row (~3% of a
  // SmolLM-135M training step's CPU time).
  replaceWasmKernel('Transpose', (args, original) => {
    const x = args.inputs.x as tf.TensorInfo;
    const { perm } = args.attrs as unknown as { perm: number[] };
    const moved = perm.filter((axis) => x.shape[axis] !== 1);
    if (x.dtype === 'string' || moved.some((axis, i) => i > 0 && axis < moved[i - 1])) return original(args);
    (args.backend as unknown as WasmBackend).incRef(x.dataId);
    return { dataId: x.dataId, shape: perm.map((axis) => x.shape[axis]), dtype: x.dtype };
  });
  replaceWasmKernel('SplitV', (args, original) => {
    const x = args.inputs.x as tf.TensorInfo;
    if (x.dtype === 'string') return original(args);
    const { numOrSizeSplits, axis } = args.attrs as unknown as { numOrSizeSplits: number | number[]; axis: number };
    const ax = tf.util.parseAxisParam(axis, x.shape)[0];
    const sizes = tf.backend_util.prepareSplitSize(x as tf.Tensor, numOrSizeSplits, ax);
    const begin = new Array<number>(x.shape.length).fill(0);
    return sizes.map((n) => {
      const size = [...x.shape];
      size[ax] = n;
      const piece = sliceOnHeap(args.backend as unknown as WasmBackend, x, [...begin], size);
      begin[ax] += n;
      return piece;
    });
  });
}
