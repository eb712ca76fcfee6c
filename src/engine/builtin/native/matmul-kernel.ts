// The native path: tfjs-backend-wasm with its matrix multiply (BatchMatMul, every linear layer, the
// attention products and all their gradients) run by onnxruntime's MLAS instead of XNNPACK on 128-bit
// wasm SIMD. Operands are read from the wasm heap and the product is written into the tfjs output on
// the heap (no copies). The transpose flags go to onnxruntime's FusedMatMul (com.microsoft), which
// handles them inside the kernel, where the wasm kernel with a flag set is ~15x slower than without.
// Except a transposed first operand alone (every weight gradient, x^T dy): MLAS runs those at 75-110
// GFLOP per CPU-second where a plain product runs at 125-160, so the operand is transposed first (or,
// for a tall result such as the tied head's gradient, the transposed result is computed and then
// transposed), which gives the same bits (test/engine/native.test.ts) in ~10-25% less time.
// Small products stay on the wasm kernel: a native call costs ~20 us, more than XNNPACK takes for them.
import * as tf from '@tensorflow/tfjs-core';
import { encodeModel, OnnxType, type OnnxGraph } from './onnx-proto.ts';
import { packedSession } from './packed-weights.ts';
import { nativeThreads, sessionFor, setNativeThreads } from './sessions.ts';
import { replaceWasmKernel } from '../replace-kernel.ts';
import type { WasmBackend } from '../wasm-backend.ts';

/** Below this many multiply-adds a product stays on the wasm kernel (a decoding step's attention). */
const NATIVE_MIN_MACS = 1 << 16;

/** The last two axes swapped: x [batch, r, c] -> y [batch, c, r]. */
function transposeGraph(): Uint8Array {
  return encodeModel({
    nodes: [{ op: 'Transpose', inputs: ['x'], outputs: ['y'], attributes: [{ name: 'perm', ints: [0, 2, 1] }] }],
    inputs: [{ name: 'x', type: OnnxType.float, shape: ['batch', 'r', 'c'] }],
    outputs: [{ name: 'y', type: OnnxType.float, shape: ['batch', 'c', 'r'] }],
    opsets: { '': 17 },
  });
}

/** Columns [start, end) of x [r, c] (start, end and axes = 1 as [1] inputs) -> y [r, end - start]. */
function columnsGraph(): Uint8Array {
  return encodeModel({
    nodes: [{ op: 'Slice', inputs: ['x', 'start', 'end', 'axes'], outputs: ['y'] }],
    inputs: [
      { name: 'x', type: OnnxType.float, shape: ['r', 'c'] }, { name: 'start', type: OnnxType.int32, shape: [1] },
      { name: 'end', type: OnnxType.int32, shape: [1] }, { name: 'axes', type: OnnxType.int32, shape: [1] },
    ],
    outputs: [{ name: 'y', type: OnnxType.float, shape: ['r', 'cols'] }],
    opsets: { '': 17 },
  });
}

/** FusedMatMul of a [batch, m, k] and b [batch, k, n] (or, `weightB`, a 2D b: a weight to pack, packed-weights.ts). */
function matMulGraph(transA: boolean, transB: boolean, weightB = false): OnnxGraph {
  return {
    nodes: [{
      op: 'FusedMatMul', domain: 'com.microsoft', inputs: ['a', 'b'], outputs: ['c'],
      attributes: [{ name: 'transA', i: transA ? 1 : 0 }, { name: 'transB', i: transB ? 1 : 0 }, { name: 'alpha', f: 1 }],
    }],
    inputs: [
      { name: 'a', type: OnnxType.float, shape: ['batchA', 'a1', 'a2'] },
      { name: 'b', type: OnnxType.float, shape: weightB ? ['b1', 'b2'] : ['batchB', 'b1', 'b2'] },
    ],
    outputs: [{ name: 'c', type: OnnxType.float, shape: ['batch', 'm', 'n'] }],
    opsets: { '': 17, 'com.microsoft': 1 },
  };
}

const session = (transA: boolean, transB: boolean) => sessionFor(`FusedMatMul ${transA} ${transB}`, () => encodeModel(matMulGraph(transA, transB)));

