// Inference-time fused operations on the native path: each is one onnxruntime call where the tfjs
// composition is several wasm kernels (a LayerNorm is nine, attention's core five, a log-softmax read
// at the targets six, each with a full pass over memory and its own tensor). They run only when the
// native path is active and no gradient tape records (a forward pass for scoring or generation);
// training keeps the tfjs compositions, whose gradients tfjs knows. Operands are read from the wasm
// heap and results written into tfjs outputs on the heap, as in matmul-kernel.ts.
import * as tf from '@tensorflow/tfjs-core';
import { encodeModel, OnnxType, type OnnxGraph, type OnnxNode } from './onnx-proto.ts';
import { NativeSession } from './ort.ts';
import { nativeMatMulActive, nativeThreads } from './matmul-kernel.ts';

type Attrs = Record<string, number>;

interface OpDef {
  /** tfjs input names, in the graph's input order. */
  inputs: string[];
  /** Input element types (float unless named here). */
  intInputs?: string[];
  nodes(attrs: Attrs): OnnxNode[];
  /** Output names and shapes from the input shapes. */
  outputs(shapes: Record<string, number[]>, attrs: Attrs): Record<string, number[]>;
  opsets?: Record<string, number>;
  /**
   * The outputs and the first input have one shape, each element depends on the same element of the
   * inputs of that size alone, and any other input is small and broadcast (scalars): the op runs on
   * slices of at most ELEMENTWISE_CHUNK elements, so that the graph's intermediates (one per node)
   * stay small, in cache, and are reused from slice to slice, instead of each being a whole pass
   * over memory and a copy of the whole tensor.
   */
  elementwise?: boolean;
}

const ELEMENTWISE_CHUNK = 1 << 16;

