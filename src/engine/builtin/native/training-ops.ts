// Native ops for training on the native path (see op-graphs.ts for their graphs): LayerNorm, RMSNorm
// and GELU as custom-gradient ops whose backward passes are native too, and cross-entropy's forward and
// backward. They run only while the native path is on (fusedOpsAvailable());
// elsewhere the callers use the tfjs compositions, which these match (test/engine/native.test.ts).
import * as tf from '@tensorflow/tfjs-core';
import { nativeGelu, nativeSwiGlu, runNative } from './fused-ops.ts';
import type { WasmBackend } from '../wasm-backend.ts';
import { OPS } from './op-graphs.ts';
import { gradientMayReach } from '../autograd/tape-memory.ts';

/**
 * A norm over the last axis whose forward op (`train`) returns y and per-row statistics and whose
 * backward op (`grad`) takes x, the weight, those statistics and dy (in that input order, see
 * op-graphs.ts) and returns dx and the parameters' gradients. The tape keeps x and the statistics
 * (a number or two per row), where the tfjs composition keeps about five tensors of x's size. Where
 * no parameter's gradient can be asked for (frozen weights), `grad` + "Dx" computes dx alone and the
 * parameters' gradients are zeros that nothing reads.
 */
function rowNormTrainable(train: string, grad: string, x: tf.Tensor, params: tf.Tensor[], eps: number): tf.Tensor {
  const width = x.shape[x.rank - 1];
  const dxOnly = !params.some(gradientMayReach);
  if (dxOnly) grad = `${grad}Dx`;
  const named = (op: string, values: tf.Tensor[]) => Object.fromEntries(OPS[op].inputs.map((n, i) => [n, values[i]]));
  const fn = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const save = args.pop() as tf.GradSaveFunc;
    const [input, ...ps] = args as tf.Tensor[];
    const x2 = tf.reshape(input, [-1, width]);
    const [y, ...stats] = runNative(train, named(train, [x2, ...ps]), { eps }) as tf.Tensor[];
    save([x2, ps[0], ...stats]);
    return {
      value: tf.reshape(y, input.shape),
      // In a tidy: tfjs runs a custom gradient in the backward pass's own scope, so the reshaped dy
      // and the unreshaped dx (views sharing data) kept two row-sized buffers per norm until the
      // pass ended (~140 MB at SmolLM-135M's shape).
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.tidy(() => {
        const out = runNative(grad, named(grad, [...saved, tf.reshape(dy, [-1, width])]));
        if (dxOnly) return [tf.reshape(out as tf.Tensor, dy.shape), ...params.map((p) => tf.zerosLike(p))];
        const [dx, ...dps] = out as tf.Tensor[];
        return [tf.reshape(dx, dy.shape), ...dps];
      }),
    };
  });
  return fn(x, ...params) as tf.Tensor;
}

/** LayerNorm (weight and bias) with its gradients computed natively too. */
export function nativeLayerNormTrainable(x: tf.Tensor, w: tf.Tensor, b: tf.Tensor, eps: number): tf.Tensor {
  return rowNormTrainable('GenstudyLayerNormTrain', 'GenstudyLayerNormGrad', x, [w, b], eps);
}

/** RMSNorm with its gradients computed natively too. */
export function nativeRmsNormTrainable(x: tf.Tensor, w: tf.Tensor, eps: number): tf.Tensor {
  return rowNormTrainable('GenstudyRmsNormTrain', 'GenstudyRmsNormGrad', x, [w], eps);
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
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => runNative('GenstudyGeluGrad', { x: saved[0], dy }, { kind: exact ? 1 : 0 }) as tf.Tensor,
    };
  });
  return fn(x) as tf.Tensor;
}

/** Each row's log-softmax of x [N, V] and its value at the row's target (targets [N], int32). */
export function nativeLogSoftmaxAt(x: tf.Tensor2D, targets: tf.Tensor1D): { logp: tf.Tensor2D; gold: tf.Tensor1D } {
  const [logp, gold] = runNative('GenstudyLogSoftmaxAt', { x, targets: tf.reshape(targets, [-1, 1]) }) as tf.Tensor[];
  return { logp: logp as tf.Tensor2D, gold: tf.reshape(gold, [-1]) as tf.Tensor1D };
}

/** dy (exp(logp) - onehot(targets)) for logp [N, V], the rows' targets and a scalar dy. */
export function nativeCrossEntropyGrad(logp: tf.Tensor2D, targets: readonly number[], dy: tf.Tensor): tf.Tensor2D {
  const g = runNative('GenstudyScaledExp', { logp, dy: tf.reshape(dy, [1]) }) as tf.Tensor2D;
  const d = dy.dataSync()[0];
  const vocab = logp.shape[1];
  // g is a new output that nothing else has read: the one-hot term (one element per row) is
  // subtracted where it lies on the heap.
  const heap = (tf.backend() as unknown as WasmBackend).typedArrayFromHeap(g) as Float32Array;
  targets.forEach((t, i) => { heap[i * vocab + t] -= d; });
  return g;
}

/**
 * The Llama family's attention from its projections for training (GenstudyRopeAttentionTrain and
 * its gradient): the tape keeps the probabilities, the rotated queries and keys, the values and the
 * rotary tables, where the tfjs composition records some twenty wasm ops (rotary, head transposes,
 * repeated key-value heads, softmax) with their own saved tensors. q [B, T, H * D], k and v
 * [B, T, KV * D], cos and sin [B, 1, T, D], mask [B, 1, T, T] (constants) -> the merged heads
 * [B, T, H * D] and the layer's cache.
 */
export function nativeRopeAttentionTrainable(q: tf.Tensor, k: tf.Tensor, v: tf.Tensor, cos: tf.Tensor, sin: tf.Tensor, mask: tf.Tensor,
  heads: number, kvHeads: number, headDim: number, scale: number): { out: tf.Tensor3D; k: tf.Tensor4D; v: tf.Tensor4D } {
  const attrs = { heads, kvHeads, headDim, scale };
  let cache: { k: tf.Tensor4D; v: tf.Tensor4D } | undefined;
  const fn = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [qi, ki, vi, save] = args as [tf.Tensor, tf.Tensor, tf.Tensor, tf.GradSaveFunc];
    const [y, kc, vc, p, qg] = runNative('GenstudyRopeAttentionTrain', { q: qi, k: ki, v: vi, cos, sin, mask }, attrs) as tf.Tensor[];
    save([p, qg, kc, vc, cos, sin]);
    cache = { k: kc as tf.Tensor4D, v: vc as tf.Tensor4D };
    return {
      value: tf.reshape(y, qi.shape),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [sp, sqg, skc, svc, scos, ssin] = saved;
        return runNative('GenstudyRopeAttentionGrad', { dy, p: sp, qg: sqg, kc: skc, vc: svc, cos: scos, sin: ssin }, attrs) as tf.Tensor[];
      },
    };
  });
  const out = fn(q, k, v) as tf.Tensor3D;
  return { out, ...cache! };
}

/** SwiGLU, silu(gate) up, with its gradients computed natively too; the tape keeps gate and up. */
export function nativeSwiGluTrainable(gate: tf.Tensor, up: tf.Tensor): tf.Tensor {
  const fn = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [g, u, save] = args as [tf.Tensor, tf.Tensor, tf.GradSaveFunc];
    save([g, u]);
    return {
      value: nativeSwiGlu(g, u),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => runNative('GenstudySwiGluGrad', { gate: saved[0], up: saved[1], dy }) as tf.Tensor[],
    };
  });
  return fn(gate, up) as tf.Tensor;
}
