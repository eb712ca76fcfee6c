// Dropout's scaled keep-mask (1 / (1 - rate) where an element is kept, 0 where dropped) for a shape,
// from a seed: element i is kept when the top 24 bits of a counter-based hash of (seed, i) are at
// least rate * 2^24. One WebAssembly SIMD pass writes the mask into the wasm heap (kernel
// GenstudyDropoutMask); elsewhere the same hash in JavaScript gives the same mask. It replaced tfjs's
// randomUniform (seedrandom's alea, one JavaScript call per element) and three more ops: LoRA's
// dropout draws a mask per adapted module per micro-batch, 62M numbers per SmolLM-135M step, and
// those took ~10% of a LoRA step's CPU time. The hash is MurmurHash3's 32-bit finaliser applied
// twice with seed-derived keys (as in counter-based generators: any element's bit is independent of
// the order of drawing, so a resumed run draws the same masks).
// `applyDropout` is x times that mask as one op: the same pass also writes x * mask (kernel
// GenstudyDropoutApply), where tfjs's Mul read the mask and x again; its gradient is dy * mask, as
// Mul's was, so the bits are the same.
import * as tf from '@tensorflow/tfjs-core';
import { byteEnds, encodeModule, offsetLoop, I32, F32, op, V128, type ValType, type WasmFunction } from './wasm-encoder.ts';
import { heapFunction } from './heap-function.ts';
import type { WasmBackend } from '../wasm-backend.ts';

export const DROPOUT_MASK_KERNEL = 'GenstudyDropoutMask';
export const DROPOUT_APPLY_KERNEL = 'GenstudyDropoutApply';
const GOLDEN = 0x9e3779b9 | 0;
const [M1, M2] = [0x85ebca6b | 0, 0xc2b2ae35 | 0];

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, M1);
  h ^= h >>> 13;
  h = Math.imul(h, M2);
  return h ^ (h >>> 16);
}

/** The two 32-bit keys of a seed (any non-negative integer below 2^53). */
function keysOf(seed: number): [number, number] {
  const low = seed >>> 0;
  const high = Math.floor(seed / 2 ** 32) >>> 0;
  const k1 = fmix32(low ^ GOLDEN);
  return [k1, fmix32((high + M1) ^ k1)];
}

/** Kept when the hash's top 24 bits are at least this. */
const thresholdOf = (rate: number) => Math.ceil(rate * 2 ** 24);

/** The mask in JavaScript: the reference the kernel is tested against, and the path off wasm. */
export function dropoutMaskValues(n: number, rate: number, seed: number): Float32Array {
  const [k1, k2] = keysOf(seed);
  const threshold = thresholdOf(rate);
  const scale = Math.fround(1 / (1 - rate));
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const h = fmix32((fmix32(Math.imul(i, GOLDEN) ^ k1) + k2) | 0);
    out[i] = h >>> 8 >= threshold ? scale : 0;
  }
  return out;
}

// Parameters: address, count, key1, key2, threshold, scale (f32), and with `apply` the addresses of x
// and of x * mask. Locals: offset, vector end, end, the index vector, splats of key1, key2, threshold,
// scale, the golden ratio and 4, a hash, the scalar hash, and with `apply` the mask (vector and scalar).
const [OUT, N, K1, K2, THRESHOLD, SCALE, X, Y] = [0, 1, 2, 3, 4, 5, 6, 7];

/** fmix32 on the value on the stack (vector or scalar), using local `h`. */
function fmix(vector: boolean, h: number): number[][] {
  const [shr, mul, xor, splat] = vector ? [op.i32x4ShrU, op.i32x4Mul, op.v128Xor, op.i32x4Splat] : [op.i32ShrU, op.i32Mul, op.i32Xor, []];
  const xorShift = (bits: number) => [op.get(h), op.get(h), op.i32Const(bits), shr, xor, op.set(h)];
  return [op.set(h), ...xorShift(16), op.get(h), op.i32Const(M1), splat, mul, op.set(h), ...xorShift(13),
    op.get(h), op.i32Const(M2), splat, mul, op.set(h), ...xorShift(16), op.get(h)];
}

