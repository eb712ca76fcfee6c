// The ONNX graph of each native op genstudy runs (fused-ops.ts registers and runs them as tfjs
// kernels on the wasm heap): the inference fusions (LayerNorm, linear + bias, GELU, attention,
// log-softmax at the targets), sums and splits, and the training ops with their gradients
// (training-ops.ts). Each entry is data: inputs, nodes, output shapes.
import { OnnxType, type OnnxGraph, type OnnxNode } from './onnx-proto.ts';

export type Attrs = Record<string, number>;

export interface OpDef {
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
   * slices of at most ELEMENTWISE_CHUNK elements per thread, so that the graph's intermediates (one
   * per node) stay small, in each thread's cache, and are reused from slice to slice, instead of each
   * being a whole pass over memory and a copy of the whole tensor. (Per thread: with two threads,
   * slices of 64k elements made every node's work too small to share, and those ops ran slower than
   * on one.)
   */
  elementwise?: boolean;
  /** The input that is a layer's weight, held as a packed constant through an inference call (packed-weights.ts). */
  weight?: string;
}

export const ELEMENTWISE_CHUNK = 1 << 16;

/** One node with one output. */
function node(op: string, inputs: string[], out: string, attributes?: OnnxNode['attributes']): OnnxNode {
  return { op, inputs, outputs: [out], attributes };
}

/** A float scalar constant. */
function constant(name: string, f: number): OnnxNode {
  return { op: 'Constant', inputs: [], outputs: [name], attributes: [{ name: 'value_float', f }] };
}

/** The int64 list [0] as `rows`, the axes ReduceSum takes as an input for a sum over rows. */
const ROWS_AXIS: OnnxNode = { op: 'Constant', inputs: [], outputs: ['rows'], attributes: [{ name: 'value_ints', ints: [0] }] };

/** Each row's mean ([N, H] -> [N, 1]) and each column's sum ([N, H] -> [H], needs ROWS_AXIS). */
const rowMean = (x: string, out: string) => node('ReduceMean', [x], out, [{ name: 'axes', ints: [1] }, { name: 'keepdims', i: 1 }]);
const colSum = (x: string, out: string) => node('ReduceSum', [x, 'rows'], out, [{ name: 'keepdims', i: 0 }]);

/**
 * The Llama family's attention from projections (GenstudyRopeAttention and its training form): heads
 * split, rotary applied (x cos + rotate_half(x) sin, as transformers' apply_rotary_pos_emb), and each
 * group of n = H / KV query heads attending to its key-value head as one [n T, D] block, so the
 * key-value heads are never repeated (transformers' repeat_kv gives the same scores, each computed once
 * per query head).
 */
function ropeAttentionNodes(a: Attrs): OnnxNode[] {
  const ints = (name: string, v: number[]): OnnxNode => ({
    op: 'Constant', inputs: [], outputs: [name], attributes: [{ name: 'value_ints', ints: v }],
  });
  const heads = (x: string, out: string): OnnxNode[] => [
    node('Reshape', [x, `${x}_shape`], `${x}_4`), node('Transpose', [`${x}_4`], out, [{ name: 'perm', ints: [0, 2, 1, 3] }]),
  ];
  const rotary = (x: string, out: string): OnnxNode[] => [
    { op: 'Split', inputs: [x], outputs: [`${x}1`, `${x}2`], attributes: [{ name: 'axis', i: -1 }] },
    node('Neg', [`${x}2`], `${x}n2`), node('Concat', [`${x}n2`, `${x}1`], `${x}r`, [{ name: 'axis', i: -1 }]),
    node('Mul', [x, 'cos'], `${x}c`), node('Mul', [`${x}r`, 'sin'], `${x}s`), node('Add', [`${x}c`, `${x}s`], out),
  ];
  const n = a.heads / a.kvHeads;
  return [
    ints('q_shape', [0, 0, a.heads, a.headDim]), ints('k_shape', [0, 0, a.kvHeads, a.headDim]), ints('v_shape', [0, 0, a.kvHeads, a.headDim]),
    ints('grouped', [0, a.kvHeads, -1, a.headDim]), ints('merged', [0, a.heads, -1, a.headDim]), ints('groupRows', [1, 1, n, 1]),
    ...heads('q', 'qh'), ...heads('k', 'kh'), ...heads('v', 'vc'),
    ...rotary('qh', 'qr'), ...rotary('kh', 'kc'),
    node('Reshape', ['qr', 'grouped'], 'qg'),
    {
      op: 'FusedMatMul', domain: 'com.microsoft', inputs: ['qg', 'kc'], outputs: ['s4'],
      attributes: [{ name: 'transB', i: 1 }, { name: 'alpha', f: a.scale }],
    },
    // Row j T + t of a group's scores is query head j at position t: the mask's rows repeated n times.
    node('Tile', ['mask', 'groupRows'], 'maskg'), node('Add', ['s4', 'maskg'], 'sm'),
    node('Softmax', ['sm'], 'p', [{ name: 'axis', i: -1 }]),
    node('MatMul', ['p', 'vc'], 'og'), node('Reshape', ['og', 'merged'], 'o'),
    node('Transpose', ['o'], 'y', [{ name: 'perm', ints: [0, 2, 1, 3] }]),
  ];
}

