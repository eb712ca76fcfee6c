// Building blocks shared by the model families: linear layers, norms, activations, rotary position
// embeddings and causal self-attention with an optional KV cache. Every block is a pure function of
// tensors (no JS loops over tensor values), so training differentiates the same forward pass; what
// training adds (adapters on linear layers, dropout) comes in the model's TrainingContext.
//
// Linear weights are kept transposed ([in, out], see params.ts): on the wasm backend a matMul with the
// transposeB flag runs ~15x slower than a plain one (docs/design.md, "Gradients"; src/engine/README.md).
import * as tf from '@tensorflow/tfjs-core';
import { nativeMatMulActive } from './native/matmul-kernel.ts';
import type { Params } from './params.ts';
import {
  attentionByLengthsApplies, fusedOpsApply, fusedOpsAvailable, nativeAttention, nativeCausalAttention, nativeGelu, nativeLayerNorm, nativeLinear,
  nativeLinearResidual, nativeRmsNorm, nativeSwiGlu,
} from './native/fused-ops.ts';
import type { LayerCache, StepInputs } from './families/family.ts';
import { nativeGeluTrainable, nativeLayerNormTrainable, nativeRmsNormTrainable, nativeSwiGluTrainable } from './native/training-ops.ts';
import type { TrainingContext } from './training-context.ts';
import { withSlicedGrad } from './autograd/sliced-bmm.ts';

/** The model's dropout at `rate` (training-context.ts); the identity outside training. */
export function dropout(x: tf.Tensor, rate: number | undefined, training: TrainingContext | undefined): tf.Tensor {
  return training ? training.dropout(x, rate) : x;
}

/** y = x W + b (+ an attached adapter's term), with W in [in, out] layout; x may have any leading dimensions. */
export function linear(x: tf.Tensor, w: tf.Tensor, b?: tf.Tensor, training?: TrainingContext): tf.Tensor {
  const shape = x.shape;
  const x2 = tf.reshape(x, [-1, shape[shape.length - 1]]);
  let y: tf.Tensor;
  if (b && fusedOpsApply()) y = nativeLinear(x2 as tf.Tensor2D, w as tf.Tensor2D, b);
  else {
    y = tf.matMul(x2 as tf.Tensor2D, w as tf.Tensor2D);
    if (b) y = tf.add(y, b);
  }
  const adapter = training?.adapterOf(w);
  if (adapter) y = adapter(x2 as tf.Tensor2D, y as tf.Tensor2D);
  return tf.reshape(y, [...shape.slice(0, -1), w.shape[1] as number]);
}

/**
 * The residual stream plus a linear layer's output, h + dropout(x W + b): on the native path in
 * inference one product whose accumulator starts from h (no separate pass for the add).
 */
export function residualLinear(h: tf.Tensor, x: tf.Tensor, w: tf.Tensor, b: tf.Tensor | undefined, dropoutRate?: number,
  training?: TrainingContext): tf.Tensor {
  if (!fusedOpsApply() || training?.drops(dropoutRate) || training?.adapterOf(w)) {
    return tf.add(h, dropout(linear(x, w, b, training), dropoutRate, training));
  }
  const width = h.shape[h.rank - 1];
  const y = nativeLinearResidual(tf.reshape(x, [-1, x.shape[x.rank - 1]]) as tf.Tensor2D, w as tf.Tensor2D, b,
    tf.reshape(h, [-1, width]) as tf.Tensor2D);
  return tf.reshape(y, h.shape);
}

/** act(gate) up, the gated MLP's product (SwiGLU when act is SiLU: one native pass in inference). */
export function gated(act: (x: tf.Tensor) => tf.Tensor, gate: tf.Tensor, up: tf.Tensor): tf.Tensor {
  if (act === silu && fusedOpsApply()) return nativeSwiGlu(gate, up);
  if (act === silu && fusedOpsAvailable()) return nativeSwiGluTrainable(gate, up);
  return tf.mul(act(gate), up);
}

/**
 * Logits [N, vocab] of hidden rows [N, width]: lm_head.weight (kept [in, out], params.ts) or, when the
 * head is tied, the token embedding [vocab, width] used transposed. The native product takes the
 * transpose inside its kernel at full speed; on wasm the transposed embedding is made once and kept
 * (a transposed product there is ~15x slower).
 */
export function lmHead(p: Params, hidden: tf.Tensor2D, embedding: string): tf.Tensor2D {
  const head = p.maybe('lm_head.weight');
  if (head) return tf.matMul(hidden, head as tf.Tensor2D);
  if (nativeMatMulActive()) return tf.matMul(hidden, p.get(embedding) as tf.Tensor2D, false, true);
  return tf.matMul(hidden, p.derived('lm_head(tied)', () => tf.transpose(p.get(embedding))) as tf.Tensor2D);
}

