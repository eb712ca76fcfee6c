// The native ops as tfjs kernels on the wasm backend: each is one onnxruntime call (graphs in
// op-graphs.ts) where the tfjs composition is several wasm kernels (a LayerNorm is nine, attention's
// core five, a log-softmax read at the targets six, each with a full pass over memory and its own
// tensor). The inference fusions run when the native path is on and no gradient tape records (a
// forward pass for scoring or generation, or inside a custom gradient); training-ops.ts builds the
// training ops on the same runner. Large sums over leading axes and equal splits replace the wasm
// kernels while the native path is on. Operands are read from the wasm heap and results written into
// tfjs outputs on the heap, as in matmul-kernel.ts.
import * as tf from '@tensorflow/tfjs-core';
import { encodeModel } from './onnx-proto.ts';
import { ELEMENTWISE_CHUNK, graphOf, OPS, type Attrs, type OpDef } from './op-graphs.ts';
import type { NativeSession } from './ort.ts';
import { nativeThreads, sessionFor } from './sessions.ts';
import { packedSession } from './packed-weights.ts';
import { replaceWasmKernel } from '../replace-kernel.ts';
import { nativeMatMulActive } from './matmul-kernel.ts';
import type { HeapArray, WasmBackend } from '../wasm-backend.ts';

let registered = false;

/** Calls of the fused kernels, for tests (that the native operation really ran). */
export const nativeFusedStats = { calls: 0 };

/** An op's graph for inputs of these ranks and these attributes. */
const graphKey = (name: string, def: OpDef, shapes: Record<string, number[]>, attrs: Attrs) =>
  `${name} ${def.inputs.map((n) => shapes[n].length).join(',')} ${JSON.stringify(attrs)}`;

/** The session of an op's graph for inputs of these ranks and these attributes (made once). */
function sessionOf(name: string, def: OpDef, shapes: Record<string, number[]>, attrs: Attrs): NativeSession {
  return sessionFor(graphKey(name, def, shapes, attrs), () => encodeModel(graphOf(def, shapes, attrs)));
}

/** Runs one fused op in onnxruntime on tfjs inputs on the wasm heap; outputs made on the heap. */
function runFused(
  name: string, def: OpDef, backend: WasmBackend, inputs: Record<string, tf.TensorInfo>, attrs: Attrs,
): tf.TensorInfo | tf.TensorInfo[] {
  nativeFusedStats.calls++;
  // An elementwise op's graph is built for flat slices (see OpDef.elementwise).
  const full = tf.util.sizeFromShape(inputs[def.inputs[0]].shape);
  const sliced = (n: string) => def.elementwise === true && tf.util.sizeFromShape(inputs[n].shape) === full;
  const chunk = ELEMENTWISE_CHUNK * nativeThreads();
  const shapes = Object.fromEntries(def.inputs.map((n) => [n, sliced(n) ? [chunk] : inputs[n].shape]));
  const s = sessionOf(name, def, shapes, attrs);
  const outShapes = def.elementwise
    ? Object.fromEntries(Object.keys(def.outputs(shapes, attrs)).map((n) => [n, inputs[def.inputs[0]].shape]))
    : def.outputs(shapes, attrs);
  const outs = Object.entries(outShapes).map(([n, sh]) => [n, backend.makeOutput(sh, 'float32')] as const);
  // Heap views after every makeOutput (which may grow the heap).
  const session = s;
  if (def.elementwise) {
    const views = [
      ...def.inputs.filter(sliced).map((n) => [n, backend.typedArrayFromHeap(inputs[n])] as const),
      ...outs.map(([n, t]) => [n, backend.typedArrayFromHeap(t)] as const),
    ];
    const whole = Object.fromEntries(def.inputs.filter((n) => !sliced(n))
      .map((n) => [n, session.tensor(backend.typedArrayFromHeap(inputs[n]), shapes[n])]));
    for (let at = 0; at < full; at += chunk) {
      const n = Math.min(chunk, full - at);
      const part = { ...whole, ...Object.fromEntries(views.map(([name, v]) => [name, session.tensor(v.subarray(at, at + n), [n])])) };
      session.run(Object.fromEntries(def.inputs.map((name) => [name, part[name]])), Object.fromEntries(outs.map(([name]) => [name, part[name]])));
    }
    return outs.length === 1 ? outs[0][1] : outs.map(([, t]) => t);
  }
  const w = def.weight;
  const packed = w === undefined ? undefined
    : packedSession(backend, graphKey(name, def, shapes, attrs), () => graphOf(def, shapes, attrs), w, inputs[w], 0, nativeThreads());
  const feeds = Object.fromEntries(def.inputs.filter((n) => !packed || n !== w)
    .map((n) => [n, session.tensor(backend.typedArrayFromHeap(inputs[n]), shapes[n])]));
  const fetches = Object.fromEntries(outs.map(([n, t]) => [n, session.tensor(backend.typedArrayFromHeap(t), outShapes[n])]));
  (packed ?? session).run(feeds, fetches);
  return outs.length === 1 ? outs[0][1] : outs.map(([, t]) => t);
}