/**
 * onnxruntime's GroupQueryAttention (com.microsoft) on q [B, S, H * D], k and v [B, S, KV * D]
 * (attrs heads, kvHeads (default: heads), headDim, scale), with rotary from cos/sin tables and with
 * the keys and values of earlier positions (pk, pv [B, KV, past, D]) where asked.
 */
function groupQueryAttention(o: { rotary: boolean; past: boolean }): OpDef {
  const tables = o.rotary ? ['cos', 'sin'] : [];
  const past = o.past ? ['pk', 'pv'] : [];
  return {
    inputs: ['q', 'k', 'v', ...past, 'seqlens', 'total', ...tables],
    intInputs: ['seqlens', 'total'],
    nodes: (a) => [{
      op: 'GroupQueryAttention', domain: 'com.microsoft', inputs: ['q', 'k', 'v', ...(o.past ? past : ['', '']), 'seqlens', 'total', ...tables],
      outputs: ['y', 'kc', 'vc'],
      attributes: [
        { name: 'num_heads', i: a.heads }, { name: 'kv_num_heads', i: a.kvHeads ?? a.heads }, { name: 'scale', f: a.scale },
        ...(o.rotary ? [{ name: 'do_rotary', i: 1 }, { name: 'rotary_interleaved', i: 0 }] : []),
      ],
    }],
    outputs: (s, a) => {
      const [b, t] = s.q;
      const cache = [b, a.kvHeads ?? a.heads, (o.past ? s.pk[2] : 0) + t, a.headDim];
      return { y: s.q, kc: cache, vc: cache };
    },
  };
}

/**
 * Each row's argmax of x [N, V] as int64 [N, 1] `out` (the first index of the maximum, as ArgMax),
 * with V = nb * block: the maxima of blocks of `block` columns (ReduceMax, vectorised), the first block
 * holding the row's maximum (ArgMax over nb), and the first index of the maximum inside it (ArgMax
 * over block). ArgMax over V itself is a scalar loop: ~26 ms on [256 x 49152] against ~4 ms so.
 */
function blockedArgMax(x: string, block: number, out: string): OnnxNode[] {
  const ints = (name: string, v: number[]): OnnxNode => ({
    op: 'Constant', inputs: [], outputs: [name], attributes: [{ name: 'value_ints', ints: v }],
  });
  return [
    ints('am_blocks', [0, -1, block]), ints('am_axis', [2]), ints('am_one_block', [1, 1, block]), ints('am_block', [block]),
    node('Reshape', [x, 'am_blocks'], 'am_x3'),
    node('ReduceMax', ['am_x3'], 'am_max', [{ name: 'axes', ints: [2] }, { name: 'keepdims', i: 0 }]),
    node('ArgMax', ['am_max'], 'am_b', [{ name: 'axis', i: 1 }, { name: 'keepdims', i: 1 }]),
    node('Unsqueeze', ['am_b', 'am_axis'], 'am_b3'), node('Expand', ['am_b3', 'am_one_block'], 'am_bx'),
    node('GatherElements', ['am_x3', 'am_bx'], 'am_in', [{ name: 'axis', i: 1 }]),
    node('ArgMax', ['am_in'], 'am_i', [{ name: 'axis', i: 2 }, { name: 'keepdims', i: 0 }]),
    node('Mul', ['am_b', 'am_block'], 'am_base'), node('Add', ['am_base', 'am_i'], out),
  ];
}