/** LayerNorm; without weight and bias (elementwise_affine=False) it only normalises. */
export function layerNorm(x: tf.Tensor, weight: tf.Tensor | undefined, bias: tf.Tensor | undefined, eps: number): tf.Tensor {
  if (weight && bias && fusedOpsApply()) return nativeLayerNorm(x, weight, bias, eps);
  if (weight && bias && fusedOpsAvailable()) return nativeLayerNormTrainable(x, weight, bias, eps);
  const axis = x.rank - 1;
  const mean = tf.mean(x, axis, true);
  const centred = tf.sub(x, mean);
  const variance = tf.mean(tf.square(centred), axis, true);
  let y = tf.mul(centred, tf.rsqrt(tf.add(variance, eps)));
  if (weight) y = tf.mul(y, weight);
  return bias ? tf.add(y, bias) : y;
}

/** RMSNorm as in transformers' LlamaRMSNorm: x / sqrt(mean(x^2) + eps) * weight. */
export function rmsNorm(x: tf.Tensor, weight: tf.Tensor, eps: number): tf.Tensor {
  if (fusedOpsApply()) return nativeRmsNorm(x, weight, eps);
  if (fusedOpsAvailable()) return nativeRmsNormTrainable(x, weight, eps);
  const ms = tf.mean(tf.square(x), x.rank - 1, true);
  return tf.mul(tf.mul(x, tf.rsqrt(tf.add(ms, eps))), weight);
}

/**
 * The tanh approximation of GELU ("gelu_new", "gelu_pytorch_tanh"), 0.5 x (1 + tanh(z)) with
 * z = sqrt(2/pi) (x + 0.044715 x^3), computed as x sigmoid(2z) (the same function): on wasm, tanh and
 * pow are several times slower than sigmoid and multiplications.
 */
export function geluTanh(x: tf.Tensor): tf.Tensor {
  if (fusedOpsApply()) return nativeGelu(x, false);
  if (fusedOpsAvailable()) return nativeGeluTrainable(x, false);
  const c = 2 * Math.sqrt(2 / Math.PI);
  const inner = tf.mul(x, tf.add(c, tf.mul(c * 0.044715, tf.square(x))));
  return tf.mul(x, tf.sigmoid(inner));
}

/** Exact GELU, 0.5 x (1 + erf(x / sqrt 2)). */
export function geluErf(x: tf.Tensor): tf.Tensor {
  if (fusedOpsApply()) return nativeGelu(x, true);
  if (fusedOpsAvailable()) return nativeGeluTrainable(x, true);
  return tf.mul(tf.mul(0.5, x), tf.add(1, tf.erf(tf.mul(x, Math.SQRT1_2))));
}

export function silu(x: tf.Tensor): tf.Tensor {
  return tf.mul(x, tf.sigmoid(x));
}

export function activation(name: string): ((x: tf.Tensor) => tf.Tensor) | undefined {
  switch (name) {
    case 'gelu_new': case 'gelu_pytorch_tanh': case 'gelu_fast': return geluTanh;
    case 'gelu': return geluErf;
    case 'relu': return tf.relu;
    case 'silu': case 'swish': return silu;
    default: return undefined;
  }
}

/** [B, T, heads * headDim] -> [B, heads, T, headDim] */
export function splitHeads(x: tf.Tensor, heads: number, headDim: number): tf.Tensor4D {
  const [b, t] = x.shape;
  return tf.transpose(tf.reshape(x, [b, t, heads, headDim]), [0, 2, 1, 3]);
}

/** [B, heads, T, headDim] -> [B, T, heads * headDim] */
export function mergeHeads(x: tf.Tensor4D): tf.Tensor3D {
  const [b, h, t, d] = x.shape;
  return tf.reshape(tf.transpose(x, [0, 2, 1, 3]), [b, t, h * d]);
}

/** transformers' rotate_half: concat(-x2, x1) over the last axis. */
function rotateHalf(x: tf.Tensor): tf.Tensor {
  const half = x.shape[x.rank - 1] / 2;
  const [x1, x2] = tf.split(x, [half, half], x.rank - 1);
  return tf.concat([tf.neg(x2), x1], x.rank - 1);
}

/** Rotary embedding on [B, H, T, D] with cos/sin tables [B, 1, T, D]. */
export function applyRotary(x: tf.Tensor4D, cos: tf.Tensor, sin: tf.Tensor): tf.Tensor4D {
  return tf.add(tf.mul(x, cos), tf.mul(rotateHalf(x), sin)) as tf.Tensor4D;
}