/** Below this many elements a sum or split stays on the wasm kernel (a native call costs ~10 us). */
const NATIVE_MIN_SUM = 1 << 14;

/**
 * Registers the fused kernels for the wasm backend, and replaces its Sum and SplitV by ones that run
 * large float32 tensors in onnxruntime while the native path is on (idempotent).
 */
export function registerFusedOps(): void {
  if (registered) return;
  registered = true;
  type Run = (backend: WasmBackend, inputs: Record<string, tf.TensorInfo>, attrs: Attrs) => tf.TensorInfo | tf.TensorInfo[];
  const kernels: [string, Run][] = [
    ...Object.entries(OPS).map(([name, def]): [string, Run] => [name, (backend, inputs, attrs) => runFused(name, def, backend, inputs, attrs)]),
    ...Object.keys(BLOCKED).map((name): [string, Run] => [name, (backend, inputs, attrs) => runBlocks(name, backend, inputs, attrs)]),
  ];
  for (const [name, run] of kernels) {
    tf.registerKernel({
      kernelName: name,
      backendName: 'wasm',
      kernelFunc: (args) =>
        run(args.backend as unknown as WasmBackend, args.inputs as Record<string, tf.TensorInfo>, (args.attrs ?? {}) as unknown as Attrs),
    });
  }
  replaceWasmKernel(tf.SplitV, (args, original) => {
    const x = args.inputs.x as tf.TensorInfo;
    const { numOrSizeSplits, axis } = args.attrs as unknown as { numOrSizeSplits: number | number[]; axis: number };
    const ax = tf.util.parseAxisParam(axis, x.shape)[0];
    const sizes = tf.backend_util.prepareSplitSize(x as tf.Tensor, numOrSizeSplits, ax);
    // The wasm kernel copies row by row from JS, a call per row and piece; this is one native call.
    if (!fusedOpsAvailable() || x.dtype !== 'float32' || tf.util.sizeFromShape(x.shape) < NATIVE_MIN_SUM || sizes.some((n) => n !== sizes[0])) {
      return original(args);
    }
    const backend = args.backend as unknown as WasmBackend;
    return runFused('GenstudySplit', OPS.GenstudySplit, backend, { x }, { axis: ax, parts: sizes.length }) as tf.TensorInfo[];
  });
  replaceWasmKernel(tf.Sum, (args, original) => {
    const x = args.inputs.x as tf.TensorInfo;
    if (!fusedOpsAvailable() || x.dtype !== 'float32' || tf.util.sizeFromShape(x.shape) < NATIVE_MIN_SUM) return original(args);
    const { axis, keepDims } = args.attrs as unknown as { axis: number | number[] | null; keepDims: boolean };
    const axes = tf.util.parseAxisParam(axis ?? x.shape.map((_, i) => i), x.shape);
    // Only sums over leading axes that keep trailing ones (bias gradients: each output is one
    // column's sum, added in row order). A sum to a scalar is vectorised with a start that depends
    // on the data's alignment on the heap, and so would differ in its last bits between two runs
    // (a resumed training run would not end identical to an uninterrupted one).
    if (axes.length >= x.shape.length || axes.some((a, i) => a !== i)) return original(args);
    const mask = axes.reduce((m, a) => m | (1 << a), 0);
    const backend = args.backend as unknown as WasmBackend;
    return runFused('GenstudyReduceSum', OPS.GenstudyReduceSum, backend, { x }, { axes: mask, keepDims: keepDims ? 1 : 0 }) as tf.TensorInfo;
  });
}

