// AdamW's update (train/adamw.ts has the formula) as one WebAssembly SIMD loop over tfjs-backend-wasm's
// heap, registered as the wasm backend's kernel GenstudyAdamW. Each parameter's memory is read once:
// the composition of tfjs ops (or onnxruntime's graph of them) makes ~15 passes, and the update was
// ~14% of a SmolLM-135M full fine-tuning step at 5.7-6.8 ns per parameter; this loop takes ~2. The
// operations and their order are the composition's, each rounded to float32 (WebAssembly's f32x4 ops
// are IEEE single precision, with no fused multiply-add), so the results are bit-identical to it
// (test/train/adamw-kernel.test.ts).
import * as tf from '@tensorflow/tfjs-core';
import { byteEnds, encodeModule, offsetLoop, F32, I32, op, V128, type ValType } from './wasm-encoder.ts';
import { heapFunction } from './heap-function.ts';
import { forgetDerivedData } from '../written-in-place.ts';
import type { WasmBackend } from '../wasm-backend.ts';

export const ADAMW_KERNEL = 'GenstudyAdamW';

/**
 * The constants of one update, in the order the kernel takes them: 1 - lr wd, b1, 1 - b1, b2,
 * 1 - b2, sqrt(1 - b2^t), eps, lr / (1 - b1^t), and the gradient's scale (clipping's factor).
 */
export const ADAMW_CONSTANTS = ['decay', 'b1', 'nb1', 'b2', 'nb2', 'bc2', 'eps', 'step', 'gscale'] as const;

// Locals: the parameters (7 addresses, the count, the 9 constants), then the byte offset, where the
// vector loop ends, where the scalar loop ends, the constants splatted, and temporaries.
const [P, G, M, V, PO, MO, VO, N] = [0, 1, 2, 3, 4, 5, 6, 7];
const K = 8;
const [OFF, END4, END] = [17, 18, 19];
const KV = 20;
const [GS, MNEW, VNEW] = [29, 30, 31];
const c = (name: (typeof ADAMW_CONSTANTS)[number]) => ADAMW_CONSTANTS.indexOf(name);

/** The update of elements [OFF, end): 4 at a time (vector ops) or 1 (scalar ops). */
function updateLoop(vector: boolean, end: number): number[][] {
  const [load, store, mul, add, sub, div, sqrt] = vector
    ? [op.v128Load, op.v128Store, op.f32x4Mul, op.f32x4Add, op.f32x4Sub, op.f32x4Div, op.f32x4Sqrt]
    : [op.f32Load, op.f32Store, op.f32Mul, op.f32Add, op.f32Sub, op.f32Div, op.f32Sqrt];
  const k = (name: (typeof ADAMW_CONSTANTS)[number]) => op.get(vector ? KV + c(name) : K + c(name));
  const [gs, mNew, vNew] = vector ? [GS, MNEW, VNEW] : [GS + 3, MNEW + 3, VNEW + 3];
  const at = (base: number) => [...op.get(base), ...op.get(OFF), ...op.i32Add];
  return offsetLoop(OFF, end, vector ? 16 : 4, [
    // gs = g gscale; m' = m b1 + gs (1 - b1); v' = v b2 + gs gs (1 - b2)
    at(G), load, k('gscale'), mul, op.set(gs),
    at(M), load, k('b1'), mul, op.get(gs), k('nb1'), mul, add, op.set(mNew),
    at(V), load, k('b2'), mul, op.get(gs), op.get(gs), mul, k('nb2'), mul, add, op.set(vNew),
    at(MO), op.get(mNew), store,
    at(VO), op.get(vNew), store,
    // p' = p (1 - lr wd) - (m' / (sqrt(v') / sqrt(1 - b2^t) + eps)) (lr / (1 - b1^t))
    at(PO),
    at(P), load, k('decay'), mul,
    op.get(mNew), op.get(vNew), sqrt, k('bc2'), div, k('eps'), add, div, k('step'), mul,
    sub, store,
  ]);
}

