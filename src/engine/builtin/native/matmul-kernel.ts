// The native path: tfjs-backend-wasm with its matrix multiply (BatchMatMul, every linear layer, the
// attention products and all their gradients) run by onnxruntime's MLAS instead of XNNPACK on 128-bit
// wasm SIMD. Operands are read from the wasm heap and the product is written into the tfjs output on
// the heap (no copies). The transpose flags go to onnxruntime's FusedMatMul (com.microsoft), which
// handles them inside the kernel, where the wasm kernel with a flag set is ~15x slower than without.
// Small products stay on the wasm kernel: a native call costs ~20 us, more than XNNPACK takes for them.
import * as tf from '@tensorflow/tfjs-core';
import { encodeModel, OnnxType } from './onnx-proto.ts';
import { NativeSession } from './ort.ts';
import { replaceWasmKernel } from '../replace-kernel.ts';

/** Below this many multiply-adds a product stays on the wasm kernel (a decoding step's attention). */
const NATIVE_MIN_MACS = 1 << 16;

interface WasmBackend {
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(t: tf.TensorInfo): Float32Array;
}

function matMulGraph(transA: boolean, transB: boolean): Uint8Array {
  return encodeModel({
    nodes: [{
      op: 'FusedMatMul', domain: 'com.microsoft', inputs: ['a', 'b'], outputs: ['c'],
      attributes: [{ name: 'transA', i: transA ? 1 : 0 }, { name: 'transB', i: transB ? 1 : 0 }, { name: 'alpha', f: 1 }],
    }],
    inputs: [{ name: 'a', type: OnnxType.float, shape: ['batchA', 'a1', 'a2'] }, { name: 'b', type: OnnxType.float, shape: ['batchB', 'b1', 'b2'] }],
    outputs: [{ name: 'c', type: OnnxType.float, shape: ['batch', 'm', 'n'] }],
    opsets: { '': 17, 'com.microsoft': 1 },
  });
}

let threads = 1;

/** The thread count the native kernels were registered with. */
export function nativeThreads(): number {
  return threads;
}
const sessions = new Map<string, NativeSession>();

function session(transA: boolean, transB: boolean): NativeSession {
  const key = `${transA}${transB}`;
  let s = sessions.get(key);
  if (!s) {
    s = new NativeSession(matMulGraph(transA, transB), threads);
    sessions.set(key, s);
  }
  return s;
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
  threads = nThreads;
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
    // Heap views are taken after makeOutput, which may grow (and so replace) the heap.
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