const OPS: Record<string, OpDef> = {
  // LayerNorm over the last axis with weight and bias (ONNX LayerNormalization, opset 17).
  GenstudyLayerNorm: {
    inputs: ['x', 'w', 'b'],
    nodes: (a) => [{ op: 'LayerNormalization', inputs: ['x', 'w', 'b'], outputs: ['y'], attributes: [{ name: 'axis', i: -1 }, { name: 'epsilon', f: a.eps }] }],
    outputs: (s) => ({ y: s.x }),
  },
  // x W + b for a 2D x (Gemm: the bias is loaded into the accumulator, no second pass).
  GenstudyLinear: {
    inputs: ['x', 'w', 'b'],
    nodes: () => [{ op: 'Gemm', inputs: ['x', 'w', 'b'], outputs: ['y'] }],
    outputs: (s) => ({ y: [s.x[0], s.w[1]] }),
  },
  // GELU, tanh approximation (kind 0, com.microsoft FastGelu) or exact erf (kind 1, com.microsoft Gelu).
  GenstudyGelu: {
    inputs: ['x'],
    nodes: (a) => [{ op: a.kind === 0 ? 'FastGelu' : 'Gelu', domain: 'com.microsoft', inputs: ['x'], outputs: ['y'] }],
    outputs: (s) => ({ y: s.x }),
  },
  // LayerNorm for training: y, and each row's mean and 1/sqrt(var + eps) for the backward pass:
  // x [N, H], w [H], b [H] -> y [N, H], mean [N, 1], inv [N, 1].
  GenstudyLayerNormTrain: {
    inputs: ['x', 'w', 'b'],
    nodes: (a) => [{ op: 'LayerNormalization', inputs: ['x', 'w', 'b'], outputs: ['y', 'mean', 'inv'], attributes: [{ name: 'axis', i: -1 }, { name: 'epsilon', f: a.eps }] }],
    outputs: (s) => ({ y: s.x, mean: [s.x[0], 1], inv: [s.x[0], 1] }),
  },
  // LayerNorm's gradients from what GenstudyLayerNormTrain kept, with xh = (x - mean) inv, g = dy w:
  // dx = inv (g - mean_row(g) - xh mean_row(g xh)), dw = sum_rows(dy xh), db = sum_rows(dy).
  GenstudyLayerNormGrad: {
    inputs: ['x', 'w', 'mean', 'inv', 'dy'],
    nodes: () => {
      const n = (op: string, inputs: string[], out: string, attributes?: OnnxNode['attributes']): OnnxNode => ({ op, inputs, outputs: [out], attributes });
      const rowMean = (x: string, out: string) => n('ReduceMean', [x], out, [{ name: 'axes', ints: [1] }, { name: 'keepdims', i: 1 }]);
      const colSum = (x: string, out: string) => n('ReduceSum', [x, 'rows'], out, [{ name: 'keepdims', i: 0 }]);
      return [
        { op: 'Constant', inputs: [], outputs: ['rows'], attributes: [{ name: 'value_ints', ints: [0] }] },
        n('Sub', ['x', 'mean'], 'xc'), n('Mul', ['xc', 'inv'], 'xh'),
        colSum('dy', 'db'), n('Mul', ['dy', 'xh'], 'dyxh'), colSum('dyxh', 'dw'),
        n('Mul', ['dy', 'w'], 'g'), rowMean('g', 'm1'), n('Mul', ['g', 'xh'], 'gxh'), rowMean('gxh', 'm2'),
        n('Sub', ['g', 'm1'], 't1'), n('Mul', ['xh', 'm2'], 't2'), n('Sub', ['t1', 't2'], 't3'), n('Mul', ['t3', 'inv'], 'dx'),
      ];
    },
    outputs: (s) => ({ dx: s.x, dw: s.w, db: s.w }),
  },
  // GELU's gradient dy gelu'(x) for training (the forward is GenstudyGelu): tanh form (kind 0)
  //   gelu'(x) = (1 + t) / 2 + x (1 - t^2) c (1 + 3 a x^2) / 2,  t = tanh(c (x + a x^3)),
  //   c = sqrt(2 / pi), a = 0.044715; exact form (kind 1) gelu'(x) = Phi(x) + x phi(x).
  // The tape then keeps x alone, where the tfjs composition keeps five tensors of x's size.
  GenstudyGeluGrad: {
    inputs: ['x', 'dy'],
    nodes: (a) => {
      const k = (name: string, f: number): OnnxNode => ({ op: 'Constant', inputs: [], outputs: [name], attributes: [{ name: 'value_float', f }] });
      const n = (op: string, inputs: string[], out: string): OnnxNode => ({ op, inputs, outputs: [out] });
      const c = Math.sqrt(2 / Math.PI), A = 0.044715;
      const head = [k('half', 0.5), k('one', 1), n('Mul', ['x', 'x'], 'x2')];
      const tail = [n('Add', ['left', 'right'], 'd'), n('Mul', ['d', 'dy'], 'dx')];
      if (a.kind === 0) {
        return [...head, k('a', A), k('c', c), k('a3', 3 * A),
          n('Mul', ['x2', 'a'], 'ax2'), n('Add', ['ax2', 'one'], 'in1'), n('Mul', ['x', 'in1'], 'in2'), n('Mul', ['in2', 'c'], 'u'), n('Tanh', ['u'], 't'),
          n('Add', ['t', 'one'], 'tp1'), n('Mul', ['tp1', 'half'], 'left'),
          n('Mul', ['t', 't'], 't2'), n('Sub', ['one', 't2'], 'omt2'), n('Mul', ['x2', 'a3'], 'a3x2'), n('Add', ['a3x2', 'one'], 'du1'), n('Mul', ['du1', 'c'], 'du'),
          n('Mul', ['x', 'omt2'], 'r1'), n('Mul', ['r1', 'du'], 'r2'), n('Mul', ['r2', 'half'], 'right'), ...tail];
      }
      return [...head, k('rsqrt2', Math.SQRT1_2), k('mhalf', -0.5), k('rsqrt2pi', 1 / Math.sqrt(2 * Math.PI)),
        n('Mul', ['x', 'rsqrt2'], 'xs'), n('Erf', ['xs'], 'e'), n('Add', ['e', 'one'], 'e1'), n('Mul', ['e1', 'half'], 'left'),
        n('Mul', ['x2', 'mhalf'], 'ex'), n('Exp', ['ex'], 'g'), n('Mul', ['g', 'rsqrt2pi'], 'pdf'), n('Mul', ['x', 'pdf'], 'right'), ...tail];
    },
    outputs: (s) => ({ dx: s.x }),
    elementwise: true,
  },
  // softmax(q k^T scale + mask) v, heads merged: q [B, H, T, D], k and v [B, H, S, D], mask [B, 1, T, S]
  // -> [B, T, H, D].
  GenstudyAttention: {
    inputs: ['q', 'k', 'v', 'mask'],
    nodes: (a) => [
      { op: 'FusedMatMul', domain: 'com.microsoft', inputs: ['q', 'k'], outputs: ['s'], attributes: [{ name: 'transB', i: 1 }, { name: 'alpha', f: a.scale }] },
      { op: 'Add', inputs: ['s', 'mask'], outputs: ['sm'] },
      { op: 'Softmax', inputs: ['sm'], outputs: ['p'], attributes: [{ name: 'axis', i: -1 }] },
      { op: 'MatMul', inputs: ['p', 'v'], outputs: ['o'] },
      { op: 'Transpose', inputs: ['o'], outputs: ['y'], attributes: [{ name: 'perm', ints: [0, 2, 1, 3] }] },
    ],
    outputs: (s) => ({ y: [s.q[0], s.q[2], s.q[1], s.q[3]] }),
  },
  // log-softmax of each row read at its target, and the row's argmax (as a float): logits [N, V],
  // targets [N, 1] (int32) -> [N, 1] each.
  GenstudyLogprobsAt: {
    inputs: ['logits', 'targets'],
    intInputs: ['targets'],
    nodes: () => [
      { op: 'LogSoftmax', inputs: ['logits'], outputs: ['ls'], attributes: [{ name: 'axis', i: 1 }] },
      { op: 'GatherElements', inputs: ['ls', 'targets'], outputs: ['lp'], attributes: [{ name: 'axis', i: 1 }] },
      { op: 'ArgMax', inputs: ['logits'], outputs: ['am64'], attributes: [{ name: 'axis', i: 1 }, { name: 'keepdims', i: 1 }] },
      { op: 'Cast', inputs: ['am64'], outputs: ['am'], attributes: [{ name: 'to', i: OnnxType.float }] },
    ],
    // The log-softmax is an output too (dropped by the caller): written to the warm wasm heap rather
    // than to a fresh block of onnxruntime's, whose pages fault in on every call.
    outputs: (s) => ({ lp: [s.logits[0], 1], am: [s.logits[0], 1], ls: s.logits }),
  },
  // Sum over the axes in the bit mask `axes` (bit i: axis i), keeping them as size 1 when keepDims is
  // 1: x -> the reduced shape. (tfjs's Sum on wasm first transposes the reduced axes to the end, a
  // full copy, when they lead, as in every bias gradient: a sum over the batch rows.)
  GenstudyReduceSum: {
    inputs: ['x'],
    nodes: (a) => [
      { op: 'Constant', inputs: [], outputs: ['axes'], attributes: [{ name: 'value_ints', ints: maskAxes(a.axes) }] },
      { op: 'ReduceSum', inputs: ['x', 'axes'], outputs: ['y'], attributes: [{ name: 'keepdims', i: a.keepDims }] },
    ],
    outputs: (s, a) => ({ y: s.x.flatMap((d, i) => (a.axes & (1 << i) ? (a.keepDims ? [1] : []) : [d])) }),
  },
  // x cut into `parts` equal pieces along `axis`: y0, y1, ... (a fused qkv projection's q, k, v).
  GenstudySplit: {
    inputs: ['x'],
    nodes: (a) => [{ op: 'Split', inputs: ['x'], outputs: Array.from({ length: a.parts }, (_, i) => `y${i}`), attributes: [{ name: 'axis', i: a.axis }] }],
    outputs: (s, a) => Object.fromEntries(Array.from({ length: a.parts }, (_, i) => [`y${i}`, s.x.map((d, j) => (j === a.axis ? d / a.parts : d))])),
  },
  // One AdamW update (train/adamw.ts has the formula) of a parameter p with gradient g and moments m,
  // v: k holds [1 - lr wd, b1, 1 - b1, b2, 1 - b2, sqrt(1 - b2^t), eps, lr / (1 - b1^t)]. The same
  // operations in the same order as the tfjs composition (the same float32 results), in cache-sized
  // slices: one pass over the parameter's memory instead of fourteen.
  GenstudyAdamW: {
    inputs: ['p', 'g', 'm', 'v', 'k'],
    nodes: () => {
      const n = (op: string, inputs: string[], out: string): OnnxNode => ({ op, inputs, outputs: [out] });
      return [
        { op: 'Split', inputs: ['k'], outputs: ['decay', 'b1', 'nb1', 'b2', 'nb2', 'bc2', 'eps', 'step'], attributes: [{ name: 'axis', i: 0 }] },
        n('Mul', ['m', 'b1'], 'm1'), n('Mul', ['g', 'nb1'], 'g1'), n('Add', ['m1', 'g1'], 'mo'),
        n('Mul', ['v', 'b2'], 'v1'), n('Mul', ['g', 'g'], 'gg'), n('Mul', ['gg', 'nb2'], 'g2'), n('Add', ['v1', 'g2'], 'vo'),
        n('Sqrt', ['vo'], 'sq'), n('Div', ['sq', 'bc2'], 'sqc'), n('Add', ['sqc', 'eps'], 'den'),
        n('Div', ['mo', 'den'], 'r'), n('Mul', ['r', 'step'], 'u'), n('Mul', ['p', 'decay'], 'pd'), n('Sub', ['pd', 'u'], 'po'),
      ];
    },
    outputs: (s) => ({ po: s.p, mo: s.p, vo: s.p }),
    elementwise: true,
  },
  // Cross-entropy's forward: each row's log-softmax (kept for the backward pass) and its value at
  // the target: x [N, V], targets [N, 1] (int32) -> logp [N, V], gold [N, 1]. MLAS's log-softmax is
  // one vectorised kernel; ReduceLogSumExp is scalar code, ~5x slower on [512 x 8192].
  GenstudyLogSoftmaxAt: {
    inputs: ['x', 'targets'],
    intInputs: ['targets'],
    nodes: () => [
      { op: 'LogSoftmax', inputs: ['x'], outputs: ['logp'], attributes: [{ name: 'axis', i: 1 }] },
      { op: 'GatherElements', inputs: ['logp', 'targets'], outputs: ['gold'], attributes: [{ name: 'axis', i: 1 }] },
    ],
    outputs: (s) => ({ logp: s.x, gold: [s.x[0], 1] }),
  },
  // dy exp(logp) = dy softmax(x), the gradient of summed cross-entropy before its one-hot term
  // (subtracted in JS, one element per row): logp [N, V], dy [1] -> [N, V].
  GenstudyScaledExp: {
    inputs: ['logp', 'dy'],
    nodes: () => [
      { op: 'Exp', inputs: ['logp'], outputs: ['p'] },
      { op: 'Mul', inputs: ['p', 'dy'], outputs: ['y'] },
    ],
    outputs: (s) => ({ y: s.logp }),
    elementwise: true,
  },
};