function adamwModule(): Uint8Array<ArrayBuffer> {
  const params: ValType[] = [...Array(8).fill(I32), ...Array(ADAMW_CONSTANTS.length).fill(F32)];
  const locals: ValType[] = [I32, I32, I32, ...Array(ADAMW_CONSTANTS.length).fill(V128), V128, V128, V128, F32, F32, F32];
  const body = [
    ...ADAMW_CONSTANTS.flatMap((_, i) => [op.get(K + i), op.f32x4Splat, op.set(KV + i)]),
    ...byteEnds(N, END4, END),
    ...updateLoop(true, END4),
    ...updateLoop(false, END),
  ];
  return encodeModule([{ name: 'adamw', params, locals, body }]);
}

type AdamWFn = (...args: number[]) => void;

const adamwOn = heapFunction<AdamWFn>(adamwModule, 'adamw');

function adamwKernel(args: Parameters<tf.KernelFunc>[0]): tf.TensorInfo[] {
  const backend = args.backend as unknown as WasmBackend;
  const { p, g, m, v } = args.inputs as Record<string, tf.TensorInfo>;
  const k = (args.attrs as { k: number[] }).k;
  for (const t of [p, g, m, v]) {
    if (t.dtype !== 'float32' || tf.util.sizeFromShape(t.shape) !== tf.util.sizeFromShape(p.shape)) {
      throw new Error(`${ADAMW_KERNEL}: p, g, m and v must be float32 tensors of one size`);
    }
  }
  const outs = [p, m, v].map((t) => backend.makeOutput(t.shape, 'float32'));
  // Addresses after makeOutput, which may grow the heap.
  const at = (t: tf.TensorInfo) => backend.typedArrayFromHeap(t).byteOffset;
  adamwOn(backend)(...[p, g, m, v, ...outs].map(at), tf.util.sizeFromShape(p.shape), ...k);
  return outs;
}

/** Registers the kernel for the wasm backend (its heap is the memory the kernel works in). */
export function registerAdamWKernel(): void {
  if (!tf.getKernel(ADAMW_KERNEL, 'wasm')) {
    tf.registerKernel({ kernelName: ADAMW_KERNEL, backendName: 'wasm', kernelFunc: adamwKernel as tf.KernelFunc });
  }
}

function checkConstants(k: readonly number[]): void {
  if (k.length !== ADAMW_CONSTANTS.length) throw new Error(`${ADAMW_KERNEL}: expected ${ADAMW_CONSTANTS.length} constants, got ${k.length}`);
}

/** Whether the kernel can run: the wasm backend is the current one. */
export function adamwKernelAvailable(): boolean {
  return tf.getBackend() === 'wasm' && tf.getKernel(ADAMW_KERNEL, 'wasm') !== undefined;
}

/**
 * The same update written over p, m and v themselves (the loop reads each element's p, g, m and v
 * before it writes them): no new tensors, so the optimiser's state stays where it is on the heap,
 * where three new tensors per parameter and step fragmented it (a SmolLM-135M full fine-tuning run's
 * heap grew ~400 MB past what was alive). False, with nothing written, where the kernel cannot run
 * or p, m or v shares its data with another tensor (writing would change that one too).
 */
export function adamwUpdateInPlace(p: tf.Tensor, g: tf.Tensor, m: tf.Tensor, v: tf.Tensor, k: readonly number[]): boolean {
  checkConstants(k);
  if (!adamwKernelAvailable()) return false;
  const backend = tf.backend() as unknown as WasmBackend;
  const state = [p, m, v];
  const n = p.size;
  if ([p, g, m, v].some((t) => t.dtype !== 'float32' || t.size !== n) || new Set(state.map((t) => t.dataId)).size !== 3
    || state.some((t) => t.dataId === g.dataId || backend.refCount(t.dataId) !== 1)) return false;
  const at = (t: tf.Tensor) => backend.typedArrayFromHeap(t).byteOffset;
  adamwOn(backend)(...[p, g, m, v, p, m, v].map(at), n, ...k);
  for (const t of state) forgetDerivedData(backend, t.dataId);
  return true;
}

/** One AdamW update of p with gradient g and moments m, v: [p, m, v] after it; k as ADAMW_CONSTANTS. */
export function adamwUpdate(p: tf.Tensor, g: tf.Tensor, m: tf.Tensor, v: tf.Tensor, k: readonly number[]): tf.Tensor[] {
  checkConstants(k);
  return tf.engine().runKernel(ADAMW_KERNEL, { p, g, m, v }, { k: [...k] }) as tf.Tensor[];
}