/**
 * Causal self-attention on already projected heads. `mask` is an additive bias [B, 1, T, S] (0 where
 * a query may attend, a large negative number elsewhere) over the S = past + T key positions. Returns
 * the merged heads [B, T, heads * headDim] and this layer's cache (past and new keys/values).
 */
export function attention(q: tf.Tensor4D, k: tf.Tensor4D, v: tf.Tensor4D, mask: tf.Tensor, scale: number, past?: LayerCache, dropoutRate?: number,
  training?: TrainingContext): { out: tf.Tensor3D; cache: LayerCache } {
  if (past) {
    k = tf.concat([past.k, k], 2);
    v = tf.concat([past.v, v], 2);
  }
  const cache = { k, v };
  const [b, heads, t, d] = q.shape;
  const kvHeads = k.shape[1];
  const n = heads / kvHeads;
  // With a cache, each group of n query heads attends to its key-value head as one [n T, D] block
  // (rows: the group's heads in order, each with its t queries), the mask repeated per head, as
  // GenstudyRopeAttention does without one: the same scores as repeat_kv's, without copying the whole
  // cache n times in every layer at every decoding step (tfjs's Tile was 68% of a SmolLM-135M decoding
  // step's kernel time). Without a cache (training's dropout, the wasm path) the keys are repeated.
  const grouped = past !== undefined && n > 1;
  let kk: tf.Tensor4D = k;
  let vv: tf.Tensor4D = v;
  if (grouped) {
    q = tf.reshape(q, [b, kvHeads, n * t, d]) as tf.Tensor4D;
    mask = tf.tile(mask, [1, 1, n, 1]);
  } else if (n > 1) {
    kk = repeatKv(k, n);
    vv = repeatKv(v, n);
  }
  // The grouped rows come out as [B, n T, KV D]; each query's heads back in order: [B, T, H D].
  const ungroup = (y: tf.Tensor3D): tf.Tensor3D =>
    (grouped ? tf.reshape(tf.transpose(tf.reshape(y, [b, n, t, kvHeads, d]), [0, 2, 3, 1, 4]), [b, t, heads * d]) : y) as tf.Tensor3D;
  if (fusedOpsApply() && !training?.drops(dropoutRate)) return { out: ungroup(nativeAttention(q, kk, vv, mask, scale)), cache };
  // On wasm an explicit transpose + plain matMul (see the file header); the native product takes the
  // transpose flag at full speed. The scale goes on q, the smaller side.
  const qs = scale === 1 ? q : tf.mul(q, scale) as tf.Tensor4D;
  const scores = tf.add(nativeMatMulActive() ? tf.matMul(qs, kk, false, true) : bmm(qs, tf.transpose(kk, [0, 1, 3, 2])), mask);
  const probs = dropout(tf.softmax(scores), dropoutRate, training);
  return { out: ungroup(mergeHeads(bmm(probs as tf.Tensor4D, vv))), cache };
}

/** What a layer's attention reads of a forward pass's inputs. */
type AttentionInputs = Pick<StepInputs, 'mask' | 'past' | 'lengths' | 'training'>;

/**
 * Whether a forward pass attends by row lengths with onnxruntime's kernels: right-padded rows from
 * position 0 without a cache, in inference or without attention dropout (scoring; fused-ops.ts
 * attentionByLengthsApplies). Every family asks this once per pass, with its attention dropout rate.
 */
export function attendsByLengths(x: AttentionInputs, headDim: number, dropoutRate: number | undefined): boolean {
  return attentionByLengthsApplies(x, headDim, !!x.training?.drops(dropoutRate));
}

/**
 * Causal self-attention without rotary (GPT-2, OPT) for layer `layer`, on projected q, k and v
 * [B, T, heads * headDim]: onnxruntime's causal kernel by row lengths where `byLengths`
 * (attendsByLengths), else `attention` on the split heads with the pass's mask and the layer's cache.
 */
export function causalSelfAttention(x: AttentionInputs, layer: number, byLengths: boolean, q: tf.Tensor, k: tf.Tensor, v: tf.Tensor,
  heads: number, headDim: number, scale: number, dropoutRate: number | undefined): { out: tf.Tensor3D; cache: LayerCache } {
  if (byLengths) return nativeCausalAttention(q, k, v, x.lengths!, heads, headDim, scale);
  return attention(splitHeads(q, heads, headDim), splitHeads(k, heads, headDim), splitHeads(v, heads, headDim), x.mask, scale, x.past?.[layer],
    dropoutRate, x.training);
}