function maskAxes(mask: number): number[] {
  const axes: number[] = [];
  for (let i = 0; mask >> i; i++) if (mask & (1 << i)) axes.push(i);
  return axes;
}

function graphOf(def: OpDef, shapes: Record<string, number[]>, attrs: Attrs): OnnxGraph {
  const outShapes = def.outputs(shapes, attrs);
  return {
    nodes: def.nodes(attrs),
    inputs: def.inputs.map((n) => ({ name: n, type: def.intInputs?.includes(n) ? OnnxType.int32 : OnnxType.float, shape: shapes[n].map((_, i) => `${n}${i}`) })),
    outputs: Object.entries(outShapes).map(([n, sh]) => ({ name: n, type: OnnxType.float, shape: sh.map((_, i) => `${n}${i}`) })),
    opsets: def.opsets ?? { '': 17, 'com.microsoft': 1 },
  };
}

interface WasmBackend {
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(t: tf.TensorInfo): Float32Array | Int32Array;
}

const sessions = new Map<string, NativeSession>();
let registered = false;

/** Calls of the fused kernels, for tests (that the native operation really ran). */
export const nativeFusedStats = { calls: 0 };

/** Runs one fused op in onnxruntime on tfjs inputs on the wasm heap; outputs made on the heap. */
function runFused(name: string, def: OpDef, backend: WasmBackend, inputs: Record<string, tf.TensorInfo>, attrs: Attrs): tf.TensorInfo | tf.TensorInfo[] {
  nativeFusedStats.calls++;
  // An elementwise op's graph is built for flat slices (see OpDef.elementwise).
  const full = tf.util.sizeFromShape(inputs[def.inputs[0]].shape);
  const sliced = (n: string) => def.elementwise === true && tf.util.sizeFromShape(inputs[n].shape) === full;
  const shapes = Object.fromEntries(def.inputs.map((n) => [n, sliced(n) ? [ELEMENTWISE_CHUNK] : inputs[n].shape]));
  const key = `${name} ${def.inputs.map((n) => shapes[n].length).join(',')} ${JSON.stringify(attrs)}`;
  let s = sessions.get(key);
  if (!s) {
    s = new NativeSession(encodeModel(graphOf(def, shapes, attrs)), nativeThreads());
    sessions.set(key, s);
  }
  const outShapes = def.elementwise ? Object.fromEntries(Object.keys(def.outputs(shapes, attrs)).map((n) => [n, inputs[def.inputs[0]].shape])) : def.outputs(shapes, attrs);
  const outs = Object.entries(outShapes).map(([n, sh]) => [n, backend.makeOutput(sh, 'float32')] as const);
  // Heap views after every makeOutput (which may grow the heap).
  const session = s;
  if (def.elementwise) {
    const views = [...def.inputs.filter(sliced).map((n) => [n, backend.typedArrayFromHeap(inputs[n])] as const), ...outs.map(([n, t]) => [n, backend.typedArrayFromHeap(t)] as const)];
    const whole = Object.fromEntries(def.inputs.filter((n) => !sliced(n)).map((n) => [n, session.tensor(backend.typedArrayFromHeap(inputs[n]), shapes[n])]));
    for (let at = 0; at < full; at += ELEMENTWISE_CHUNK) {
      const n = Math.min(ELEMENTWISE_CHUNK, full - at);
      const part = { ...whole, ...Object.fromEntries(views.map(([name, v]) => [name, session.tensor(v.subarray(at, at + n), [n])])) };
      session.run(Object.fromEntries(def.inputs.map((name) => [name, part[name]])), Object.fromEntries(outs.map(([name]) => [name, part[name]])));
    }
    return outs.length === 1 ? outs[0][1] : outs.map(([, t]) => t);
  }
  const feeds = Object.fromEntries(def.inputs.map((n) => [n, session.tensor(backend.typedArrayFromHeap(inputs[n]), shapes[n])]));
  const fetches = Object.fromEntries(outs.map(([n, t]) => [n, session.tensor(backend.typedArrayFromHeap(t), outShapes[n])]));
  session.run(feeds, fetches);
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
  for (const [name, def] of Object.entries(OPS)) {
    tf.registerKernel({
      kernelName: name,
      backendName: 'wasm',
      kernelFunc: (args) => runFused(name, def, args.backend as unknown as WasmBackend, args.inputs as Record<string, tf.TensorInfo>, (args.attrs ?? {}) as unknown as Attrs),
    });
  }
  const originalSplit = tf.getKernel(tf.SplitV, 'wasm');
  if (originalSplit) {
    tf.unregisterKernel(tf.SplitV, 'wasm');
    tf.registerKernel({
      ...originalSplit,
      kernelFunc: (args) => {
        const x = args.inputs.x as tf.TensorInfo;
        const { numOrSizeSplits, axis } = args.attrs as unknown as { numOrSizeSplits: number | number[]; axis: number };
        const ax = tf.util.parseAxisParam(axis, x.shape)[0];
        const sizes = tf.backend_util.prepareSplitSize(x as tf.Tensor, numOrSizeSplits, ax);
        // The wasm kernel copies row by row from JS, a call per row and piece; this is one native call.
        if (!fusedOpsAvailable() || x.dtype !== 'float32' || tf.util.sizeFromShape(x.shape) < NATIVE_MIN_SUM || sizes.some((n) => n !== sizes[0])) return originalSplit.kernelFunc(args);
        return runFused('GenstudySplit', OPS.GenstudySplit, args.backend as unknown as WasmBackend, { x }, { axis: ax, parts: sizes.length }) as tf.TensorInfo[];
      },
    });
  }
  const originalSum = tf.getKernel(tf.Sum, 'wasm');
  if (!originalSum) return;
  tf.unregisterKernel(tf.Sum, 'wasm');
  tf.registerKernel({
    ...originalSum,
    kernelFunc: (args) => {
      const x = args.inputs.x as tf.TensorInfo;
      if (!fusedOpsAvailable() || x.dtype !== 'float32' || tf.util.sizeFromShape(x.shape) < NATIVE_MIN_SUM) return originalSum.kernelFunc(args);
      const { axis, keepDims } = args.attrs as unknown as { axis: number | number[] | null; keepDims: boolean };
      const axes = tf.util.parseAxisParam(axis ?? x.shape.map((_, i) => i), x.shape);
      // Only sums over leading axes that keep trailing ones (bias gradients: each output is one
      // column's sum, added in row order). A sum to a scalar is vectorised with a start that depends
      // on the data's alignment on the heap, and so would differ in its last bits between two runs
      // (a resumed training run would not end identical to an uninterrupted one).
      if (axes.length >= x.shape.length || axes.some((a, i) => a !== i)) return originalSum.kernelFunc(args);
      const mask = axes.reduce((m, a) => m | (1 << a), 0);
      return runFused('GenstudyReduceSum', OPS.GenstudyReduceSum, args.backend as unknown as WasmBackend, { x }, { axes: mask, keepDims: keepDims ? 1 : 0 }) as tf.TensorInfo;
    },
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

function run(name: string, inputs: Record<string, tf.Tensor>, attrs: Attrs = {}): tf.Tensor | tf.Tensor[] {
  return tf.engine().runKernel(name, inputs as unknown as tf.NamedTensorMap, attrs as unknown as tf.NamedAttrMap) as tf.Tensor | tf.Tensor[];
}

export function nativeLayerNorm(x: tf.Tensor, w: tf.Tensor, b: tf.Tensor, eps: number): tf.Tensor {
  return run('GenstudyLayerNorm', { x, w, b }, { eps }) as tf.Tensor;
}

export function nativeLinear(x2: tf.Tensor2D, w: tf.Tensor2D, b: tf.Tensor): tf.Tensor2D {
  return run('GenstudyLinear', { x: x2, w, b }) as tf.Tensor2D;
}

/**
 * LayerNorm (weight and bias) with its gradients computed natively too, for training on the native
 * path: the tape keeps x and two numbers per row, where the tfjs composition keeps about five
 * tensors of x's size.
 */
export function nativeLayerNormTrainable(x: tf.Tensor, w: tf.Tensor, b: tf.Tensor, eps: number): tf.Tensor {
  const width = x.shape[x.rank - 1];
  const fn = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [input, weight, bias, save] = args as [tf.Tensor, tf.Tensor, tf.Tensor, tf.GradSaveFunc];
    const x2 = tf.reshape(input, [-1, width]);
    const [y, mean, inv] = run('GenstudyLayerNormTrain', { x: x2, w: weight, b: bias }, { eps }) as tf.Tensor[];
    save([x2, weight, mean, inv]);
    return {
      value: tf.reshape(y, input.shape),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [sx, sw, sm, si] = saved;
        const [dx, dw, db] = run('GenstudyLayerNormGrad', { x: sx, w: sw, mean: sm, inv: si, dy: tf.reshape(dy, [-1, width]) }) as tf.Tensor[];
        return [tf.reshape(dx, dy.shape), dw, db];
      },
    };
  });
  return fn(x, w, b) as tf.Tensor;
}