/** Products with a transposed first operand below this many multiply-adds keep FusedMatMul's flag. */
const TRANSPOSE_FIRST_MIN_MACS = 1 << 22;

/** A result this many times taller than wide is computed transposed (see transposedFirst). */
const TALL_RESULT = 4;
/** Rows of a tall result computed at a time (scratch: a's columns and their product, ~8 MB each at k = 512). */
const TALL_ROWS = 4096;

/**
 * c [batch, m, n] = a^T b for a [batch, k, m] and b [batch, k, n] as plain products (see the file's
 * comment): a transposed into a scratch tensor, then a b; or, for a tall c of one batch, b transposed
 * and then c computed TALL_ROWS rows at a time as (b^T a[:, rows])^T, so that no scratch holds all of
 * c^T. Every scratch tensor lies on the wasm heap (onnxruntime's own buffers for a graph's
 * intermediates would be fresh pages on every call) and is freed at once.
 */
function transposedFirst(backend: WasmBackend, a: tf.TensorInfo, b: tf.TensorInfo, out: tf.TensorInfo, dims: number[]): void {
  const [batch, k, m, n] = dims;
  const plain = session(false, false);
  const transpose = sessionFor('Transpose', transposeGraph);
  const heap = (t: tf.TensorInfo) => backend.typedArrayFromHeap(t);
  if (batch > 1 || m <= TALL_RESULT * n) {
    const at = backend.makeOutput([batch, m, k], 'float32');
    transpose.run({ x: transpose.tensor(heap(a), [batch, k, m]) }, { y: transpose.tensor(heap(at), [batch, m, k]) });
    plain.run({ a: plain.tensor(heap(at), [batch, m, k]), b: plain.tensor(heap(b), [batch, k, n]) }, { c: plain.tensor(heap(out), [batch, m, n]) });
    backend.disposeData(at.dataId, true);
    return;
  }
  const columns = sessionFor('Slice columns', columnsGraph);
  const scratch = [[1, n, k], [k, TALL_ROWS], [n, TALL_ROWS]].map((shape) => backend.makeOutput(shape, 'float32'));
  const [bt, cols, ct] = scratch.map(heap);
  const [full, c] = [heap(a), heap(out)];
  const int = (x: number) => columns.tensor(Int32Array.of(x), [1]);
  transpose.run({ x: transpose.tensor(heap(b), [1, k, n]) }, { y: transpose.tensor(bt, [1, n, k]) });
  for (let start = 0; start < m; start += TALL_ROWS) {
    const rows = Math.min(TALL_ROWS, m - start);
    const [colsNow, ctNow] = [cols.subarray(0, k * rows), ct.subarray(0, n * rows)];
    const slice = { x: columns.tensor(full, [k, m]), start: int(start), end: int(start + rows), axes: int(1) };
    columns.run(slice, { y: columns.tensor(colsNow, [k, rows]) });
    plain.run({ a: plain.tensor(bt, [1, n, k]), b: plain.tensor(colsNow, [1, k, rows]) }, { c: plain.tensor(ctNow, [1, n, rows]) });
    transpose.run({ x: transpose.tensor(ctNow, [1, n, rows]) }, { y: transpose.tensor(c.subarray(start * n, (start + rows) * n), [1, rows, n]) });
  }
  for (const t of scratch) backend.disposeData(t.dataId, true);
}

/** Counters of where products ran, for the benches and tests (which path really ran). */
export const nativeMatMulStats = { native: 0, wasm: 0 };

let registered = false;
let enabled = false;

/** Whether BatchMatMul now runs in onnxruntime (registered and not switched off). */
export function nativeMatMulActive(): boolean {
  return registered && enabled;
}

/**
 * Switches the native product on or off after registration (the wasm kernel runs when off): for
 * comparing the two paths in one process (parity tests, benches).
 */
export function setNativeMatMul(on: boolean): void {
  enabled = on && registered;
}