/**
 * Whether the fused operations apply now: the native path is on and no gradient is being recorded
 * (as in inference, in a custom gradient's forward function and in a backward pass).
 */
export function fusedOpsApply(): boolean {
  return fusedOpsAvailable() && !tf.engine().isTapeOn();
}

/** Whether the fused operations are registered and the native path is on (tape or not). */
export function fusedOpsAvailable(): boolean {
  return registered && nativeMatMulActive();
}

/** Runs a native op (by its op-graphs.ts name) through tfjs, so that tfjs tracks its outputs. */
export function runNative(name: string, inputs: Record<string, tf.Tensor>, attrs: Attrs = {}): tf.Tensor | tf.Tensor[] {
  return tf.engine().runKernel(name, inputs as unknown as tf.NamedTensorMap, attrs as unknown as tf.NamedAttrMap) as tf.Tensor | tf.Tensor[];
}

export function nativeLayerNorm(x: tf.Tensor, w: tf.Tensor, b: tf.Tensor, eps: number): tf.Tensor {
  return runNative('GenstudyLayerNorm', { x, w, b }, { eps }) as tf.Tensor;
}

export function nativeRmsNorm(x: tf.Tensor, w: tf.Tensor, eps: number): tf.Tensor {
  return runNative('GenstudyRmsNorm', { x, w }, { eps }) as tf.Tensor;
}

export function nativeLinear(x2: tf.Tensor2D, w: tf.Tensor2D, b: tf.Tensor): tf.Tensor2D {
  return runNative('GenstudyLinear', { x: x2, w, b }) as tf.Tensor2D;
}

export function nativeGelu(x: tf.Tensor, exact: boolean): tf.Tensor {
  return runNative('GenstudyGelu', { x }, { kind: exact ? 1 : 0 }) as tf.Tensor;
}

/** Attention's core with the heads merged: [B, T, H * D]; mask [B, 1, T, S] as batching.ts makes it. */
export function nativeAttention(q: tf.Tensor4D, k: tf.Tensor4D, v: tf.Tensor4D, mask: tf.Tensor, scale: number): tf.Tensor3D {
  const [b, h, t, d] = q.shape;
  return tf.reshape(runNative('GenstudyAttention', { q, k, v, mask }, { scale }) as tf.Tensor, [b, t, h * d]) as tf.Tensor3D;
}

/** log P(target) and the argmax of each row of logits [N, V]. */
export function nativeLogprobsAt(logits: tf.Tensor2D, targets: tf.Tensor1D): { logprobs: tf.Tensor1D; argmax: tf.Tensor1D } {
  const block = argMaxBlock(logits.shape[1]);
  const [lp, am, ls] = runNative('GenstudyLogprobsAt', { logits, targets: tf.reshape(targets, [-1, 1]) }, { block }) as tf.Tensor[];
  ls.dispose();
  return { logprobs: tf.reshape(lp, [-1]) as tf.Tensor1D, argmax: tf.reshape(am, [-1]) as tf.Tensor1D };
}

/** The largest divisor of a vocabulary size up to 128: the argmax's block (op-graphs.ts blockedArgMax). */
function argMaxBlock(vocab: number): number {
  for (let b = Math.min(128, vocab); b > 1; b--) if (vocab % b === 0) return b;
  return 1;
}

/**
 * The Llama family's attention from its projections, without a cache (GenstudyRopeAttention): q
 * [B, T, H * D], k and v [B, T, KV * D], cos and sin [B, 1, T, D], mask [B, 1, T, T] -> the merged
 * heads [B, T, H * D] and the layer's cache (rotated keys, values: [B, KV, T, D]).
 */
export function nativeRopeAttention(q: tf.Tensor, k: tf.Tensor, v: tf.Tensor, cos: tf.Tensor, sin: tf.Tensor, mask: tf.Tensor,
  heads: number, kvHeads: number, headDim: number, scale: number): { out: tf.Tensor3D; k: tf.Tensor4D; v: tf.Tensor4D } {
  const [b, t] = q.shape;
  const [y, kc, vc] = runNative('GenstudyRopeAttention', { q, k, v, cos, sin, mask }, { heads, kvHeads, headDim, scale }) as tf.Tensor[];
  return { out: tf.reshape(y, [b, t, heads * headDim]) as tf.Tensor3D, k: kc as tf.Tensor4D, v: vc as tf.Tensor4D };
}