/**
 * GELU with its gradient computed natively too (for training on the native path): one custom-gradient
 * op whose tape entry keeps x alone.
 */
export function nativeGeluTrainable(x: tf.Tensor, exact: boolean): tf.Tensor {
  const fn = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [input, save] = args as [tf.Tensor, tf.GradSaveFunc];
    save([input]);
    return {
      value: nativeGelu(input, exact),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => run('GenstudyGeluGrad', { x: saved[0], dy }, { kind: exact ? 1 : 0 }) as tf.Tensor,
    };
  });
  return fn(x) as tf.Tensor;
}

export function nativeGelu(x: tf.Tensor, exact: boolean): tf.Tensor {
  return run('GenstudyGelu', { x }, { kind: exact ? 1 : 0 }) as tf.Tensor;
}

/** Attention's core with the heads merged: [B, T, H * D]; mask [B, 1, T, S] as batching.ts makes it. */
export function nativeAttention(q: tf.Tensor4D, k: tf.Tensor4D, v: tf.Tensor4D, mask: tf.Tensor, scale: number): tf.Tensor3D {
  const [b, h, t, d] = q.shape;
  return tf.reshape(run('GenstudyAttention', { q, k, v, mask }, { scale }) as tf.Tensor, [b, t, h * d]) as tf.Tensor3D;
}