export const OPS: Record<string, OpDef> = {
  // LayerNorm over the last axis with weight and bias (ONNX LayerNormalization, opset 17).
  GenstudyLayerNorm: {
    inputs: ['x', 'w', 'b'],
    nodes: (a) => [{
      op: 'LayerNormalization', inputs: ['x', 'w', 'b'], outputs: ['y'], attributes: [{ name: 'axis', i: -1 }, { name: 'epsilon', f: a.eps }],
    }],
    outputs: (s) => ({ y: s.x }),
  },
  // x W + b for a 2D x (Gemm: the bias is loaded into the accumulator, no second pass).
  GenstudyLinear: {
    inputs: ['x', 'w', 'b'],
    weight: 'w',
    nodes: () => [{ op: 'Gemm', inputs: ['x', 'w', 'b'], outputs: ['y'] }],
    outputs: (s) => ({ y: [s.x[0], s.w[1]] }),
  },
  // GELU, tanh approximation (kind 0, com.microsoft FastGelu) or exact erf (kind 1, com.microsoft Gelu).
  GenstudyGelu: {
    inputs: ['x'],
    nodes: (a) => [{ op: a.kind === 0 ? 'FastGelu' : 'Gelu', domain: 'com.microsoft', inputs: ['x'], outputs: ['y'] }],
    outputs: (s) => ({ y: s.x }),
  },
  // RMSNorm as transformers' LlamaRMSNorm, x / sqrt(mean(x^2) + eps) * w over the last axis.
  GenstudyRmsNorm: {
    inputs: ['x', 'w'],
    nodes: (a) => [{
      op: 'SimplifiedLayerNormalization', inputs: ['x', 'w'], outputs: ['y'], attributes: [{ name: 'axis', i: -1 }, { name: 'epsilon', f: a.eps }],
    }],
    outputs: (s) => ({ y: s.x }),
  },
  // RMSNorm for training: y and each row's 1/sqrt(mean(x^2) + eps): x [N, H], w [H] -> y, inv [N, 1].
  GenstudyRmsNormTrain: {
    inputs: ['x', 'w'],
    nodes: (a) => [{
      op: 'SimplifiedLayerNormalization', inputs: ['x', 'w'], outputs: ['y', 'inv'],
      attributes: [{ name: 'axis', i: -1 }, { name: 'epsilon', f: a.eps }],
    }],
    outputs: (s) => ({ y: s.x, inv: [s.x[0], 1] }),
  },
  // RMSNorm's gradients, with xh = x inv and g = dy w: dx = inv (g - xh mean_row(g xh)),
  // dw = sum_rows(dy xh).
  GenstudyRmsNormGrad: {
    inputs: ['x', 'w', 'inv', 'dy'],
    nodes: () => [
      ROWS_AXIS,
      node('Mul', ['x', 'inv'], 'xh'), node('Mul', ['dy', 'xh'], 'dyxh'), colSum('dyxh', 'dw'),
      node('Mul', ['dy', 'w'], 'g'), node('Mul', ['g', 'xh'], 'gxh'), rowMean('gxh', 'm'),
      node('Mul', ['xh', 'm'], 't'), node('Sub', ['g', 't'], 'u'), node('Mul', ['u', 'inv'], 'dx'),
    ],
    outputs: (s) => ({ dx: s.x, dw: s.w }),
  },
  // LayerNorm for training: y, and each row's mean and 1/sqrt(var + eps) for the backward pass:
  // x [N, H], w [H], b [H] -> y [N, H], mean [N, 1], inv [N, 1].
  GenstudyLayerNormTrain: {
    inputs: ['x', 'w', 'b'],
    nodes: (a) => [{
      op: 'LayerNormalization', inputs: ['x', 'w', 'b'], outputs: ['y', 'mean', 'inv'],
      attributes: [{ name: 'axis', i: -1 }, { name: 'epsilon', f: a.eps }],
    }],
    outputs: (s) => ({ y: s.x, mean: [s.x[0], 1], inv: [s.x[0], 1] }),
  },
  // LayerNorm's gradients from what GenstudyLayerNormTrain kept, with xh = (x - mean) inv, g = dy w:
  // dx = inv (g - mean_row(g) - xh mean_row(g xh)), dw = sum_rows(dy xh), db = sum_rows(dy).
  GenstudyLayerNormGrad: {
    inputs: ['x', 'w', 'mean', 'inv', 'dy'],
    nodes: () => [
      ROWS_AXIS,
      node('Sub', ['x', 'mean'], 'xc'), node('Mul', ['xc', 'inv'], 'xh'),
      colSum('dy', 'db'), node('Mul', ['dy', 'xh'], 'dyxh'), colSum('dyxh', 'dw'),
      node('Mul', ['dy', 'w'], 'g'), rowMean('g', 'm1'), node('Mul', ['g', 'xh'], 'gxh'), rowMean('gxh', 'm2'),
      node('Sub', ['g', 'm1'], 't1'), node('Mul', ['xh', 'm2'], 't2'), node('Sub', ['t1', 't2'], 't3'), node('Mul', ['t3', 'inv'], 'dx'),
    ],
    outputs: (s) => ({ dx: s.x, dw: s.w, db: s.w }),
  },
  // GELU's gradient dy gelu'(x) for training (the forward is GenstudyGelu): tanh form (kind 0)
  //   gelu'(x) = (1 + t) / 2 + x (1 - t^2) c (1 + 3 a x^2) / 2,  t = tanh(c (x + a x^3)),
  //   c = sqrt(2 / pi), a = 0.044715; exact form (kind 1) gelu'(x) = Phi(x) + x phi(x).
  // The tape then keeps x alone, where the tfjs composition keeps five tensors of x's size.
  GenstudyGeluGrad: {
    inputs: ['x', 'dy'],
    nodes: (a) => {
      const k = constant, n = node;
      const c = Math.sqrt(2 / Math.PI), A = 0.044715;
      const head = [k('half', 0.5), k('one', 1), n('Mul', ['x', 'x'], 'x2')];
      const tail = [n('Add', ['left', 'right'], 'd'), n('Mul', ['d', 'dy'], 'dx')];
      if (a.kind === 0) {
        return [...head, k('a', A), k('c', c), k('a3', 3 * A),
          n('Mul', ['x2', 'a'], 'ax2'), n('Add', ['ax2', 'one'], 'in1'), n('Mul', ['x', 'in1'], 'in2'), n('Mul', ['in2', 'c'], 'u'),
          n('Tanh', ['u'], 't'), n('Add', ['t', 'one'], 'tp1'), n('Mul', ['tp1', 'half'], 'left'),
          n('Mul', ['t', 't'], 't2'), n('Sub', ['one', 't2'], 'omt2'), n('Mul', ['x2', 'a3'], 'a3x2'), n('Add', ['a3x2', 'one'], 'du1'),
          n('Mul', ['du1', 'c'], 'du'),
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
      {
        op: 'FusedMatMul', domain: 'com.microsoft', inputs: ['q', 'k'], outputs: ['s'],
        attributes: [{ name: 'transB', i: 1 }, { name: 'alpha', f: a.scale }],
      },
      { op: 'Add', inputs: ['s', 'mask'], outputs: ['sm'] },
      { op: 'Softmax', inputs: ['sm'], outputs: ['p'], attributes: [{ name: 'axis', i: -1 }] },
      { op: 'MatMul', inputs: ['p', 'v'], outputs: ['o'] },
      { op: 'Transpose', inputs: ['o'], outputs: ['y'], attributes: [{ name: 'perm', ints: [0, 2, 1, 3] }] },
    ],
    outputs: (s) => ({ y: [s.q[0], s.q[2], s.q[1], s.q[3]] }),
  },
  // The Llama family's attention from the projections, for inference without a cache: q [B, T, H * D],
  // k and v [B, T, KV * D], cos and sin [B, 1, T, D], mask [B, 1, T, T] -> y [B, T, H, D] and the
  // layer's cache, the rotated keys and the values as [B, KV, T, D]. Heads are split, rotary applied
  // (x cos + rotate_half(x) sin, as transformers' apply_rotary_pos_emb), and each group of H / KV
  // query heads attends to its key-value head as one [n T, D] block, so the key-value heads are never
  // repeated (transformers' repeat_kv gives the same scores, each computed once per query head).
  GenstudyRopeAttention: {
    inputs: ['q', 'k', 'v', 'cos', 'sin', 'mask'],
    nodes: ropeAttentionNodes,
    outputs: (s, a) => {
      const [b, t] = s.q;
      return { y: [b, t, a.heads, a.headDim], kc: [b, a.kvHeads, t, a.headDim], vc: [b, a.kvHeads, t, a.headDim] };
    },
  },
  // The same for training: also the probabilities p [B, KV, n T, T] and the rotated grouped queries
  // qg [B, KV, n T, D] (n = H / KV), which the backward pass reads.
  GenstudyRopeAttentionTrain: {
    inputs: ['q', 'k', 'v', 'cos', 'sin', 'mask'],
    nodes: ropeAttentionNodes,
    outputs: (s, a) => {
      const [b, t] = s.q, n = a.heads / a.kvHeads;
      return {
        y: [b, t, a.heads, a.headDim], kc: [b, a.kvHeads, t, a.headDim], vc: [b, a.kvHeads, t, a.headDim],
        p: [b, a.kvHeads, n * t, t], qg: [b, a.kvHeads, n * t, a.headDim],
      };
    },
  },
  // Its gradients: dy [B, T, H * D] and what the forward kept -> dq [B, T, H * D], dk and dv
  // [B, T, KV * D]. With the heads grouped, dv = p^T dO, ds = p (dO v^T - rowsum(dO v^T p)),
  // dq = scale ds k and dk = scale ds^T q (summing over each key-value head's n query heads), and the
  // rotary's transpose: dx = dr cos + rotate_half^T(dr sin), rotate_half^T(z) = concat(z2, -z1).
  GenstudyRopeAttentionGrad: {
    inputs: ['dy', 'p', 'qg', 'kc', 'vc', 'cos', 'sin'],
    nodes: (a) => {
      const fused = (x: string, y: string, out: string, attrs: { name: string; i?: number; f?: number }[]): OnnxNode =>
        ({ op: 'FusedMatMul', domain: 'com.microsoft', inputs: [x, y], outputs: [out], attributes: attrs as OnnxNode['attributes'] });
      const unrotate = (x: string, out: string): OnnxNode[] => [
        node('Mul', [x, 'cos'], `${x}c`), node('Mul', [x, 'sin'], `${x}s`),
        { op: 'Split', inputs: [`${x}s`], outputs: [`${x}s1`, `${x}s2`], attributes: [{ name: 'axis', i: -1 }] },
        node('Neg', [`${x}s1`], `${x}n1`), node('Concat', [`${x}s2`, `${x}n1`], `${x}r`, [{ name: 'axis', i: -1 }]),
        node('Add', [`${x}c`, `${x}r`], out),
      ];
      const tokens = (x: string, width: number, out: string): OnnxNode[] => [
        node('Transpose', [x], `${x}t`, [{ name: 'perm', ints: [0, 2, 1, 3] }]),
        { op: 'Constant', inputs: [], outputs: [`${out}_shape`], attributes: [{ name: 'value_ints', ints: [0, 0, width] }] },
        node('Reshape', [`${x}t`, `${out}_shape`], out),
      ];
      return [
        { op: 'Constant', inputs: [], outputs: ['dy_shape'], attributes: [{ name: 'value_ints', ints: [0, 0, a.heads, a.headDim] }] },
        { op: 'Constant', inputs: [], outputs: ['grouped'], attributes: [{ name: 'value_ints', ints: [0, a.kvHeads, -1, a.headDim] }] },
        { op: 'Constant', inputs: [], outputs: ['merged'], attributes: [{ name: 'value_ints', ints: [0, a.heads, -1, a.headDim] }] },
        { op: 'Constant', inputs: [], outputs: ['last'], attributes: [{ name: 'value_ints', ints: [-1] }] },
        node('Reshape', ['dy', 'dy_shape'], 'dy4'), node('Transpose', ['dy4'], 'dyh', [{ name: 'perm', ints: [0, 2, 1, 3] }]),
        node('Reshape', ['dyh', 'grouped'], 'dog'),
        fused('p', 'dog', 'dvh', [{ name: 'transA', i: 1 }]),
        fused('dog', 'vc', 'dp', [{ name: 'transB', i: 1 }]),
        node('Mul', ['dp', 'p'], 'dpp'), node('ReduceSum', ['dpp', 'last'], 'rs', [{ name: 'keepdims', i: 1 }]),
        node('Sub', ['dp', 'rs'], 'dps'), node('Mul', ['p', 'dps'], 'ds'),
        fused('ds', 'kc', 'dqg', [{ name: 'alpha', f: a.scale }]),
        fused('ds', 'qg', 'dkr', [{ name: 'transA', i: 1 }, { name: 'alpha', f: a.scale }]),
        node('Reshape', ['dqg', 'merged'], 'dqr'),
        ...unrotate('dqr', 'dqh'), ...unrotate('dkr', 'dkh'),
        ...tokens('dqh', a.heads * a.headDim, 'dq'), ...tokens('dkh', a.kvHeads * a.headDim, 'dk'), ...tokens('dvh', a.kvHeads * a.headDim, 'dv'),
      ];
    },
    outputs: (s, a) => {
      const [b, t] = s.dy;
      return { dq: s.dy, dk: [b, t, a.kvHeads * a.headDim], dv: [b, t, a.kvHeads * a.headDim] };
    },
  },
  // The same for right-padded rows whose positions start at 0 (scoring): onnxruntime's
  // GroupQueryAttention, which applies rotary from half-width cos/sin tables [T, D / 2]
  // (non-interleaved: rotate_half) and masks each row's keys past its length (seqlens: length - 1,
  // int32 [B]; total: T) and causally after computing every score of the call (fused-ops.ts runs long
  // rows in blocks of queries for that). q [B, T, H * D], k and v [B, T, KV * D] -> y [B, T, H * D]
  // and the cache [B, KV, T, D].
  GenstudyGroupQueryAttention: groupQueryAttention({ rotary: true, past: false }),
  // A later block of queries (positions past..past+S-1) over the keys and values of the blocks before
  // it (pk, pv [B, KV, past, D], already rotated) and its own -> y [B, S, H * D] and the cache
  // [B, KV, past + S, D]. fused-ops.ts's runBlocks gives one row's whole cache [1, KV, T, D] as both
  // pk / pv and the cache outputs (a shared buffer: the kernel reads the first total - S positions and
  // writes the block's own after them).
  GenstudyGroupQueryAttentionPast: groupQueryAttention({ rotary: true, past: true }),
  // The same kernel without rotary, for families with learned positions (GPT-2, OPT; as many key-value
  // heads as query heads): where the composed graph (GenstudyAttention) adds a [B, 1, T, T] mask to
  // every score, this one takes the rows' lengths.
  GenstudyCausalAttention: groupQueryAttention({ rotary: false, past: false }),
  GenstudyCausalAttentionPast: groupQueryAttention({ rotary: false, past: true }),
  // silu(gate) up, the SwiGLU of the Llama family's MLP: gate and up [N, I] -> [N, I].
  GenstudySwiGlu: {
    inputs: ['gate', 'up'],
    // com.microsoft QuickGelu with alpha 1 is gate sigmoid(gate) in one pass (MLAS's logistic, then the
    // product): the same numbers as Sigmoid and Mul, one pass over the slice fewer.
    nodes: () => [
      { op: 'QuickGelu', domain: 'com.microsoft', inputs: ['gate'], outputs: ['g'], attributes: [{ name: 'alpha', f: 1 }] },
      node('Mul', ['g', 'up'], 'y'),
    ],
    outputs: (s) => ({ y: s.gate }),
    elementwise: true,
  },
  // SwiGLU's gradients for training: with s = sigmoid(gate), d gate = dy up s (1 + gate (1 - s)) and
  // d up = dy gate s.
  GenstudySwiGluGrad: {
    inputs: ['gate', 'up', 'dy'],
    nodes: () => [
      constant('one', 1), node('Sigmoid', ['gate'], 's'), node('Mul', ['gate', 's'], 'gs'), node('Mul', ['dy', 'gs'], 'du'),
      node('Sub', ['one', 's'], 'oms'), node('Mul', ['gate', 'oms'], 't'), node('Add', ['t', 'one'], 't1'), node('Mul', ['s', 't1'], 'st'),
      node('Mul', ['dy', 'up'], 'dyu'), node('Mul', ['dyu', 'st'], 'dg'),
    ],
    outputs: (s) => ({ dg: s.gate, du: s.gate }),
    elementwise: true,
  },
  // x W + r for a 2D x and a residual r of the output's shape (Gemm loads r into the accumulator:
  // the residual add costs no pass of its own); with a bias b, x W + (r + b).
  GenstudyLinearResidual: {
    inputs: ['x', 'w', 'r'],
    weight: 'w',
    nodes: () => [{ op: 'Gemm', inputs: ['x', 'w', 'r'], outputs: ['y'] }],
    outputs: (s) => ({ y: [s.x[0], s.w[1]] }),
  },
  GenstudyLinearBiasResidual: {
    inputs: ['x', 'w', 'b', 'r'],
    weight: 'w',
    nodes: () => [node('Add', ['r', 'b'], 'c'), { op: 'Gemm', inputs: ['x', 'w', 'c'], outputs: ['y'] }],
    outputs: (s) => ({ y: [s.x[0], s.w[1]] }),
  },
  // log-softmax of each row read at its target, and the row's argmax (as a float): logits [N, V],
  // targets [N, 1] (int32) -> [N, 1] each; attr block: a divisor of V (blockedArgMax; 1 for ArgMax over V).
  GenstudyLogprobsAt: {
    inputs: ['logits', 'targets'],
    intInputs: ['targets'],
    nodes: (a) => [
      { op: 'LogSoftmax', inputs: ['logits'], outputs: ['ls'], attributes: [{ name: 'axis', i: 1 }] },
      { op: 'GatherElements', inputs: ['ls', 'targets'], outputs: ['lp'], attributes: [{ name: 'axis', i: 1 }] },
      ...(a.block > 1 ? blockedArgMax('logits', a.block, 'am64')
        : [node('ArgMax', ['logits'], 'am64', [{ name: 'axis', i: 1 }, { name: 'keepdims', i: 1 }])]),
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
    nodes: (a) => [{
      op: 'Split', inputs: ['x'], outputs: Array.from({ length: a.parts }, (_, i) => `y${i}`), attributes: [{ name: 'axis', i: a.axis }],
    }],
    outputs: (s, a) => Object.fromEntries(Array.from({ length: a.parts }, (_, i) => [`y${i}`, s.x.map((d, j) => (j === a.axis ? d / a.parts : d))])),
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

/** `nodes` less those that none of `outputs` depends on. */
function neededFor(nodes: OnnxNode[], outputs: string[]): OnnxNode[] {
  const needed = new Set(outputs);
  const kept: OnnxNode[] = [];
  for (const n of [...nodes].reverse()) {
    if (!n.outputs.some((o) => needed.has(o))) continue;
    kept.unshift(n);
    for (const i of n.inputs) needed.add(i);
  }
  return kept;
}

/** `def` computing only its outputs `names` (the same nodes for them, the rest left out). */
function only(def: OpDef, names: string[]): OpDef {
  return {
    ...def,
    nodes: (a) => neededFor(def.nodes(a), names),
    outputs: (s, a) => Object.fromEntries(Object.entries(def.outputs(s, a)).filter(([n]) => names.includes(n))),
  };
}

// A norm's dx alone, for a norm whose weights get no gradient (LoRA's frozen model): the reductions
// over rows for dw (and db) are left out.
OPS.GenstudyRmsNormGradDx = only(OPS.GenstudyRmsNormGrad, ['dx']);
OPS.GenstudyLayerNormGradDx = only(OPS.GenstudyLayerNormGrad, ['dx']);

function maskAxes(mask: number): number[] {
  const axes: number[] = [];
  for (let i = 0; mask >> i; i++) if (mask & (1 << i)) axes.push(i);
  return axes;
}

export function graphOf(def: OpDef, shapes: Record<string, number[]>, attrs: Attrs): OnnxGraph {
  const outShapes = def.outputs(shapes, attrs);
  return {
    nodes: def.nodes(attrs),
    inputs: def.inputs.map((n) => ({
      name: n, type: def.intInputs?.includes(n) ? OnnxType.int32 : OnnxType.float, shape: shapes[n].map((_, i) => `${n}${i}`),
    })),
    outputs: Object.entries(outShapes).map(([n, sh]) => ({ name: n, type: OnnxType.float, shape: sh.map((_, i) => `${n}${i}`) })),
    opsets: def.opsets ?? { '': 17, 'com.microsoft': 1 },
  };
}