/**
 * Whether a forward pass attends through onnxruntime's GroupQueryAttention by row lengths: in
 * inference (no tape), without a cache or attention dropout, on right-padded rows from position 0
 * (`lengths` given), with a head size the kernel takes (multiples of 16:
 * group_query_attention_helper.h).
 */
export function attentionByLengthsApplies(x: { past?: unknown; lengths?: number[] }, headDim: number, dropsAttention: boolean): boolean {
  return fusedOpsApply() && !x.past && !dropsAttention && x.lengths !== undefined && headDim % 16 === 0;
}

/** Queries per GroupQueryAttention call for long rows: each later block skips the scores above the diagonal. */
const QUERY_BLOCK = 64;

/** The kernels that attend long rows in blocks of queries (runBlocks), and the graph each block runs. */
const BLOCKED: Record<string, string> = {
  GenstudyGroupQueryAttentionBlocks: 'GenstudyGroupQueryAttentionPast',
  GenstudyCausalAttentionBlocks: 'GenstudyCausalAttentionPast',
};

/**
 * Rows of q [B, T, H * D], k and v [B, T, KV * D] attended in blocks of QUERY_BLOCK queries, each over
 * the keys up to its end (attrs and the rotary tables as the block's graph takes them), one row at a
 * time: onnxruntime takes a block with earlier keys for one row only (group_query_attention_helper.h:
 * "batch_size must be 1 when sequence_length > 1 and past context is given"). A block's queries, keys,
 * values and output are contiguous in the [B, T, .] tensors and are read and written where they lie;
 * the row's cache is both the past and the present keys and values (onnxruntime's shared past-present
 * buffer: a block appends its own rotated keys and values, nothing is copied). Slicing each block out
 * and concatenating the outputs and caches after took ~5% of a SmolLM-135M scoring pass.
 * -> y [B, T, H * D], keys and values [B, KV, T, D].
 */
function runBlocks(name: string, backend: WasmBackend, inputs: Record<string, tf.TensorInfo>, attrs: Attrs): tf.TensorInfo[] {
  const op = BLOCKED[name];
  const { q, k } = inputs;
  const [b, t, qw] = q.shape;
  const kw = k.shape[2], kv = attrs.kvHeads ?? attrs.heads, d = attrs.headDim;
  const tables = Object.keys(inputs).filter((n) => n === 'cos' || n === 'sin');
  const shapes: Record<string, number[]> = {
    q: [1, QUERY_BLOCK, qw], k: [1, QUERY_BLOCK, kw], v: [1, QUERY_BLOCK, kw], pk: [1, kv, t, d], pv: [1, kv, t, d], seqlens: [1], total: [],
    ...Object.fromEntries(tables.map((n) => [n, inputs[n].shape])),
  };
  const s = sessionOf(op, OPS[op], shapes, attrs);
  const outs = [backend.makeOutput(q.shape, 'float32'), backend.makeOutput([b, kv, t, d], 'float32'), backend.makeOutput([b, kv, t, d], 'float32')];
  // Heap views after every makeOutput (which may grow the heap).
  const [qa, ka, va, ya, kc, vc] = [q, k, inputs.v, ...outs].map((x) => backend.typedArrayFromHeap(x));
  const fixed = Object.fromEntries(tables.map((n) => [n, s.tensor(backend.typedArrayFromHeap(inputs[n]), inputs[n].shape)]));
  const seqlens = new Int32Array(1), total = new Int32Array(1);
  const cache = kv * t * d;
  for (let row = 0; row < b; row++) {
    const pk = s.tensor(kc.subarray(row * cache, (row + 1) * cache), [1, kv, t, d]);
    const pv = s.tensor(vc.subarray(row * cache, (row + 1) * cache), [1, kv, t, d]);
    for (let start = 0; start < t; start += QUERY_BLOCK) {
      const n = Math.min(QUERY_BLOCK, t - start);
      const block = (x: HeapArray, width: number) =>
        s.tensor(x.subarray((row * t + start) * width, (row * t + start + n) * width), [1, n, width]);
      // The row taken as full length: right padding comes after its real positions, which never attend to it.
      seqlens[0] = start + n - 1;
      total[0] = start + n;
      nativeFusedStats.calls++;
      s.run({ q: block(qa, qw), k: block(ka, kw), v: block(va, kw), pk, pv, seqlens: s.tensor(seqlens, [1]), total: s.tensor(total, []), ...fixed },
        { y: block(ya, qw), kc: pk, vc: pv });
    }
  }
  return outs;
}