/** transformers' repeat_kv: [B, kvH, S, D] -> [B, kvH * n, S, D], each kv head used by n query heads. */
function repeatKv(x: tf.Tensor4D, n: number): tf.Tensor4D {
  const [b, h, s, d] = x.shape;
  return tf.reshape(tf.tile(tf.reshape(x, [b, h, 1, s, d]), [1, 1, n, 1, 1]), [b, h * n, s, d]);
}

/**
 * Batched matMul over the leading dimensions of rank-4 tensors. On wasm, a matMul with a batch
 * dimension runs a naive loop (~1 GFLOP/s) while a 2D one runs XNNPACK (~15 GFLOP/s), so there the
 * batch is cut into 2D products (cheap with the slice kernel of wasm-kernels.ts) and put back together.
 */
export function bmm(a: tf.Tensor4D, b: tf.Tensor4D): tf.Tensor4D {
  // The native product takes the batch whole (and its gradient is matMul's own, autograd/matmul-grad.ts).
  if (nativeMatMulActive()) return batched(a, b);
  // Under a gradient tape the sliced path's backward would pad every slice's gradient back to the
  // full batch (memory and time quadratic in the batch); bmmWithGrad gives it a sliced backward.
  if (tf.engine().isTapeOn()) return bmmWithGrad(a, b);
  return bmmForward(a, b);
}

const bmmWithGrad = withSlicedGrad(bmmForward);

/** One batched matMul over the flattened leading dimensions. */
function batched(a: tf.Tensor4D, b: tf.Tensor4D): tf.Tensor4D {
  const [n0, n1, m, k] = a.shape;
  const p = b.shape[3];
  return tf.reshape(tf.matMul(tf.reshape(a, [n0 * n1, m, k]) as tf.Tensor3D, tf.reshape(b, [n0 * n1, k, p]) as tf.Tensor3D), [n0, n1, m, p]);
}

function bmmForward(a: tf.Tensor4D, b: tf.Tensor4D): tf.Tensor4D {
  const [n0, n1, m, k] = a.shape;
  const p = b.shape[3];
  const n = n0 * n1;
  // Each 2D product costs ~3 ops of fixed overhead (~50 us); below ~25k multiply-adds per product
  // (e.g. one decoding step) the naive batched kernel is the faster one.
  if (n === 1 || m * k * p < 25000 || tf.getBackend() !== 'wasm') return batched(a, b);
  const a3 = tf.reshape(a, [n, m, k]);
  const b3 = tf.reshape(b, [n, k, p]);
  const parts: tf.Tensor2D[] = [];
  for (let i = 0; i < n; i++) {
    const ai = tf.reshape(tf.slice(a3, [i, 0, 0], [1, m, k]), [m, k]) as tf.Tensor2D;
    const bi = tf.reshape(tf.slice(b3, [i, 0, 0], [1, k, p]), [k, p]) as tf.Tensor2D;
    parts.push(tf.matMul(ai, bi));
  }
  return tf.reshape(tf.concat(parts, 0), [n0, n1, m, p]);
}

/** The rows of x [B, T, W] at flat indices `at` (row * T + position): [1, at.length, W]. */
function rowsAt(x: tf.Tensor, at: readonly number[]): tf.Tensor3D {
  const w = x.shape[x.rank - 1];
  return tf.reshape(tf.gather(tf.reshape(x, [-1, w]), tf.tensor1d([...at], 'int32')), [1, at.length, w]);
}

/**
 * The residual stream `h` and the attention output `att` that layer `layer` of `layers` continues
 * with after its attention: where only the final hidden states at `at` are read (StepInputs.at), the
 * last layer takes their rows there alone (everything after attention is row by row); otherwise both
 * as they are. At SmolLM-135M's shape, scoring the last 64 of 256 positions, the last layer's
 * o-projection and MLP then run on a quarter of the rows (~2% of a pass).
 */
export function afterAttention(at: readonly number[] | undefined, layer: number, layers: number, h: tf.Tensor3D, att: tf.Tensor3D):
  { h: tf.Tensor3D; att: tf.Tensor3D } {
  if (!at || layer !== layers - 1) return { h, att };
  return { h: rowsAt(h, at), att: rowsAt(att, at) };
}

/**
 * Runs one decoder layer in its own tidy scope, so that its intermediate tensors are freed as soon
 * as it returns rather than at the end of the whole forward pass (tensors that gradients need are
 * kept by tfjs's tape regardless).
 */
export function layerScope(h: tf.Tensor3D, body: (h: tf.Tensor3D) => { h: tf.Tensor3D; cache: LayerCache }): { h: tf.Tensor3D; cache: LayerCache } {
  const out = tf.tidy(() => {
    const r = body(h);
    return { h: r.h, k: r.cache.k, v: r.cache.v };
  });
  return { h: out.h, cache: { k: out.k, v: out.v } };
}
