// What training needs from tfjs beyond the forward pass, registered once per process:
//
// 0. tfjs-core's gradient functions. tfjs-core's own bundle registers none; the union package
//    @tensorflow/tfjs registers them into the same tfjs-core instance when loaded (its CommonJS build;
//    tfjs-core's ESM gradient files use extensionless imports that Node cannot load).
// 1. The gradient of gather (embedding lookups, picking rows) is UnsortedSegmentSum, a kernel the
//    wasm backend does not have. It is registered here for wasm as a scatter-add written in JS over
//    the wasm heap: O(rows x width), a few milliseconds for a batch of embeddings. (The alternative,
//    embedding lookup as oneHot x matMul, costs vocab x tokens x width flops: far slower for real
//    vocabularies.)
// 2. matMul's gradient in tfjs uses matMuls with transposeA / transposeB set, which on wasm run
//    ~15x slower than an explicit transpose followed by a plain matMul (docs/design.md, "Gradients";
//    src/engine/README.md). BatchMatMul's gradient is re-registered with explicit transposes; the values
//    are the same, only the kernels differ.
// 3. Tile's gradient for tensors of rank 5 (grouped-query attention's repeat_kv), which tfjs lacks.
// 4. Memory during backprop: tfjs keeps every intermediate gradient and every tensor saved for the
//    backward pass until the whole backward pass ends, so the peak holds all of them at once. Each
//    tape node's gradient is wrapped so that, once the walk moves on to the next node, the previous
//    node's output gradients (consumed: the tape is walked in reverse order, so nothing reads them
//    again) and its saved tensors (clones made for this node alone) are released. And the kernels
//    whose gradients read only their inputs' shapes (Add, Sub, Reshape, Sum, Mean, Slice, Concat
//    save their inputs for that alone) have their saved tensors released as soon as they are
//    recorded: a released tensor keeps its shape. That kept about half of what the tape held at the
//    end of the bench model's forward pass (80 of 171 MB).
import * as tf from '@tensorflow/tfjs-core';
import { createRequire } from 'node:module';
import { nativeMatMulActive } from './native/matmul-kernel.ts';

let registered = false;

/** Swaps the last two axes of a rank >= 2 tensor. */
function swapLast(x: tf.Tensor): tf.Tensor {
  const perm = x.shape.map((_, i) => i);
  const r = x.rank;
  [perm[r - 2], perm[r - 1]] = [perm[r - 1], perm[r - 2]];
  return tf.transpose(x, perm);
}

/** op(x) as the forward applied it: x or its transpose. */
function applied(x: tf.Tensor, transposed: boolean): tf.Tensor {
  return transposed ? swapLast(x) : x;
}

/**
 * Gradient of C = op(A) op(B): dOp(A) = dC op(B)^T, dOp(B) = op(A)^T dC, each written as plain
 * matMuls of explicitly transposed operands, then mapped back through op.
 */
const batchMatMulGrad: tf.GradConfig = {
  kernelName: tf.BatchMatMul,
  inputsToSave: ['a', 'b'],
  gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[], attrs: tf.NamedAttrMap) => {
    const g = dy as tf.Tensor;
    const [a, b] = saved;
    const { transposeA, transposeB } = attrs as unknown as { transposeA: boolean; transposeB: boolean };
    // The native product (native/matmul-kernel.ts) takes the flags inside its kernel at full speed.
    if (nativeMatMulActive()) return flaggedMatMulGrads(g, a, b, transposeA, transposeB);
    return {
      a: () => {
        const dOpA = tf.matMul(g, swapLast(applied(b, transposeB)));
        return transposeA ? swapLast(dOpA) : dOpA;
      },
      b: () => {
        const dOpB = tf.matMul(swapLast(applied(a, transposeA)), g);
        return transposeB ? swapLast(dOpB) : dOpB;
      },
    };
  },
};

/** tfjs's own gradient of C = op(A) op(B), with the transpose flags (for the native product). */
function flaggedMatMulGrads(g: tf.Tensor, a: tf.Tensor, b: tf.Tensor, tA: boolean, tB: boolean): Record<string, () => tf.Tensor> {
  if (!tA && !tB) return { a: () => tf.matMul(g, b, false, true), b: () => tf.matMul(a, g, true, false) };
  if (!tA && tB) return { a: () => tf.matMul(g, b, false, false), b: () => tf.matMul(g, a, true, false) };
  if (tA && !tB) return { a: () => tf.matMul(b, g, false, true), b: () => tf.matMul(a, g, false, false) };
  return { a: () => tf.matMul(b, g, true, true), b: () => tf.matMul(g, a, true, true) };
}

/**
 * Gradient of tile for any rank (tfjs's stops at rank 4; grouped-query attention tiles rank-5
 * tensors): for each tiled axis, view dy as [before, reps, size, after] and sum over reps.
 */