/** The mask pass; with `apply` it also writes x * mask (x and y addresses as two more parameters). */
function maskFunction(apply: boolean): WasmFunction {
  const params: ValType[] = [I32, I32, I32, I32, I32, F32, ...(apply ? [I32, I32] as ValType[] : [])];
  const first = params.length;
  const [OFF, END4, END, IDX, VK1, VK2, VTH, VSCALE, VGOLD, VFOUR, H, HS, VM, FM] = Array.from({ length: 14 }, (_, i) => first + i);
  const locals: ValType[] = [I32, I32, I32, V128, V128, V128, V128, V128, V128, V128, V128, I32, V128, F32];
  // The mask value on the stack is stored at OUT + OFF; with `apply`, x * mask at Y + OFF too.
  const store = (vector: boolean) => {
    if (!apply) return [vector ? op.v128Store : op.f32Store];
    const [m, load, st, mul] = vector ? [VM, op.v128Load, op.v128Store, op.f32x4Mul] : [FM, op.f32Load, op.f32Store, op.f32Mul];
    return [op.tee(m), st, op.get(Y), op.get(OFF), op.i32Add, op.get(X), op.get(OFF), op.i32Add, load, op.get(m), mul, st];
  };
  const body = [
    op.get(K1), op.i32x4Splat, op.set(VK1), op.get(K2), op.i32x4Splat, op.set(VK2),
    op.get(THRESHOLD), op.i32x4Splat, op.set(VTH), op.get(SCALE), op.f32x4Splat, op.set(VSCALE),
    op.i32Const(GOLDEN), op.i32x4Splat, op.set(VGOLD), op.i32Const(4), op.i32x4Splat, op.set(VFOUR),
    op.v128Const(Int32Array.of(0, 1, 2, 3)), op.set(IDX),
    ...byteEnds(N, END4, END),
    ...offsetLoop(OFF, END4, 16, [
      op.get(OUT), op.get(OFF), op.i32Add,
      op.get(IDX), op.get(VGOLD), op.i32x4Mul, op.get(VK1), op.v128Xor, ...fmix(true, H), op.get(VK2), op.i32x4Add, ...fmix(true, H),
      op.i32Const(8), op.i32x4ShrU, op.get(VTH), op.i32x4GeU, op.get(VSCALE), op.v128And, ...store(true),
      op.get(IDX), op.get(VFOUR), op.i32x4Add, op.set(IDX),
    ]),
    ...offsetLoop(OFF, END, 4, [
      op.get(OUT), op.get(OFF), op.i32Add,
      op.get(SCALE), op.f32Const(0),
      op.get(OFF), op.i32Const(2), op.i32ShrU, op.i32Const(GOLDEN), op.i32Mul, op.get(K1), op.i32Xor, ...fmix(false, HS),
      op.get(K2), op.i32Add, ...fmix(false, HS), op.i32Const(8), op.i32ShrU, op.get(THRESHOLD), op.i32GeU,
      op.select, ...store(false),
    ]),
  ];
  return { name: apply ? 'dropoutApply' : 'dropoutMask', params, locals, body };
}

const dropoutModule = () => encodeModule([maskFunction(false), maskFunction(true)]);
const fillOn = heapFunction<(...args: number[]) => void>(dropoutModule, 'dropoutMask');
const applyOn = heapFunction<(...args: number[]) => void>(dropoutModule, 'dropoutApply');

interface MaskAttrs { shape: number[]; rate: number; seed: number }

/** The hash's constants for `rate` and `seed`, as the functions take them after the count. */
const hashArgs = (rate: number, seed: number) => [...keysOf(seed), thresholdOf(rate), 1 / (1 - rate)];