/**
 * Replaces the wasm backend's BatchMatMul with one that runs large float32 products in onnxruntime
 * on `nThreads` threads (idempotent; the first call's thread count holds). Throws when
 * onnxruntime-node cannot be loaded or cannot run a product.
 */
export function registerNativeMatMul(nThreads: number): void {
  if (registered) return;
  setNativeThreads(nThreads);
  if (!tf.getKernel(tf.BatchMatMul, 'wasm')) throw new Error('the wasm backend has no BatchMatMul kernel');
  // Fail here, not inside the first forward pass, when onnxruntime cannot run.
  selfTest();
  registered = true;
  enabled = true;
  replaceWasmKernel(tf.BatchMatMul, (args, original) => {
    const { a, b } = args.inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
    const { transposeA, transposeB } = args.attrs as unknown as { transposeA: boolean; transposeB: boolean };
    if (!enabled || a.dtype !== 'float32' || b.dtype !== 'float32') return original(args);
    const ra = a.shape.length, rb = b.shape.length;
    const m = transposeA ? a.shape[ra - 1] : a.shape[ra - 2];
    const k = transposeA ? a.shape[ra - 2] : a.shape[ra - 1];
    const n = transposeB ? b.shape[rb - 2] : b.shape[rb - 1];
    const batchA = tf.util.sizeFromShape(a.shape.slice(0, -2));
    const batchB = tf.util.sizeFromShape(b.shape.slice(0, -2));
    const batch = Math.max(batchA, batchB);
    // Batch broadcasting other than 1-against-n, and tiny products, go to the wasm kernel.
    if (batch * m * k * n < NATIVE_MIN_MACS || (batchA !== batchB && batchA !== 1 && batchB !== 1)) {
      nativeMatMulStats.wasm++;
      return original(args);
    }
    nativeMatMulStats.native++;
    const backend = args.backend as unknown as WasmBackend;
    const outShape = [...tf.broadcast_util.assertAndGetBroadcastShape(a.shape.slice(0, -2), b.shape.slice(0, -2)), m, n];
    const out = backend.makeOutput(outShape, 'float32');
    if (transposeA && !transposeB && batchA === batchB && batch * m * k * n >= TRANSPOSE_FIRST_MIN_MACS) {
      transposedFirst(backend, a, b, out, [batch, k, m, n]);
      return out;
    }
    // Heap views are taken after makeOutput, which may grow (and so replace) the heap.
    if (batchB === 1 && !transposeA) {
      const packed = packedSession(backend, `FusedMatMul ${transposeB}`, () => matMulGraph(false, transposeB, true), 'b', b, transposeB ? 1 : 0,
        nativeThreads());
      if (packed) {
        const [ta, tc] = [backend.typedArrayFromHeap(a), backend.typedArrayFromHeap(out)];
        packed.run({ a: packed.tensor(ta, [batchA, m, k]) }, { c: packed.tensor(tc, [batch, m, n]) });
        return out;
      }
    }
    const s = session(transposeA, transposeB);
    const ta = s.tensor(backend.typedArrayFromHeap(a), [batchA, a.shape[ra - 2], a.shape[ra - 1]]);
    const tb = s.tensor(backend.typedArrayFromHeap(b), [batchB, b.shape[rb - 2], b.shape[rb - 1]]);
    const tc = s.tensor(backend.typedArrayFromHeap(out), [batch, m, n]);
    s.run({ a: ta, b: tb }, { c: tc });
    return out;
  });
}

/** One small product through onnxruntime, checked against the sum written out. */
function selfTest(): void {
  const s = session(false, true);
  const a = new Float32Array([1, 2, 3, 4, 5, 6]); // [1, 2, 3]
  const b = new Float32Array([1, 0, 1, 0, 1, 0]); // [1, 2, 3], used transposed
  const c = new Float32Array(4);
  s.run({ a: s.tensor(a, [1, 2, 3]), b: s.tensor(b, [1, 2, 3]) }, { c: s.tensor(c, [1, 2, 2]) });
  const want = [4, 2, 10, 5];
  if (want.some((v, i) => c[i] !== v)) throw new Error(`onnxruntime's product came out wrong (${[...c]}; expected ${want})`);
}