/**
 * Attention of right-padded rows with positions 0.. (each row's real length in `lengths`) through
 * onnxruntime's GroupQueryAttention: `ops` names the graph for whole rows and the kernel for rows in
 * blocks (runBlocks); `tables` are the rotary tables where the op takes them. Rows longer than two
 * blocks run as blocks of QUERY_BLOCK queries, each over the keys up to its end: the kernel computes
 * every score of a call and masks the upper triangle after, so one call over T positions computes T^2
 * scores and four blocks ~0.62 T^2. -> [y, keys, values].
 */
function attentionByLengths(ops: [string, string], q: tf.Tensor, k: tf.Tensor, v: tf.Tensor, lengths: number[],
  tables: Record<string, tf.Tensor>, attrs: Attrs): tf.Tensor[] {
  const t = q.shape[1] as number;
  if (t > 2 * QUERY_BLOCK) return runNative(ops[1], { q, k, v, ...tables }, attrs) as tf.Tensor[];
  const seqlens = tf.tensor1d(lengths.map((n) => n - 1), 'int32');
  return runNative(ops[0], { q, k, v, seqlens, total: tf.scalar(t, 'int32'), ...tables }, attrs) as tf.Tensor[];
}

/**
 * The same through onnxruntime's GroupQueryAttention, for right-padded rows with positions 0.. (each
 * row's real length in `lengths`): cos and sin are the half-width tables [T, D / 2] of positions 0..T-1.
 */
export function nativeGroupQueryAttention(q: tf.Tensor, k: tf.Tensor, v: tf.Tensor, lengths: number[], cos: tf.Tensor, sin: tf.Tensor,
  heads: number, kvHeads: number, headDim: number, scale: number): { out: tf.Tensor3D; k: tf.Tensor4D; v: tf.Tensor4D } {
  const ops: [string, string] = ['GenstudyGroupQueryAttention', 'GenstudyGroupQueryAttentionBlocks'];
  const [y, kc, vc] = attentionByLengths(ops, q, k, v, lengths, { cos, sin }, { heads, kvHeads, headDim, scale });
  return { out: y as tf.Tensor3D, k: kc as tf.Tensor4D, v: vc as tf.Tensor4D };
}

/**
 * Causal attention without rotary through onnxruntime's GroupQueryAttention (GenstudyCausalAttention),
 * for right-padded rows with positions 0.. (each row's real length in `lengths`): q, k and v
 * [B, T, H * D] -> the merged heads [B, T, H * D] and the cache [B, H, T, D].
 */
export function nativeCausalAttention(q: tf.Tensor, k: tf.Tensor, v: tf.Tensor, lengths: number[], heads: number, headDim: number,
  scale: number): { out: tf.Tensor3D; cache: { k: tf.Tensor4D; v: tf.Tensor4D } } {
  const ops: [string, string] = ['GenstudyCausalAttention', 'GenstudyCausalAttentionBlocks'];
  const [y, kc, vc] = attentionByLengths(ops, q, k, v, lengths, {}, { heads, headDim, scale });
  return { out: y as tf.Tensor3D, cache: { k: kc as tf.Tensor4D, v: vc as tf.Tensor4D } };
}

/** silu(gate) up, elementwise. */
export function nativeSwiGlu(gate: tf.Tensor, up: tf.Tensor): tf.Tensor {
  return runNative('GenstudySwiGlu', { gate, up }) as tf.Tensor;
}

/** x2 W (+ b) + r in one product: r [N, out] is loaded into the accumulator. */
export function nativeLinearResidual(x2: tf.Tensor2D, w: tf.Tensor2D, b: tf.Tensor | undefined, r: tf.Tensor2D): tf.Tensor2D {
  return (b ? runNative('GenstudyLinearBiasResidual', { x: x2, w, b, r }) : runNative('GenstudyLinearResidual', { x: x2, w, r })) as tf.Tensor2D;
}