function maskKernel(args: Parameters<tf.KernelFunc>[0]): tf.TensorInfo {
  const backend = args.backend as unknown as WasmBackend;
  const { shape, rate, seed } = args.attrs as unknown as MaskAttrs;
  const out = backend.makeOutput(shape, 'float32');
  const view = backend.typedArrayFromHeap(out);
  fillOn(backend)(view.byteOffset, view.length, ...hashArgs(rate, seed));
  return out;
}

/** x * mask and the mask, in one pass. */
function applyKernel(args: Parameters<tf.KernelFunc>[0]): tf.TensorInfo[] {
  const backend = args.backend as unknown as WasmBackend;
  const x = args.inputs.x as tf.TensorInfo;
  const { rate, seed } = args.attrs as unknown as MaskAttrs;
  const [y, mask] = [backend.makeOutput(x.shape, 'float32'), backend.makeOutput(x.shape, 'float32')];
  // Views after every makeOutput (which may grow the heap).
  const [vx, vy, vm] = [x, y, mask].map((t) => backend.typedArrayFromHeap(t));
  applyOn(backend)(vm.byteOffset, vm.length, ...hashArgs(rate, seed), vx.byteOffset, vy.byteOffset);
  return [y, mask];
}

/** Registers the kernel for the wasm backend. */
export function registerDropoutMaskKernel(): void {
  if (!tf.getKernel(DROPOUT_MASK_KERNEL, 'wasm')) {
    tf.registerKernel({ kernelName: DROPOUT_MASK_KERNEL, backendName: 'wasm', kernelFunc: maskKernel as tf.KernelFunc });
  }
  if (!tf.getKernel(DROPOUT_APPLY_KERNEL, 'wasm')) {
    tf.registerKernel({ kernelName: DROPOUT_APPLY_KERNEL, backendName: 'wasm', kernelFunc: applyKernel as tf.KernelFunc });
  }
}

function checkDropout(rate: number, seed: number): void {
  if (!(rate > 0 && rate < 1)) throw new Error(`dropoutMask: rate ${rate} is not in (0, 1)`);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`dropoutMask: seed ${seed} is not a non-negative integer`);
}

/** The scaled keep-mask for `shape` at `rate` (0 < rate < 1) from `seed` (an integer in [0, 2^53)). */
export function dropoutMask(shape: number[], rate: number, seed: number): tf.Tensor {
  checkDropout(rate, seed);
  if (tf.getBackend() === 'wasm' && tf.getKernel(DROPOUT_MASK_KERNEL, 'wasm')) {
    return tf.engine().runKernel(DROPOUT_MASK_KERNEL, {}, { shape, rate, seed } as unknown as tf.NamedAttrMap) as tf.Tensor;
  }
  return tf.tensor(dropoutMaskValues(tf.util.sizeFromShape(shape), rate, seed), shape);
}

/**
 * x * dropoutMask(x.shape, rate, seed), differentiable: one pass on wasm (the tape keeps the mask for
 * the gradient, dy * mask); elsewhere tfjs's Mul.
 */
export function applyDropout(x: tf.Tensor, rate: number, seed: number): tf.Tensor {
  checkDropout(rate, seed);
  if (x.dtype !== 'float32' || tf.getBackend() !== 'wasm' || !tf.getKernel(DROPOUT_APPLY_KERNEL, 'wasm')) {
    return tf.mul(x, dropoutMask(x.shape, rate, seed));
  }
  const fn = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [input, save] = args as [tf.Tensor, tf.GradSaveFunc];
    const [y, mask] = tf.engine().runKernel(DROPOUT_APPLY_KERNEL, { x: input }, { rate, seed } as unknown as tf.NamedAttrMap) as tf.Tensor[];
    save([mask]);
    return { value: y, gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.mul(dy, saved[0]) };
  });
  return fn(x);
}