/** log P(target) and the argmax of each row of logits [N, V]. */
export function nativeLogprobsAt(logits: tf.Tensor2D, targets: tf.Tensor1D): { logprobs: tf.Tensor1D; argmax: tf.Tensor1D } {
  const [lp, am, ls] = run('GenstudyLogprobsAt', { logits, targets: tf.reshape(targets, [-1, 1]) }) as tf.Tensor[];
  ls.dispose();
  return { logprobs: tf.reshape(lp, [-1]) as tf.Tensor1D, argmax: tf.reshape(am, [-1]) as tf.Tensor1D };
}

/** One AdamW update: [p, m, v] after it; k as GenstudyAdamW describes. */
export function nativeAdamW(p: tf.Tensor, g: tf.Tensor, m: tf.Tensor, v: tf.Tensor, k: number[]): tf.Tensor[] {
  return run('GenstudyAdamW', { p, g, m, v, k: tf.tensor1d(k) }) as tf.Tensor[];
}

/** Each row's log-softmax of x [N, V] and its value at the row's target (targets [N], int32). */
export function nativeLogSoftmaxAt(x: tf.Tensor2D, targets: tf.Tensor1D): { logp: tf.Tensor2D; gold: tf.Tensor1D } {
  const [logp, gold] = run('GenstudyLogSoftmaxAt', { x, targets: tf.reshape(targets, [-1, 1]) }) as tf.Tensor[];
  return { logp: logp as tf.Tensor2D, gold: tf.reshape(gold, [-1]) as tf.Tensor1D };
}

/** dy (exp(logp) - onehot(targets)) for logp [N, V], the rows' targets and a scalar dy. */
export function nativeCrossEntropyGrad(logp: tf.Tensor2D, targets: readonly number[], dy: tf.Tensor): tf.Tensor2D {
  const g = run('GenstudyScaledExp', { logp, dy: tf.reshape(dy, [1]) }) as tf.Tensor2D;
  const d = dy.dataSync()[0];
  const vocab = logp.shape[1];
  // g is a new output that nothing else has read: the one-hot term (one element per row) is
  // subtracted where it lies on the heap.
  const heap = (tf.backend() as unknown as WasmBackend).typedArrayFromHeap(g) as Float32Array;
  targets.forEach((t, i) => { heap[i * vocab + t] -= d; });
  return g;
}