const tileGrad: tf.GradConfig = {
  kernelName: tf.Tile,
  inputsToSave: ['x'],
  gradFunc: (dy: tf.Tensor | tf.Tensor[], saved: tf.Tensor[], attrs: tf.NamedAttrMap) => {
    const [x] = saved;
    const { reps } = attrs as unknown as { reps: number[] };
    return {
      x: () => {
        let g = dy as tf.Tensor;
        const shape = [...g.shape];
        for (let i = 0; i < reps.length; i++) {
          if (reps[i] === 1) continue;
          const before = shape.slice(0, i).reduce((a, b) => a * b, 1);
          const after = shape.slice(i + 1).reduce((a, b) => a * b, 1);
          g = tf.sum(tf.reshape(g, [before, reps[i], x.shape[i], after]), 1);
          shape[i] = x.shape[i];
          g = tf.reshape(g, shape);
        }
        return g;
      },
    };
  },
};

interface WasmBackendLike {
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(t: tf.TensorInfo): Float32Array | Int32Array;
}

/**
 * out[segmentIds[i], ...] += x[i, ...]; segment ids outside [0, numSegments) are dropped, as in TF.
 * Read and written where the tensors lie on the heap (an embedding's gradient is vocab x width).
 */
function unsortedSegmentSumWasm(args: { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap }): tf.TensorInfo {
  const backend = args.backend as WasmBackendLike;
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

interface TapeNode {
  kernelName: string;
  gradient?: (dys: (tf.Tensor | null)[]) => Record<string, () => tf.Tensor>;
  saved?: tf.Tensor[];
}
interface EngineInternals {
  addTapeNode(...args: unknown[]): void;
  gradients(...args: unknown[]): unknown;
  state: { activeTape: TapeNode[] | null; gradientDepth: number };
}

/** Kernels whose registered gradients read nothing of their saved inputs but the shapes. */
const SHAPE_ONLY_GRADIENTS = new Set(['Add', 'Sub', 'Reshape', 'Sum', 'Mean', 'Slice', 'Concat']);

/** What the last walked node left: released when the walk reaches the next node. */
let consumed: { tensors: tf.Tensor[]; keep: Set<tf.Tensor> } | null = null;

function releaseConsumed(): void {
  if (!consumed) return;
  for (const t of consumed.tensors) if (!consumed.keep.has(t)) t.dispose();
  consumed = null;
}

/** Wraps each new tape node's gradient so that its dys and saved tensors are released early (4. above). */
function releaseGradientsEarly(): void {
  const engine = tf.engine() as unknown as EngineInternals;
  const addTapeNode = engine.addTapeNode.bind(engine);
  engine.addTapeNode = (...args: unknown[]) => {
    addTapeNode(...args);
    const tape = engine.state.activeTape;
    const node = tape?.[tape.length - 1];
    const inner = node?.gradient;
    if (!node || !inner) return;
    if (SHAPE_ONLY_GRADIENTS.has(node.kernelName)) for (const t of node.saved ?? []) t.dispose();
    node.gradient = (dys) => {
      // Higher-order gradients record the backward pass itself: nothing is released there.
      if (engine.state.gradientDepth > 0) return inner(dys);
      releaseConsumed();
      const grads = inner(dys);
      // A gradient function may hand back a dy itself as an input's gradient: that one is kept.
      const keep = new Set<tf.Tensor>();
      consumed = { tensors: [...dys.filter((d): d is tf.Tensor => d != null), ...(node.saved ?? [])], keep };
      const wrapped: Record<string, () => tf.Tensor> = {};
      for (const [name, thunk] of Object.entries(grads)) wrapped[name] = () => { const dx = thunk(); keep.add(dx); return dx; };
      return wrapped;
    };
  };
  // A walk's last node is cleaned up by gradients() itself; forget it so a later walk does not touch it.
  const gradients = engine.gradients.bind(engine);
  engine.gradients = (...args: unknown[]) => {
    try {
      return gradients(...args);
    } finally {
      consumed = null;
    }
  };
}

/**
 * Registers the training kernels and gradients (idempotent). Call after the backend is chosen
 * (initBackend) and before the first tf.variableGrads.
 */
export function enableTrainingGradients(): void {
  if (registered) return;
  registered = true;
  createRequire(import.meta.url)('@tensorflow/tfjs');
  // registerGradient replaces the built-in config; silence its one-time warning about that.
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].includes('Overriding the gradient for')) return;
    warn(...args);
  };
  try {
    tf.registerGradient(batchMatMulGrad);
    tf.registerGradient(tileGrad);
  } finally {
    console.warn = warn;
  }
  releaseGradientsEarly();
  if (!tf.getKernel(tf.UnsortedSegmentSum, 'wasm')) {
    tf.registerKernel({ kernelName: tf.UnsortedSegmentSum, backendName: 'wasm', kernelFunc: unsortedSegmentSumWasm as unknown as tf.KernelFunc });
  }
}
